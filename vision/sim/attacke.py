"""Knizia's Attacke printed in many editions: knights of five contest colours, shields, a back.

The deck's names (`ATTACKE_DECK`) are the game's teach names (`companion.games.attacke`; vision
may not import the game, so a test checks they agree): `red-2` .. `purple-7` for the knights of
values 2, 3, 4, 5 and 7, `shield-7`, `shield-10` and `back`.

A knight shows its contest colour strongly (a frame, the whole card, bands or a medallion in that
colour), a knight emblem drawn with OpenCV shapes, its value as a big numeral and small indices
in a real typeface; a shield card shows a shield with 7 or 10 on it; the back is a pattern.
`random_attacke_design` draws an edition: each colour's exact hue within its family, typefaces of
a font split, the layout families (the last of each held out of training, `HELD_OUT`), sizes.
Faces are CARD_W x CARD_H BGR, upright in the card's own orientation.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.cards import CARD_H, CARD_W
from vision.sim.draw import (
    BACKS,
    BGR,
    WHITE,
    blank,
    card_back,
    fit,
    glyph,
    ground_at,
    hsv,
    legible_on,
    mix,
    random_dark_ink,
    random_stock,
    rounded_rect,
    stamp,
    stamp_both_ways,
)
from vision.sim.families import Layouts, layouts_for, pick_family, uses_held_out, with_held_out
from vision.sim.fonts import Split, pick_font

COLOURS = ("red", "yellow", "green", "blue", "purple")
KNIGHT_VALUES = (2, 3, 4, 5, 7)
SHIELD_VALUES = (7, 10)
ATTACKE_DECK: tuple[str, ...] = (*(f"{c}-{v}" for c in COLOURS for v in KNIGHT_VALUES),
                                 *(f"shield-{v}" for v in SHIELD_VALUES), "back")

# each contest colour's family: OpenCV hue range (0..180), saturation and value ranges
HUE_FAMILIES: dict[str, tuple[tuple[float, float], tuple[float, float], tuple[float, float]]] = {
    "red": ((-6, 5), (0.7, 1.0), (0.6, 0.92)),
    "yellow": ((23, 31), (0.75, 1.0), (0.85, 1.0)),
    "green": ((45, 78), (0.55, 1.0), (0.4, 0.75)),
    "blue": ((100, 118), (0.6, 1.0), (0.45, 0.85)),
    "purple": ((132, 152), (0.45, 0.85), (0.35, 0.7)),
}

# layout families; the last of each is held out of training (see HELD_OUT)
FIELDS = ("frame", "full", "bands", "medallion")     # where a knight's colour lies
_CLEAR_OF = {"frame": 0.16}  # indices sit inside the frame (a fraction of the card's width)
EMBLEMS = ("helm", "horse", "lances", "rider")        # the knight emblem
INDEX_LAYOUTS = ("corners2", "corners4", "topbottom")
SHIELDS = ("heater", "round", "kite")
FAMILIES = {"field": FIELDS, "emblem": EMBLEMS, "index_layout": INDEX_LAYOUTS,
            "shield": SHIELDS, "back": BACKS}
HELD_OUT = {key: options[-1] for key, options in FAMILIES.items()}


@dataclass(frozen=True)
class AttackeDesign:
    """One edition of the Attacke deck. Colours are BGR; sizes are fractions of the card's
    height (insets of its width)."""

    name: str
    numeral_font: str
    index_font: str
    colours: tuple[BGR, BGR, BGR, BGR, BGR] = ((40, 40, 200), (30, 210, 240), (60, 150, 40),
                                               (170, 90, 20), (130, 40, 110))  # as COLOURS
    stock: BGR = (232, 240, 244)
    ink: BGR = (40, 32, 30)
    field: str = "frame"
    emblem: str = "helm"
    emblem_height: float = 0.3
    index_layout: str = "corners2"
    index_height: float = 0.1
    index_inset: float = 0.1
    index_pip: bool = True            # a small mark of the colour under each index
    numeral_height: float = 0.26
    shield: str = "heater"
    metal: BGR = (170, 170, 165)      # the shield's face: steel, silver, pewter
    back: str = "lattice"
    back_colour: BGR = (90, 40, 30)

    def face(self, name: str) -> np.ndarray:
        """The face of the card `name` (one of ATTACKE_DECK), CARD_H x CARD_W x 3 BGR (shared,
        read-only: copy before drawing on it)."""
        return _face(self, name)

    def colour_of(self, colour: str) -> BGR:
        return self.colours[COLOURS.index(colour)]

    @property
    def held_out(self) -> bool:
        """Uses a layout family kept out of training."""
        return uses_held_out(self, HELD_OUT)


def random_attacke_design(rng: np.random.Generator, split: Split = "train",
                          layouts: Layouts | None = None) -> AttackeDesign:
    """A random edition whose typefaces come from `split` (vision.sim.fonts) and whose layout
    families follow `layouts` as in `vision.sim.designs.random_design`."""
    layouts = layouts_for(split, layouts)
    numeral = pick_font(rng, split)
    index = numeral if rng.random() < 0.6 else pick_font(rng, split)

    def choose(key: str) -> str:
        return pick_family(rng, FAMILIES[key], None, layouts)

    design = AttackeDesign(
        name=f"attacke {numeral.family} / {int(rng.integers(1 << 30))}",
        numeral_font=numeral.path,
        index_font=index.path,
        colours=tuple(_contest_colour(rng, c) for c in COLOURS),  # type: ignore[arg-type]
        stock=random_stock(rng),
        ink=random_dark_ink(rng),
        field=choose("field"),
        emblem=choose("emblem"),
        emblem_height=float(rng.uniform(0.22, 0.34)),
        index_layout=choose("index_layout"),
        index_height=float(rng.uniform(0.08, 0.13)),
        index_inset=float(rng.uniform(0.07, 0.13)),
        index_pip=bool(rng.random() < 0.6),
        numeral_height=float(rng.uniform(0.18, 0.26)),
        shield=choose("shield"),
        metal=hsv(rng.uniform(0, 180), rng.uniform(0.0, 0.12), rng.uniform(0.55, 0.8)),
        back=choose("back"),
        back_colour=hsv(rng.uniform(0, 180), rng.uniform(0.4, 0.9), rng.uniform(0.25, 0.6)),
    )
    return with_held_out(design, HELD_OUT, rng, layouts)


def _contest_colour(rng: np.random.Generator, colour: str) -> BGR:
    (h0, h1), (s0, s1), (v0, v1) = HUE_FAMILIES[colour]
    return hsv(rng.uniform(h0, h1) % 180, rng.uniform(s0, s1), rng.uniform(v0, v1))


# --- faces -----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _face(d: AttackeDesign, name: str) -> np.ndarray:
    if name not in ATTACKE_DECK:
        raise ValueError(f"not an Attacke card: {name!r} (one of {', '.join(ATTACKE_DECK)})")
    kind, _, value = name.partition("-")
    if kind == "back":
        img = card_back(d.back, d.back_colour, WHITE)
    elif kind == "shield":
        img = _shield_card(d, int(value))
    else:
        img = _knight(d, d.colour_of(kind), int(value))
    img.setflags(write=False)
    return img


def _knight(d: AttackeDesign, colour: BGR, value: int) -> np.ndarray:
    """The colour's field, the emblem above the big numeral, the indices."""
    img, emblem_at, numeral_at = _field(d, colour)
    emblem = fit(_emblem_alpha(d.emblem), d.emblem_height * CARD_H, 0.7 * CARD_W)
    stamp(img, emblem, *emblem_at, _ink_on(d, colour)(ground_at(img, *emblem_at)))
    big = glyph(d.numeral_font, str(value), d.numeral_height * CARD_H, max_width=0.6 * CARD_W)
    stamp(img, big, *numeral_at, _ink_on(d, colour)(ground_at(img, *numeral_at)))
    _indices(img, d, str(value), colour)
    return img


def _ink_on(d: AttackeDesign, colour: BGR) -> Callable[[BGR], BGR]:
    """What a knight prints in on a ground: its colour (darkened, so that yellow reads) on the
    stock, else white or the ink, whichever reads."""
    dark = mix(colour, (0, 0, 0), 0.35)
    return lambda ground: dark if ground == d.stock else legible_on(ground, WHITE, d.ink)


def _field(d: AttackeDesign, colour: BGR) -> tuple[np.ndarray, tuple[float, float],
                                                   tuple[float, float]]:
    """The card with its colour laid on, and where the emblem and the numeral go."""
    img = blank(d.stock)
    w, h = CARD_W, CARD_H
    if d.field == "frame":
        band = int(0.13 * w)
        rounded_rect(img, (3, 3, w - 4, h - 4), 12, colour, -1)
        rounded_rect(img, (band, band, w - 1 - band, h - 1 - band), 8, d.stock, -1)
        return img, (w / 2, 0.36 * h), (w / 2, 0.7 * h)
    if d.field == "full":
        rounded_rect(img, (3, 3, w - 4, h - 4), 12, colour, -1)
        cv2.ellipse(img, (w // 2, int(0.36 * h)), (int(0.36 * w), int(0.17 * h)), 0, 0, 360,
                    d.stock, -1, cv2.LINE_AA)
        return img, (w / 2, 0.36 * h), (w / 2, 0.7 * h)
    if d.field == "bands":
        cv2.rectangle(img, (0, 0), (w - 1, int(0.52 * h)), colour, -1)
        cv2.rectangle(img, (0, int(0.92 * h)), (w - 1, h - 1), colour, -1)
        return img, (w / 2, 0.3 * h), (w / 2, 0.72 * h)
    cv2.circle(img, (w // 2, int(0.6 * h)), int(0.4 * w), colour, -1, cv2.LINE_AA)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), colour, int(0.06 * w))
    return img, (w / 2, 0.27 * h), (w / 2, 0.6 * h)


def _indices(img: np.ndarray, d: AttackeDesign, text: str, colour: BGR | None) -> None:
    """The value small at the corners (upright at the top, turned at the bottom), in ink that
    reads on what lies under it; a knight's index has a dot of its colour under it."""
    g = glyph(d.index_font, text, d.index_height * CARD_H, max_width=0.24 * CARD_W)
    h, w = g.shape
    inset = max(d.index_inset, _CLEAR_OF.get(d.field, 0.0) if colour else 0.0) * CARD_W
    top = inset + h / 2
    spots = {"corners2": [(inset + w / 2, top)],
             "corners4": [(inset + w / 2, top), (CARD_W - inset - w / 2, top)],
             "topbottom": [(CARD_W / 2, top * 0.8)]}[d.index_layout]
    ink = _ink_on(d, colour) if colour else (lambda ground: legible_on(ground, WHITE, d.ink))
    for x, y in spots:
        stamp_both_ways(img, g, x, y, ink)
        if colour is not None and d.index_pip:
            r = max(3, int(0.22 * w))
            pip = np.zeros((2 * r + 3, 2 * r + 3), np.float32)
            cv2.circle(pip, (r + 1, r + 1), r, 1.0, -1, cv2.LINE_AA)
            stamp_both_ways(img, pip, x, y + h / 2 + r + 4,
                            lambda ground: colour if ground == d.stock else ink(ground))


def _shield_card(d: AttackeDesign, value: int) -> np.ndarray:
    """A shield in the edition's metal with its value on it, on plain stock."""
    img = blank(d.stock)
    rounded_rect(img, (6, 6, CARD_W - 7, CARD_H - 7), 10, d.ink, 2)
    outline = fit(_shield_alpha(d.shield), 0.62 * CARD_H, 0.78 * CARD_W)
    inner = fit(_shield_alpha(d.shield), 0.62 * CARD_H - 10, 0.78 * CARD_W - 10)
    cy = 0.5 * CARD_H
    stamp(img, outline, CARD_W / 2, cy, d.ink)
    stamp(img, inner, CARD_W / 2, cy, d.metal)
    big = glyph(d.numeral_font, str(value), d.numeral_height * CARD_H, max_width=0.5 * CARD_W)
    stamp(img, big, CARD_W / 2, cy - 0.04 * CARD_H, legible_on(d.metal, WHITE, d.ink))
    _indices(img, d, str(value), None)
    return img


# --- emblems and shields as alpha masks (drawn 200 x 240, shrunk to size) ----------------------

_EW, _EH = 200, 240


@functools.lru_cache(maxsize=16)
def _emblem_alpha(kind: str) -> np.ndarray:
    m = np.zeros((_EH, _EW), np.float32)
    {"helm": _helm, "horse": _horse, "lances": _lances, "rider": _rider}[kind](m)
    m.setflags(write=False)
    return m


def _poly(m: np.ndarray, pts: list[tuple[float, float]], value: float = 1.0) -> None:
    cv2.fillPoly(m, [np.array(pts, np.int32)], value, cv2.LINE_AA)


def _helm(m: np.ndarray) -> None:
    """A great helm, front on: a flat-topped pot narrowing to the chin, the cross of its eye
    slit and nose bar cut out, breathing holes, a plume."""
    _poly(m, [(40, 70), (160, 70), (166, 200), (140, 236), (60, 236), (34, 200)])
    cv2.ellipse(m, (100, 74), (60, 22), 0, 180, 360, 1.0, -1, cv2.LINE_AA)
    cv2.rectangle(m, (44, 116), (156, 130), 0.0, -1)                  # eye slit
    cv2.rectangle(m, (93, 130), (107, 206), 0.0, -1)                  # breathing slot
    for x, y in ((126, 160), (142, 160), (126, 182), (142, 182), (58, 160), (74, 160),
                 (58, 182), (74, 182)):
        cv2.circle(m, (x, y), 5, 0.0, -1, cv2.LINE_AA)
    cv2.ellipse(m, (112, 30), (13, 32), 35, 0, 360, 1.0, -1, cv2.LINE_AA)  # plume


def _horse(m: np.ndarray) -> None:
    """A chess knight's horse head on its base."""
    _poly(m, [(50, 238), (160, 238), (160, 214), (140, 206), (150, 160), (158, 110),
              (148, 66), (124, 36), (120, 6), (104, 30), (86, 32), (54, 62), (26, 104),
              (22, 128), (38, 138), (64, 128), (86, 118), (96, 126), (70, 160), (52, 200),
              (58, 208)])
    cv2.circle(m, (86, 66), 8, 0.0, -1, cv2.LINE_AA)                   # the eye
    cv2.line(m, (110, 40), (150, 120), 0.0, 4, cv2.LINE_AA)            # the mane's edge


def _lances(m: np.ndarray) -> None:
    """Two lances crossed behind a round shield, pennants flying."""
    for (x0, y0), (x1, y1), flag in (((20, 230), (176, 14), 1), ((180, 230), (24, 14), -1)):
        cv2.line(m, (x0, y0), (x1, y1), 1.0, 9, cv2.LINE_AA)
        _poly(m, [(x1, y1), (x1 + flag * 40, y1 + 14), (x1 - flag * 4, y1 + 30)])
    cv2.circle(m, (100, 132), 52, 1.0, -1, cv2.LINE_AA)
    cv2.circle(m, (100, 132), 40, 0.0, 5, cv2.LINE_AA)


def _rider(m: np.ndarray) -> None:
    """A knight on horseback charging with a lance."""
    cv2.ellipse(m, (92, 160), (60, 32), 0, 0, 360, 1.0, -1, cv2.LINE_AA)      # the horse
    _poly(m, [(126, 150), (150, 104), (160, 96), (196, 124), (188, 136), (162, 126),
              (152, 164)])                                                    # neck and head
    _poly(m, [(152, 100), (156, 84), (164, 96)])                             # ear
    for (x0, y0), (x1, y1) in (((50, 176), (36, 236)), ((66, 180), (76, 236)),
                               ((118, 176), (150, 214)), ((132, 172), (166, 196))):
        cv2.line(m, (x0, y0), (x1, y1), 1.0, 10, cv2.LINE_AA)                # legs at a gallop
    _poly(m, [(36, 150), (6, 196), (18, 200), (42, 166)])                     # tail
    _poly(m, [(76, 140), (108, 140), (104, 76), (80, 76)])                   # the rider
    cv2.circle(m, (92, 58), 18, 1.0, -1, cv2.LINE_AA)                         # his helm
    cv2.line(m, (60, 112), (198, 60), 1.0, 7, cv2.LINE_AA)                    # the lance
    cv2.ellipse(m, (76, 112), (16, 24), 0, 0, 360, 1.0, -1, cv2.LINE_AA)      # his shield


@functools.lru_cache(maxsize=8)
def _shield_alpha(kind: str) -> np.ndarray:
    m = np.zeros((_EH, _EW), np.float32)
    if kind == "heater":  # flat top, sides curving to a point
        top = [(10, 10), (190, 10), (190, 100)]
        curve = [(100 + 90 * np.cos(t), 100 + 138 * np.sin(t)) for t in np.linspace(0, np.pi, 24)]
        _poly(m, top + curve + [(10, 100)])
    elif kind == "round":  # a round shield with its boss
        cv2.ellipse(m, (100, 120), (92, 110), 0, 0, 360, 1.0, -1, cv2.LINE_AA)
    else:  # kite: rounded top, long point
        cv2.ellipse(m, (100, 70), (90, 60), 0, 180, 360, 1.0, -1, cv2.LINE_AA)
        _poly(m, [(10, 70), (190, 70), (100, 238)])
    m.setflags(write=False)
    return m
