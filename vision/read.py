"""Read rectified card crops: which of the 61 cards each is, which way up, and how sure.

The reader is a small CNN (vision/models/reader.onnx) trained on hundreds of typefaces, layouts
and tables. For each crop it gives 2 classes per card (upright, upside down: a 6 and a 9 differ
only by the card's own orientation) and "no card", plus an embedding a taught deck is read from.

Every crop is read twice, as cut and turned round. The two looks must name the same card (a
card's layout shows its value more than once: its big numeral and its indices, or a scoring
card's two halves, and the two looks weigh them differently); their probabilities are combined
(geometric mean), then calibrated. Below the calibrated line the answer is `unknown`, an
abstention that still carries the honest candidates. A taught reader (a deck file, vision.teach)
reads with the deck's own head and keeps the zero-shot head as a second opinion: where the deck
is unsure, a sure zero-shot read of the deck's best guess is taken; where both are sure of
different cards, neither is; and a sure taught read stands only where the general reader ranks
the same card first, at CONFIRM or more.

A deck taught another game's cards (its names: Attacke's `red-7`, a playing card's `QH`) is read
by its own head alone: the general reader knows none of its classes, so there is no second
opinion; the two looks must still agree, and the deck's own line (calibrated on its check crops,
vision.teach.MAX_WRONG) decides. Its readings carry the names only (`Reading.of_name`). The
network's embedding tells blue from red (all Tightrope needs) but hardly purple from green from
yellow; such a deck's head also sees the crop's colours (`colour_features`, `Deck.features`).
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from vision.deck import TIGHTROPE, Deck, Head
from vision.geometry import READ_H, READ_W
from vision.network import MODEL_DIR, ModelError, Network, bundled, normalise
from vision.types import ALL_CARDS, Reading

N_CARDS = len(ALL_CARDS)
REJECT = 2 * N_CARDS
TOP = 5  # candidates kept in a reading
LEAD = 4.0  # the zero-shot reader settles a taught read only this far ahead of its runner-up
# A taught read is sure only where the general reader ranks the same card first with at least
# this probability. Typefaces far from any it was trained on fool a deck's own head however
# it is taught (the calib designs, taught: 63 sure wrong reads of 2,039 cards, 59 of them in
# two decks that print 1 like 4 and 2 like 9); with this check 15, and 7.4 % of the cards go
# from right to abstained. Tuned on the calib designs only, never on the unseen set.
CONFIRM = 0.95

__all__ = ["CardImageError", "ModelError", "Reader", "Look"]


class CardImageError(ValueError):
    """A card crop that cannot be read at all (empty, wrong shape)."""


class Look(NamedTuple):
    """One crop read: the reading, the quarter turns (0 or 2) that bring the face upright, and
    how likely the crop shows no card at all."""

    reading: Reading
    turns: int
    no_card: float


HUE_BINS = 12        # colour features: a hue histogram of the crop's coloured pixels
COLOURED = (60, 50)  # ... pixels at least this saturated and this bright (OpenCV HSV, 0..255)
COLOUR_WEIGHT = 6.0  # ... scaled to weigh against the 128-d embedding (norm about 13)


def colour_features(crops: np.ndarray) -> np.ndarray:
    """(n, HUE_BINS + 1): the square root of each hue's share of the crop's pixels (coloured
    pixels only, weighted by saturation; soft bins round the hue circle) and of the coloured
    share, times COLOUR_WEIGHT. The same for a crop turned round."""
    hsv = np.stack([cv2.cvtColor(c, cv2.COLOR_BGR2HSV_FULL) for c in crops]).astype(np.float32)
    h, sat, val = hsv[..., 0] * (HUE_BINS / 256.0), hsv[..., 1], hsv[..., 2]
    weight = np.where((sat >= COLOURED[0]) & (val >= COLOURED[1]), sat / 255.0, 0.0)
    lo = np.floor(h - 0.5)
    frac = h - 0.5 - lo
    n, pixels = len(crops), float(h.shape[1] * h.shape[2])
    hist = np.zeros((n, HUE_BINS), np.float32)
    rows = np.repeat(np.arange(n), h.shape[1] * h.shape[2])
    for b, share in ((lo, 1.0 - frac), (lo + 1, frac)):
        np.add.at(hist, (rows, (b.astype(np.int64) % HUE_BINS).ravel()),
                  (weight * share).ravel())
    out = np.concatenate([hist, hist.sum(axis=1, keepdims=True)], axis=1) / pixels
    return (COLOUR_WEIGHT * np.sqrt(out)).astype(np.float32)


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """The temperature that minimises the negative log-likelihood of classes y (golden-section
    search): the reader's and a taught deck's calibration."""
    def nll(t: float) -> float:
        p = softmax(logits / t)
        return float(-np.log(p[np.arange(len(y)), y] + 1e-12).mean())

    lo, hi = 0.2, 10.0
    for _ in range(40):
        a, b = lo + 0.382 * (hi - lo), lo + 0.618 * (hi - lo)
        if nll(a) < nll(b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def turned_round(p: np.ndarray) -> np.ndarray:
    """Class probabilities (or logits) of a crop turned 180 degrees, as the crop's own: each
    card's upright and upside-down classes swap (any deck: 2 classes a card, "no card" last)."""
    out = p.copy()
    reject = p.shape[1] - 1
    out[:, :reject] = p[:, :reject].reshape(-1, reject // 2, 2)[:, :, ::-1].reshape(-1, reject)
    return out


def combine(p_cut: np.ndarray, p_turned: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the two looks' probabilities combined, whether they name the same card)."""
    a, b = p_cut, turned_round(p_turned)
    q = np.sqrt(a * b)
    q /= q.sum(axis=1, keepdims=True)
    agree = per_card(a).argmax(axis=1) == per_card(b).argmax(axis=1)
    return q, agree


def per_card(p: np.ndarray) -> np.ndarray:
    """(n, 2k + 1) -> (n, k + 1): each card's two orientations summed, "no card" last."""
    reject = p.shape[1] - 1
    return np.concatenate([p[:, :reject].reshape(-1, reject // 2, 2).sum(axis=2),
                           p[:, reject:]], axis=1)


def reading_of(q: np.ndarray, agree: bool, line: float,
               names: tuple[str, ...] | None = None) -> Look:
    """The reading (and its upright turns) of one crop's combined probabilities: of the
    Tightrope cards, or (`names`: another game's deck, the classes' names) by name."""
    cards = per_card(q[None])[0]
    k = len(cards) - 1
    order = np.argsort(-cards[:k])[:TOP]
    best = int(order[0])
    turns = 0 if q[2 * best] >= q[2 * best + 1] else 2
    conf = float(cards[best])
    sure = agree and conf >= line and conf > float(cards[k])
    if names is not None:
        named = tuple((names[i], float(cards[i])) for i in order)
        return Look(Reading.of_name(names[best] if sure else None, conf, named, line), turns,
                    float(cards[k]))
    candidates = tuple((ALL_CARDS[i], float(cards[i])) for i in order)
    reading = Reading.of(ALL_CARDS[best] if sure else None, conf, candidates, line)
    return Look(reading, turns, float(cards[k]))


@functools.cache
def _zero_shot_head() -> Head:
    """The network's own last layer, as a deck head (what teaching starts from)."""
    meta = bundled("reader").meta
    path = MODEL_DIR / "reader-head.npz"
    if not path.is_file():
        raise ModelError(f"{path} is missing (python -m vision.train)")
    with np.load(path, allow_pickle=False) as z:
        return Head(z["w"].astype(np.float32), z["b"].astype(np.float32),
                    float(meta["temperature"]), float(meta["line"]))


class Reader:
    """Zero-shot (`Reader.zero_shot()`) or taught (`Reader.from_deck(path)`) card reader; a
    deck of another game's cards reads them by name (`names`, `Reading.label`)."""

    def __init__(self, network: Network | None = None, deck: Deck | None = None,
                 source: str = "zero-shot") -> None:
        self.network = network or bundled("reader")
        meta = self.network.meta
        self.temperature, self.line = float(meta["temperature"]), float(meta["line"])
        self.mean, self.std = float(meta["mean"]), float(meta["std"])
        self.deck = deck
        self.source = source

    @classmethod
    def zero_shot(cls) -> Reader:
        return cls()

    @classmethod
    def from_deck(cls, path: str | Path) -> Reader:
        return cls(deck=Deck.load(path), source=f"deck {Path(path).name}")

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the cards it reads (Tightrope's labels unless its deck says others)."""
        return self.deck.names if self.deck is not None else TIGHTROPE

    @property
    def tightrope(self) -> bool:
        """Whether it reads the Tightrope deck (its readings carry CardIds)."""
        return self.deck is None or self.deck.tightrope

    @property
    def threshold(self) -> float:
        return self.deck.head.line if self.deck is not None else self.line

    def forward(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(logits, embeddings) of each crop, as cut and turned round: (2n, ...), turned last."""
        batch = np.stack([_check(c) for c in crops])
        both = np.concatenate([batch, batch[:, ::-1, ::-1]])
        logits, embedding = self.network.run(normalise(both, self.mean, self.std))
        return logits, embedding

    def probabilities(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray,
                                                               np.ndarray, np.ndarray]:
        """(zero-shot q, zero-shot agree, taught q, taught agree); the taught pair is the
        zero-shot pair again when no deck is taught."""
        n = len(crops)
        logits, embedding = self.forward(crops)
        p = softmax(logits / self.temperature)
        q0, agree0 = combine(p[:n], p[n:])
        if self.deck is None:
            return q0, agree0, q0, agree0
        pt = softmax(self.deck.head.logits(deck_input(self.deck, embedding, crops)))
        qt, agree_t = combine(pt[:n], pt[n:])
        return q0, agree0, qt, agree_t

    def read(self, crops: list[np.ndarray]) -> list[Look]:
        """A reading and the upright quarter turns for each READ_W x READ_H crop."""
        if not crops:
            return []
        q0, agree0, qt, agree_t = self.probabilities(crops)
        if self.deck is not None and not self.deck.tightrope:  # the deck's head alone
            names = self.deck.names
            return [reading_of(qt[i], bool(agree_t[i]), self.deck.head.line, names)
                    for i in range(len(crops))]
        out = []
        for i in range(len(crops)):
            zero = reading_of(q0[i], bool(agree0[i]), self.line)
            if self.deck is None:
                out.append(zero)
                continue
            taught = reading_of(qt[i], bool(agree_t[i]), self.deck.head.line)
            out.append(_second_opinion(taught, zero))
        return out

    def read_one(self, crop: np.ndarray) -> Look:
        return self.read([crop])[0]


def deck_input(deck: Deck, embedding: np.ndarray, crops: list[np.ndarray]) -> np.ndarray:
    """What the deck's head reads of crops read as cut and turned round (`Reader.forward`'s 2n
    embeddings): the embedding, and the crops' colours where the deck was taught them."""
    if deck.features != "colour":
        return embedding
    colours = colour_features(np.stack(crops))  # a crop turned round has the same colours
    return np.concatenate([embedding, np.concatenate([colours, colours])], axis=1)


def _second_opinion(taught: Look, zero: Look) -> Look:
    """The taught read, checked by the zero-shot one."""
    t, z = taught.reading, zero.reading
    if t.card is None:
        if z.card is not None and t.candidates and z.card == t.candidates[0][0] and (
                len(t.candidates) < 2 or t.candidates[0][1] >= LEAD * t.candidates[1][1]):
            return zero  # unsure of its deck, but the general reader is sure of the same card
        return taught  # unsure, or torn between two cards its deck prints alike (a 6 and a 9)
    if not z.candidates or z.candidates[0][0] != t.card or z.candidates[0][1] < CONFIRM:
        # the general reader sure of another card; a typeface that fools the deck's head; or a
        # 6 and a 9, which differ only in which way up the card lies, which one photo a card
        # may not teach, and which the general reader (trained on hundreds of layouts) confirms
        return taught._replace(reading=Reading.of(None, t.confidence, t.candidates, math.inf))
    return taught


def _check(crop: np.ndarray) -> np.ndarray:
    if not isinstance(crop, np.ndarray) or crop.shape != (READ_H, READ_W, 3) or \
            crop.dtype != np.uint8:
        shape = getattr(crop, "shape", None)
        raise CardImageError(f"a card crop must be {READ_H}x{READ_W}x3 uint8 (geometry.rectify), "
                             f"got {shape}")
    return crop
