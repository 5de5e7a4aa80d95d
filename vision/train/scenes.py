"""Random training scenes: a deck in some design on some table, laid out as players lay cards,
under some light and camera.

Each scene draws an edition (`vision.sim.designs`; now and then the built-in stroke-font deck), a
table surface (`vision.sim.textures`), a card size, a layout and the conditions of the frame:

- decks: Tightrope's editions, and for the detector's table sets also Attacke's and playing cards
  (`vision.sim.faces`), so it learns cards, not one deck's faces;
- layouts: cards scattered apart, a game table (a scoring row with zeros across half a value card,
  a card in front of each seat), piles, touching rows, cards cut by the frame's edge, and each
  seat's cards fanned half over one another (an Attacke laying, a solo mission);
- light and camera: uneven light, white balance, exposure, a large shadow, glare, vignetting,
  tilt (perspective), lens distortion, defocus, motion blur, noise, JPEG;
- hands over the table, sized to the cards.

`split` says whose fonts, layout families and tables are drawn: "train", "calib" (never trained
on) or "test" (never trained or tuned on: the unseen-design figures).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.cards import ALL_CARDS, CARD_H, CARD_W, DEFAULT_STYLE, CardId, Edition, random_style
from vision.sim.designs import random_design
from vision.sim.faces import printed_deck, random_deck_design
from vision.sim.fonts import Split
from vision.sim.hands import SKINS, SLEEVES, HandPose
from vision.sim.scene import (
    Card,
    Conditions,
    Placement,
    TruthCard,
    edge_scene,
    pile_scene,
    render_frame,
)
from vision.sim.scene import random_scene as scattered
from vision.sim.textures import random_table

Size = tuple[int, int]
LAYOUTS = ("scatter", "game", "pile", "row", "edge", "fans")
_LAYOUT_P = (0.3, 0.25, 0.15, 0.12, 0.18, 0.0)
# Scenes of every game's deck: mostly the fans the footage of Attacke and solo games shows, which
# the Tightrope-only sets never drew ("game" is Tightrope's own table; other decks fan instead).
_GAMES_LAYOUT_P = (0.15, 0.1, 0.15, 0.1, 0.1, 0.4)
GAMES = ("tightrope", "attacke", "solo")
STROKE_SHARE = 0.12  # scenes in the built-in stroke-font deck (our own simulated edition)


@dataclass
class Scene:
    image: np.ndarray          # BGR uint8
    truth: list[TruthCard]
    edition: Edition
    layout: str
    card_px: float


def random_edition(rng: np.random.Generator, split: Split) -> Edition:
    if split == "train" and rng.random() < STROKE_SHARE:
        return DEFAULT_STYLE if rng.random() < 0.3 else random_style(rng)
    return random_design(rng, split)


def random_conditions(rng: np.random.Generator) -> Conditions:
    """The light and the camera of one frame: most frames a little of everything, some a lot."""
    def some(p: float) -> bool:
        return bool(rng.random() < p)

    return Conditions(
        tilt_deg=float(rng.uniform(0, 15)) if some(0.5) else 0.0,
        light_gradient=float(rng.uniform(0, 0.8)),
        glare=int(rng.integers(1, 4)) if some(0.35) else 0,
        shadow=some(0.3),
        noise=float(rng.uniform(0.5, 3)) if some(0.7) else float(rng.uniform(3, 8)),
        motion_blur=int(rng.integers(3, 8)) if some(0.08) else 0,
        jpeg_quality=int(rng.integers(35, 95)) if some(0.5) else None,
        exposure=float(rng.uniform(0.9, 1.2)) if some(0.7) else float(rng.uniform(0.35, 0.9)),
        colour_cast=float(rng.uniform(-0.3, 0.3)) if some(0.7) else float(rng.uniform(-0.8, 0.8)),
        defocus=float(rng.uniform(0.3, 1.6)) if some(0.25) else 0.0,
        lens=float(rng.uniform(-0.2, 0.08)) if some(0.3) else 0.0,
        vignette=float(rng.uniform(0.1, 0.6)) if some(0.3) else 0.0,
    )


def _pool(rng: np.random.Generator) -> list[CardId]:
    cards = list(ALL_CARDS)
    rng.shuffle(cards)  # type: ignore[arg-type]
    return cards


def _scatter(rng: np.random.Generator, size: Size, card_px: float, n: int,
             overlap: float, cards: list[Card] | None) -> list[Placement]:
    spread = (card_px * 0.94, card_px * 1.06)
    return scattered(rng, n, size, overlap, width_range=spread, cards=(cards or _pool(rng))[:n])


def _game(rng: np.random.Generator, size: Size, card_px: float) -> list[Placement]:
    """A scoring row through the middle (a zero across half of a value card), a card in front
    of each of 3-5 seats, the far seats' cards upside down."""
    w, h = size
    ch = card_px * CARD_H / CARD_W
    tilt = float(rng.normal(0, 4))
    angle = tilt + (180.0 if rng.random() < 0.2 else 0.0)
    t = math.radians(angle)
    right = np.array([math.cos(t), -math.sin(t)])
    up = np.array([-math.sin(t), -math.cos(t)])
    values = [CardId("scoring", int(v)) for v in rng.permutation(np.arange(1, 10))]
    n = int(rng.integers(1, 10))
    step = card_px * float(rng.uniform(1.0, 1.3))
    centre = np.array([w / 2, h / 2]) + rng.normal(0, 0.05, 2) * (w, h)
    out: list[Placement] = []
    start = centre - (n - 1) / 2 * step * right
    for i, card in enumerate(values[:n]):
        c = start + i * step * right + rng.normal(0, 0.03 * card_px, 2)
        out.append(Placement(card, (float(c[0]), float(c[1])), angle + float(rng.normal(0, 2)),
                             card_px))
    zeros = [CardId("scoring", 0, "blue"), CardId("scoring", 0, "red")]
    for zero in zeros:
        if rng.random() < 0.4:
            i = int(rng.integers(n))
            sign = 1.0 if zero.colour == "blue" else -1.0
            c = np.array(out[i].center) + sign * up * ch / 2 + rng.normal(0, 0.04 * card_px, 2)
            out.append(Placement(zero, (float(c[0]), float(c[1])), angle + float(rng.normal(0, 4)),
                                 card_px))
    numbers = [c for c in _pool(rng) if c.kind == "number"]
    seats = int(rng.integers(3, 6))
    for s in range(seats):
        a = 2 * math.pi * s / seats + rng.normal(0, 0.15) + math.pi / 2
        r = np.array([w * 0.36, h * 0.36]) * rng.uniform(0.85, 1.15)
        c = np.array([w / 2, h / 2]) + r * np.array([math.cos(a), math.sin(a)])
        card_angle = math.degrees(math.pi / 2 - a) % 360 + float(rng.normal(0, 8))  # top away
        out.append(Placement(numbers[s], (float(c[0]), float(c[1])), card_angle, card_px))
        if rng.random() < 0.15:  # a second card beside it (a misplay, or the last trick's)
            c2 = c + rng.normal(0, 0.6, 2) * card_px
            out.append(Placement(numbers[seats + s], (float(c2[0]), float(c2[1])),
                                 card_angle + float(rng.normal(0, 10)), card_px))
    return out


def _row(rng: np.random.Generator, size: Size, card_px: float, cards: list[Card] | None
         ) -> list[Placement]:
    """Cards side by side, touching or nearly (a hand laid out, a row of tricks)."""
    w, h = size
    n = int(rng.integers(3, 8))
    angle = float(rng.uniform(0, 360))
    t = math.radians(angle)
    right = np.array([math.cos(t), -math.sin(t)])
    step = card_px * float(rng.uniform(0.98, 1.12))
    c0 = np.array([w / 2, h / 2]) + rng.normal(0, 0.1, 2) * (w, h)
    cards = cards or _pool(rng)
    return [Placement(cards[i], tuple(map(float, c0 + (i - (n - 1) / 2) * step * right
                                          + rng.normal(0, 0.02 * card_px, 2))),
                      angle + float(rng.normal(0, 1.5)), card_px) for i in range(n)]


def _fans(rng: np.random.Generator, size: Size, card_px: float, cards: list[Card]
          ) -> list[Placement]:
    """Two to six seats round the table, each with one to five cards fanned in front of it: each
    card 0.3-0.85 card widths beside the one before and over it (either way), tops away from the
    player."""
    w, h = size
    seats = int(rng.integers(2, 7))
    out: list[Placement] = []
    for s in range(seats):
        a = 2 * math.pi * s / seats + rng.normal(0, 0.2) + math.pi / 2
        c = np.array([w / 2, h / 2]) + np.array([w, h]) * 0.33 * rng.uniform(0.6, 1.15) * (
            math.cos(a), math.sin(a))
        angle = math.degrees(math.pi / 2 - a) % 360 + float(rng.normal(0, 8))
        t = math.radians(angle)
        along = np.array([math.cos(t), -math.sin(t)])
        n = int(rng.integers(1, 6))
        step = card_px * float(rng.uniform(0.3, 0.85)) * (1 if rng.random() < 0.7 else -1)
        for i in range(n):
            ci = c + (i - (n - 1) / 2) * step * along + rng.normal(0, 0.04 * card_px, 2)
            out.append(Placement(cards[len(out) % len(cards)], (float(ci[0]), float(ci[1])),
                                 angle + float(rng.normal(0, 3)), card_px))
    return out


def _hands(rng: np.random.Generator, size: Size, card_px: float,
           placements: list[Placement]) -> list[HandPose]:
    w, h = size
    poses = []
    for _ in range(int(rng.integers(1, 3))):
        if placements and rng.random() < 0.7:
            p = placements[int(rng.integers(len(placements)))]
            tip = (p.center[0] + float(rng.normal(0, card_px * 0.6)),
                   p.center[1] + float(rng.normal(0, card_px * 0.6)))
        else:
            tip = (float(rng.uniform(0.1, 0.9) * w), float(rng.uniform(0.1, 0.9) * h))
        edge = int(rng.integers(4))
        along = float(rng.uniform(0.1, 0.9))
        out = 2 * card_px
        entry = [(along * w, -out), (w + out, along * h), (along * w, h + out),
                 (-out, along * h)][edge]
        poses.append(HandPose(entry=entry, tip=tip,
                              palm_px=card_px * float(rng.uniform(1.2, 1.7)),
                              skin=SKINS[int(rng.integers(len(SKINS)))],
                              sleeve=None if rng.random() < 0.3
                              else SLEEVES[int(rng.integers(len(SLEEVES)))],
                              right=bool(rng.random() < 0.5), curl=float(rng.uniform(0, 0.6))))
    return poses


def random_placements(rng: np.random.Generator, size: Size, card_px: float, layout: str,
                      cards: list[Card] | None = None) -> list[Placement]:
    """The cards of one scene laid out as `layout` says; `cards`: the deck drawn from, shuffled
    (Tightrope's by default; "game" lays Tightrope's cards only)."""
    if layout == "scatter":
        return _scatter(rng, size, card_px, int(rng.integers(1, 12)),
                        0.0 if rng.random() < 0.6 else float(rng.uniform(0, 0.3)), cards)
    if layout == "game":
        return _game(rng, size, card_px)
    if layout == "fans":
        return _fans(rng, size, card_px, cards or _pool(rng))
    one_size = (card_px, card_px)
    if layout == "pile":
        return pile_scene(rng, size, width_range=one_size, cards=cards)
    if layout == "row":
        return _row(rng, size, card_px, cards)
    return edge_scene(rng, size, width_range=one_size, cards=cards)


def _deck(rng: np.random.Generator, split: Split, games: tuple[str, ...]
          ) -> tuple[Edition, list[Card] | None]:
    """The frame's edition and, for another game's deck, its cards printed in a random design of
    the split (shuffled); None: Tightrope's cards in the edition."""
    if games == ("tightrope",):
        return random_edition(rng, split), None
    game = str(rng.choice(games))
    if game == "tightrope":
        return random_edition(rng, split), None
    cards: list[Card] = list(printed_deck(random_deck_design(game, rng, split)))
    rng.shuffle(cards)  # type: ignore[arg-type]
    return DEFAULT_STYLE, cards


def random_scene(rng: np.random.Generator, split: Split, size: Size,
                 card_fraction: tuple[float, float] = (0.03, 0.13),
                 layout: str | None = None, games: tuple[str, ...] = ("tightrope",)) -> Scene:
    """One training frame of `size`: cards `card_fraction` of the frame's width (log-uniform), of
    one of the `games`' decks (more than Tightrope's: mostly fanned as those games lay them)."""
    edition, cards = _deck(rng, split, games)
    lo, hi = card_fraction
    card_px = float(math.exp(rng.uniform(math.log(lo), math.log(hi)))) * size[0]
    odds = _LAYOUT_P if games == ("tightrope",) else _GAMES_LAYOUT_P
    layout = layout or str(rng.choice(LAYOUTS, p=odds))
    if layout == "game" and cards is not None:
        layout = "fans"
    placements = random_placements(rng, size, card_px, layout, cards)
    cond = random_conditions(rng)
    hands = _hands(rng, size, card_px, placements) if rng.random() < 0.35 else []
    if cond.glare and placements and rng.random() < 0.7:
        picks = [placements[int(rng.integers(len(placements)))] for _ in range(cond.glare)]
        glare = [(p.center[0] + float(rng.normal(0, 0.3 * card_px)),
                  p.center[1] + float(rng.normal(0, 0.3 * card_px))) for p in picks]
    else:
        glare = None
    table_seed = int(rng.integers(1 << 31))

    def surface(w: int, h: int) -> np.ndarray:
        return random_table(np.random.default_rng(table_seed), w, h, card_px, split)

    image, truth = render_frame(placements, cond, size, seed=int(rng.integers(1 << 30)),
                                style=edition, hand_poses=hands, glare_at=glare,
                                surface=surface)
    return Scene(image, truth, edition, layout, card_px)
