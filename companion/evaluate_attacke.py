"""An Attacke game's footage scored against its record, contest by contest.

The footage goes frame by frame through the real watcher and referee, as at the table, with a
person who answers every question from the record (companion.games.attacke.person): how many
contests were scored right, how many wrong, and how many questions the table had to answer.
The bench (bench/bench_attacke.py) and the end-to-end tests use it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .evaluate_table import play_table, tally
from .games import game_named
from .games.attacke.person import Person
from .games.attacke.rules import Game

ATTACKE = game_named("attacke")


def play_footage(events: list[Any], frames: Path, reader: Any, fps: float = 10.0
                 ) -> dict[str, Any]:
    """The footage in `frames` (zones.json beside it) read by `reader`; the contests the
    referee scored compared with the record's `events`."""
    true = Game.replay(events)
    got, stats = play_table(ATTACKE, events, frames, reader, Person(true).answer, fps)
    want = ATTACKE.scoring(true)["contests"]
    return {"players": len(true.players), "concealed": true.setup.variant.concealed,
            "contests": len(want), **tally(ATTACKE.scoring(got)["contests"], want), **stats}
