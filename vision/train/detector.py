"""Train the card detector (oriented boxes, CenterNet-style), check it on unseen designs, export
it as ONNX.

Targets at every 4 px of the input: a Gaussian bump at each card's centre (cards at least
MIN_VISIBLE in view; around a card that shows less, the loss is not counted either way), and at
the centre cell the offset, log size and doubled-angle direction of its box.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch

from vision.geometry import Box, iou
from vision.train.data import DET_H, DET_W, MIN_VISIBLE, detector_shards
from vision.train.nets import MEAN, STD, DetectorNet, OneCycle, low_precision

STRIDE = 4
PAD_H = 224  # DET_H padded to a multiple of 32
GRID_H, GRID_W = PAD_H // STRIDE, DET_W // STRIDE


def load(folder: Path) -> tuple[np.ndarray, list[np.ndarray]]:
    frames, boxes = [], []
    for f, b in detector_shards(folder):
        frames.append(f)
        boxes += b
    return np.concatenate(frames), boxes


def _flip(img: np.ndarray, boxes: np.ndarray, horizontal: bool) -> tuple[np.ndarray, np.ndarray]:
    b = boxes.copy()
    if horizontal:
        img = img[:, ::-1]
        b[:, 0] = img.shape[1] - b[:, 0]
    else:
        img = img[::-1]
        b[:, 1] = img.shape[0] - b[:, 1]
    b[:, 4] = (math.pi - b[:, 4]) % math.pi
    return img, b


def _zoom(img: np.ndarray, boxes: np.ndarray, rng: np.random.Generator
          ) -> tuple[np.ndarray, np.ndarray]:
    """Scale by 0.75..1.35 about a random point, keeping the frame size (cards change size)."""
    s = float(np.exp(rng.uniform(np.log(0.75), np.log(1.35))))
    h, w = img.shape[:2]
    cx, cy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
    m = np.float32([[s, 0, cx - s * cx], [0, s, cy - s * cy]])
    out = cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REFLECT)
    b = boxes.copy()
    b[:, 0] = s * b[:, 0] + m[0, 2]
    b[:, 1] = s * b[:, 1] + m[1, 2]
    b[:, 2:4] *= s
    inside = (b[:, 0] >= 0) & (b[:, 0] < w) & (b[:, 1] >= 0) & (b[:, 1] < h)
    b[~inside, 5] = 0.0  # centres pushed out of view: not to be found
    return np.ascontiguousarray(out), b


def targets(boxes: np.ndarray) -> tuple[np.ndarray, ...]:
    """(heat, ignore, regression (6), positive mask) on the GRID_H x GRID_W grid."""
    heat = np.zeros((GRID_H, GRID_W), np.float32)
    ignore = np.zeros((GRID_H, GRID_W), bool)
    reg = np.zeros((6, GRID_H, GRID_W), np.float32)
    pos = np.zeros((GRID_H, GRID_W), bool)
    ys, xs = np.mgrid[0:GRID_H, 0:GRID_W].astype(np.float32)
    for cx, cy, w, h, angle, visible, _hand in boxes:
        gx, gy = cx / STRIDE, cy / STRIDE
        if not (0 <= gx < GRID_W and 0 <= gy < GRID_H):
            continue
        ix, iy = int(gx), int(gy)
        if visible < MIN_VISIBLE:
            if visible >= 0.15:  # half hidden: neither a centre nor "no card" is taught there
                ignore |= (xs - gx) ** 2 + (ys - gy) ** 2 <= 4.0
            continue
        sigma = max(0.7, 0.13 * w / STRIDE)
        heat = np.maximum(heat, np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * sigma ** 2)))
        heat[iy, ix] = 1.0
        pos[iy, ix] = True
        reg[:, iy, ix] = [gx - ix, gy - iy, math.log(w / STRIDE), math.log(h / STRIDE),
                          math.cos(2 * angle), math.sin(2 * angle)]
    ignore &= heat < 0.5
    return heat, ignore, reg, pos


def as_input(frames: np.ndarray) -> torch.Tensor:
    """Shrunk frames (N, DET_H, DET_W, 3 uint8) as the network takes them: padded to PAD_H
    rows, normalised, NCHW."""
    padded = np.zeros((len(frames), PAD_H, DET_W, 3), np.uint8)
    padded[:, :DET_H] = frames
    return (torch.from_numpy(padded).permute(0, 3, 1, 2).float() / 255.0 - MEAN) / STD


def batch_of(frames: np.ndarray, boxes: list[np.ndarray], idx: np.ndarray,
             rng: np.random.Generator, train: bool = True) -> tuple[torch.Tensor, ...]:
    imgs, heats, ignores, regs, poss = [], [], [], [], []
    for i in idx:
        img, b = frames[i], boxes[i]
        if train:
            if rng.random() < 0.5:
                img, b = _flip(img, b, True)
            if rng.random() < 0.5:
                img, b = _flip(img, b, False)
            if rng.random() < 0.5:
                img, b = _zoom(np.ascontiguousarray(img), b, rng)
        imgs.append(img)
        heat, ign, reg, pos = targets(b)
        heats.append(heat)
        ignores.append(ign)
        regs.append(reg)
        poss.append(pos)
    x = as_input(np.stack(imgs))
    if train:
        n = x.shape[0]
        gen = torch.Generator().manual_seed(int(rng.integers(1 << 31)))
        gain = 1 + 0.1 * torch.randn(n, 3, 1, 1, generator=gen)
        contrast = torch.exp(0.2 * torch.randn(n, 1, 1, 1, generator=gen))
        mean = x.mean(dim=(1, 2, 3), keepdim=True)
        x = (x - mean) * contrast * gain + mean + 0.25 * torch.randn(n, 1, 1, 1, generator=gen)
    return (x, torch.from_numpy(np.stack(heats)), torch.from_numpy(np.stack(ignores)),
            torch.from_numpy(np.stack(regs)), torch.from_numpy(np.stack(poss)))


def loss_of(out: torch.Tensor, heat: torch.Tensor, ignore: torch.Tensor, reg: torch.Tensor,
            pos: torch.Tensor) -> torch.Tensor:
    p = torch.sigmoid(out[:, 0]).clamp(1e-4, 1 - 1e-4)
    is_pos = heat >= 1.0
    pos_loss = -((1 - p) ** 2 * torch.log(p))[is_pos].sum()
    neg_w = (1 - heat) ** 4 * (~ignore) * (~is_pos)
    neg_loss = -(neg_w * p ** 2 * torch.log(1 - p)).sum()
    n = max(1, int(is_pos.sum()))
    focal = (pos_loss + neg_loss) / n
    m = pos[:, None].expand_as(reg)
    pred = torch.cat([torch.sigmoid(out[:, 1:3]), out[:, 3:7]], dim=1)
    diff = (pred - reg).abs()[m].view(-1)
    reg_loss = diff.sum() / n
    return focal + reg_loss


def decode(maps: np.ndarray, threshold: float, scale: float = 1.0) -> list[tuple[Box, float]]:
    """(box in frame px, score) for every peak above `threshold` in one (7, H, W) output;
    `scale` = frame px per input px."""
    from vision.detect import decode as runtime_decode

    return runtime_decode(maps, threshold, scale)


def match(found: list[tuple[Box, float]], boxes: np.ndarray) -> dict:
    """Found boxes against the truth (cards at least MIN_VISIBLE in view must be found; a box
    on no card showing at least 15 % is a phantom)."""
    must = [b for b in boxes if b[5] >= MIN_VISIBLE]
    somewhat = [b for b in boxes if b[5] >= 0.15]
    got, ious, phantoms = 0, [], 0
    used: set[int] = set()
    for t in must:
        best, best_d = None, 0.5 * t[2]
        for k, (b, _) in enumerate(found):
            d = math.hypot(b.cx - t[0], b.cy - t[1])
            if k not in used and d < best_d:
                best, best_d = k, d
        if best is not None:
            used.add(best)
            got += 1
            truth = Box(*map(float, t[:5]))
            ious.append(iou(found[best][0].quad(), truth.quad()))
    for k, (b, _) in enumerate(found):
        if k in used:
            continue
        if not any(math.hypot(b.cx - t[0], b.cy - t[1]) < 0.6 * t[2] for t in somewhat):
            phantoms += 1
    return {"must": len(must), "found": got, "phantoms": phantoms, "ious": ious}


def evaluate(model: DetectorNet, frames: np.ndarray, boxes: list[np.ndarray],
             thresholds: tuple[float, ...] = (0.2, 0.3, 0.4, 0.5)) -> dict:
    model.eval()
    rng = np.random.default_rng(0)
    maps = []
    with torch.no_grad():
        for i in range(0, len(frames), 32):
            idx = np.arange(i, min(len(frames), i + 32))
            x = batch_of(frames, boxes, idx, rng, train=False)[0]
            maps.append(model(x).float().numpy())
    maps_all = np.concatenate(maps)
    out = {}
    for t in thresholds:
        must = found = phantoms = 0
        ious: list[float] = []
        for m, b in zip(maps_all, boxes, strict=True):
            r = match(decode(m, t), b)
            must += r["must"]
            found += r["found"]
            phantoms += r["phantoms"]
            ious += r["ious"]
        out[t] = {"recall": found / max(1, must), "phantoms_per_frame": phantoms / len(frames),
                  "iou_median": float(np.median(ious)) if ious else 0.0,
                  "iou_p10": float(np.percentile(ious, 10)) if ious else 0.0}
    return out


def train(train_dirs: list[Path], calib_dir: Path, out_dir: Path, epochs: int = 12,
          batch: int = 32, seed: int = 20261124, threads: int = 2, limit: int | None = None,
          start: Path | None = None, lr: float = 3e-3) -> dict:
    """Train on the frames of every folder of `train_dirs`; `start`: weights to fine-tune from
    (a detector.pt) instead of from scratch, usually with a smaller `lr`."""
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    sets = [load(d) for d in train_dirs]
    frames = np.concatenate([f for f, _ in sets])
    boxes = [b for _, bs in sets for b in bs]
    del sets
    if limit:
        frames, boxes = frames[:limit], boxes[:limit]
    cal_frames, cal_boxes = load(calib_dir)
    print(f"detector: {len(frames)} training frames, {len(cal_frames)} calibration frames",
          file=sys.stderr, flush=True)
    model = DetectorNet().to(memory_format=torch.channels_last)
    if start is not None:
        model.load_state_dict(torch.load(start, map_location="cpu"))
    steps = epochs * math.ceil(len(frames) / batch)
    train = OneCycle(model, lr=lr, weight_decay=1e-4, steps=steps)
    began = time.time()
    for epoch in range(epochs):
        model.train()
        order = rng.permutation(len(frames))
        total = 0.0
        for k in range(0, len(frames), batch):
            x, heat, ign, reg, pos = batch_of(frames, boxes, order[k:k + batch], rng)
            with low_precision():
                out = model(x.contiguous(memory_format=torch.channels_last))
            loss = loss_of(out.float(), heat, ign, reg, pos)
            train.step(loss)
            total += loss.item() * len(x)
        stats = evaluate(model, cal_frames[:300], cal_boxes[:300], (0.3,))
        print(f"detector: epoch {epoch + 1}/{epochs} loss {total / len(frames):.4f} calib "
              f"{stats[0.3]} ({time.time() - began:.0f} s)", file=sys.stderr, flush=True)
    stats = evaluate(model, cal_frames, cal_boxes)
    meta = {"input_width": DET_W, "stride": STRIDE, "mean": MEAN, "std": STD,
            "threshold": 0.3, "calibration": {str(k): v for k, v in stats.items()},
            "trained_on": len(frames), "epochs": epochs, "seed": seed,
            "fine_tuned_from": start.name if start else None}
    export(model, out_dir, meta)
    torch.save(model.state_dict(), out_dir / "detector.pt")
    print(f"detector: calib {stats}", file=sys.stderr, flush=True)
    return meta


def export(model: DetectorNet, out_dir: Path, meta: dict) -> None:
    model.eval()
    out_dir.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, PAD_H, DET_W)
    torch.onnx.export(model, (dummy,), str(out_dir / "detector.onnx"), input_names=["frame"],
                      output_names=["maps"], opset_version=17,
                      dynamic_axes={"frame": {2: "h", 3: "w"}, "maps": {2: "gh", 3: "gw"}},
                      dynamo=False)
    (out_dir / "detector.json").write_text(json.dumps(meta, indent=1) + "\n")


if __name__ == "__main__":
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "var/train-data")
    train([root / "detector-train", root / "detector-games"], root / "detector-calib",
          Path("var/models"), epochs=int(sys.argv[2]) if len(sys.argv) > 2 else 12)
