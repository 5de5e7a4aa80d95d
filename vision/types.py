"""What vision tells the rest of the companion: card identities, readings and observations.

A `CardId` is a physical card of the Tightrope deck; a `Reading` is what the reader made of one
crop (its best card, how sure, the honest candidates, its abstention line), named by the card's
name in whatever deck was read (`label`, `named`); an `Observation` is a card the
watcher saw lie still, with its reading, where it lies and in which zone; a `Change` is one
appearing or going. The referee imports these and nothing else from vision's insides.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

Kind = Literal["number", "scoring"]
Colour = Literal["blue", "red"]

NUMBER_MAX = 50
SCORING_MAX = 9
GUESSES = 5  # a reading's first candidates: the guesses worth naming


class CardLabelError(ValueError):
    """A card label or card identity that does not exist in the Tightrope deck."""


@dataclass(frozen=True)
class CardId:
    """One physical card: a number card 1..50, a scoring card 1..9, or a blue/red scoring 0."""

    kind: Kind
    value: int
    colour: Colour | None = None

    def __post_init__(self) -> None:
        if self.kind == "number":
            ok = 1 <= self.value <= NUMBER_MAX and self.colour is None
        elif self.kind == "scoring":
            if self.value == 0:
                ok = self.colour in ("blue", "red")
            else:
                ok = 1 <= self.value <= SCORING_MAX and self.colour is None
        else:
            ok = False
        if not ok:
            raise CardLabelError(
                f"no such card: kind={self.kind!r} value={self.value!r} colour={self.colour!r}"
            )

    @functools.cached_property
    def label(self) -> str:
        """Teach-folder stem: "number-17", "scoring-4", "scoring-0-blue"."""
        base = f"{self.kind}-{self.value}"
        return f"{base}-{self.colour}" if self.colour else base

    @property
    def is_zero(self) -> bool:
        """A scoring 0 (blue or red)."""
        return self.kind == "scoring" and self.value == 0

    @classmethod
    def from_label(cls, label: str) -> CardId:
        """Parse a label made by `label`; raises CardLabelError (a ValueError) on anything else."""
        m = _LABEL_RE.fullmatch(label.strip()) if isinstance(label, str) else None
        if m is None:
            raise CardLabelError(f"not a card label: {label!r}")
        kind, value, colour = m.group(1), int(m.group(2)), m.group(3)
        if value != 0 and m.group(2).startswith("0"):
            raise CardLabelError(f"not a card label: {label!r}")
        return cls(kind, value, colour)  # type: ignore[arg-type]

    def __str__(self) -> str:
        return self.label


_LABEL_RE = re.compile(r"(number|scoring)-(\d{1,2})(?:-(blue|red))?")

ALL_CARDS: tuple[CardId, ...] = (
    *(CardId("number", v) for v in range(1, NUMBER_MAX + 1)),
    *(CardId("scoring", v) for v in range(1, SCORING_MAX + 1)),
    CardId("scoring", 0, "blue"),
    CardId("scoring", 0, "red"),
)


@dataclass(frozen=True)
class Reading:
    """The reader's answer for one crop. `kind` "unknown" is an abstention: `candidates` still
    hold its honest guesses, best first, with their probabilities: each card the reader gives a
    share worth counting (vision.read.CANDIDATE), so that what the game rules out is known
    nearly to the last share; the first GUESSES are the ones worth naming. `line` is the
    reader's confidence line: nobody downstream (the game's narrowing) may take a card on less.

    `label` and `named` name the card in any deck: `label` is the sure card's name (None where
    the reader abstains), `named` the candidates by name, best first, with their probabilities.
    A Tightrope reading (a sure card, or any candidates) derives them from its CardId fields,
    whatever is passed: `label == card.label`, `named == ((c.label, p) for c, p in candidates)`.
    A reading of another game's deck (`Reading.of_name`; a deck taught with names) carries only
    them: its Tightrope fields say nothing (`kind` "unknown", `value` and `colour` None,
    `candidates` ()), so that nothing reading the Tightrope fields takes it for a Tightrope card;
    `sure` tells a sure read of any deck."""

    kind: Literal["number", "scoring", "unknown"]
    value: int | None
    colour: Colour | None
    confidence: float
    candidates: tuple[tuple[CardId, float], ...]
    line: float = 0.0
    label: str | None = None
    named: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        if self.kind != "unknown" or self.candidates:  # a Tightrope reading: derived, one owner
            card = self.card
            object.__setattr__(self, "label", card.label if card is not None else None)
            object.__setattr__(self, "named", tuple((c.label, p) for c, p in self.candidates))

    @property
    def card(self) -> CardId | None:
        if self.kind == "unknown" or self.value is None:
            return None
        return CardId(self.kind, self.value, self.colour)

    @property
    def sure(self) -> bool:
        """A sure read of a card of any deck (not an abstention)."""
        return self.label is not None

    @classmethod
    def of(cls, card: CardId | None, confidence: float,
           candidates: tuple[tuple[CardId, float], ...], line: float) -> Reading:
        if card is None:
            return cls("unknown", None, None, confidence, candidates, line)
        return cls(card.kind, card.value, card.colour, confidence, candidates, line)

    @classmethod
    def of_name(cls, label: str | None, confidence: float,
                named: tuple[tuple[str, float], ...], line: float) -> Reading:
        """A reading of another game's deck: the sure card's name (None: abstained) and the
        candidates by name; the Tightrope fields say nothing."""
        return cls("unknown", None, None, confidence, (), line, label, tuple(named))


@dataclass(frozen=True)
class Observation:
    """A card lying still: its reading, its corners (TL, TR, BR, BL of the face as printed, in
    frame px), centre, zone (seat index, "scoring" or None), and the watcher's track: the same
    number while that physical card lies there, read again or not."""

    reading: Reading
    quad: np.ndarray = field(compare=False)
    center: tuple[float, float]
    zone: int | str | None
    stable_frames: int
    track: int = -1


@dataclass(frozen=True)
class Change:
    kind: Literal["appeared", "removed"]
    observation: Observation
    frame_index: int
