"""The simulator's own edition of the deck: canonical face images in a built-in stroke font.

What a card *is* (`CardId`, its teach-folder label) lives in vision.types; this module says what
its face looks like in the canonical portrait orientation (`render_face`, CARD_W x CARD_H BGR).

Faces are drawn with a tiny built-in stroke font (cv2 polylines only, so they look the same with
any OpenCV version and need no font file). A `FaceStyle` says how an edition prints its cards;
`random_style` gives other digit shapes, weights and tints so a reader can be trained and tested
"zero-shot" on editions it never saw.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from vision.types import ALL_CARDS, CardId, CardLabelError

__all__ = ["ALL_CARDS", "CARD_H", "CARD_W", "CardId", "CardLabelError", "DEFAULT_STYLE",
           "Edition", "FaceStyle", "face_cached", "random_style", "render_face"]

CARD_W, CARD_H = 200, 308
"""Canonical face size in px (portrait); real cards are 59 x 91 mm."""

BGR = tuple[int, int, int]


@dataclass(frozen=True)
class FaceStyle:
    """How one edition prints its cards. Colours are BGR; sizes are fractions of CARD_H.

    The numerals come from a small built-in stroke font (`_digit_strokes` below), not
    cv2.putText: OpenCV 5 replaced the Hershey fonts, and faces must look the same with any OpenCV.
    `squareness` bends the bowls from round (2) towards boxy (4+); `slant` is an italic shear;
    `width` scales the digit width; `serif` adds a foot to the 1 and a beak to the 7-like strokes.
    """

    name: str = "ass"
    squareness: float = 2.0
    slant: float = 0.0
    width: float = 1.0
    serif: bool = False
    weight: float = 0.15            # stroke width / glyph height of the big numerals
    index_weight: float = 0.15      # same for the corner indices
    paper: BGR = (226, 238, 242)    # off-white, slightly warm
    ink: BGR = (40, 32, 30)
    border: BGR = (70, 60, 55)
    blue: BGR = (165, 90, 20)
    red: BGR = (40, 40, 200)
    numeral_height: float = 0.37    # the big value on a number card
    index_height: float = 0.085     # the small corner indices
    scoring_height: float = 0.31    # each half's numeral on a scoring card
    zero_height: float = 0.40       # the huge 0 on a zero card


    def face(self, card: CardId) -> np.ndarray:
        """The card's face in this edition (shared, read-only: see `face_cached`)."""
        return face_cached(card, self)


class Edition(Protocol):
    """Anything that prints the deck: this module's `FaceStyle` (the built-in stroke font) or a
    `vision.sim.designs.Design` (real typefaces and layouts). Hashable, so faces can be cached."""

    @property
    def name(self) -> str: ...

    def face(self, card: CardId) -> np.ndarray: ...

    def __hash__(self) -> int: ...


DEFAULT_STYLE = FaceStyle()


def random_style(rng: np.random.Generator) -> FaceStyle:
    """Another plausible edition: digit shapes, slant, stroke weight, paper tint, ink, colours."""

    def jitter(base: BGR, spread: int) -> BGR:
        # one common brightness shift plus a smaller per-channel one: stays the same hue family
        common = rng.integers(-spread, spread + 1)
        b, g, r = (int(np.clip(c + common + rng.integers(-spread // 3, spread // 3 + 1), 0, 255))
                   for c in base)
        return (b, g, r)

    paper_level = int(rng.integers(205, 250))
    tint = rng.integers(-8, 9, size=3)
    paper = tuple(int(np.clip(paper_level + t, 170, 255)) for t in tint)
    weight = float(rng.uniform(0.09, 0.19))
    return FaceStyle(
        name=f"random-{int(rng.integers(1 << 30))}",
        squareness=float(rng.choice([2.0, 2.0, 2.6, 3.5, 5.0])),
        slant=float(rng.choice([0.0, 0.0, rng.uniform(0.08, 0.22)])),
        width=float(rng.uniform(0.8, 1.2)),
        serif=bool(rng.random() < 0.35),
        weight=weight,
        index_weight=float(np.clip(weight + rng.uniform(-0.02, 0.03), 0.09, 0.2)),
        paper=paper,  # type: ignore[arg-type]
        ink=jitter((35, 30, 30), 30),
        border=jitter((70, 60, 55), 40),
        blue=jitter((165, 90, 20), 35),
        red=jitter((40, 40, 200), 35),
        numeral_height=float(rng.uniform(0.33, 0.41)),
        index_height=float(rng.uniform(0.07, 0.095)),
        scoring_height=float(rng.uniform(0.27, 0.34)),
        zero_height=float(rng.uniform(0.36, 0.44)),
    )


def render_face(card: CardId, style: FaceStyle = DEFAULT_STYLE) -> np.ndarray:
    """The card's face, canonical portrait orientation, CARD_H x CARD_W x 3 BGR uint8 (a copy)."""
    return face_cached(card, style).copy()


@functools.lru_cache(maxsize=256)
def face_cached(card: CardId, style: FaceStyle = DEFAULT_STYLE) -> np.ndarray:
    """Like render_face but returns the shared cached array (read-only): for hot loops."""
    if card.kind == "number":
        img = _number_face(card.value, style)
    elif card.value == 0:
        img = _zero_face(card.colour == "blue", style)
    else:
        img = _scoring_face(card.value, style)
    img.setflags(write=False)
    return img


# --- glyphs: a tiny stroke font ------------------------------------------------------------
# Each digit is a list of polylines in a box 0.6 wide x 1.0 tall (y down). Bowls are superellipse
# arcs, so `squareness` morphs round digits into boxy ones.

_DW = 0.6  # digit box width


def _arc(cx: float, cy: float, rx: float, ry: float, a0: float, a1: float, p: float
         ) -> list[tuple[float, float]]:
    """Superellipse arc (exponent p; 2 = ellipse) from angle a0 to a1 degrees (y down)."""
    pts = []
    for a in np.radians(np.linspace(a0, a1, max(8, int(abs(a1 - a0) / 6)))):
        c, s = np.cos(a), np.sin(a)
        e = 2 / p
        pts.append((cx + rx * np.sign(c) * abs(c) ** e, cy + ry * np.sign(s) * abs(s) ** e))
    return pts


def _digit_strokes(d: int, p: float, serif: bool) -> list[list[tuple[float, float]]]:
    w = _DW
    if d == 0:
        return [_arc(w / 2, 0.5, w / 2, 0.5, 0, 360, p)]
    if d == 1:
        strokes = [[(0.12, 0.2), (0.33, 0.0), (0.33, 1.0)]]
        return strokes + [[(0.1, 1.0), (0.56, 1.0)]] if serif else strokes
    if d == 2:
        return [_arc(w / 2, 0.27, 0.28, 0.27, 190, 380, p) + [(0.02, 1.0), (w, 1.0)]]
    if d == 3:
        top = _arc(w / 2, 0.26, 0.26, 0.25, 200, 450, p)
        return [top, _arc(w / 2, 0.73, 0.3, 0.27, 270, 520, p)]
    if d == 4:
        return [[(0.46, 1.0), (0.46, 0.0), (0.0, 0.7), (w, 0.7)]]
    if d == 5:
        return [[(0.56, 0.0), (0.1, 0.0), (0.05, 0.46)] + _arc(w / 2, 0.68, 0.3, 0.32, 220, 510, p)]
    if d == 6:
        tail = _arc(w, 0.68, w, 0.66, 180, 255, 2.0)
        return [_arc(w / 2, 0.68, w / 2, 0.32, 0, 360, p), tail]
    if d == 7:
        strokes = [[(0.0, 0.0), (w, 0.0), (0.2, 1.0)]]
        return strokes + [[(0.0, 0.0), (0.0, 0.12)]] if serif else strokes
    if d == 8:
        return [_arc(w / 2, 0.24, 0.24, 0.24, 0, 360, p), _arc(w / 2, 0.73, 0.3, 0.27, 0, 360, p)]
    if d == 9:  # a 6 turned round: only the underline and the card layout tell them apart
        return [[(w - x, 1.0 - y) for x, y in s] for s in _digit_strokes(6, p, serif)]
    raise ValueError(f"not a digit: {d}")


@functools.lru_cache(maxsize=512)
def _glyph(text: str, style_key: tuple[float, float, float, bool], weight: float, height: int,
           underline: bool) -> np.ndarray:
    """Tight float32 alpha mask (0..1) of `text` whose digits are `height` px tall.

    Drawn large on a scratch canvas and shrunk with INTER_AREA: exact sizes and clean
    anti-aliasing at any scale.
    """
    p, slant, width, serif = style_key
    unit = 240  # scratch px per unit of digit height
    thick = max(2, round(weight * unit))
    pad = thick + 8
    advance = (_DW * width + 0.22 + weight) * unit
    total_w = int(advance * len(text) + slant * unit + 2 * pad)
    extra = int((0.09 + weight) * unit) if underline else 0
    canvas = np.zeros((unit + 2 * pad + extra, total_w), np.uint8)
    for i, ch in enumerate(text):
        for stroke in _digit_strokes(int(ch), p, serif):
            pts = [(pad + i * advance + (x * width + (1.0 - y) * slant) * unit, pad + y * unit)
                   for x, y in stroke]
            arr = np.round(np.array(pts) * 16).astype(np.int32)  # 4 fractional bits
            cv2.polylines(canvas, [arr], False, 255, thick, cv2.LINE_AA, shift=4)
    ys, xs = np.nonzero(canvas)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    glyph_h = y1 - y0
    if underline:  # a bar under the numeral: tells a 6 from an upside-down 9
        gap = int(0.1 * glyph_h)
        inset = (x1 - x0) // 8
        bar = max(2, int(thick * 0.8))
        canvas[y1 + gap : y1 + gap + bar, x0 + inset : x1 - inset] = 255
        y1 = y1 + gap + bar
    crop = canvas[y0:y1, x0:x1]
    k = height / glyph_h
    out_h, out_w = max(1, round(crop.shape[0] * k)), max(1, round(crop.shape[1] * k))
    small = cv2.resize(crop, (out_w, out_h), interpolation=cv2.INTER_AREA)
    return small.astype(np.float32) / 255.0


def _numeral(value: int, style: FaceStyle, height: int, weight: float,
             max_width: int | None = None) -> np.ndarray:
    key = (style.squareness, style.slant, style.width, style.serif)
    underline = value in (6, 9)
    g = _glyph(str(value), key, round(weight, 4), height, underline)
    if max_width is not None and g.shape[1] > max_width:
        g = _glyph(str(value), key, round(weight, 4), int(height * max_width / g.shape[1]),
                   underline)
    return g


def _stamp(img: np.ndarray, alpha: np.ndarray, x: int, y: int, colour: BGR) -> None:
    """Blend a solid colour through an alpha mask into img at top-left (x, y), in place."""
    h, w = alpha.shape
    roi = img[y : y + h, x : x + w].astype(np.float32)
    a = alpha[: roi.shape[0], : roi.shape[1], None]
    roi = roi * (1.0 - a) + np.array(colour, np.float32) * a
    img[y : y + h, x : x + w] = np.clip(roi + 0.5, 0, 255).astype(np.uint8)


def _stamp_centred(img: np.ndarray, alpha: np.ndarray, cx: float, cy: float, colour: BGR) -> None:
    h, w = alpha.shape
    _stamp(img, alpha, int(round(cx - w / 2)), int(round(cy - h / 2)), colour)


# --- faces ------------------------------------------------------------------------------------

_MARGIN = 7  # border line inset (px)


def _blank(style: FaceStyle) -> np.ndarray:
    img = np.empty((CARD_H, CARD_W, 3), np.uint8)
    img[:] = style.paper
    return img


def _border(img: np.ndarray, colour: BGR) -> None:
    m = _MARGIN
    cv2.rectangle(img, (m, m), (CARD_W - 1 - m, CARD_H - 1 - m), colour, 2, cv2.LINE_AA)


def _walker(img: np.ndarray, style: FaceStyle) -> None:
    """The tightrope and its walker above the big numeral: breaks the 180-degree symmetry."""
    rope_y, cx, ink = int(0.25 * CARD_H), CARD_W // 2, style.ink
    aa = cv2.LINE_AA
    cv2.line(img, (34, rope_y - 3), (CARD_W - 34, rope_y - 3), ink, 2, aa)
    cv2.line(img, (cx - 5, rope_y - 4), (cx, rope_y - 16), ink, 2, aa)  # legs
    cv2.line(img, (cx + 5, rope_y - 4), (cx, rope_y - 16), ink, 2, aa)
    cv2.line(img, (cx, rope_y - 16), (cx, rope_y - 30), ink, 2, aa)  # body
    cv2.circle(img, (cx, rope_y - 36), 5, ink, -1, aa)  # head
    cv2.line(img, (cx - 26, rope_y - 21), (cx + 26, rope_y - 27), ink, 2, aa)  # balancing pole


def _corner_indices(img: np.ndarray, value: int, style: FaceStyle) -> None:
    g = _numeral(value, style, round(style.index_height * CARD_H), style.index_weight)
    h, w = g.shape
    inset = _MARGIN + 7
    g180 = g[::-1, ::-1]
    _stamp(img, g, inset, inset, style.ink)
    _stamp(img, g, CARD_W - inset - w, inset, style.ink)
    _stamp(img, g180, inset, CARD_H - inset - h, style.ink)
    _stamp(img, g180, CARD_W - inset - w, CARD_H - inset - h, style.ink)


def _number_face(value: int, style: FaceStyle) -> np.ndarray:
    img = _blank(style)
    _border(img, style.border)
    _walker(img, style)
    big = _numeral(value, style, round(style.numeral_height * CARD_H), style.weight,
                   max_width=CARD_W - 2 * (_MARGIN + 14))
    _stamp_centred(img, big, CARD_W / 2, 0.58 * CARD_H, style.ink)
    _corner_indices(img, value, style)
    return img


def _half(colour: BGR, style: FaceStyle) -> np.ndarray:
    """Top half of a scoring card: coloured field inside the paper margin, rounded corners."""
    half = np.empty((CARD_H // 2, CARD_W, 3), np.uint8)
    half[:] = style.paper
    m, r = _MARGIN - 2, 10
    x0, y0, x1, y1 = m, m, CARD_W - 1 - m, CARD_H // 2
    cv2.rectangle(half, (x0 + r, y0), (x1 - r, y1), colour, -1, cv2.LINE_AA)
    cv2.rectangle(half, (x0, y0 + r), (x1, y1), colour, -1, cv2.LINE_AA)
    for cx in (x0 + r, x1 - r):
        cv2.circle(half, (cx, y0 + r), r, colour, -1, cv2.LINE_AA)
    return half


def _scoring_face(value: int, style: FaceStyle) -> np.ndarray:
    height, white = round(style.scoring_height * CARD_H), (250, 250, 250)
    g = _numeral(value, style, height, style.weight)
    top = _half(style.blue, style)
    _stamp_centred(top, g, CARD_W / 2, CARD_H / 4 + 4, white)
    bottom = _half(style.red, style)
    _stamp_centred(bottom, g, CARD_W / 2, CARD_H / 4 + 4, white)
    return np.vstack([top, bottom[::-1, ::-1]])


def _zero_face(blue: bool, style: FaceStyle) -> np.ndarray:
    g = _numeral(0, style, round(style.zero_height * CARD_H), style.weight * 1.1)
    coloured = _half(style.blue if blue else style.red, style)
    _stamp_centred(coloured, g, CARD_W / 2, CARD_H / 4 + 3, (250, 250, 250))
    plain = np.empty_like(coloured)
    plain[:] = style.paper
    m = _MARGIN
    # border on the outer edges only (open towards the coloured half)
    cv2.rectangle(plain, (m, m), (CARD_W - 1 - m, CARD_H // 2 + 5), style.border, 2, cv2.LINE_AA)
    if blue:
        return np.vstack([coloured, plain[::-1, ::-1]])
    return np.vstack([plain, coloured[::-1, ::-1]])
