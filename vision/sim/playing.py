"""Ordinary playing cards printed in many editions: the 54 faces the solo game is played with.

The deck's names (`SOLO_DECK`) are the solo game's teach names (`companion.games.solo`; vision
may not import the game, so a test checks they agree): rank and suit, `AS` `2S` .. `10S` `JS`
`QS` `KS` for spades, hearts, diamonds and clubs (S H D C), then `joker` and `back`.

As real cards are printed: the rank and a suit pip stacked in two opposite corners (or all four),
the bottom ones turned round; pips laid out for A..10 in the usual places, those below the middle
turned round; a court card (J, Q, K) a framed picture panel with a big letter; a joker; a back.
Suits are drawn with OpenCV shapes (a font need not have them); red suits red, black suits black,
or a four-colour deck (diamonds blue, clubs green), which is held out of training like the last
family of each layout choice (`HELD_OUT`). Faces are CARD_W x CARD_H BGR, upright.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.cards import CARD_H, CARD_W
from vision.sim.draw import (
    BACKS,
    BGR,
    BORDERS,
    WHITE,
    blank,
    border,
    card_back,
    fit,
    glyph,
    hsv,
    mix,
    random_dark_ink,
    random_stock,
    rounded_rect,
    stamp,
    stamp_both_ways,
)
from vision.sim.families import Layouts, layouts_for, pick_family, uses_held_out, with_held_out
from vision.sim.fonts import Split, pick_font

SUITS = "SHDC"  # spades, hearts, diamonds, clubs
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SOLO_DECK: tuple[str, ...] = (*(r + s for s in SUITS for r in RANKS), "joker", "back")
LETTERS = "AJQKOER"  # what an index font must draw besides digits: A J Q K and JOKER
BORDER_WIDTH = 0.015  # of the card's width: a thin line, clear of the indices

# layout families; the last of each is held out of training (see HELD_OUT)
SUIT_COLOURS = ("two", "four")            # red and black, or a four-colour deck
INDEX_CORNERS = ("corners2", "corners4")
COURTS = ("double", "letter", "portrait")  # the court card's panel
JOKERS = ("jester", "star")
FAMILIES = {"suit_colours": SUIT_COLOURS, "index_corners": INDEX_CORNERS, "court": COURTS,
            "joker": JOKERS, "border": BORDERS, "back": BACKS}
HELD_OUT = {key: options[-1] for key, options in FAMILIES.items()}

# the usual pip places of A..10: (column, row) with columns left/middle/right = 0/1/2 and rows
# from the top (0) to the bottom (1) of the pip area
_PIPS: dict[str, tuple[tuple[int, float], ...]] = {
    "A": ((1, 0.5),),
    "2": ((1, 0), (1, 1)),
    "3": ((1, 0), (1, 0.5), (1, 1)),
    "4": ((0, 0), (2, 0), (0, 1), (2, 1)),
    "5": ((0, 0), (2, 0), (1, 0.5), (0, 1), (2, 1)),
    "6": ((0, 0), (2, 0), (0, 0.5), (2, 0.5), (0, 1), (2, 1)),
    "7": ((0, 0), (2, 0), (1, 0.25), (0, 0.5), (2, 0.5), (0, 1), (2, 1)),
    "8": ((0, 0), (2, 0), (1, 0.25), (0, 0.5), (2, 0.5), (1, 0.75), (0, 1), (2, 1)),
    "9": (*((c, r) for c in (0, 2) for r in (0, 1 / 3)), (1, 0.5),
          *((c, r) for c in (0, 2) for r in (2 / 3, 1))),
    "10": (*((c, r) for c in (0, 2) for r in (0, 1 / 3)), (1, 1 / 6), (1, 5 / 6),
           *((c, r) for c in (0, 2) for r in (2 / 3, 1))),
}


@dataclass(frozen=True)
class PlayingDesign:
    """One edition of a pack of playing cards. Colours are BGR; sizes are fractions of the
    card's height (insets of its width)."""

    name: str
    index_font: str
    court_font: str
    stock: BGR = (245, 245, 245)
    black: BGR = (30, 25, 25)
    red: BGR = (40, 30, 200)
    blue: BGR = (160, 80, 20)          # a four-colour deck's diamonds
    green: BGR = (50, 130, 30)         # and its clubs
    suit_colours: str = "two"
    index_corners: str = "corners2"
    index_height: float = 0.1
    index_inset: float = 0.06
    pip_height: float = 0.12
    ace_height: float = 0.34
    court: str = "double"
    court_colours: tuple[BGR, BGR, BGR] = ((40, 40, 190), (140, 70, 30), (40, 170, 230))
    joker: str = "jester"
    border: str = "none"
    border_colour: BGR = (60, 60, 60)
    back: str = "lattice"
    back_colour: BGR = (140, 60, 30)

    def face(self, name: str) -> np.ndarray:
        """The face of the card `name` (one of SOLO_DECK), CARD_H x CARD_W x 3 BGR (shared,
        read-only: copy before drawing on it)."""
        return _face(self, name)

    def suit_colour(self, suit: str) -> BGR:
        if suit in "HD":
            return self.blue if suit == "D" and self.suit_colours == "four" else self.red
        return self.green if suit == "C" and self.suit_colours == "four" else self.black

    @property
    def held_out(self) -> bool:
        """Uses a layout family kept out of training."""
        return uses_held_out(self, HELD_OUT)


def random_playing_design(rng: np.random.Generator, split: Split = "train",
                          layouts: Layouts | None = None) -> PlayingDesign:
    """A random edition whose typefaces come from `split` (vision.sim.fonts) and whose layout
    families follow `layouts` as in `vision.sim.designs.random_design`."""
    layouts = layouts_for(split, layouts)
    index = pick_font(rng, split, LETTERS)
    court = index if rng.random() < 0.6 else pick_font(rng, split, LETTERS)

    def choose(key: str) -> str:
        return pick_family(rng, FAMILIES[key], None, layouts)

    design = PlayingDesign(
        name=f"cards {index.family} / {int(rng.integers(1 << 30))}",
        index_font=index.path,
        court_font=court.path,
        stock=random_stock(rng),
        black=random_dark_ink(rng),
        red=hsv(rng.uniform(-6, 4) % 180, rng.uniform(0.7, 1.0), rng.uniform(0.6, 0.9)),
        blue=hsv(rng.uniform(100, 120), rng.uniform(0.7, 1.0), rng.uniform(0.45, 0.8)),
        green=hsv(rng.uniform(50, 75), rng.uniform(0.7, 1.0), rng.uniform(0.4, 0.7)),
        suit_colours=choose("suit_colours"),
        index_corners=choose("index_corners"),
        index_height=float(rng.uniform(0.09, 0.13)),
        index_inset=float(rng.uniform(0.05, 0.08)),
        pip_height=float(rng.uniform(0.1, 0.13)),
        ace_height=float(rng.uniform(0.2, 0.4)),
        court=choose("court"),
        court_colours=(hsv(rng.uniform(-5, 5) % 180, 0.8, 0.8),
                       hsv(rng.uniform(100, 120), 0.8, 0.6), hsv(rng.uniform(18, 28), 0.85, 0.95)),
        joker=choose("joker"),
        border=choose("border"),
        border_colour=random_dark_ink(rng),
        back=choose("back"),
        back_colour=hsv(rng.choice([0, 115, rng.uniform(0, 180)]), rng.uniform(0.5, 0.9),
                        rng.uniform(0.3, 0.7)),
    )
    return with_held_out(design, HELD_OUT, rng, layouts)


# --- faces -----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _face(d: PlayingDesign, name: str) -> np.ndarray:
    if name not in SOLO_DECK:
        raise ValueError(f"not a playing card: {name!r} (e.g. AS, 10H, QD, joker, back)")
    if name == "back":
        img = card_back(d.back, d.back_colour, WHITE)
    elif name == "joker":
        img = _joker(d)
    else:
        rank, suit = name[:-1], name[-1]
        img = blank(d.stock)
        border(img, d.border, d.border_colour, BORDER_WIDTH)
        if rank in _PIPS:
            _pips(img, d, rank, suit)
        else:
            _court(img, d, rank, suit)
        _index(img, d, rank, suit)
    img.setflags(write=False)
    return img


def _index(img: np.ndarray, d: PlayingDesign, rank: str, suit: str) -> None:
    """The rank with its suit pip under it, in the corners, the bottom ones turned round."""
    colour = d.suit_colour(suit)
    text = glyph(d.index_font, rank, d.index_height * CARD_H, max_width=0.16 * CARD_W)
    pip = fit(_suit_alpha(suit), 0.62 * d.index_height * CARD_H, 0.13 * CARD_W)
    column = max(text.shape[1], pip.shape[1]) / 2 + d.index_inset * CARD_W
    top = d.index_inset * CARD_W + text.shape[0] / 2 + 2
    for x in (column, CARD_W - column)[: 2 if d.index_corners == "corners4" else 1]:
        stamp_both_ways(img, text, x, top, colour)
        stamp_both_ways(img, pip, x, top + text.shape[0] / 2 + pip.shape[0] / 2 + 4, colour)


def _pips(img: np.ndarray, d: PlayingDesign, rank: str, suit: str) -> None:
    """The suit pips in their usual places; those below the middle are printed upside down."""
    height = (d.ace_height if rank == "A" else d.pip_height) * CARD_H
    pip = fit(_suit_alpha(suit), height, 0.8 * height if rank != "A" else 0.6 * CARD_W)
    turned = np.ascontiguousarray(pip[::-1, ::-1])
    for column, row in _PIPS[rank]:
        x = CARD_W * (0.3 + 0.2 * column)
        y = CARD_H * (0.2 + 0.6 * row)
        stamp(img, turned if row > 0.5 else pip, x, y, d.suit_colour(suit))


def _court(img: np.ndarray, d: PlayingDesign, rank: str, suit: str) -> None:
    """A framed picture panel: a double-headed figure, a big letter, or a portrait."""
    x0, y0, x1, y1 = int(0.2 * CARD_W), int(0.12 * CARD_H), int(0.8 * CARD_W), int(0.88 * CARD_H)
    colour = d.suit_colour(suit)
    rounded_rect(img, (x0, y0, x1, y1), 6, mix(d.court_colours[2], d.stock, 0.75), -1)
    letter = glyph(d.court_font, rank, 0.2 * CARD_H, max_width=0.4 * CARD_W)
    pip = fit(_suit_alpha(suit), 0.09 * CARD_H)
    if d.court == "double":  # the figure's upper half, then the whole panel turned round on it
        panel = img[y0:y1 + 1, x0:x1 + 1]
        n = panel.shape[0] // 2
        _figure(panel[:n], d, rank, colour)
        panel[-n:] = panel[:n][::-1, ::-1]
        small = fit(letter, 0.09 * CARD_H)
        stamp_both_ways(img, small, x0 + 8 + small.shape[1] / 2, y0 + 6 + small.shape[0] / 2,
                        colour)
        stamp_both_ways(img, pip, x1 - 8 - pip.shape[1] / 2, y0 + 6 + pip.shape[0] / 2, colour)
    elif d.court == "letter":  # a big letter both ways up, the suit between them
        stamp_both_ways(img, letter, CARD_W / 2, 0.3 * CARD_H, colour)
        stamp(img, fit(pip, 1.4 * pip.shape[0]), CARD_W / 2, CARD_H / 2, colour)
    else:  # a portrait: the figure once, upright, its letter under it between two pips
        _figure(img[y0 + 10:int(0.62 * CARD_H), x0:x1], d, rank, colour)
        stamp(img, fit(letter, 0.15 * CARD_H, 0.3 * CARD_W), CARD_W / 2, 0.74 * CARD_H, colour)
        for x in (x0 + 8 + pip.shape[1] / 2, x1 - 8 - pip.shape[1] / 2):
            stamp(img, pip, x, 0.74 * CARD_H, colour)
    for k, c in ((0, d.black), (4, colour)):
        cv2.rectangle(img, (x0 + k, y0 + k), (x1 - k, y1 - k), c, 2 if k == 0 else 1,
                      cv2.LINE_AA)


def _figure(area: np.ndarray, d: PlayingDesign, rank: str, colour: BGR) -> None:
    """A court figure's bust filling `area` (in place): robe, face, and the rank's headwear."""
    h, w = area.shape[:2]
    red, blue, gold = d.court_colours
    aa, cx = cv2.LINE_AA, w // 2
    face_y, r = int(0.38 * h), max(4, int(0.15 * w))
    robe = np.array([(int(0.04 * w), h), (int(0.96 * w), h), (int(0.78 * w), face_y + r),
                     (int(0.22 * w), face_y + r)], np.int32)
    cv2.fillPoly(area, [robe], blue if rank == "K" else red, aa)
    cv2.line(area, (cx, face_y + r), (cx, h), gold, max(2, w // 14), aa)    # the robe's trim
    cv2.fillPoly(area, [np.array([(int(0.3 * w), face_y + r), (int(0.7 * w), face_y + r),
                                  (cx, int(face_y + 2.2 * r))], np.int32)], WHITE, aa)  # collar
    cv2.circle(area, (cx, face_y), r, (170, 200, 235), -1, aa)
    for ex in (cx - r // 3, cx + r // 3):
        cv2.circle(area, (ex, face_y - r // 6), max(1, r // 7), d.black, -1, aa)
    cv2.line(area, (cx - r // 3, face_y + r // 2), (cx + r // 3, face_y + r // 2), red, 1, aa)
    top = face_y - r
    if rank == "K":  # a crown
        pts = [(cx - r, top), (cx - r, top - r), (cx - r // 2, top - r // 2), (cx, top - r - 3),
               (cx + r // 2, top - r // 2), (cx + r, top - r), (cx + r, top)]
        cv2.fillPoly(area, [np.array(pts, np.int32)], gold, aa)
    elif rank == "Q":  # a veil and a small crown
        cv2.ellipse(area, (cx, face_y), (int(1.4 * r), int(1.3 * r)), 0, 180, 360, red,
                    max(2, r // 3), aa)
        cv2.fillPoly(area, [np.array([(cx - r // 2, top), (cx, top - r // 2 - 2),
                                      (cx + r // 2, top)], np.int32)], gold, aa)
    else:  # a jack's cap with a feather
        cv2.ellipse(area, (cx, top + 2), (r + 2, max(3, r // 2)), 0, 180, 360, red, -1, aa)
        cv2.line(area, (cx + r // 2, top), (cx + r + r // 2, top - r), gold, max(2, r // 4), aa)
    cv2.circle(area, (int(0.8 * w), int(0.75 * h)), max(3, w // 12), colour, -1, aa)  # an orb


def _joker(d: PlayingDesign) -> np.ndarray:
    """JOKER down the corners, and a jester's cap with bells or a star in the middle."""
    img = blank(d.stock)
    border(img, d.border, d.border_colour, BORDER_WIDTH)
    ink = d.red if d.back_colour[2] > d.back_colour[0] else d.black  # a red or a black joker
    red, blue, gold = d.court_colours
    cx, cy = CARD_W / 2, CARD_H / 2
    if d.joker == "jester":
        for k, (colour, tip) in enumerate(((red, (-0.38, -0.2)), (blue, (0.0, -0.3)),
                                           (gold, (0.38, -0.2)))):
            base = [(cx + (k - 1.5) * 0.14 * CARD_W, cy), (cx + (k - 0.5) * 0.14 * CARD_W, cy)]
            end = (cx + tip[0] * CARD_W, cy + tip[1] * CARD_H)
            cv2.fillPoly(img, [np.array([*base, end], np.int32)], colour, cv2.LINE_AA)
            cv2.circle(img, (int(end[0]), int(end[1])), 7, ink, -1, cv2.LINE_AA)
        cv2.ellipse(img, (int(cx), int(cy + 0.09 * CARD_H)), (int(0.16 * CARD_W),
                    int(0.09 * CARD_H)), 0, 0, 360, (170, 200, 235), -1, cv2.LINE_AA)
        rounded_rect(img, (int(cx - 0.24 * CARD_W), int(cy - 6), int(cx + 0.24 * CARD_W),
                           int(cy + 8)), 6, ink, -1)
    else:
        star = [(cx + (0.3 if k % 2 == 0 else 0.13) * CARD_W * math.sin(k * math.pi / 5),
                 cy - (0.3 if k % 2 == 0 else 0.13) * CARD_W * math.cos(k * math.pi / 5))
                for k in range(10)]
        cv2.fillPoly(img, [np.array(star, np.int32)], ink, cv2.LINE_AA)
    inset = 0.06 * CARD_W + 6
    size = 0.055 * CARD_H
    for i, letter in enumerate("JOKER"):
        g = glyph(d.index_font, letter, size, max_width=0.1 * CARD_W)
        stamp_both_ways(img, g, inset + 4, inset + (i + 0.5) * size * 1.25, ink)
    return img


# --- suit shapes as alpha masks (drawn 200 px tall, shrunk to size) ---------------------------


@functools.lru_cache(maxsize=8)
def _suit_alpha(suit: str) -> np.ndarray:
    m = np.zeros((200, 180), np.float32)
    if suit in "HS":  # the heart curve; a spade is a heart upside down with a foot
        t = np.linspace(0, 2 * np.pi, 200)
        x = 16 * np.sin(t) ** 3
        y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
        sign = 1 if suit == "H" else -1
        pts = np.stack([90 + 5.4 * x, 92 + sign * 5.6 * y], 1)
        cv2.fillPoly(m, [pts.astype(np.int32)], 1.0, cv2.LINE_AA)
        if suit == "S":
            _foot(m)
    elif suit == "D":
        cv2.fillPoly(m, [np.array([(90, 0), (160, 100), (90, 199), (20, 100)], np.int32)], 1.0,
                     cv2.LINE_AA)
    else:  # three leaves and a foot
        for leaf in ((90, 48), (44, 112), (136, 112)):
            cv2.circle(m, leaf, 44, 1.0, -1, cv2.LINE_AA)
        cv2.fillPoly(m, [np.array([(70, 70), (110, 70), (110, 120), (70, 120)], np.int32)], 1.0)
        _foot(m)
    ys, xs = np.nonzero(m > 0.05)
    m = np.ascontiguousarray(m[ys.min():ys.max() + 1, xs.min():xs.max() + 1])
    m.setflags(write=False)
    return m


def _foot(m: np.ndarray) -> None:
    cv2.fillPoly(m, [np.array([(90, 110), (122, 199), (58, 199)], np.int32)], 1.0, cv2.LINE_AA)
