"""The table of physical cards: every card the camera saw, and what it stands for in the game.

One entry per physical card (the watcher's track): where it lies (a seat's place, the scoring
row, elsewhere), how it was read, when it arrived, whether it still lies there, and its status:

- waiting: seen, not yet part of the game (unsure, not its turn, or asked about);
- counted: it stands for a reveal or a play of the game (`counts_as`, in `round`, by `seat`);
- ignored: a person said it is no card of the game, or took its event back.

A card a person named that the camera never saw (its scoring card was missed, say) is an entry
too, with a negative track. Everything the interpreter knows about the table is here, once.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from vision.types import CardId, Reading

from .rules import ScoringCard

Status = Literal["waiting", "counted", "ignored"]
ANY = object()  # `waiting()` of every zone
Stands = ScoringCard | int  # what a card counts as: a scoring card, or a number card


@dataclass
class Card:
    track: int
    zone: int | str | None           # seat index, "scoring" or None (outside every place)
    reading: Reading | None          # None for a card only a person named
    order: int                       # arrival order on the table
    t: float                         # frame time it arrived
    at_start: bool = False           # lay there when the companion (re)started watching
    status: Status = "waiting"
    counts_as: Stands | None = None
    round: int = -1
    trick: int = -1
    seat: int | None = None
    present: bool = True             # still lies on the table
    named: Stands | None = None      # what a person said it is
    by_person: bool = False          # counted on a person's word, not the camera's read
    confirmed: bool = False          # a person kept what it counts as: never asked again
    overruled: CardId | None = None  # the sure read a person's answer overruled: not asked again
    refused: str = ""                # why the rules refused what it was taken for
    doubted: bool = False            # a person named what it counts as for another card

    @property
    def in_row(self) -> bool:
        return self.zone == "scoring"

    @property
    def seen(self) -> bool:
        """The camera saw it (a card only a person named has a negative track)."""
        return self.track >= 0


class CardTable:
    def __init__(self) -> None:
        self.cards: dict[int, Card] = {}
        self._order = 0
        self._named = 0

    def arrive(self, track: int, zone: int | str | None, reading: Reading | None, t: float,
               at_start: bool = False) -> Card:
        self._order += 1
        card = Card(track, zone, reading, self._order, t, at_start)
        self.cards[track] = card
        return card

    def name(self, zone: int | str, card: Stands, t: float) -> Card:
        """A card a person named that the camera never saw (a negative track). It does not lie
        where the camera looks: a trick whose seen cards were taken away is cleared."""
        self._named += 1
        entry = self.arrive(-self._named, zone, None, t)
        entry.named, entry.present = card, False
        return entry

    def gone(self, track: int) -> Card | None:
        card = self.cards.get(track)
        if card is not None:
            card.present = False
        return card

    def __iter__(self) -> Iterator[Card]:
        return iter(sorted(self.cards.values(), key=lambda c: c.order))

    def waiting(self, zone: object = ANY) -> list[Card]:
        """Cards not yet part of the game, in arrival order (of one zone, if given)."""
        return [c for c in self if c.status == "waiting" and (zone is ANY or c.zone == zone)]

    def counted(self, round_index: int) -> list[Card]:
        return [c for c in self if c.status == "counted" and c.round == round_index]

    def standing_for(self, round_index: int, stands: Stands, seat: int | None = None
                     ) -> Card | None:
        """The counted card that stands for `stands` (played by `seat`) in the round."""
        for c in self.counted(round_index):
            if c.counts_as == stands and (seat is None or c.seat == seat):
                return c
        return None

    def count(self, card: Card, stands: Stands, round_index: int, trick: int,
              seat: int | None) -> None:
        card.status, card.counts_as, card.seat = "counted", stands, seat
        card.round, card.trick, card.refused = round_index, trick, ""

    def forget_before(self, round_index: int) -> None:
        """Drop the cards of earlier rounds that left the table: they no longer matter."""
        self.cards = {k: c for k, c in self.cards.items()
                      if c.present or c.status == "waiting" or c.round >= round_index}

    @property
    def arrivals(self) -> int:
        """How many cards have arrived so far (grows with every new card)."""
        return self._order
