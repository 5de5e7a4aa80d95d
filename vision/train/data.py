"""Training and calibration sets, rendered in shards by worker processes.

- detector frames: scenes of 768x432 shrunk to the detector's input (DET_W x DET_H), with every
  card's oriented box, how much of it shows and whether a hand lies over it;
- reader crops: READ_W x READ_H crops cut along the card's oriented box as the detector would give
  it (centre, size and angle a little off), upright or upside down, labelled with the card and
  its orientation; and crops of no card (table, hands, boxes across two cards or badly off one),
  labelled REJECT.

A shard is one .npz file; a set is a folder of shards with a `meta.json`. Deterministic for a seed.
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.geometry import READ_H, READ_W, Box, box_of_quad, iou, rectify, shrink
from vision.sim.faces import DECKS
from vision.sim.fonts import Split
from vision.train.scenes import Scene, random_scene

DET_W, DET_H = 384, 216           # the detector's input (frames are shrunk to this width)
DET_SCENE = (768, 432)            # rendered, then shrunk 2x: real anti-aliasing
READ_SCENE = (960, 540)
READ_CARD_FRACTION = (0.06, 0.166)  # 58..160 px cards at 960: what the reader must read
MIN_VISIBLE = 0.45                # a card at least this visible must be found and read
HALF_OFF = 0.4                    # a box slid this much of a card's length off it is no card
SHARD_SCENES = 500


@dataclass(frozen=True)
class SetSpec:
    kind: str       # "detector" | "reader"
    split: Split
    scenes: int
    seed: int
    games: tuple[str, ...] = ("tightrope",)  # whose decks its scenes draw
    no_cards: float = 1 / 6  # a reader set's crops of no card, for each crop of a card

    @property
    def classes(self) -> tuple[str, ...]:
        """The card names a reader set is labelled with, in class order."""
        return deck_classes(self.games)


def deck_classes(games: tuple[str, ...]) -> tuple[str, ...]:
    """The names of the games' cards, each once (every deck has a `back`), in the games' order:
    card i upright is class 2i, turned round 2i + 1, and class 2n is "no card"."""
    return tuple(dict.fromkeys(name for game in games for name in DECKS[game]))


def jitter(box: Box, rng: np.random.Generator, scale: float = 1.0) -> Box:
    """The box as a detector might return it: centre, size and angle a little off, now and then
    more than a little."""
    s = scale * (3.0 if rng.random() < 0.1 else 1.0)
    dx, dy = rng.normal(0, 0.035 * s, 2) * box.w
    k = math.exp(float(rng.normal(0, 0.035 * s)))
    kh = k * math.exp(float(rng.normal(0, 0.02 * s)))
    return Box(box.cx + float(dx), box.cy + float(dy), box.w * k, box.h * kh,
               (box.angle + math.radians(float(rng.normal(0, 2.5 * s)))) % math.pi)


def card_label(index: int, flipped: bool) -> int:
    return 2 * index + int(flipped)


def _upright(box: Box, corners: np.ndarray) -> bool:
    """Does the box's own quad (top towards the frame's top) have the card's printed top on top?"""
    q = box.quad()
    top_mid, printed_top = (q[0] + q[1]) / 2, (corners[0] + corners[1]) / 2
    bottom_mid = (q[2] + q[3]) / 2
    return float(np.hypot(*(top_mid - printed_top))) < float(np.hypot(*(bottom_mid - printed_top)))


def reader_samples(scene: Scene, rng: np.random.Generator,
                   classes: tuple[str, ...] = DECKS["tightrope"], per_card: int = 2,
                   no_cards: float = 1 / 6) -> tuple[list[np.ndarray], list[int], list[float]]:
    """Crops, labels (of `classes`) and each crop's visible fraction (1.0 for rejects) from one
    scene, with `no_cards` crops of no card for each crop of a card."""
    index = {name: i for i, name in enumerate(classes)}
    crops, labels, seen = [], [], []
    quads = [t.corners for t in scene.truth]
    for t in scene.truth:
        if t.visible_fraction < MIN_VISIBLE - 0.1 or t.covered_by_hand:
            continue
        truth_box = box_of_quad(t.corners)
        for _ in range(per_card):
            box = jitter(truth_box, rng)
            crop = rectify(scene.image, box.quad())
            flipped = not _upright(box, t.corners)
            crops.append(crop)
            labels.append(card_label(index[t.card.label], flipped))
            seen.append(t.visible_fraction)
    for box in _reject_boxes(scene, rng, quads, max(1, round(len(crops) * no_cards))):
        crops.append(rectify(scene.image, box.quad()))
        labels.append(2 * len(classes))
        seen.append(1.0)
    return crops, labels, seen


def _reject_boxes(scene: Scene, rng: np.random.Generator, quads: list[np.ndarray], n: int
                  ) -> list[Box]:
    """Card-sized boxes on no card: bare table, hands, across two cards, far off one, or half
    on one (slid along its long side, or lying across one of its halves: a detector boxing the
    visible half of a card, or one half of a scoring card, whose two halves each print the
    value; read as a card, such a box names the card, its twin turned round or a zero, half a
    card from where it lies)."""
    h, w = scene.image.shape[:2]
    cw = scene.card_px
    out: list[Box] = []
    for _ in range(40 * n):
        if len(out) >= n:
            break
        mode = rng.random()
        if mode < 0.2 and quads:
            k = int(rng.integers(len(quads)))
            a = box_of_quad(quads[k])
            u = np.array([math.cos(a.angle), math.sin(a.angle)]) * a.h * rng.choice((-1.0, 1.0))
            if mode < 0.12:  # slid along the card
                c = u * rng.uniform(HALF_OFF, 0.65)
                box = Box(a.cx + float(c[0]), a.cy + float(c[1]), a.w, a.h, a.angle)
            else:  # across one half of it, as a card lying the other way
                c = u * rng.uniform(0.2, 0.3)
                box = Box(a.cx + float(c[0]), a.cy + float(c[1]), a.w * rng.uniform(0.9, 1.1),
                          a.h * rng.uniform(0.9, 1.1), (a.angle + math.pi / 2) % math.pi)
            if 0 <= box.cx < w and 0 <= box.cy < h and \
                    all(iou(box.quad(), q) < 0.35 for i, q in enumerate(quads) if i != k):
                out.append(box)
            continue
        if mode < 0.5 or not quads:
            c = rng.uniform(0, 1, 2) * (w, h)
            box = Box(float(c[0]), float(c[1]), cw, cw * 1.54, float(rng.uniform(0, math.pi)))
        elif mode < 0.78 and len(quads) > 1:  # between two cards
            i, j = rng.choice(len(quads), 2, replace=False)
            a, b = box_of_quad(quads[i]), box_of_quad(quads[j])
            box = Box((a.cx + b.cx) / 2, (a.cy + b.cy) / 2, a.w, a.h,
                      a.angle if rng.random() < 0.5 else b.angle)
        else:  # shifted most of a card off one
            a = box_of_quad(quads[int(rng.integers(len(quads)))])
            ang = rng.uniform(0, 2 * math.pi)
            d = rng.uniform(0.55, 0.9) * a.w
            box = Box(a.cx + d * math.cos(ang), a.cy + d * math.sin(ang), a.w, a.h, a.angle)
        q = box.quad()
        if not (0 <= box.cx < w and 0 <= box.cy < h):
            continue
        if all(iou(q, other) < 0.35 for other in quads):
            out.append(box)
    return out


def detector_sample(scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    """(frame shrunk to DET_W x DET_H, boxes (n, 7): cx, cy, w, h, angle, visible, hand)."""
    small = shrink(scene.image, (DET_W, DET_H))  # as vision.detect shrinks a frame
    s = DET_W / scene.image.shape[1]
    rows = []
    for t in scene.truth:
        b = box_of_quad(t.corners).scaled(s)
        rows.append([b.cx, b.cy, b.w, b.h, b.angle, t.visible_fraction,
                     float(t.covered_by_hand)])
    return small, np.array(rows, np.float32).reshape(-1, 7)


def _scene(spec: SetSpec, i: int, size: tuple[int, int],
           fraction: tuple[float, float] = (0.03, 0.13)
           ) -> tuple[Scene, np.random.Generator] | None:
    """Scene i of the set, or None where its typeface cannot draw (a broken font file)."""
    rng = np.random.default_rng([spec.seed, i])
    try:
        return random_scene(rng, spec.split, size, fraction, games=spec.games), rng
    except (OSError, ValueError, cv2.error) as exc:
        print(f"  scene {i} skipped: {exc}", file=sys.stderr, flush=True)
        return None


def _shard(spec: SetSpec, index: int, out: Path) -> Path:
    path = out / f"{spec.kind}-{index:04d}.npz"
    if path.is_file():
        return path
    cv2.setNumThreads(1)
    first = index * SHARD_SCENES
    n = min(SHARD_SCENES, spec.scenes - first)
    if spec.kind == "detector":
        frames, boxes, counts = [], [], []
        for i in range(first, first + n):
            got = _scene(spec, i, DET_SCENE)
            if got is None:
                continue
            img, b = detector_sample(got[0])
            frames.append(img)
            boxes.append(b)
            counts.append(len(b))
        np.savez(path.with_suffix(".tmp.npz"), frames=np.stack(frames),
                 boxes=np.concatenate(boxes), counts=np.array(counts, np.int32))
    else:
        crops, labels, seen = [], [], []
        for i in range(first, first + n):
            got = _scene(spec, i, READ_SCENE, READ_CARD_FRACTION)
            if got is None:
                continue
            c, lab, v = reader_samples(*got, spec.classes, no_cards=spec.no_cards)
            crops += c
            labels += lab
            seen += v
        np.savez(path.with_suffix(".tmp.npz"), crops=np.stack(crops),
                 labels=np.array(labels, np.int16), visible=np.array(seen, np.float32))
    os.replace(path.with_suffix(".tmp.npz"), path)
    return path


def _work(args: tuple[SetSpec, int, Path]) -> str:
    return str(_shard(*args))


def build(spec: SetSpec, out: Path, workers: int = 2) -> list[Path]:
    """Render the set's shards into `out` (those already there are kept)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "meta.json").write_text(json.dumps({**spec.__dict__, "classes": spec.classes}))
    jobs = [(spec, i, out) for i in range(math.ceil(spec.scenes / SHARD_SCENES))]
    done = []
    with mp.get_context("spawn").Pool(workers) as pool:
        for k, path in enumerate(pool.imap_unordered(_work, jobs), 1):
            done.append(Path(path))
            print(f"  {spec.kind} {spec.split}: shard {k}/{len(jobs)}", file=sys.stderr,
                  flush=True)
    return sorted(done)


def set_classes(folder: Path) -> tuple[str, ...]:
    """The card names a rendered reader set is labelled with (its meta.json; Tightrope's cards
    for a set rendered before sets said so)."""
    meta = json.loads((folder / "meta.json").read_text())
    return tuple(meta.get("classes") or deck_classes(tuple(meta.get("games", ["tightrope"]))))


def load_reader_set(*folders: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(crops, labels, visible fractions) of one or more rendered reader sets, the crops laid
    into one array as they load (two sets' crops are 10 GB: a concatenation would hold them
    twice)."""
    paths = [p for folder in folders for p in sorted(folder.glob("reader-*.npz"))
             if ".tmp" not in p.name]
    labels = []
    for path in paths:  # the labels first, to size the one array of crops
        with np.load(path) as z:
            labels.append(z["labels"])
    crops = np.empty((sum(len(lab) for lab in labels), READ_H, READ_W, 3), np.uint8)
    visible, at = [], 0
    for path, lab in zip(paths, labels, strict=True):
        with np.load(path) as z:
            crops[at:at + len(lab)] = z["crops"]
            visible.append(z["visible"])
        at += len(lab)
    return crops, np.concatenate(labels).astype(np.int64), np.concatenate(visible)


def detector_shards(folder: Path) -> Iterator[tuple[np.ndarray, list[np.ndarray]]]:
    for p in sorted(folder.glob("detector-*.npz")):
        if ".tmp" in p.name:
            continue
        z = np.load(p)
        splits = np.cumsum(z["counts"])[:-1]
        yield z["frames"], np.split(z["boxes"], splits)
