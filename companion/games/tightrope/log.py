"""Fold a record (game events and corrections) into the game it describes.

A correction never patches a score: it edits the list of game events still in effect and the
game is replayed from it. A correction the rules cannot accept is refused and changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..base import Note, RecordError, Undo
from .events import PlayCorrected, RecordEvent, ScoringCorrected
from .rules import (
    CardPlayed,
    Game,
    GameEvent,
    GameStarted,
    NothingToUndo,
    NotStarted,
    RuleError,
    ScoringRevealed,
    Trick,
)


class CorrectionError(RuleError):
    """A correction that points at nothing, or whose result breaks the rules."""

    rule = "correction"


@dataclass(frozen=True)
class Position:
    """Where an effective game event sits: a play (round, trick, seat) or a reveal (round,
    index)."""

    round: int
    trick: int | None = None
    seat: int | None = None
    index: int | None = None


class GameLog:
    """The effective game events of a record and the game they make."""

    def __init__(self, start: GameStarted) -> None:
        self.game = Game(start)
        self._positions: list[Position | None] = [None]

    @property
    def effective(self) -> list[GameEvent]:
        return list(self.game.log)

    def apply(self, event: RecordEvent) -> Trick | None:
        """Apply a game event or a correction; return the trick a game event completed."""
        match event:
            case GameStarted():
                raise NotStarted("the game has already started")
            case ScoringRevealed() | CardPlayed():
                position = self._position_of(event)
                trick = self.game.apply(event)
                self._positions.append(position)
                return trick
            case Undo():
                if len(self.game.log) < 2:
                    raise NothingToUndo("there is no event to undo")
                self.game.undo()
                self._positions.pop()
            case PlayCorrected() | ScoringCorrected():
                self._replace(*self._target(event))
            case Note():
                pass
            case _:
                raise TypeError(f"not a record event: {event!r}")
        return None

    def changes_nothing(self, event: RecordEvent) -> bool:
        """A correction to what the game already holds (a card corrected to itself): there is
        nothing to apply or to record. CorrectionError if it points at nothing."""
        if not isinstance(event, PlayCorrected | ScoringCorrected):
            return False
        at, fixed = self._target(event)
        return self.game.log[at] == fixed

    def _target(self, fix: PlayCorrected | ScoringCorrected) -> tuple[int, GameEvent]:
        """Where a correction points in the effective events, and the event it puts there."""
        if isinstance(fix, PlayCorrected):
            at = self._find(Position(fix.round, trick=fix.trick, seat=fix.seat))
            return at, CardPlayed(fix.seat, fix.card)
        return self._find(Position(fix.round, index=fix.index)), ScoringRevealed(fix.card)

    def _position_of(self, event: GameEvent) -> Position:
        game = self.game
        if isinstance(event, CardPlayed):
            return Position(game.round_index, trick=game.trick_index, seat=event.seat)
        return Position(game.round_index, index=len(game.revealed))

    def _find(self, wanted: Position) -> int:
        for i, position in enumerate(self._positions):
            if position == wanted:
                return i
        if wanted.seat is not None:
            raise CorrectionError(
                f"no play by seat {wanted.seat} in trick {wanted.trick} of round {wanted.round}"
            )
        raise CorrectionError(f"no scoring card number {wanted.index} in round {wanted.round}")

    def _replace(self, at: int, event: GameEvent) -> None:
        events = self.effective
        events[at] = event
        try:
            rebuilt = GameLog.from_events(events)
        except RuleError as err:
            raise CorrectionError(f"refused: the corrected game would break {err}") from None
        self.game, self._positions = rebuilt.game, rebuilt._positions

    @classmethod
    def from_events(cls, events: Iterable[RecordEvent]) -> GameLog:
        it = iter(events)
        first = next(it, None)
        if not isinstance(first, GameStarted):
            raise NotStarted("a record begins with game_started")
        log = cls(first)
        for event in it:
            log.apply(event)
        return log


def fold_record(numbered: Iterable[tuple[int, RecordEvent]]) -> GameLog:
    """Fold (line number, event) pairs; an event the rules refuse is a RecordError on its line."""
    log: GameLog | None = None
    for number, event in numbered:
        try:
            if log is None:
                if not isinstance(event, GameStarted):
                    raise NotStarted("a record begins with game_started")
                log = GameLog(event)
            else:
                log.apply(event)
        except RuleError as err:
            raise RecordError(str(err), number) from None
    if log is None:
        raise RecordError("the record holds no game_started event")
    return log
