"""Read a warped card crop: which of the 61 Tightrope cards it is, in which orientation, how sure.

The classifier is a small two-layer MLP (numpy only) on hand-made features of the portrait
crop: a gradient-orientation histogram (HOG-like, 6 px cells at 48x72), a normalised grey
thumbnail and a coarse colour-chroma grid (blue/red halves). It has 2 classes per card, the card
upright and the card rotated 180 deg (so a 6 and an upside-down 9 are told apart by the card's
own layout: underline, walker line, blue half on top), plus one "not a card" class.
Probabilities are temperature-calibrated; below the model's confidence line the answer is
``unknown`` (an abstention).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import cv2
import numpy as np

from vision.cards import ALL_CARDS, CardId

if TYPE_CHECKING:
    from vision.index import IndexRead, IndexReader

FEAT_W, FEAT_H = 48, 72
CELL = 6
NBINS = 9
N_CLASSES = 2 * len(ALL_CARDS) + 1
REJECT = N_CLASSES - 1
WARP_SIZE = (2 * FEAT_W, 2 * FEAT_H)  # the pipeline warps to this; features() area-resizes
MODEL_DIR = Path(__file__).resolve().parent / "models"
ZERO_SHOT_PATH = MODEL_DIR / "zeroshot.npz"
FEATURE_VERSION = 1


class ModelError(ValueError):
    """A model or deck file that cannot be used."""


class CardImageError(ValueError):
    """A card crop that cannot be read at all (empty, wrong shape)."""


@dataclass(frozen=True)
class Reading:
    kind: Literal["number", "scoring", "unknown"]
    value: int | None
    colour: Literal["blue", "red"] | None
    confidence: float
    candidates: tuple[tuple[CardId, float], ...]
    # the reader's confidence line: below it the reader abstains, and nobody downstream (the
    # game's narrowing of candidates) may take a card on less
    line: float = 0.0

    @property
    def card(self) -> CardId | None:
        if self.kind == "unknown" or self.value is None:
            return None
        return CardId(self.kind, self.value, self.colour)  # type: ignore[arg-type]


def _portrait(img: np.ndarray) -> tuple[np.ndarray, int]:
    """Crop as portrait; returns (image, quarter turns clockwise that were applied)."""
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.ndim != 3 or img.shape[2] != 3 or min(img.shape[:2]) < 8:
        raise CardImageError(f"card image must be HxWx3 and at least 8 px, got {img.shape}")
    if img.shape[1] > img.shape[0]:
        return cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE), 1
    return img, 0


def cell_slots(h: int, w: int, cell: int) -> np.ndarray:
    """For each pixel of an h x w image: the first histogram slot of its cell."""
    return ((np.arange(h)[:, None] // cell) * (w // cell)
            + (np.arange(w)[None, :] // cell)).ravel() * NBINS


_CELL_SLOT = cell_slots(FEAT_H, FEAT_W, CELL)


def normalised_grey(small: np.ndarray) -> np.ndarray:
    """Grey float image with zero mean and about unit contrast (light and exposure cancel)."""
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)
    mean, std = cv2.meanStdDev(grey)
    return (grey - float(mean[0, 0])) / (float(std[0, 0]) + 4.0)


def hog(g: np.ndarray, cell: int, slots: np.ndarray) -> np.ndarray:
    """Gradient-orientation histograms of `cell` px cells (`slots` from `cell_slots`),
    block-normalised over 3x3 cells, square-rooted (Hellinger): (rows, cols, NBINS)."""
    ch, cw = g.shape[0] // cell, g.shape[1] // cell
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=1)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=1)
    mag, ang = cv2.cartToPolar(gx, gy, angleInDegrees=True)
    # unsigned orientation, each pixel voting into its two nearest of NBINS bins (linear split)
    pos = ang.ravel() * (NBINS / 180.0)
    pos[pos >= NBINS] -= NBINS
    lo = pos.astype(np.intp)  # floor: pos >= 0
    frac = pos - lo
    hi = lo + 1
    hi[hi == NBINS] = 0
    m = mag.ravel()
    hist = np.bincount(np.concatenate([slots + lo, slots + hi]),
                       np.concatenate([m - m * frac, m * frac]), ch * cw * NBINS)
    hist = hist.reshape(ch, cw, NBINS).astype(np.float32)
    energy = cv2.boxFilter(hist.sum(axis=2), -1, (3, 3), normalize=False)
    return np.sqrt(hist / (energy[..., None] + 1e-3))


def features(img: np.ndarray) -> np.ndarray:
    """Feature vector of a portrait BGR crop (any size; resized to 48x72)."""
    small = img
    if img.shape[:2] != (FEAT_H, FEAT_W):
        small = cv2.resize(img, (FEAT_W, FEAT_H), interpolation=cv2.INTER_AREA)
    g = normalised_grey(small)
    thumb = cv2.resize(g, (12, 18), interpolation=cv2.INTER_AREA)
    col = cv2.resize(small.astype(np.float32), (4, 6), interpolation=cv2.INTER_AREA)
    bright = col.sum(axis=2) / 3.0 + 10.0
    blue_red = (col[..., 0] - col[..., 2]) / bright
    green = (col[..., 1] - (col[..., 0] + col[..., 2]) / 2) / bright
    chroma = np.stack([blue_red, green], axis=-1)
    parts = [hog(g, CELL, _CELL_SLOT).ravel(), thumb.ravel() * 0.5, chroma.ravel() * 2.0]
    return np.concatenate(parts).astype(np.float32)


FEATURE_DIM = (FEAT_H // CELL) * (FEAT_W // CELL) * NBINS + 12 * 18 + 4 * 6 * 2


@dataclass
class Mlp:
    """x -> standardise -> relu(W1) -> W2 -> logits / T."""

    mu: np.ndarray
    sd: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    temperature: float = 1.0
    threshold: float = 0.5

    def logits(self, x: np.ndarray) -> np.ndarray:
        h = np.maximum(0.0, ((x - self.mu) / self.sd) @ self.w1 + self.b1)
        return h @ self.w2 + self.b2

    def proba(self, x: np.ndarray) -> np.ndarray:
        z = self.logits(x) / self.temperature
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def save(self, path: str | Path, labels: tuple[str, ...] | None = None,
             **extra: np.ndarray) -> None:
        """`labels`: the class names (default: the cards, for a card reader)."""
        np.savez_compressed(
            path,
            version=np.array(FEATURE_VERSION),
            labels=np.array(labels or [c.label for c in ALL_CARDS]),
            mu=self.mu.astype(np.float32),
            sd=self.sd.astype(np.float32),
            w1=self.w1.astype(np.float16),
            b1=self.b1.astype(np.float32),
            w2=self.w2.astype(np.float16),
            b2=self.b2.astype(np.float32),
            temperature=np.array(self.temperature),
            threshold=np.array(self.threshold),
            **extra,
        )

    @classmethod
    def load(cls, path: str | Path, labels: tuple[str, ...] | None = None,
             dim: int = FEATURE_DIM) -> Mlp:
        """A saved model whose classes are `labels` (default: the card reader's) on `dim`
        features; ModelError for anything else."""
        p = Path(path)
        try:
            with np.load(p, allow_pickle=False) as z:
                data = {k: z[k] for k in z.files}
        except (OSError, ValueError, EOFError) as exc:
            raise ModelError(f"{p}: not a readable model/deck file ({exc})") from exc
        need = {"version", "labels", "mu", "sd", "w1", "b1", "w2", "b2", "temperature", "threshold"}
        if not need <= set(data):
            raise ModelError(f"{p}: not a model/deck file (missing {sorted(need - set(data))})")
        if int(data["version"]) != FEATURE_VERSION:
            raise ModelError(f"{p}: feature version {int(data['version'])}, need {FEATURE_VERSION}")
        want = list(labels or [c.label for c in ALL_CARDS])
        if list(data["labels"]) != want:
            raise ModelError(f"{p}: class list does not match this program's")
        w1, w2 = data["w1"].astype(np.float32), data["w2"].astype(np.float32)
        n_classes = N_CLASSES if labels is None else len(want)
        if w1.shape[0] != dim or w2.shape[1] != n_classes:
            raise ModelError(f"{p}: weight shapes {w1.shape}/{w2.shape} do not fit")
        return cls(
            mu=data["mu"].astype(np.float32),
            sd=data["sd"].astype(np.float32),
            w1=w1,
            b1=data["b1"].astype(np.float32),
            w2=w2,
            b2=data["b2"].astype(np.float32),
            temperature=float(data["temperature"]),
            threshold=float(data["threshold"]),
        )


@cache
def _zero_shot_model() -> Mlp:
    if not ZERO_SHOT_PATH.exists():
        raise ModelError(f"zero-shot model {ZERO_SHOT_PATH} is missing "
                         "(python -m vision.train_zeroshot)")
    return Mlp.load(ZERO_SHOT_PATH)


def reading_from_proba(p: np.ndarray, threshold: float, top: int = 5) -> tuple[Reading, int]:
    """Reading plus the quarter turns (0 or 2) that bring the face upright, from probabilities."""
    card_p = p[:REJECT].reshape(-1, 2)
    per_card = card_p.sum(axis=1)
    order = np.argsort(-per_card)[:top]
    cands = tuple((ALL_CARDS[i], float(per_card[i])) for i in order)
    best = int(order[0])
    turns = 0 if card_p[best, 0] >= card_p[best, 1] else 2
    conf = float(per_card[best])
    if conf < threshold or p[REJECT] >= conf:
        return Reading("unknown", None, None, conf, cands, threshold), turns
    card = ALL_CARDS[best]
    return Reading(card.kind, card.value, card.colour, conf, cands, threshold), turns


class Reader:
    """Zero-shot (bundled model) or taught (deck file) card reader.

    A taught reader has the zero-shot model as its second opinion (`second`): where the deck's
    model is unsure, the zero-shot model's sure read is taken if it names the deck's own best
    guess (both must point at one card: neither alone, below its line, is trusted). Both read a
    number card they are unsure of once more by its corner indices (`index`, vision.index),
    when given the full-size frame (`read_quads`)."""

    def __init__(self, model: Mlp, source: str = "model", second: Mlp | None = None,
                 index: IndexReader | None = None) -> None:
        self.model = model
        self.source = source
        self.second = second
        self.index = index

    @classmethod
    def zero_shot(cls) -> Reader:
        from vision.index import bundled

        return cls(_zero_shot_model(), "zero-shot", index=bundled())

    @classmethod
    def from_deck(cls, path: str | Path) -> Reader:
        from vision.index import bundled

        p = Path(path)
        if not p.is_file():
            raise ModelError(f"deck file {p} does not exist")
        return cls(Mlp.load(p), f"deck {p.name}", second=_zero_shot_model(), index=bundled())

    @property
    def threshold(self) -> float:
        return self.model.threshold

    def read_oriented_batch(self, imgs: list[np.ndarray]) -> list[tuple[Reading, int]]:
        """Readings and, per crop, the clockwise quarter turns (0..3) that make the face upright."""
        if not imgs:
            return []
        pre = [_portrait(im) for im in imgs]
        x = np.stack([features(im) for im, _ in pre])
        reads = [reading_from_proba(p, self.model.threshold) for p in self.model.proba(x)]
        unsure = [i for i, (r, _) in enumerate(reads) if r.kind == "unknown"]
        if self.second is not None and unsure:
            for i, p in zip(unsure, self.second.proba(x[unsure]), strict=True):
                other = reading_from_proba(p, self.second.threshold)
                if other[0].card is not None and other[0].card == reads[i][0].candidates[0][0]:
                    reads[i] = other
        return [(r, (quarter + turns) % 4) for (_, quarter), (r, turns)
                in zip(pre, reads, strict=True)]

    def read_quads(self, frame: np.ndarray, small: np.ndarray, scale: float,
                   quads: list[np.ndarray], covers: list[list[np.ndarray]]
                   ) -> list[tuple[Reading, int]]:
        """Oriented readings of detected quads (frame px; `covers`: the quads lying over each):
        each card from its crop of the work-size frame `small` (`scale` of the frame); then,
        cut from the full frame (the indices are a tenth of the card's height: too small in the
        work-size frame), a card the reader is unsure of is read by its corner indices, and a
        number it is not very sure of is checked against them (vision.index)."""
        from vision.detect import crop_cards

        reads = self.read_oriented_batch(crop_cards(small, scale, quads, covers))
        look = [i for i, (r, _) in enumerate(reads) if _checked_by_corners(r)]
        if self.index is None or not look:
            return reads
        corners = self.corner_proba(frame, [quads[i] for i in look], [covers[i] for i in look])
        return self.by_corners(reads, dict(zip(look, corners, strict=True)))

    def by_corners(self, reads: list[tuple[Reading, int]], corners: dict[int, np.ndarray]
                   ) -> list[tuple[Reading, int]]:
        """`reads` with what their corners (`corners`: read index -> (4, 51) probabilities)
        say applied, where `_checked_by_corners`: an unsure card taken as the value they agree
        on, a number they contradict made unknown. Unchanged without an index reader."""
        from vision.index import contradicts, decide

        if self.index is None:
            return reads
        out = list(reads)
        for i, p in corners.items():
            r, turns = out[i]
            if not _checked_by_corners(r):
                continue
            if r.kind == "unknown":
                got = decide(p, r.candidates)
                if got is not None:
                    out[i] = (_index_reading(got), turns)
            elif contradicts(p, r.value):
                # nothing the game rules out may make it sure again: the line is out of reach
                out[i] = (Reading("unknown", None, None, r.confidence, r.candidates, math.inf),
                          turns)
        return out

    def corner_proba(self, frame: np.ndarray, quads: list[np.ndarray],
                     covers: list[list[np.ndarray]]) -> np.ndarray:
        """(len(quads), 4, 51): what the corner-index reader sees in each quad's corners."""
        from vision.detect import warp_card
        from vision.index import bundled

        index = self.index or bundled()
        return index.proba([warp_card(frame, q, WARP_SIZE, c) for q, c in zip(quads, covers,
                                                                               strict=True)])

    def read_oriented(self, card_img: np.ndarray) -> tuple[Reading, int]:
        return self.read_oriented_batch([card_img])[0]

    def read_batch(self, imgs: list[np.ndarray]) -> list[Reading]:
        return [r for r, _ in self.read_oriented_batch(imgs)]

    def read(self, card_img: np.ndarray) -> Reading:
        return self.read_oriented(card_img)[0]


def _checked_by_corners(r: Reading) -> bool:
    """Is the read looked at again by its corners: unsure, or a number not very sure?"""
    from vision.index import CHECKED_BELOW

    return r.kind == "unknown" or (r.kind == "number" and r.confidence < CHECKED_BELOW)


def _index_reading(got: IndexRead) -> Reading:
    """A number card read by its corners: that card alone is a candidate (the whole-card guesses
    it overruled are not); its line, the least sure corner the index reader answers on."""
    from vision.index import ONE_CORNER

    card = CardId("number", got.value)
    return Reading("number", got.value, None, got.confidence, ((card, got.confidence),),
                   ONE_CORNER)


def recognize(frame: np.ndarray, reader: Reader, background: np.ndarray | None = None
              ) -> list[dict]:
    """The DESIGN.md `recognize --json` "cards" list for one frame."""
    from vision.detect import ASPECT, card_width

    look = _Look(frame, reader, background)
    detector = look.detector
    quads, reads = look.at(None)
    others = detector.others
    if detector.size_guessed and detector.card_w:
        # No card lay alone to show the card size: it was guessed from the blobs' boxes, and
        # a guess off by the aspect (a card's length taken for its width, or the other way)
        # cuts every box across two cards, which the reader then cannot read. The other two
        # sizes are tried; the one that lets the reader be sure of the most cards wins. Then
        # the cards read surely show the size better than any guess: it is tried once more.
        def sure(reads: list[tuple[Reading, int]]) -> int:
            return sum(r.kind != "unknown" for r, _ in reads)

        used = detector.card_w
        for other in (used / ASPECT, used * ASPECT):
            q, r = look.at(other)
            if sure(r) > sure(reads):
                quads, reads, used, others = q, r, other, detector.others
        if sure(reads):
            seen = card_width([q for q, (r, _) in zip(quads, reads, strict=True)
                                if r.kind != "unknown"])
            if abs(seen - used) > 0.03 * used:
                q, r = look.at(seen)
                if sure(r) > sure(reads):
                    quads, reads, others = q, r, detector.others
    found = sorted(zip(quads, reads, strict=True), key=lambda f: -f[1][0].confidence)
    kept: list[tuple[np.ndarray, Reading]] = []
    for q, (reading, turns) in found:  # surest first
        q = np.roll(q, -turns, axis=0)  # corners TL, TR, BR, BL of the face as printed
        if not _same_card_near(q, reading, kept):
            kept.append((q, reading))
    kept = _second_look(look, kept, others)
    out = []
    for q, reading in kept:
        card: dict = {"kind": reading.kind, "value": reading.value}
        if reading.colour is not None:
            card["colour"] = reading.colour
        card["confidence"] = round(reading.confidence, 4)
        card["center"] = [round(float(v), 1) for v in q.mean(axis=0)]
        card["corners"] = [[round(float(x), 1), round(float(y), 1)] for x, y in q]
        out.append(card)
    return out


class _Look:
    """One frame detected and read at any card width; its mask is made once."""

    def __init__(self, frame: np.ndarray, reader: Reader, background: np.ndarray | None) -> None:
        from vision.detect import Detector

        self.frame, self.reader = frame, reader
        self.detector = Detector(background)
        self.work = self.detector.mask(frame)

    def at(self, card_w: float | None) -> tuple[list[np.ndarray], list[tuple[Reading, int]]]:
        """(quads, oriented readings) with `card_w` the card width to assume (None: as seen)."""
        mask, scale, small = self.work
        self.detector.card_w = card_w
        quads = self.detector.find_in(mask, scale, small)
        return quads, self.reader.read_quads(self.frame, small, scale, quads,
                                             self.detector.covers(quads))


def _second_look(look: _Look, kept: list[tuple[np.ndarray, Reading]], others: list[np.ndarray]
                 ) -> list[tuple[np.ndarray, Reading]]:
    """Cards the detector's boxes missed in a pile, found by reading.

    Where cards pile up, the box the detector takes for a card can be cut a little wrong (the
    card abstains) or across two cards (the card is missed), while another box fits: one it
    passed over (`others`), one of the unsure boxes moved or scaled a little, or one proposed
    where the foreground is left unexplained once the sure cards are cut out of it. Those boxes
    are read (`_witnessed`); a card found that way is kept only away from the cards read
    already (a card hidden under one of them is not asked for), and replaces the unsure boxes
    at its place."""
    from vision.detect import iou, proposals_beside, short_side

    sure = [q for q, r in kept if r.kind != "unknown"]
    mask, scale, small = look.work
    boxes = others + [b for q, r in kept if r.kind == "unknown" for b in _nudged(q)]
    boxes += proposals_beside(sure, mask, scale, small, look.detector.min_card_w)
    h, w = look.frame.shape[:2]
    boxes = [b for b in boxes if (b >= 0).all() and (b[:, 0] < w).all() and (b[:, 1] < h).all()
             and all(iou(b, s) <= 0.5 for s in sure)]
    for q, r in sorted(_witnessed(look, boxes, sure), key=lambda f: -f[1].confidence):
        c, width = q.mean(axis=0), float(short_side(q))
        if all(float(np.hypot(*(k.mean(axis=0) - c))) > AWAY * width
               for k, kr in kept if kr.kind != "unknown"):
            kept = [(k, kr) for k, kr in kept if kr.kind != "unknown"
                    or float(np.hypot(*(k.mean(axis=0) - c))) > AWAY * width]
            kept.append((q, r))
    return kept


def _witnessed(look: _Look, boxes: list[np.ndarray], sure: list[np.ndarray]
               ) -> list[tuple[np.ndarray, Reading]]:
    """The numbers read in `boxes` (the `sure` cards over them painted out: which lies on top
    is not known, and a sure card was taken first) with two more witnesses: a corner index
    names the number (vision.index), and of the boxes at the same place whose corners name a
    card, more than twice as many name it as any other. Each as (quad turned upright, reading),
    half a card width or more from every sure card."""
    from vision.detect import crop_cards, iou, short_side
    from vision.index import names

    if not boxes:
        return []
    covers = [[s for s in sure if iou(s, b) > 0] for b in boxes]
    _, scale, small = look.work
    reader = look.reader
    reads = reader.read_oriented_batch(crop_cards(small, scale, boxes, covers))
    # every number and every unsure read is looked at by its corners once: to read or check
    # it (as `read_quads` does) and to witness it
    ask = [i for i, (r, _) in enumerate(reads) if r.kind in ("number", "unknown")]
    corners = dict(zip(ask, reader.corner_proba(look.frame, [boxes[i] for i in ask],
                                                [covers[i] for i in ask]), strict=True))
    reads = reader.by_corners(reads, corners)
    named = [i for i, (r, _) in enumerate(reads)
             if r.kind == "number" and names(corners[i], r.value)]
    centres = np.array([b.mean(axis=0) for b in boxes])
    sure_centres = np.array([s.mean(axis=0) for s in sure]).reshape(-1, 2)
    found = []
    for i in named:
        card, width = reads[i][0].card, float(short_side(boxes[i]))
        if np.hypot(*(sure_centres - centres[i]).T).min(initial=np.inf) <= AWAY * width:
            continue
        votes = [reads[j][0].card == card for j in named
                 if np.hypot(*(centres[j] - centres[i])) < SAME_PLACE * width]
        if 2 * (len(votes) - sum(votes)) < sum(votes):
            found.append((np.roll(boxes[i], -reads[i][1], axis=0), reads[i][0]))
    return found


AWAY = 0.5  # card widths from a card read already: a second look reads another card
SAME_PLACE = 0.35  # boxes this near (card widths) are read as one place


def _nudged(q: np.ndarray) -> list[np.ndarray]:
    """The box moved by about 6 % of its sides and scaled by 6 % (26 boxes)."""
    from vision.detect import order_quad

    centre, along, down = q.mean(axis=0), q[1] - q[0], q[3] - q[0]
    return [order_quad(((q - centre) * scale + centre + dx * along + dy * down)
                       .astype(np.float32))
            for dx in (-0.06, 0.0, 0.06) for dy in (-0.05, 0.0, 0.05) for scale in (0.94, 1.0, 1.06)
            if (dx, dy, scale) != (0.0, 0.0, 1.0)]


def _same_card_near(q: np.ndarray, reading: Reading, kept: list[tuple[np.ndarray, Reading]]
                    ) -> bool:
    """A second read of one physical card (two overlapping quads of it) is dropped."""
    if reading.kind == "unknown":
        return False
    c, size = q.mean(axis=0), float(np.linalg.norm(q[1] - q[0]))
    return any(r.card == reading.card and float(np.linalg.norm(k.mean(axis=0) - c)) < 1.2 * size
               for k, r in kept)
