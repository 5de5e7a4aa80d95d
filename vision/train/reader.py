"""Train the card reader, calibrate it on typefaces it never saw, export it as ONNX.

Calibration (on the `calib` set: fonts never trained on): a temperature that makes the
probabilities honest, then the abstention line, the lowest confidence at which at most
`MAX_WRONG` of the set's crops are read as another card. Below it the reader says `unknown`.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812
from torch import nn

from vision.read import fit_temperature, per_card, softmax
from vision.train.data import load_reader_set, set_classes
from vision.train.nets import MEAN, STD, OneCycle, ReaderNet, low_precision
from vision.types import CardId, CardLabelError

MAX_WRONG = 0.0005  # confidently wrong reads allowed on the calibration set (of all its crops)


def as_input(batch_u8: torch.Tensor) -> torch.Tensor:
    """uint8 NHWC BGR -> float NCHW, normalised as the export expects."""
    x = batch_u8.permute(0, 3, 1, 2).float() / 255.0
    return (x - MEAN) / STD


def augment(x: torch.Tensor, y: torch.Tensor, g: torch.Generator, reject: int,
            recolour: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Photometric changes and 180-degree turns (the label's orientation turns too; `reject`:
    the class of "no card"). Cards whose colours say nothing of what they are (`recolour`, a
    mask over the cards: playing cards, which some decks print in four colours) have their
    colour channels swapped or dropped now and then, so that a suit is read by its shape."""
    n = x.shape[0]
    turn = torch.rand(n, generator=g) < 0.5
    x = torch.where(turn[:, None, None, None], x.flip(2, 3), x)
    y = torch.where(turn & (y < reject), y ^ 1, y)
    if recolour is not None:
        x = _recoloured(x, y, g, reject, recolour)
    x = reshaped(x, g)
    x = restroked(x, g)
    # white balance, contrast, brightness (in normalised units)
    gain = 1 + 0.12 * torch.randn(n, 3, 1, 1, generator=g)
    contrast = torch.exp(0.2 * torch.randn(n, 1, 1, 1, generator=g))
    shift = 0.3 * torch.randn(n, 1, 1, 1, generator=g)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * contrast * gain + mean + shift
    blur = torch.rand(n, generator=g) < 0.2
    if blur.any():
        k = torch.tensor([1.0, 2.0, 1.0])
        k = (k[:, None] * k[None, :] / 16).expand(3, 1, 3, 3)
        x[blur] = F.conv2d(x[blur], k, padding=1, groups=3)
    noise = torch.rand(n, 1, 1, 1, generator=g) * 0.15
    x = x + noise * torch.randn(x.shape, generator=g)
    cut = torch.nonzero(torch.rand(n, generator=g) < 0.1).flatten().tolist()
    for i in cut:  # a small occluder (a fingertip, a card's corner)
        h, w = int(torch.randint(8, 30, (1,), generator=g)), int(torch.randint(8, 24, (1,),
                                                                               generator=g))
        r = int(torch.randint(0, 96 - h, (1,), generator=g))
        c = int(torch.randint(0, 64 - w, (1,), generator=g))
        x[i, :, r:r + h, c:c + w] = torch.randn(3, 1, 1, generator=g)
    return x, y


RECOLOUR_P = 0.4  # of a recolourable card's crops: half swap channels, half go grey
RESHAPE_P = 0.7   # of all crops: warped a little, as a box off the card and a typeface unlike
                  # any trained on would (an affine step and a smooth elastic field)
RESTROKE_P = 0.3  # of all crops: strokes made bolder or thinner by a pixel


def reshaped(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Some crops warped: scaled, turned, sheared and shifted a little (a detector's box is never
    quite the card's), then bent by a smooth random field, so that a numeral's shape varies the
    way typefaces do (Simard et al.'s elastic distortions for handwritten digits)."""
    n = x.shape[0]
    pick = torch.nonzero(torch.rand(n, generator=g) < RESHAPE_P).flatten()
    if len(pick) == 0:
        return x
    m = len(pick)
    scale = torch.exp(0.05 * torch.randn(m, generator=g))
    angle = torch.deg2rad(2.0 * torch.randn(m, generator=g))
    shear = 0.06 * torch.randn(m, generator=g)
    shift = 0.03 * torch.randn(m, 2, generator=g)
    cos, sin = torch.cos(angle) * scale, torch.sin(angle) * scale
    theta = torch.stack([torch.stack([cos, -sin + shear, shift[:, 0]], 1),
                         torch.stack([sin, cos, shift[:, 1]], 1)], 1)
    grid = F.affine_grid(theta, [m, 3, x.shape[2], x.shape[3]], align_corners=False)
    coarse = 0.03 * torch.randn(m, 2, 6, 4, generator=g)  # displacement at 16 px, smoothed up
    field = F.interpolate(coarse, size=x.shape[2:], mode="bicubic", align_corners=False)
    grid = grid + field.permute(0, 2, 3, 1)
    x = x.clone()
    x[pick] = F.grid_sample(x[pick], grid, mode="bilinear", padding_mode="border",
                            align_corners=False)
    return x


def restroked(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Some crops' dark strokes made bolder (a 3 x 3 minimum) or thinner (a maximum), partly: a
    typeface's weight varies from hairline to black."""
    n = x.shape[0]
    pick = torch.nonzero(torch.rand(n, generator=g) < RESTROKE_P).flatten()
    if len(pick) == 0:
        return x
    part = x[pick]
    which = (torch.rand(len(pick), 1, 1, 1, generator=g) < 0.5)
    how = 0.3 + 0.7 * torch.rand(len(pick), 1, 1, 1, generator=g)
    sign = torch.where(which, -1.0, 1.0)  # a minimum is a maximum of the negated crop
    x = x.clone()
    x[pick] = part + how * (sign * max3x3(sign * part) - part)
    return x


def max3x3(x: torch.Tensor) -> torch.Tensor:
    """F.max_pool2d(x, 3, 1, 1), as two passes of shifted maxima (exact, a sixth of its time on
    the CPU)."""
    p = F.pad(x, (1, 1, 1, 1), mode="replicate")
    rows = torch.maximum(torch.maximum(p[..., :, :-2], p[..., :, 1:-1]), p[..., :, 2:])
    return torch.maximum(torch.maximum(rows[..., :-2, :], rows[..., 1:-1, :]), rows[..., 2:, :])


def digit_targets(classes: tuple[str, ...]) -> torch.Tensor | None:
    """(classes, 3): each card's kind (0 number, 1 scoring, 2 a zero), tens and units digits,
    for a deck of Tightrope's cards (None for another game's). Read beside the card, they make
    the network learn a 4 once for the 4, 14, 24, 34, 41 to 49 and the scoring 4, not 15 times:
    what carries over to a typeface it never saw."""
    try:
        cards = [CardId.from_label(c) for c in classes]
    except CardLabelError:
        return None
    kind = [2 if c.colour else int(c.kind == "scoring") for c in cards]
    return torch.tensor([[k, c.value // 10, c.value % 10] for k, c in zip(kind, cards,
                                                                          strict=True)])


DIGIT_SIZES = (3, 6, 10)  # kinds, tens digits (0-5), units digits
DIGIT_WEIGHT = 0.3        # of the digits' loss beside the cards'


def digit_loss(aux: nn.Linear, e: torch.Tensor, y: torch.Tensor, reject: int,
               targets: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of the kind, tens and units heads on the crops of a card."""
    card = y < reject
    if not bool(card.any()):
        return e.sum() * 0.0
    want = targets[y[card] // 2]
    out = aux(e[card].float()).split(DIGIT_SIZES, dim=1)
    return sum(F.cross_entropy(o, want[:, k]) for k, o in enumerate(out)) / len(out)


def _recoloured(x: torch.Tensor, y: torch.Tensor, g: torch.Generator, reject: int,
                recolour: torch.Tensor) -> torch.Tensor:
    card = torch.where(y < reject, y // 2, 0)
    pick = (y < reject) & recolour[card] & (torch.rand(len(y), generator=g) < RECOLOUR_P)
    idx = torch.nonzero(pick).flatten()
    if len(idx) == 0:
        return x
    x = x.clone()
    grey = torch.rand(len(idx), generator=g) < 0.5
    x[idx[grey]] = x[idx[grey]].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    for i in idx[~grey].tolist():
        x[i] = x[i, torch.randperm(3, generator=g)]
    return x


def logits_of(model: ReaderNet, crops: np.ndarray, batch: int = 1024) -> np.ndarray:
    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(crops), batch):
            x = as_input(torch.from_numpy(crops[i:i + batch]))
            out.append(model(x)[0].float().numpy())
    return np.concatenate(out)


def abstention_line(conf: np.ndarray, wrong: np.ndarray, max_wrong: float = MAX_WRONG) -> float:
    """The lowest confidence above which at most `max_wrong` of all reads are wrong."""
    allowed = int(max_wrong * len(conf))
    wrong_conf = np.sort(conf[wrong])[::-1]
    if len(wrong_conf) <= allowed:
        return 0.5
    return float(max(0.5, min(0.9999, wrong_conf[allowed] + 1e-6)))


def evaluate(p_card: np.ndarray, y: np.ndarray, visible: np.ndarray, line: float) -> dict:
    """Reads at `line` of per-card probabilities (`per_card`) against class labels y."""
    n = p_card.shape[1] - 1  # cards
    truth = np.where(y == 2 * n, n, y // 2)
    best = p_card.argmax(axis=1)
    conf = p_card.max(axis=1)
    must = (truth < n) & (visible >= 0.45)
    sure = (conf >= line) & (best < n)
    return {
        "cards": int(must.sum()),
        "right": float((sure & (best == truth))[must].mean()),
        "abstained": float((~sure)[must].mean()),
        "wrong": float((sure & (best != truth))[must].mean()),
        "reject_right": float((best == n)[truth == n].mean()),
        "phantom": float(sure[truth == n].mean()),
        "top1": float((best == truth)[must].mean()),
    }


def train(train_dir: Path | list[Path], calib_dir: Path, out_dir: Path, epochs: int = 8,
          batch: int = 256,
          seed: int = 20261123, threads: int = 2, limit: int | None = None,
          name: str = "reader", start: Path | None = None, lr: float = 2e-3,
          recolour: tuple[str, ...] = ()) -> dict:
    """Train the reader `name` on the cards its training set is labelled with; `start`: begin
    from these weights (a reader.pt; its last layer too where it has the same classes);
    `recolour`: the cards whose colours the training swaps (`augment`)."""
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    g = torch.Generator().manual_seed(seed)
    train_dirs = train_dir if isinstance(train_dir, list) else [train_dir]
    classes = set_classes(train_dirs[0])
    for other in [*train_dirs[1:], calib_dir]:
        if set_classes(other) != classes:
            raise ValueError(f"{other} is labelled with other cards than {train_dirs[0]}")
    reject = 2 * len(classes)
    recolourable = torch.tensor([c in recolour for c in classes]) if recolour else None
    crops, labels, _ = load_reader_set(*train_dirs)
    if limit:
        crops, labels = crops[:limit], labels[:limit]
    cal_crops, cal_labels, cal_visible = load_reader_set(calib_dir)
    print(f"reader: {len(crops)} training crops, {len(cal_crops)} calibration crops",
          file=sys.stderr, flush=True)
    xs, ys = torch.from_numpy(crops), torch.from_numpy(labels)
    model = ReaderNet(reject + 1)
    if start is not None:
        weights = torch.load(start, map_location="cpu")
        if weights["head.weight"].shape != model.head.weight.shape:  # other cards: a new head
            weights = {k: v for k, v in weights.items() if not k.startswith("head.")}
        model.load_state_dict(weights, strict=False)
    model = model.to(memory_format=torch.channels_last)
    targets = digit_targets(classes)
    aux = nn.Linear(model.head.in_features, sum(DIGIT_SIZES))  # training only: not exported
    steps = epochs * math.ceil(len(xs) / batch)
    train = OneCycle(nn.ModuleList([model, aux]), lr=lr, weight_decay=5e-4, steps=steps)
    began = time.time()
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(xs), generator=g)
        total = 0.0
        for k in range(0, len(xs), batch):
            idx = order[k:k + batch]
            x, y = augment(as_input(xs[idx]), ys[idx], g, reject, recolourable)
            x = x.contiguous(memory_format=torch.channels_last)
            with low_precision():
                logits, e = model(x)
            loss = F.cross_entropy(logits.float(), y, label_smoothing=0.02)
            if targets is not None:
                loss = loss + DIGIT_WEIGHT * digit_loss(aux, e, y, reject, targets)
            train.step(loss)
            total += loss.item() * len(idx)
            if (k // batch) % 200 == 199:
                print(f"reader: epoch {epoch + 1}, {k + len(idx)} of {len(xs)} crops "
                      f"({time.time() - began:.0f} s)", file=sys.stderr, flush=True)
        p = per_card(softmax(logits_of(model, cal_crops)))
        stats = evaluate(p, cal_labels, cal_visible, 0.5)
        print(f"reader: epoch {epoch + 1}/{epochs} loss {total / len(xs):.4f} "
              f"calib top-1 {stats['top1']:.4f} rejects {stats['reject_right']:.4f} "
              f"({time.time() - began:.0f} s)", file=sys.stderr, flush=True)
    logits = logits_of(model, cal_crops)
    temperature = fit_temperature(logits, cal_labels)
    meta = {"classes": list(classes), "temperature": temperature, "line": 0.5,
            "input": [96, 64], "mean": MEAN, "std": STD, "trained_on": len(xs),
            "epochs": epochs, "seed": seed, "from": start.name if start else None,
            "recoloured": len(recolour)}
    export(model, out_dir, meta, name)
    torch.save(model.state_dict(), out_dir / f"{name}.pt")
    torch.save(aux.state_dict(), out_dir / f"{name}-digits.pt")  # the digit heads, for study
    meta["line"], meta["calibration"] = runtime_line(out_dir / f"{name}.onnx", cal_crops,
                                                     cal_labels, cal_visible)
    (out_dir / f"{name}.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"reader: temperature {temperature:.3f}, line {meta['line']:.4f}; calib "
          f"{meta['calibration']}", file=sys.stderr, flush=True)
    return meta


def runtime_line(path: Path, crops: np.ndarray, labels: np.ndarray, visible: np.ndarray
                 ) -> tuple[float, dict]:
    """The abstention line of the exported reader (`path`, its .onnx) as the product reads
    (both looks, combined, through onnxruntime), fitted on the calibration crops, and what it
    gives there."""
    from vision.network import load
    from vision.read import Reader, combine

    network = load(path)
    reader = Reader(network, names=tuple(network.meta["classes"]))
    qs, agrees = [], []
    for i in range(0, len(crops), 512):
        part = list(crops[i:i + 512])
        logits, _ = reader.forward(part)
        p = softmax(logits / reader.temperature)
        q, agree = combine(p[:len(part)], p[len(part):])
        qs.append(q)
        agrees.append(agree)
    q, agree = np.concatenate(qs), np.concatenate(agrees)
    cards = per_card(q)
    n = cards.shape[1] - 1  # cards
    truth = np.where(labels == 2 * n, n, labels // 2)
    best = cards[:, :n].argmax(axis=1)
    conf = cards[np.arange(len(q)), best]
    taken = agree & (conf > cards[:, n])
    line = abstention_line(conf, taken & (best != truth))
    sure = taken & (conf >= line)
    must = (truth < n) & (visible >= 0.45)
    stats = {"cards": int(must.sum()), "right": float((sure & (best == truth))[must].mean()),
             "wrong": float((sure & (best != truth))[must].mean()),
             "abstained": float((~sure)[must].mean()),
             "phantom": float(sure[truth == n].mean())}
    return line, stats


def export(model: ReaderNet, out_dir: Path, meta: dict, name: str = "reader") -> None:
    model.eval()
    out_dir.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, 96, 64)
    torch.onnx.export(model, (dummy,), str(out_dir / f"{name}.onnx"), input_names=["crops"],
                      output_names=["logits", "embedding"], opset_version=17,
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}, "embedding": {0: "n"}},
                      dynamo=False)
    (out_dir / f"{name}.json").write_text(json.dumps(meta, indent=1) + "\n")
    # the last layer on its own: a taught deck starts from it (vision.teach)
    np.savez(out_dir / f"{name}-head.npz", w=model.head.weight.detach().numpy().T.copy(),
             b=model.head.bias.detach().numpy().copy())


if __name__ == "__main__":
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "var/train-data")
    train([root / "reader-train", root / "reader-train-2"], root / "reader-calib",
          Path("var/models"), epochs=int(sys.argv[2]) if len(sys.argv) > 2 else 5)
