"""Card designs printed in real typefaces: the editions the reader must read without having seen.

A `Design` says how one edition prints the 61 Tightrope cards: the typefaces of the big numeral and
of the corner indices, where the indices sit and how big they are, the border, a picture, the
card stock's colour, how 6 and 9 are told apart, and how the scoring cards and the two zeros look.
`random_design` draws one; its layout choices come from *families*, and one family of each kind is
held out of training (`HELD_OUT`) so that the unseen-design figures measure layouts, not only
typefaces, the models never saw.

Orientation is the card's own: an index or a scoring card's half numeral stands upright towards the
short edge it is printed at, a scoring card has its blue half on top, and a blue zero its coloured
half on top (a red zero at the bottom). Faces are CARD_W x CARD_H BGR, like `vision.cards`.
Needs Pillow (the `train` or `test` extra) and fonts (`vision.sim.fonts`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.cards import CARD_H, CARD_W, CardId
from vision.sim.draw import (
    BGR,
    BORDERS,
    WHITE,
    blank,
    border,
    glyph,
    hsv,
    mix,
    random_dark_ink,
    random_stock,
    random_vivid,
    rounded_rect,
    stamp,
)
from vision.sim.families import Layouts, layouts_for, pick_family, uses_held_out, with_held_out
from vision.sim.fonts import Split, pick_font

# layout families (and draw.BORDERS); the last of each is held out of training (see HELD_OUT)
INDEX_LAYOUTS = ("corners2", "corners4", "stacked", "none", "topbottom")
PICTURES = ("none", "walker", "shapes", "stripe", "emblem")
SCORING_STYLES = ("halves", "ink", "bands", "diagonal")
ZERO_STYLES = ("half", "full", "framed", "ring")
MARKS_69 = ("underline", "dot", "none")
HELD_OUT = {"index_layout": INDEX_LAYOUTS[-1], "border": BORDERS[-1],
            "picture": PICTURES[-1], "scoring": SCORING_STYLES[-1], "zero": ZERO_STYLES[-1]}


@dataclass(frozen=True)
class Design:
    """One edition of the deck. Colours are BGR; sizes are fractions of the card's height."""

    name: str
    numeral_font: str
    index_font: str
    stock: BGR = (232, 240, 244)
    ink: BGR = (40, 32, 30)
    index_layout: str = "corners2"
    index_height: float = 0.09
    index_inset: float = 0.06       # of the card width, from the edge to the index
    index_frame: bool = False       # a small box around each index
    numeral_height: float = 0.34
    numeral_y: float = 0.55         # centre of the big numeral
    numeral_plate: str = "none"     # "none" | "circle" | "box": a shape behind the numeral
    plate_colour: BGR = (200, 215, 225)
    border: str = "line"
    border_colour: BGR = (70, 60, 55)
    border_width: float = 0.03      # of the card width
    picture: str = "walker"
    picture_top: bool = True        # the picture above the numeral (else below)
    picture_colour: BGR = (60, 90, 150)
    picture_seed: int = 0
    mark69: str = "underline"
    scoring: str = "halves"
    blue: BGR = (165, 90, 20)
    red: BGR = (40, 40, 200)
    scoring_ink: BGR = WHITE
    scoring_height: float = 0.30
    scoring_indices: bool = False   # small indices in the halves' corners too
    zero: str = "half"
    zero_height: float = 0.40
    title: str = ""                 # a small line of text (the game's name) at one end

    def face(self, card: CardId) -> np.ndarray:
        """The card's face, canonical portrait orientation, CARD_H x CARD_W x 3 BGR (shared,
        read-only: copy before drawing on it)."""
        return _face(self, card)

    @property
    def held_out(self) -> bool:
        """Uses a layout family kept out of training."""
        return uses_held_out(self, HELD_OUT)


def random_design(rng: np.random.Generator, split: Split = "train",
                  layouts: Layouts | None = None) -> Design:
    """A random edition whose typefaces come from `split` (vision.sim.fonts). Its layout
    families: for "train" (default for the train split) none held out; for "held_out" (default
    for the test split) at least one held out; "any" draws from all."""
    layouts = layouts_for(split, layouts)
    numeral = pick_font(rng, split)
    index = numeral if rng.random() < 0.7 else pick_font(rng, split)

    def choose(options: tuple[str, ...], weights: tuple[float, ...] | None = None) -> str:
        return pick_family(rng, options, weights, layouts)

    stock = random_stock(rng)
    dark = random_dark_ink(rng)
    ink = dark if rng.random() < 0.8 else random_vivid(rng)
    blue, red = _blue(rng), _red(rng)
    design = Design(
        name=f"{numeral.family} / {int(rng.integers(1 << 30))}",
        numeral_font=numeral.path,
        index_font=index.path,
        stock=stock,
        ink=ink,
        index_layout=choose(INDEX_LAYOUTS, (3, 3, 1.5, 1, 2)),
        index_height=float(rng.uniform(0.06, 0.14)),
        index_inset=float(rng.uniform(0.03, 0.1)),
        index_frame=bool(rng.random() < 0.15),
        numeral_height=float(rng.uniform(0.2, 0.46)),
        numeral_y=float(rng.uniform(0.45, 0.62)),
        numeral_plate=str(rng.choice(["none"] * 6 + ["circle", "box"])),
        plate_colour=mix(stock, random_vivid(rng), float(rng.uniform(0.15, 0.5))),
        border=choose(BORDERS, (2, 3, 2, 2, 1.5)),
        border_colour=dark if rng.random() < 0.4 else random_vivid(rng),
        border_width=float(rng.uniform(0.015, 0.08)),
        picture=choose(PICTURES, (2, 2, 2, 1.5, 1.5)),
        picture_top=bool(rng.random() < 0.75),
        picture_colour=random_vivid(rng),
        picture_seed=int(rng.integers(1 << 30)),
        mark69=str(rng.choice(MARKS_69, p=[0.5, 0.25, 0.25])),
        scoring=choose(SCORING_STYLES, (4, 2, 2, 1.5)),
        blue=blue,
        red=red,
        scoring_ink=WHITE if rng.random() < 0.8 else stock,
        scoring_height=float(rng.uniform(0.2, 0.34)),
        scoring_indices=bool(rng.random() < 0.3),
        zero=choose(ZERO_STYLES, (3, 2, 1.5, 1.5)),
        zero_height=float(rng.uniform(0.3, 0.46)),
        title=str(rng.choice(["", "", "", "TIGHTROPE", "DRAHTSEILAKT", "Knizia", "ASS"])),
    )
    design = with_held_out(design, HELD_OUT, rng, layouts)
    if design.numeral_y + design.numeral_height / 2 > 0.9:
        design = replace(design, numeral_y=0.9 - design.numeral_height / 2)
    return design


# --- colours ---------------------------------------------------------------------------------


def _blue(rng: np.random.Generator) -> BGR:
    """Blues from navy to sky, and violet-blue."""
    return hsv(rng.uniform(97, 128), rng.uniform(0.55, 1.0), rng.uniform(0.35, 0.9))


def _red(rng: np.random.Generator) -> BGR:
    """Reds from brick to scarlet, and the pinks of "Relationship Tightrope"."""
    hue = rng.uniform(-8, 6) if rng.random() < 0.75 else rng.uniform(150, 172)
    return hsv(hue % 180, rng.uniform(0.5, 1.0), rng.uniform(0.5, 0.95))


def _mark(design: Design, value: int) -> str:
    return design.mark69 if value in (6, 9) else "none"


# --- faces -----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def _face(design: Design, card: CardId) -> np.ndarray:
    if card.kind == "number":
        img = _number(design, card.value)
    elif card.value == 0:
        img = _zero(design, card.colour == "blue")
    else:
        img = _scoring(design, card.value)
    img.setflags(write=False)
    return img








def _picture(img: np.ndarray, d: Design) -> None:
    """The edition's small picture, above (or below) the numeral: it breaks the 180-degree
    symmetry the way real card art does."""
    if d.picture == "none":
        return
    rng = np.random.default_rng(d.picture_seed)
    top = d.numeral_y - d.numeral_height / 2
    bottom = d.numeral_y + d.numeral_height / 2
    lo, hi = (0.1, max(0.12, top - 0.03)) if d.picture_top else (min(0.88, bottom + 0.03), 0.9)
    cy = (lo + hi) / 2 * CARD_H
    size = max(10.0, min((hi - lo) * CARD_H, 0.3 * CARD_H))
    cx, c, aa = CARD_W / 2, d.picture_colour, cv2.LINE_AA
    if d.picture == "walker":
        s = size / 40
        rope = int(cy + 12 * s)
        cv2.line(img, (int(cx - 60 * s), rope), (int(cx + 60 * s), rope - int(4 * s)), c, 2, aa)
        hip = (int(cx), int(rope - 12 * s))
        cv2.line(img, (int(cx - 5 * s), rope - 1), hip, c, 2, aa)
        cv2.line(img, (int(cx + 5 * s), rope - 1), hip, c, 2, aa)
        neck = (int(cx), int(rope - 26 * s))
        cv2.line(img, hip, neck, c, 2, aa)
        cv2.circle(img, (int(cx), int(rope - 31 * s)), max(2, int(5 * s)), c, -1, aa)
        cv2.line(img, (int(cx - 25 * s), int(rope - 18 * s)),
                 (int(cx + 25 * s), int(rope - 24 * s)), c, 2, aa)
    elif d.picture == "shapes":
        for _ in range(int(rng.integers(2, 6))):
            colour = random_vivid(rng)
            px = cx + rng.uniform(-0.35, 0.35) * CARD_W
            py = cy + rng.uniform(-0.4, 0.4) * size
            r = rng.uniform(0.12, 0.35) * size
            if rng.random() < 0.5:
                cv2.circle(img, (int(px), int(py)), int(r), colour, -1, aa)
            else:
                n = int(rng.integers(3, 7))
                ang = rng.uniform(0, 2 * math.pi) + np.arange(n) * 2 * math.pi / n
                pts = np.stack([px + r * np.cos(ang), py + r * np.sin(ang)], 1)
                cv2.fillPoly(img, [pts.astype(np.int32)], colour, aa)
    elif d.picture == "stripe":
        y0, y1 = int(cy - size * 0.25), int(cy + size * 0.25)
        cv2.rectangle(img, (0, y0), (CARD_W - 1, y1), c, -1)
        step = int(rng.integers(8, 18))
        for x in range(-CARD_H, CARD_W, step):
            cv2.line(img, (x, y1), (x + (y1 - y0), y0), mix(c, WHITE, 0.35), 2, aa)
    elif d.picture == "emblem":
        r = int(size * 0.42)
        cv2.circle(img, (int(cx), int(cy)), r, c, 2, aa)
        star = [(cx + (r * (0.85 if k % 2 == 0 else 0.38)) * math.sin(k * math.pi / 5),
                 cy - (r * (0.85 if k % 2 == 0 else 0.38)) * math.cos(k * math.pi / 5))
                for k in range(10)]
        cv2.fillPoly(img, [np.array(star, np.int32)], c, aa)


def _title(img: np.ndarray, d: Design, y_frac: float) -> None:
    if not d.title:
        return
    g = glyph(d.index_font, d.title, 0.035 * CARD_H, max_width=0.55 * CARD_W)
    stamp(img, g, CARD_W / 2, y_frac * CARD_H, mix(d.ink, d.stock, 0.3))


def _indices(img: np.ndarray, d: Design, text: str, colour: BGR, value: int) -> None:
    """The small indices: upright at the card's top, turned round at its bottom."""
    if d.index_layout == "none":
        return
    g = glyph(d.index_font, text, d.index_height * CARD_H, _mark(d, value),
              max_width=0.3 * CARD_W)
    h, w = g.shape
    inset = d.index_inset * CARD_W + 4
    x_left, x_right = inset + w / 2, CARD_W - inset - w / 2
    y_top = inset + h / 2
    if d.index_layout == "topbottom":
        spots = [(CARD_W / 2, y_top)]
    elif d.index_layout == "corners4":
        spots = [(x_left, y_top), (x_right, y_top)]
    else:  # corners2, stacked
        spots = [(x_left, y_top)]
    flipped = np.ascontiguousarray(g[::-1, ::-1])
    for x, y in spots:
        for gl, px, py in ((g, x, y), (flipped, CARD_W - x, CARD_H - y)):
            if d.index_frame:
                pad = 3
                cv2.rectangle(img, (int(px - w / 2 - pad), int(py - h / 2 - pad)),
                              (int(px + w / 2 + pad), int(py + h / 2 + pad)), colour, 1,
                              cv2.LINE_AA)
            stamp(img, gl, px, py, colour)
    if d.index_layout == "stacked":  # a small emblem under each index, as on playing cards
        r = max(3, int(0.35 * w))
        for px, py in ((x_left, y_top + h / 2 + r + 3), (CARD_W - x_left, CARD_H - y_top - h / 2
                                                          - r - 3)):
            cv2.circle(img, (int(px), int(py)), r, d.picture_colour, -1, cv2.LINE_AA)


def _number(d: Design, value: int) -> np.ndarray:
    img = blank(d.stock)
    border(img, d.border, d.border_colour, d.border_width)
    _picture(img, d)
    text = str(value)
    big = glyph(d.numeral_font, text, d.numeral_height * CARD_H, _mark(d, value),
                max_width=0.72 * CARD_W)
    cy = d.numeral_y * CARD_H
    if d.numeral_plate != "none":
        h, w = big.shape
        if d.numeral_plate == "circle":
            r = int(0.55 * max(h, w))
            cv2.circle(img, (CARD_W // 2, int(cy)), min(r, CARD_W // 2 - 6), d.plate_colour, -1,
                       cv2.LINE_AA)
        else:
            cv2.rectangle(img, (int(CARD_W / 2 - w / 2 - 8), int(cy - h / 2 - 8)),
                          (int(CARD_W / 2 + w / 2 + 8), int(cy + h / 2 + 8)), d.plate_colour,
                          -1, cv2.LINE_AA)
    stamp(img, big, CARD_W / 2, cy, d.ink)
    _indices(img, d, text, d.ink, value)
    _title(img, d, 0.93 if d.picture_top else 0.07)
    return img


def _scoring(d: Design, value: int) -> np.ndarray:
    """Both halves show the value, each upright towards its own short edge: blue on top."""
    if d.scoring == "diagonal":
        return _diagonal(d, value)
    half = _scoring_half(d, value, d.blue)
    other = _scoring_half(d, value, d.red)
    img = np.vstack([half, other[::-1, ::-1]])
    if d.border in ("line", "double") and d.scoring == "ink":
        border(img, d.border, d.border_colour, d.border_width)
    return img


def _scoring_half(d: Design, value: int, colour: BGR) -> np.ndarray:
    """The top half of a scoring card in one colour (the bottom half is the other, turned)."""
    hh = CARD_H // 2
    half = blank(d.stock)[:hh].copy()
    g = glyph(d.numeral_font, str(value), d.scoring_height * CARD_H, _mark(d, value),
              max_width=0.6 * CARD_W)
    m = int(round(d.border_width * CARD_W * 0.6))
    if d.scoring == "halves":
        rounded_rect(half, (m, m, CARD_W - 1 - m, hh + 12), 10, colour, -1)
        ink = d.scoring_ink
    elif d.scoring == "bands":
        band = int(hh * 0.82)
        cv2.rectangle(half, (0, 0), (CARD_W - 1, band), colour, -1)
        ink = d.scoring_ink
    else:  # "ink": coloured numerals on the stock
        ink = colour
    cy = hh * (0.45 if d.scoring == "bands" else 0.52)
    stamp(half, g, CARD_W / 2, cy, ink)
    if d.scoring_indices:
        small = glyph(d.index_font, str(value), 0.07 * CARD_H, _mark(d, value))
        stamp(half, small, 12 + small.shape[1] / 2, 12 + small.shape[0] / 2,
               d.scoring_ink if d.scoring in ("halves", "bands") else colour)
    return half


def _diagonal(d: Design, value: int) -> np.ndarray:
    """The card split corner to corner: blue above the diagonal, red below."""
    img = blank(d.stock)
    ys, xs = np.mgrid[0:CARD_H, 0:CARD_W]
    above = ys * CARD_W + xs * CARD_H * 0.35 < CARD_H * CARD_W * 0.68
    img[above] = d.blue
    img[~above] = d.red
    g = glyph(d.numeral_font, str(value), d.scoring_height * CARD_H, _mark(d, value),
              max_width=0.55 * CARD_W)
    stamp(img, g, CARD_W * 0.42, CARD_H * 0.27, d.scoring_ink)
    flipped = np.ascontiguousarray(g[::-1, ::-1])
    stamp(img, flipped, CARD_W * 0.58, CARD_H * 0.73, d.scoring_ink)
    return img


def _zero(d: Design, blue: bool) -> np.ndarray:
    colour = d.blue if blue else d.red
    if d.zero == "half":
        half = blank(d.stock)[:CARD_H // 2].copy()
        rounded_rect(half, (4, 4, CARD_W - 5, CARD_H // 2 + 12), 10, colour, -1)
        g = glyph(d.numeral_font, "0", d.zero_height * CARD_H, max_width=0.7 * CARD_W)
        stamp(half, g, CARD_W / 2, CARD_H / 4 + 4, d.scoring_ink)
        plain = blank(d.stock)[:CARD_H // 2]
        img = np.vstack([half, plain]) if blue else np.vstack([plain, half[::-1, ::-1]])
        return np.ascontiguousarray(img)
    g = glyph(d.numeral_font, "0", d.zero_height * 1.3 * CARD_H, max_width=0.75 * CARD_W)
    if d.zero == "full":
        img = blank(colour)
        stamp(img, g, CARD_W / 2, CARD_H / 2, d.scoring_ink)
        return img
    img = blank(d.stock)
    if d.zero == "framed":
        cv2.rectangle(img, (0, 0), (CARD_W - 1, CARD_H - 1), colour, 24)
    stamp(img, g, CARD_W / 2, CARD_H / 2, colour)
    return img
