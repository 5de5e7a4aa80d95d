"""Fixtures and helpers shared by the test files."""

from __future__ import annotations

import math
import os
from typing import Any

import cv2
import numpy as np
import pytest

from companion.commands import Seen
from vision.geometry import Box
from vision.sim.fonts import FONT_DIRS_ENV
from vision.types import CardId, Change, Observation, Reading

# The simulator draws its decks' typefaces from these folders only, the fonts `make test`
# installs (scripts/ensure-test-tools.sh): a design drawn from a seed is then the same here as
# on a machine with hundreds of fonts installed for training.
os.environ[FONT_DIRS_ENV] = os.pathsep.join(
    f"/usr/share/fonts/{d}" for d in ("truetype/dejavu", "truetype/liberation",
                                       "opentype/sortsmill"))


def settle(interpreter: Any, log: Any, t: float, questions: dict[str, Any],
           refused: list[str], applied: list[Any] | None = None) -> None:
    """Drive an interpreter as the referee does: apply what it decides through the game's log
    (telling it applied or refused), keep the questions shown, until nothing more follows."""
    from companion.games.base import Apply, Ask, Withdraw

    for _ in range(200):
        progressed = False
        for d in interpreter.decide(log.game, t):
            if isinstance(d, Apply):
                try:
                    log.apply(d.event)
                except ValueError as err:
                    interpreter.refused(d, str(err))
                    refused.append(str(err))
                else:
                    interpreter.applied(d)
                    if applied is not None:
                        applied.append(d.event)
                progressed = True
            elif isinstance(d, Ask):
                questions[d.question.key] = d.question
            elif isinstance(d, Withdraw):
                questions.pop(d.key, None)
        if not progressed:
            return
    raise AssertionError("the interpreter never settles")


def ask_about_a_card(referee: Any, seat: int, *candidates: tuple[str, float], t: float = 1.0,
                     track: int = 9001) -> None:
    """The camera saw `seat`'s card and is unsure of it (reader candidates (label, p)): the
    referee's interpreter asks which card it is, as at the table."""
    cands = tuple((CardId.from_label(label), p) for label, p in candidates)
    reading = Reading.of(None, cands[0][1], cands, 0.9)
    quad = np.float32([[10, 10], [50, 10], [50, 70], [10, 70]])
    obs = Observation(reading, quad, (30.0, 40.0), seat, 3, track)
    frame = np.full((120, 160, 3), 90, np.uint8)
    referee.call(Seen((Change("appeared", obs, 0),), t, frame))


class HandEntry:
    """An interpreter for a game the camera cannot read yet: nothing seen becomes an event; every
    event is entered by hand. `ask` shows a question whose answers apply events, as a camera's
    question would."""

    still_s = 0.5

    def __init__(self) -> None:
        self.questions: dict[str, tuple[Any, dict[str, Any]]] = {}
        self.todo: list[Any] = []

    def ask(self, question: Any, events: dict[str, Any]) -> None:
        self.questions[question.key] = (question, events)

    def seen(self, changes: Any, t: float) -> None:
        pass

    def decide(self, game: Any, t: float) -> list[Any]:
        from companion.games.base import Apply, Ask

        if self.todo:
            return [Apply(self.todo[0])]
        return [Ask(q) for q, _ in self.questions.values()]

    def applied(self, decision: Any) -> None:
        self.todo.pop(0)

    def refused(self, decision: Any, why: str) -> None:
        self.todo.pop(0)

    def answer(self, key: str, choice: str, game: Any, t: float) -> None:
        from companion.games.base import AnswerError

        _, events = self.questions[key]
        if choice not in events:
            raise AnswerError(f"{choice!r} is not an answer to this question")
        del self.questions[key]
        self.todo.append(events[choice])

    def undone(self, game: Any) -> None:
        pass

    def corrected(self, correction: Any, game: Any) -> Any:
        return None

    def laid_out(self, game: Any) -> tuple[()]:
        return ()


@pytest.fixture
def attacke_at_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee takes an Attacke game entered by hand (HandEntry): a test applies events
    and shows questions as it needs, whatever a camera would make of the table."""
    from dataclasses import replace

    import companion.games.attacke as attacke

    monkeypatch.setattr(attacke, "GAME", replace(attacke.GAME, interpreter=HandEntry))


class WhiteIsACard:
    """A reader of an Attacke deck that sees a blue 7 in a crop that is all but white, and no
    card elsewhere: the frame's white rectangles are the cards."""

    tightrope = False

    def read(self, crops):
        from vision.read import Look

        card = Reading.of_name("blue-7", 0.99, (("blue-7", 0.99),), 0.9)
        nothing = Reading.of_name(None, 0.0, (("blue-7", 0.0),), 0.9)
        return [Look(card, 0, 0.0) if crop.mean() > 245 else Look(nothing, 0, 1.0)
                for crop in crops]


@pytest.fixture
def white_is_a_card() -> WhiteIsACard:
    return WhiteIsACard()


class SplitScoringReader:
    """A Tightrope reader that reads a blue crop as a blue zero, a red one as a red zero, a crop
    half blue and half red as the scoring 5 (`unsure`: a 2 at 0.92 or a 9, unsure), and
    anything else as no card: the reads of an unseen design's scoring card whose halves the
    detector boxed alone."""

    tightrope = True

    def __init__(self, unsure: bool = False) -> None:
        self.unsure = unsure

    def read(self, crops):
        from vision.read import Look

        out = []
        for c in crops:
            blue = float(((c[..., 0] > 150) & (c[..., 2] < 100)).mean())
            red = float(((c[..., 2] > 150) & (c[..., 0] < 100)).mean())
            card = (CardId("scoring", 5) if min(blue, red) >= 0.3 else
                    CardId("scoring", 0, "blue") if blue >= 0.6 else
                    CardId("scoring", 0, "red") if red >= 0.6 else None)
            if card == CardId("scoring", 5) and self.unsure:
                two, nine = CardId("scoring", 2), CardId("scoring", 9)
                out.append(Look(Reading.of(None, 0.92, ((two, 0.92), (nine, 0.07)), 0.95), 0,
                                0.0))
            elif card is None:
                out.append(Look(Reading.of(None, 0.0, ((CardId("scoring", 5), 0.0),), 0.9), 0,
                                1.0))
            else:
                out.append(Look(Reading.of(card, 0.99, ((card, 0.99),), 0.9), 0, 0.0))
        return out


class Boxes:
    def __init__(self, *boxes: Box) -> None:
        self.boxes = boxes

    def find(self, frame):
        from vision.detect import Detection

        return [Detection(b, 0.8) for b in self.boxes]


def scoring_five() -> tuple[np.ndarray, Box]:
    frame = np.full((400, 500, 3), 60, np.uint8)
    card = Box(200, 200, 80, 123, math.pi / 2)  # upright: blue half above, red half below
    top, bottom = card.halves()
    if top.cy > bottom.cy:
        top, bottom = bottom, top
    cv2.fillConvexPoly(frame, top.quad().astype(np.int32), (200, 60, 30))
    cv2.fillConvexPoly(frame, bottom.quad().astype(np.int32), (30, 40, 200))
    return frame, card
