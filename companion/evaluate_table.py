"""A game's footage played through the real watcher and referee, as at the table, frame by
frame, with a person who answers every question at once: the game the referee scored, and the
questions asked. Each game's evaluation (evaluate_attacke, evaluate_solo) scores the result
against its record; the benches and the end-to-end tests use them.
"""

from __future__ import annotations

import json
import math
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from .commands import CommandError, Flush, NewGame, Resolve, Seen
from .games import GameSpec
from .keep import Remembered
from .referee import Referee
from .store import Store

# Flushes after the footage, each answering what it asked: a referee that never stops asking
# ends a bench rather than hanging it.
END_ROUNDS = 50


class Answerer(Protocol):
    """A person: the choice he picks for a question, given the table's state and the label
    of the card the question's photo shows (None where unknown)."""

    def __call__(self, conflict: dict[str, Any], state: dict[str, Any],
                 photo: str | None = None) -> str: ...


class TrueTable:
    """Where rendered footage's cards truly lie, action by action (its truth.jsonl): what a
    person sees on a question's photo."""

    def __init__(self, steps: list[tuple[int, list[tuple[str, float, float, float]]]]) -> None:
        self.steps = steps  # (frame, [(label, x, y, card width)]) after each action, in order

    @classmethod
    def of(cls, folder: Path) -> TrueTable | None:
        """The footage's truth, None where it has none (a real game night's frames)."""
        path = folder / "truth.jsonl"
        if not path.is_file():
            return None
        steps = []
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            steps.append((int(row["frame"]), [
                (c["label"], *c["center"], math.dist(c["corners"][0], c["corners"][1]))
                for c in row["table"]]))
        return cls(steps)

    def card_at(self, frame: int, where: tuple[float, float]) -> str | None:
        """The card that lay within half a card's width of `where` at `frame` (its label; the
        nearest), None where none did (before the first action: the empty table)."""
        table = next((cards for f, cards in reversed(self.steps) if f <= frame), [])
        near = [(d, label) for label, x, y, width in table
                if (d := math.dist((x, y), where)) <= width / 2]
        return min(near)[1] if near else None


class Photos:
    """What a person sees on a question's photo: the card that truly lay (the footage's
    truth) where the watcher saw the question's card come, when it came (the photo is the
    crop taken then: a question may wait until the next trick lies there, and a glimpse of
    cards being cleared may be asked about once the next card lies in its place); by its
    label, "" where none did (a glare boxed as a card), None where unknown (no truth, or no
    card's question)."""

    def __init__(self, truth: TrueTable | None) -> None:
        self.truth = truth
        self.came: dict[int, tuple[int, tuple[float, float]]] = {}  # track -> (frame, where)

    def seen(self, frame: int, changes: Iterable[Any]) -> None:
        """The watcher's changes of `frame`."""
        self.came.update((c.observation.track, (frame, c.observation.center))
                         for c in changes if c.kind == "appeared")

    def sees(self, key: str) -> str | None:
        kind, _, track = key.partition(":")
        if self.truth is None or kind != "card" or not track.isdigit() or \
                int(track) not in self.came:
            return None
        return self.truth.card_at(*self.came[int(track)]) or ""


def remember(referee: Referee, watcher: Any) -> None:
    """As at the table (companion.service): the watcher's reader remembers the cards people
    name (vision.memory). A reader that is no `Reader` (a weakened one) remembers nothing."""
    from vision.memory import TableMemory
    from vision.read import Reader

    if isinstance(watcher.reader, Reader):
        watcher.reader.memory = TableMemory()
        referee.subscribe(Remembered(lambda: watcher.reader))


def play_table(spec: GameSpec, events: list[Any], frames: Path, reader: Any, answer: Answerer,
               fps: float = 10.0) -> tuple[Any, dict[str, Any]]:
    """A game of `spec` (its record's `events`) whose footage is in `frames` (zones.json beside
    it), read by `reader` frame by frame through the real watcher and referee, `answer` (a
    person) answering every question at once: the game the referee scored, and the questions
    asked (those offering the truth), frames and frames a second."""
    from vision.sources import FolderSource
    from vision.watch import TableWatcher
    from vision.zones import load_zones

    asked = offered = n = 0
    watcher = TableWatcher(load_zones(frames / "zones.json"), reader, fps=fps)
    source = FolderSource(frames, fps)
    photos = Photos(TrueTable.of(frames))
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "table.db")
        referee = Referee(store)
        referee.handle(NewGame(events[0], spec.name))
        remember(referee, watcher)
        source.open()
        began = time.perf_counter()
        while (frame := source.read()) is not None:
            changes = watcher.feed(frame)
            photos.seen(n, changes)
            referee.handle(Seen(tuple(changes), n / fps, frame if changes else None,
                                watcher.moving))
            n += 1
            a, o = answer_all(referee, answer, photos.sees)
            asked, offered = asked + a, offered + o
        for _ in range(END_ROUNDS):  # the footage's end: the table still, each answer settled
            referee.handle(Flush())
            a, o = answer_all(referee, answer, photos.sees)
            asked, offered = asked + a, offered + o
            if not a:
                break
        seconds = time.perf_counter() - began
        source.close()
        got = referee.game
        store.close()
    return got, {"questions": asked, "questions_offering_the_truth": offered, "frames": n,
                 "fps": round(n / seconds, 1) if seconds else None}


def tally(got: list[Any], want: list[Any]) -> dict[str, int]:
    """The units of a game (contests, missions) the referee scored (`got`) against the
    record's (`want`), in order: right, wrong, and not scored at all."""
    right = sum(1 for g, w in zip(got, want, strict=False) if g == w)
    return {"right": right, "wrong": len(got) - right, "not_scored": max(0, len(want) - len(got))}


def answer_all(referee: Referee, answer: Answerer,
               sees: Callable[[str], str | None] = lambda key: None, limit: int = 50
               ) -> tuple[int, int]:
    """Let the person answer every open question: (questions answered, of them those whose
    choices held the true answer). A person who looks at the photo (`sees`, `Photos.sees`)
    says "none" where offered when it shows no card, and names the card it shows where that
    is one the question may be after (the person's own rule). A question that comes back once
    answered waits for the next frame (companion.evaluate.answer_all)."""
    asked = offered = 0
    keys: set[str] = set()
    for _ in range(limit):
        view = referee.view()
        conflict = view["conflict"]
        if conflict is None or view["state"] is None or conflict["key"] in keys:
            break
        keys.add(conflict["key"])
        ids = [c["id"] for c in conflict["choices"]]
        photo = sees(conflict["key"])
        no_card = photo == "" and "none" in ids
        choice = "none" if no_card else answer(conflict, view["state"], photo or None)
        offered += choice in ids and choice != "none"
        try:
            referee.handle(Resolve(conflict["id"], choice))
        except CommandError:  # the record's card is refused now: the game went astray before
            referee.handle(Resolve(conflict["id"], "none" if "none" in ids else ids[-1]))
        asked += 1
    return asked, offered
