"""One face lookup for every deck the simulator prints: Tightrope, Attacke and playing cards.

A deck is named by its game (`DECKS`: "tightrope", "attacke", "solo") and its cards by the
game's teach names. A design prints one deck: a Tightrope `Edition` (`vision.cards.FaceStyle`,
`vision.sim.designs.Design`), an `AttackeDesign` or a `PlayingDesign`; `face(design, name)` draws
any card of its deck, `random_deck_design(game, rng, split)` draws an edition of any deck.

The scene renders a Tightrope `CardId` in the frame's edition as it always has; a `Printed` card
carries its own design, so a frame (or footage) may hold cards of any deck:
`Placement(Printed("QH", design), centre, angle, width)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.cards import CARD_H, CARD_W, CardId, Edition
from vision.sim.attacke import ATTACKE_DECK, AttackeDesign, random_attacke_design
from vision.sim.designs import random_design
from vision.sim.families import Layouts
from vision.sim.fonts import Split
from vision.sim.playing import SOLO_DECK, PlayingDesign, random_playing_design
from vision.types import ALL_CARDS

TIGHTROPE_DECK: tuple[str, ...] = tuple(c.label for c in ALL_CARDS)
DECKS: dict[str, tuple[str, ...]] = {"tightrope": TIGHTROPE_DECK, "attacke": ATTACKE_DECK,
                                     "solo": SOLO_DECK}
AnyDesign = Edition | AttackeDesign | PlayingDesign


def game_of(design: AnyDesign) -> str:
    """The game whose deck the design prints."""
    if isinstance(design, AttackeDesign):
        return "attacke"
    if isinstance(design, PlayingDesign):
        return "solo"
    return "tightrope"


def face(design: AnyDesign, name: str) -> np.ndarray:
    """The face of the card `name` of the design's deck: CARD_H x CARD_W x 3 BGR uint8, upright
    (shared, read-only: copy before drawing on it). ValueError for a name not in the deck."""
    if isinstance(design, AttackeDesign | PlayingDesign):
        return design.face(name)
    return design.face(CardId.from_label(name))


def random_deck_design(game: str, rng: np.random.Generator, split: Split = "train",
                       layouts: Layouts | None = None) -> AnyDesign:
    """A random edition of the game's deck: typefaces of the font split, layout families as
    `layouts` says (by default none held out for train, at least one for test)."""
    makers: dict[str, Callable[..., AnyDesign]] = {
        "tightrope": random_design, "attacke": random_attacke_design,
        "solo": random_playing_design}
    if game not in makers:
        raise ValueError(f"no deck for the game {game!r}; one of {', '.join(DECKS)}")
    return makers[game](rng, split, layouts)


@dataclass(frozen=True)
class Printed:
    """A card of any deck as one design prints it: what a `Placement` carries for a card the
    frame's edition does not print (`label` is its teach name, as a CardId's is)."""

    name: str
    design: AnyDesign

    def __post_init__(self) -> None:
        if self.name not in DECKS[game_of(self.design)]:
            raise ValueError(f"{self.name!r} is not a card of the {game_of(self.design)} deck")

    @property
    def label(self) -> str:
        return self.name

    def face(self) -> np.ndarray:
        return face(self.design, self.name)


def printed_deck(design: AnyDesign) -> list[Printed]:
    """Every card of the design's deck, printed by it."""
    return [Printed(name, design) for name in DECKS[game_of(design)]]


def contact_sheet(design: AnyDesign, columns: int = 14, card_w: int = CARD_W) -> np.ndarray:
    """Every face of the design's deck on a grey sheet, `columns` to a row, each `card_w` px
    wide (the camera sees a card about 80 px wide)."""
    card_h, gap = round(card_w * CARD_H / CARD_W), max(2, card_w // 20)
    names = DECKS[game_of(design)]
    rows = -(-len(names) // columns)
    sheet = np.full((rows * (card_h + gap) + gap, columns * (card_w + gap) + gap, 3), 96,
                    np.uint8)
    for i, name in enumerate(names):
        y, x = gap + (i // columns) * (card_h + gap), gap + (i % columns) * (card_w + gap)
        sheet[y:y + card_h, x:x + card_w] = cv2.resize(face(design, name), (card_w, card_h),
                                                       interpolation=cv2.INTER_AREA)
    return sheet
