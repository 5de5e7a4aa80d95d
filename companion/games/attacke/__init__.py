"""Reiner Knizia's Attacke (FX Schmid): rules, record events, views, deck.

`GAME` is what the application sees of it (companion.games.base.GameSpec).
"""

from __future__ import annotations

import random
from typing import Any

from ..base import Package, event_log
from .events import event_to_json, fold_record, parse_event
from .interpreter import Interpreter
from .randgame import random_game
from .rules import CARD_NAMES, SEATS, Game, Passed, Variant
from .views import replay_json, scoresheet_text, scoring, snapshot


def _random_game(seed: int, players: int, **options: Any) -> list[Any]:
    return list(random_game(random.Random(seed), players, Variant(**options)))


def _ok_event(game: Game) -> Passed | None:
    """The table's OK button with no question open: the player at turn passes (A7)."""
    if game.turn is None:
        return None
    event = Passed(game.turn)
    return event if game.is_legal(event) else None


GAME = Package(
    name="attacke", title="Attacke", seats=SEATS, deck=CARD_NAMES,
    parse_event=parse_event, event_to_json=event_to_json, fold=fold_record,
    replay_json=replay_json, text_sheet=scoresheet_text, random_game=_random_game,
    log=event_log(Game), snapshot=snapshot, interpreter=Interpreter, scoring_of=scoring,
    ok_event_of=_ok_event)
