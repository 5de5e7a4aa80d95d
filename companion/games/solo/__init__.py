"""Tightrope, the solo game of intrigue with two packs of playing cards (v0.1, 2025): rules,
record events, views, odds, deck, and the interpreter that referees it at the table.

`GAME` is what the application sees of it (companion.games.base.GameSpec).
"""

from __future__ import annotations

import random
from typing import Any

from ..base import Package, event_log
from .cards import CARD_NAMES
from .events import event_to_json, fold_record, parse_event
from .interpreter import PLACES, Interpreter
from .randgame import random_game
from .rules import SEATS, Game
from .scoring import Variant
from .views import replay_json, scoresheet_text, scoring, snapshot


def _random_game(seed: int, players: int = 1, **options: Any) -> list[Any]:
    return list(random_game(random.Random(seed), Variant(**options), players))


GAME = Package(
    name="solo", title="Tightrope (solo)", seats=SEATS, deck=CARD_NAMES,
    parse_event=parse_event, event_to_json=event_to_json, fold=fold_record,
    replay_json=replay_json, text_sheet=scoresheet_text, random_game=_random_game,
    log=event_log(Game), snapshot=snapshot, interpreter=Interpreter, scoring_of=scoring,
    places=PLACES, row="informants' row")
