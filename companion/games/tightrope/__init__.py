"""Reiner Knizia's Tightrope (Drahtseilakt): rules, record events, views, deck and interpreter.

`GAME` is what the application sees of it (companion.games.base.GameSpec).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from vision.types import ALL_CARDS

from .events import RecordEvent, event_to_json, parse_event
from .log import fold_record
from .randgame import random_game
from .rules import SEATS, Game, Variant
from .views import replay_json, scoresheet_text


class Tightrope:
    name = "tightrope"
    title = "Tightrope"
    seats = SEATS
    deck = tuple(card.label for card in ALL_CARDS)

    def parse_event(self, obj: Any) -> RecordEvent:
        return parse_event(obj)

    def event_to_json(self, event: Any) -> dict[str, Any]:
        return event_to_json(event)

    def fold(self, events: Iterable[tuple[int, Any]]) -> Game:
        return fold_record(events).game

    def replay_json(self, game: Any) -> dict[str, Any]:
        return replay_json(game)

    def text_sheet(self, game: Any) -> str:
        return scoresheet_text(game)

    def random_game(self, seed: int, players: int, **options: Any) -> list[RecordEvent]:
        return list(random_game(random.Random(seed), players, Variant(**options)))


GAME = Tightrope()
