"""`eval --footage DIR --record GAME.jsonl`: a game night's footage scored against its record.

The footage (frames recorded by `capture`, or any folder of frames or video) goes through the
real watcher and referee, as it did at the table, with a person who answers every question from
the (corrected) record (companion.games.tightrope.person); on rendered footage the person also
looks at each question's card where the footage's truth says it lies (`TrueTable`). So a real
game night becomes labelled test data with no hand labelling: how many tricks were scored right,
how many wrong, how many questions the table had to answer, and how the reader read each card
the game counted.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from vision.types import CardId

from .commands import CommandError, Flush, NewGame, Resolve, Seen
from .evaluate_table import Photos, TrueTable, remember
from .games.tightrope.interpreter import (
    Interpreter,
    card_id,
    choice_id,
    number_of,
    scoring_of,
    sure_card,
)
from .games.tightrope.log import fold_record
from .games.tightrope.person import answer
from .games.tightrope.rules import Game, ScoringCard, Trick
from .record import RecordError, read_record
from .referee import Referee
from .store import Store


@dataclass
class FootageResult:
    tricks: int = 0            # tricks of the record the footage shows
    right: int = 0             # scored as the record has them
    wrong: int = 0             # scored, differently from the record
    missing: int = 0           # not scored
    questions: int = 0         # questions the person answered
    offered: int = 0           # of them, questions that listed the true card among the choices
    cards: dict[str, int] = field(default_factory=lambda: {"read": 0, "unsure": 0,
                                                           "misread": 0, "unseen": 0})
    frames: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"tricks": self.tricks, "right": self.right, "wrong": self.wrong,
                "missing": self.missing, "questions": self.questions,
                "questions_offering_the_truth": self.offered, "cards": self.cards,
                "frames": self.frames,
                "fps": round(self.frames / self.seconds, 1) if self.seconds else None}


def all_tricks(game: Game) -> list[Trick]:
    done = [t for r in game.rounds for t in r.tricks]
    # at the game's end the last round's tricks are in `rounds` already
    return done if game.game_over else done + list(game.tricks_this_round)


def answer_all(referee: Referee, true: Game, limit: int = 50,
               sees: Callable[[str], str | None] = lambda key: None) -> tuple[int, int]:
    """Let the person answer every open question: (questions answered, of them those that
    listed the true card among their choices). `sees(key)`: the choice id of the card the
    question's photo shows ("" for none: a glare boxed as a card), None where unknown; a person
    who looks says "none" where offered when the photo shows no card, or another card than the
    one the record says the question is after (a card counted before, found anew). A question
    that comes back once answered waits for the next frame: a referee that asks it for ever
    shows as a count of questions, not as a bench that hangs."""
    answered = offered = 0
    keys: set[str] = set()
    for _ in range(limit):
        view = referee.view()
        conflict = view["conflict"]
        if conflict is None or view["state"] is None or conflict["key"] in keys:
            break
        keys.add(conflict["key"])
        ids = [c["id"] for c in conflict["choices"]]
        choice = answer(conflict, view["state"], true)
        there = sees(conflict["key"])
        if there is not None and there != choice and "none" in ids:
            choice = "none"
        offered += choice in ids
        try:
            referee.handle(Resolve(conflict["id"], choice))
        except CommandError:  # the record's card is refused now: the game went astray before
            referee.handle(Resolve(conflict["id"], "none" if "none" in ids else ids[0]))
        answered += 1
    return answered, offered


def _choice_of(label: str) -> str:
    """The choice id of a card by its label ("scoring-0-blue" -> "scoring:blue0")."""
    card = CardId.from_label(label)
    return choice_id(scoring_of(card) or card.value)


class WeakenedReader:
    """A reader made worse on purpose, to show what the referee does with worse reads. A card
    it reads surely is, for good (a re-read does not help): abstained on for 10 % of the
    cards, read unsure with a wrong best guess for another 10 %, and for 2 % named, sure, as
    a card of its kind already played this round (R13's misplay: `played` gives them; a card
    of an earlier round would be a legal card read wrong surely, which no rule can catch and
    which the reader's own calibration answers for)."""

    def __init__(self, reader: Any, seed: int = 0,
                 played: Callable[[], list[CardId]] = list) -> None:
        self.reader, self.seed, self.played = reader, seed, played

    def read(self, crops: list[Any]) -> list[Any]:
        import random

        from vision.types import ALL_CARDS, Reading

        out = []
        for look in self.reader.read(crops):
            r = look.reading
            if r.card is None:
                out.append(look)
                continue
            rng = random.Random(f"{self.seed}:{r.card.label}")  # the same fate at every read
            x = rng.random()
            if x < 0.10:
                r = Reading("unknown", None, None, r.confidence / 2, r.candidates, r.line)
            elif x < 0.20:
                wrong = rng.choice([c for c in ALL_CARDS if c.kind == r.card.kind
                                    and c != r.card])
                rest = [(c, p) for c, p in r.candidates if c not in (wrong, r.card)]
                r = Reading("unknown", None, None, 0.45,
                            ((wrong, 0.45), (r.card, 0.4), *rest), r.line)
            elif x < 0.22 and (played := [c for c in self.played()
                                           if c.kind == r.card.kind and c != r.card]):
                other = rng.choice(played)
                r = Reading.of(other, 0.999, ((other, 0.999),), r.line)
            out.append(look._replace(reading=r))
        return out


def played_this_round(game: Game | None) -> list[CardId]:
    """The cards the game counts as played or revealed this round."""
    if game is None or game.game_over:
        return []
    cards: list[int | ScoringCard] = [*sorted(game.played), *game.revealed]
    return [card_id(s) for s in cards]


def run_footage(source: Any, watcher: Any, true: Game) -> FootageResult:
    """Play `source` through `watcher` and a referee of its own; score against `true`."""
    result = FootageResult()
    photos = Photos(TrueTable.of(Path(source.folder)) if hasattr(source, "folder") else None)

    def sees(key: str) -> str | None:  # as a choice of the question's
        label = photos.sees(key)
        return _choice_of(label) if label else label

    with tempfile.TemporaryDirectory(prefix="tightrope-eval-") as tmp:
        store = Store(Path(tmp) / "eval.db")
        referee = Referee(store)
        referee.handle(NewGame(true.setup))
        remember(referee, watcher)
        if isinstance(watcher.reader, WeakenedReader):
            watcher.reader.played = lambda: played_this_round(referee.game)
        source.open()
        began = time.perf_counter()
        while True:
            frame = source.read()
            if frame is None:
                break
            t = result.frames / source.fps
            result.frames += 1
            changes = watcher.feed(frame)
            photos.seen(result.frames - 1, changes)
            referee.handle(Seen(tuple(changes), t, frame if changes else None, watcher.moving))
            _count(result, answer_all(referee, true, sees=sees))
        referee.handle(Flush())
        _count(result, answer_all(referee, true, sees=sees))
        result.seconds = time.perf_counter() - began
        source.close()
        _score(result, referee, true)
        store.close()
    return result


def same_trick(a: Trick, b: Trick, simultaneous: bool) -> bool:
    """The same trick, card for card; in the simultaneous variant its plays in any order (all
    are laid at once: the record's order is the order they were seen)."""
    if simultaneous:
        a, b = (replace(t, plays=tuple(sorted(t.plays, key=lambda p: p.seat))) for t in (a, b))
    return a == b


def _count(result: FootageResult, answered: tuple[int, int]) -> None:
    result.questions += answered[0]
    result.offered += answered[1]


def _score(result: FootageResult, referee: Referee, true: Game) -> None:
    got = {(t.round, t.index): t for t in all_tricks(referee.game)} if referee.game else {}
    want = all_tricks(true)
    result.tricks = len(want)
    simultaneous = true.setup.variant.simultaneous
    for t in want:
        mine = got.get((t.round, t.index))
        if mine is None:
            result.missing += 1
        elif same_trick(mine, t, simultaneous):
            result.right += 1
        else:
            result.wrong += 1
    interpreter = referee.interpreter
    assert isinstance(interpreter, Interpreter)  # footage is scored for Tightrope
    for card in interpreter.table:
        if card.status != "counted":
            continue
        if card.reading is None:
            result.cards["unseen"] += 1
            continue
        read = sure_card(card.reading)
        shown = None if read is None else (scoring_of(read) if card.seat is None
                                           else number_of(read))
        key = "unsure" if shown is None else "read" if shown == card.counts_as else "misread"
        result.cards[key] += 1


def evaluate_footage(footage: Path, record: Path, zones: Path | None = None,
                     deck: Path | None = None, fps: float | None = None,
                     weaken: bool = False) -> FootageResult:
    from vision.read import Reader
    from vision.sources import open_source
    from vision.watch import TableWatcher
    from vision.zones import load_zones

    from .config import CameraConfig

    try:
        true = fold_record(read_record(record)).game
    except RecordError as err:
        raise RecordError(f"{record}: {err}") from None
    zones_path = zones or footage / "zones.json"
    reader: Any = Reader.from_deck(deck) if deck else Reader.zero_shot()
    if weaken:
        reader = WeakenedReader(reader)
    source = open_source(str(footage), CameraConfig(), fps)
    watcher = TableWatcher(load_zones(zones_path), reader, fps=source.fps)
    return run_footage(source, watcher, true)


def result_text(result: FootageResult) -> str:
    r = result
    return (f"tricks {r.tricks}: {r.right} right, {r.wrong} wrong, {r.missing} not scored; "
            f"{r.questions} questions answered ({r.offered} listed the true card); cards the "
            f"game counted: {r.cards['read']} read "
            f"sure and right, {r.cards['unsure']} unsure (asked), {r.cards['misread']} read "
            f"wrong (asked), {r.cards['unseen']} not seen (named by a person); "
            f"{r.frames} frames, {r.to_json()['fps']} fps")
