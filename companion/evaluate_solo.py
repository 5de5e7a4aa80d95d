"""A solo game's footage scored against its record, mission by mission.

The footage goes frame by frame through the real watcher and referee, as at the table, with a
person who answers every question from the record (companion.games.solo.person): how many
missions were scored right (a mission's informants compared as a set: their order along the
row scores nothing), how many wrong, how many not at all, and how many questions the table
asked (and of them, how many offered the true answer). The end-to-end test uses it.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from .commands import Flush, NewGame, Seen
from .evaluate_attacke import answer_all
from .games import game_named
from .games.solo.person import Person
from .games.solo.rules import Game
from .referee import Referee
from .store import Store

SOLO = game_named("solo")


def play_footage(events: list[Any], frames: Path, reader: Any, fps: float = 10.0
                 ) -> dict[str, Any]:
    """The footage in `frames` (zones.json beside it) read by `reader`; the missions the
    referee scored compared with the record's `events`."""
    from vision.sources import FolderSource
    from vision.watch import TableWatcher
    from vision.zones import load_zones

    true = Game.replay(events)
    person = Person(true)
    asked = offered = n = 0
    watcher = TableWatcher(load_zones(frames / "zones.json"), reader, fps=fps)
    source = FolderSource(frames, fps)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "solo.db")
        referee = Referee(store)
        referee.handle(NewGame(events[0], "solo"))
        source.open()
        began = time.perf_counter()
        while (frame := source.read()) is not None:
            changes = watcher.feed(frame)
            referee.handle(Seen(tuple(changes), n / fps, frame if changes else None))
            n += 1
            a, o = answer_all(referee, person)  # type: ignore[arg-type]
            asked, offered = asked + a, offered + o
        referee.handle(Flush())
        a, o = answer_all(referee, person)  # type: ignore[arg-type]
        asked, offered = asked + a, offered + o
        seconds = time.perf_counter() - began
        source.close()
        got = SOLO.scoring(referee.game)
        store.close()
    want = SOLO.scoring(true)
    right = sum(1 for g, w in zip(got["missions"], want["missions"], strict=False) if g == w)
    return {"missions": len(want["missions"]), "right": right,
            "wrong": len(got["missions"]) - right,
            "not_scored": max(0, len(want["missions"]) - len(got["missions"])),
            "same_sheet": got == want, "result": got["result"], "questions": asked,
            "questions_offering_the_truth": offered, "frames": n,
            "fps": round(n / seconds, 1) if seconds else None}
