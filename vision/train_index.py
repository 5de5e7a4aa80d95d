"""Train the bundled corner-index model (vision/models/index.npz). Reproducible: fixed seeds.

    python -m vision.train_index [--out PATH]

Corner patches (`vision.index.corner_patches`) of number cards in many random editions, never the
default one (kept for the zero-shot test): crops of single faces through the augmented camera
(`vision.teach.capture`), some with a grey cover or paper over the index ("no index"), corners of
scoring cards, blanks, table and misaligned crops ("no index"); and, twice each, the corners of the
crops the real detector cuts from rendered frames (400 of all hard conditions, 500 of overlapping
cards). A frame patch is labelled by where the truth card's index lies in it and whether a card
drawn later covers it: the value where all of the index shows, "no index" where little does.
The temperature comes from the patches of 300 other rendered frames. About 3 min on one core.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core: the machine is shared
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.cards import ALL_CARDS, CARD_H, CARD_W, face_cached  # noqa: E402
from vision.detect import COVERED  # noqa: E402
from vision.index import (  # noqa: E402
    INDEX_PATH,
    LABELS,
    NO_INDEX,
    PATCH_H,
    PATCH_W,
    corner_patches,
    patch_features,
)
from vision.read import WARP_SIZE  # noqa: E402
from vision.teach import (  # noqa: E402
    capture,
    fit_temperature,
    misaligned,
    reject_face,
    train_mlp,
)
from vision.train_zeroshot import CALIB_SEED, TRAIN_FRAMES_SEED, _styles, detected_crops  # noqa: E402

SEED = 20261122
OVERLAP_SEED = 13
SHOWN, HIDDEN = 0.97, 0.35  # index share in a patch, unhidden: at least -> value, at most -> none

# a grid over the index box of each printed corner, face px (the box holds the largest
# edition's two-digit index: index_height up to 0.095 of the card)
_GRID = np.array([(x, y) for y in np.linspace(14, 42, 5) for x in np.linspace(14, 52, 7)],
                 np.float32)
INDEX_POINTS = [np.abs(np.float32([fx * CARD_W, fy * CARD_H]) - _GRID)
                for fx, fy in ((0, 0), (1, 0), (1, 1), (0, 1))]
FACE_QUAD = np.float32([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]])
CROP_QUAD = np.float32([[0, 0], [WARP_SIZE[0], 0], [WARP_SIZE[0], WARP_SIZE[1]], [0, WARP_SIZE[1]]])
PATCH_RECTS = [(0, 0), (WARP_SIZE[0] - PATCH_W, 0), (0, WARP_SIZE[1] - PATCH_H),
               (WARP_SIZE[0] - PATCH_W, WARP_SIZE[1] - PATCH_H)]  # top-left corner of each patch


def _inside(points: np.ndarray, quad: np.ndarray) -> np.ndarray:
    q = quad.reshape(-1, 1, 2).astype(np.float32)
    return np.array([cv2.pointPolygonTest(q, (float(x), float(y)), False) >= 0
                     for x, y in points], bool)


def shown_in_patches(truth: list, j: int, quad: np.ndarray) -> list[float]:
    """Per corner patch of `quad`'s crop: the largest share of one of truth card j's indices
    that lies in the patch and under no card drawn after it."""
    t = truth[j]
    to_frame = cv2.getPerspectiveTransform(FACE_QUAD, t.corners.astype(np.float32))
    to_crop = cv2.getPerspectiveTransform(quad.astype(np.float32), CROP_QUAD)
    shown = [0.0] * 4
    for pts in INDEX_POINTS:
        frame_pts = cv2.perspectiveTransform(pts.reshape(1, -1, 2), to_frame)[0]
        visible = np.ones(len(pts), bool)
        for later in truth[j + 1:]:
            visible &= ~_inside(frame_pts, later.corners)
        crop_pts = cv2.perspectiveTransform(frame_pts.reshape(1, -1, 2), to_crop)[0]
        for k, (x0, y0) in enumerate(PATCH_RECTS):
            x, y = crop_pts[:, 0] - x0, crop_pts[:, 1] - y0
            in_patch = (x >= 0) & (x < PATCH_W) & (y >= 0) & (y < PATCH_H)
            shown[k] = max(shown[k], float((visible & in_patch).mean()))
    return shown


def frame_patches(folder: Path, frames: int, seed: int, conditions: tuple[str, ...] | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels of the corner patches of the detector's crops in rendered frames."""
    from vision.cli import match_quads, truth_of
    from vision.sim.labelled import HARD_CONDITIONS, load_labelled_set, make_labelled_set

    rows = load_labelled_set(make_labelled_set(folder, frames, seed=seed, style=None,
                                               conditions=conditions or HARD_CONDITIONS))
    xs, ys = [], []
    for row in rows:
        frame = cv2.imread(row["path"], cv2.IMREAD_COLOR)
        truth = truth_of(row)
        quads, crops = detected_crops(frame)
        for i, j in match_quads(quads, truth).items():
            t = truth[j]
            if t.covered_by_hand:
                continue  # the simulator does not say where the hand lies
            number = t.card.kind == "number"
            for patch, shown in zip(corner_patches(crops[i]), shown_in_patches(truth, j, quads[i]),
                                    strict=True):
                if number and shown >= SHOWN:
                    ys.append(t.card.value)
                elif not number or shown <= HIDDEN:
                    ys.append(NO_INDEX)
                else:
                    continue  # partly shown: neither answer is right
                xs.append(patch_features(patch))
    return np.array(xs, np.float32), np.array(ys, np.int64)


def _hide_index(patch: np.ndarray, rng: np.random.Generator, paper: tuple[int, int, int]
                ) -> np.ndarray:
    """Most of the index under a straight edge of grey (a known card over it) or paper."""
    out = patch.copy()
    a = rng.uniform(0, 2 * np.pi)
    cx, cy = rng.uniform(8, 30), rng.uniform(6, 20)
    yy, xx = np.mgrid[:PATCH_H, :PATCH_W]
    out[(xx - cx) * np.cos(a) + (yy - cy) * np.sin(a) > -rng.uniform(8, 14)] = (
        COVERED if rng.random() < 0.6 else paper)
    return out


def face_patches(n: int, rng: np.random.Generator, styles: list) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels of the corner patches of n augmented single-card crops."""
    numbers = [c for c in ALL_CARDS if c.kind == "number"]
    scoring = [c for c in ALL_CARDS if c.kind != "number"]
    xs, ys = [], []
    for _ in range(n):
        style = styles[rng.integers(len(styles))]
        r = rng.random()
        value = NO_INDEX
        if r < 0.7:
            card = numbers[rng.integers(len(numbers))]
            value = card.value
            face = face_cached(card, style)
            crop = capture(face[::-1, ::-1] if rng.random() < 0.5 else face, rng)
        elif r < 0.85:
            face = face_cached(scoring[rng.integers(len(scoring))], style)
            crop = capture(face[::-1, ::-1] if rng.random() < 0.5 else face, rng)
        elif r < 0.93:
            crop = capture(reject_face(rng), rng)
        else:
            face = face_cached(numbers[rng.integers(len(numbers))], style)
            crop = misaligned(face if rng.random() < 0.5 else face[::-1, ::-1], rng)
        for patch in corner_patches(crop):
            label = value
            if value != NO_INDEX and rng.random() < 0.25:
                patch, label = _hide_index(patch, rng, style.paper), NO_INDEX
            xs.append(patch_features(patch))
            ys.append(label)
    return np.array(xs, np.float32), np.array(ys, np.int64)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--faces", type=int, default=8000, help="augmented single-card crops")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--out", default=str(INDEX_PATH))
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    rng = np.random.default_rng(SEED)
    t0 = time.perf_counter()
    xf, yf = face_patches(args.faces, rng, _styles(rng, 300))
    eval_dir = Path("var/vision-eval")
    xr, yr = frame_patches(eval_dir / "training-frames", 400, TRAIN_FRAMES_SEED)
    xo, yo = frame_patches(eval_dir / "training-overlap", 500, OVERLAP_SEED, ("overlap",))
    x = np.concatenate([xf, xr, xr, xo, xo])
    y = np.concatenate([yf, yr, yr, yo, yo])
    print(f"patches: {len(xf)} from faces, {len(xr) + len(xo)} from frames "
          f"({int((y == NO_INDEX).sum())} of all without an index) "
          f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    model = train_mlp(x, y, rng, hidden=args.hidden, epochs=args.epochs, wd=1e-3,
                      n_classes=len(LABELS),
                      progress=lambda i, n: print(f"\repoch {i}/{n}", end="", file=sys.stderr))
    print(file=sys.stderr)
    xv, yv = frame_patches(eval_dir / "calibration", 300, CALIB_SEED)
    model.temperature = fit_temperature(model, xv, yv)
    p = model.proba(xv)
    pred, conf = p.argmax(axis=1), p.max(axis=1)
    named = (pred != NO_INDEX) & (conf >= 0.8)
    print(f"held-out frames' patches: {len(yv)}, right {float((pred == yv).mean()):.4f}; "
          f"named at >= 0.8: {int((named & (pred == yv)).sum())} right, "
          f"{int((named & (pred != yv)).sum())} wrong; T={model.temperature:.2f}")
    model.save(args.out, LABELS)
    print(f"saved {args.out} ({os.path.getsize(args.out) / 1e6:.2f} MB) "
          f"in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
