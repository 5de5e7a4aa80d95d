"""Reiner Knizia's Attacke (FX Schmid): rules, record events, views, deck.

`GAME` is what the application sees of it (companion.games.base.GameSpec).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from .events import RecordEvent, event_to_json, fold_record, parse_event
from .randgame import random_game
from .rules import SEATS, Card, Colour, Game, Variant
from .views import replay_json, scoresheet_text

CARD_NAMES = (*(str(Card(v, c)) for c in Colour for v in (2, 3, 4, 5, 7)),
              "shield-7", "shield-10", "back")  # "back": a card laid face down (A12)


class Attacke:
    name = "attacke"
    title = "Attacke"
    seats = SEATS
    deck = CARD_NAMES

    def parse_event(self, obj: Any) -> RecordEvent:
        return parse_event(obj)

    def event_to_json(self, event: Any) -> dict[str, Any]:
        return event_to_json(event)

    def fold(self, events: Iterable[tuple[int, Any]]) -> Game:
        return fold_record(events)

    def replay_json(self, game: Any) -> dict[str, Any]:
        return replay_json(game)

    def text_sheet(self, game: Any) -> str:
        return scoresheet_text(game)

    def random_game(self, seed: int, players: int, **options: Any) -> list[Any]:
        return list(random_game(random.Random(seed), players, Variant(**options)))


GAME = Attacke()
