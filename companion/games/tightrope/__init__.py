"""Reiner Knizia's Tightrope (Drahtseilakt): rules, record events, views, deck and interpreter.

`GAME` is what the application sees of it (companion.games.base.GameSpec).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from vision.types import ALL_CARDS

from ..base import Package
from .events import RecordEvent, event_to_json, parse_event
from .interpreter import Interpreter
from .log import GameLog, fold_record
from .randgame import random_game
from .rules import SEATS, Game, Variant
from .views import replay_json, scoresheet_text, snapshot


def _random_game(seed: int, players: int, **options: Any) -> list[RecordEvent]:
    return list(random_game(random.Random(seed), players, Variant(**options)))


def _fold(events: Iterable[tuple[int, Any]]) -> Game:
    return fold_record(events).game


GAME = Package(
    name="tightrope", title="Tightrope", seats=SEATS,
    deck=tuple(card.label for card in ALL_CARDS),
    parse_event=parse_event, event_to_json=event_to_json, fold=_fold,
    replay_json=replay_json, text_sheet=scoresheet_text, random_game=_random_game,
    log=GameLog.from_events, snapshot=snapshot, interpreter=Interpreter)
