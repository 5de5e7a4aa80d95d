"""Tightrope, the solo game of intrigue with two packs of playing cards (v0.1, 2025): rules,
record events, views, odds, deck.

`GAME` is what the application sees of it (companion.games.base.GameSpec).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from .cards import CARD_NAMES
from .events import RecordEvent, event_to_json, fold_record, parse_event
from .randgame import random_game
from .rules import SEATS, Game
from .scoring import Variant
from .views import replay_json, scoresheet_text


class Solo:
    name = "solo"
    title = "Tightrope (solo)"
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

    def random_game(self, seed: int, players: int = 1, **options: Any) -> list[Any]:
        return list(random_game(random.Random(seed), Variant(**options), players))


GAME = Solo()
