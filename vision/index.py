"""Read a number card by its corner indices, where its big middle numeral is hidden.

A number card prints its value small in all four corners, the top two upright and the bottom two
turned 180 deg, so that whichever way the card lies, the two corners at the top of the crop show
the value upright and the two at the bottom show it upside down. A card whose middle lies under
another card often still shows two of them. Each corner patch of the full-resolution crop is
read by a small MLP (zero-shot, trained on many editions by `vision.train_index`): one of the
values 1..50, or "no index here" (covered, cut off, a scoring card, the table).

A value is taken only where two witnesses agree and no corner names another value: one corner
and the whole-card reader's best (if unsure) guess, or two corners, either at opposite ends of
the card or with the value among the whole-card reader's candidates (two corners at one end can
belong to a neighbouring card whose edge lies along the quad).

The corners also check a number the whole-card reader is sure of, but not very sure
(`CHECKED_BELOW`): in a pile it can take part of a middle numeral for a whole one. Where a
corner surely names another value and none names the one read, the read becomes `unknown`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.cards import NUMBER_MAX, CardId
from vision.read import (
    MODEL_DIR,
    NBINS,
    WARP_SIZE,
    Mlp,
    ModelError,
    cell_slots,
    hog,
    normalised_grey,
)

PATCH_W, PATCH_H = 40, 28  # a corner of the WARP_SIZE (96x144) crop: the index and some slack
PATCH_CELL = 4
PATCH_SLOTS = cell_slots(PATCH_H, PATCH_W, PATCH_CELL)
NO_INDEX = 0  # class 0; class v is the value v
LABELS = ("none", *(str(v) for v in range(1, NUMBER_MAX + 1)))
INDEX_PATH = MODEL_DIR / "index.npz"
# the patch's gradient histograms, then its half-size grey thumbnail
FEATURE_DIM = ((PATCH_H // PATCH_CELL) * (PATCH_W // PATCH_CELL) * NBINS
               + (PATCH_H // 2) * (PATCH_W // 2))

SURE = 0.8      # the surer of the two corners at least this sure
AGREE = 0.3     # the other corner's best guess is the value (at least this sure)
CONFLICT = 0.7  # no corner names another value this surely
ONE_CORNER = 0.7  # one corner this sure is enough where the whole card's best guess agrees
VETO = 0.9      # a corner this sure of another value, and none for the value read: not that card
CHECKED_BELOW = 0.999  # whole-card reads less sure than this are checked against the corners
NAMES = 0.9     # a corner this sure of a value names it (a witness in recognize's second look)


def corner_patches(crop: np.ndarray) -> list[np.ndarray]:
    """The four corner patches of a WARP_SIZE portrait crop, each turned so that its index would
    stand upright: top-left, top-right, bottom-left, bottom-right."""
    if crop.shape[:2] != (WARP_SIZE[1], WARP_SIZE[0]):
        crop = cv2.resize(crop, WARP_SIZE, interpolation=cv2.INTER_AREA)
    w, h = WARP_SIZE
    return [crop[:PATCH_H, :PATCH_W], crop[:PATCH_H, w - PATCH_W:],
            crop[h - PATCH_H:, :PATCH_W][::-1, ::-1], crop[h - PATCH_H:, w - PATCH_W:][::-1, ::-1]]


def patch_features(patch: np.ndarray) -> np.ndarray:
    g = normalised_grey(np.ascontiguousarray(patch))
    thumb = cv2.resize(g, (PATCH_W // 2, PATCH_H // 2), interpolation=cv2.INTER_AREA)
    return np.concatenate([hog(g, PATCH_CELL, PATCH_SLOTS).ravel(), thumb.ravel() * 0.5])


@dataclass(frozen=True)
class IndexRead:
    value: int
    confidence: float  # the surer corner's probability of the value


def decide(p: np.ndarray, candidates: tuple[tuple[CardId, float], ...] = ()) -> IndexRead | None:
    """The value four corner patches' probabilities (4, 51) agree on, or None (module doc)."""
    pred, conf = p.argmax(axis=1), p.max(axis=1)
    named = [(k, int(v), float(c)) for k, (v, c) in enumerate(zip(pred, conf, strict=True))
             if v != NO_INDEX]
    if not named:
        return None
    _, value, top = max(named, key=lambda n: n[2])
    if any(v != value and c >= CONFLICT for _, v, c in named):
        return None
    card = CardId("number", value)
    if candidates and candidates[0][0] == card and top >= ONE_CORNER:
        return IndexRead(value, top)  # the whole card's best guess, and a corner, agree
    agree = [k for k, v, c in named if v == value and c >= AGREE]
    if top < SURE or len(agree) < 2:
        return None
    both_ends = min(agree) < 2 <= max(agree)
    proposed = any(c == card for c, _ in candidates)
    return IndexRead(value, top) if both_ends or proposed else None


def contradicts(p: np.ndarray, value: int) -> bool:
    """Do the corners (4, 51) say the card is not `value`? One of them names another value
    surely and none names `value` at all: the whole-card reader saw part of a middle numeral
    (a 2 of a 29 under another card taken for a 20), the corners show the whole number."""
    pred, conf = p.argmax(axis=1), p.max(axis=1)
    other = (pred != NO_INDEX) & (pred != value) & (conf >= VETO)
    return bool(other.any()) and not ((pred == value) & (conf >= AGREE)).any()


def names(p: np.ndarray, value: int) -> bool:
    """Does a corner (4, 51) surely name `value`, and none contradict it?"""
    pred, conf = p.argmax(axis=1), p.max(axis=1)
    return bool(((pred == value) & (conf >= NAMES)).any()) and not contradicts(p, value)


class IndexReader:
    """The corner-index model (`Mlp` with classes "none", 1..50)."""

    def __init__(self, model: Mlp) -> None:
        self.model = model

    @classmethod
    def load(cls, path: str | Path = INDEX_PATH) -> IndexReader:
        return cls(Mlp.load(path, LABELS, FEATURE_DIM))

    def proba(self, crops: list[np.ndarray]) -> np.ndarray:
        """(len(crops), 4, 51) probabilities of the crops' corner patches."""
        if not crops:
            return np.zeros((0, 4, len(LABELS)), np.float32)
        x = np.stack([patch_features(p) for c in crops for p in corner_patches(c)])
        return self.model.proba(x).reshape(len(crops), 4, len(LABELS))

    def read(self, crop: np.ndarray, candidates: tuple[tuple[CardId, float], ...] = ()
             ) -> IndexRead | None:
        return decide(self.proba([crop])[0], candidates)


@cache
def bundled() -> IndexReader:
    if not INDEX_PATH.exists():
        raise ModelError(f"corner-index model {INDEX_PATH} is missing "
                         "(python -m vision.train_index)")
    return IndexReader.load()
