"""A solo game's footage scored against its record, mission by mission.

The footage goes frame by frame through the real watcher and referee, as at the table, with a
person who answers every question from the record (companion.games.solo.person): how many
missions were scored right (a mission's cards and informants compared as sets: their order on
the spot or along the row scores nothing), how many wrong, how many not at all, and how many
questions the table asked (and of them, how many offered the true answer). The end-to-end test
uses it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .evaluate_table import play_table, tally
from .games import game_named
from .games.solo.person import Person
from .games.solo.rules import Game

SOLO = game_named("solo")


def play_footage(events: list[Any], frames: Path, reader: Any, fps: float = 10.0
                 ) -> dict[str, Any]:
    """The footage in `frames` (zones.json beside it) read by `reader`; the missions the
    referee scored compared with the record's `events`."""
    true = Game.replay(events)
    game, stats = play_table(SOLO, events, frames, reader, Person(true).answer, fps)
    got, want = SOLO.scoring(game), SOLO.scoring(true)
    return {"missions": len(want["missions"]), **tally(got["missions"], want["missions"]),
            "same_sheet": got == want, "result": got["result"], **stats}
