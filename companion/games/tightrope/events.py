"""Tightrope's record events (docs/game-record.md): the corrections, and each event's line.

`parse_event` turns one decoded line into a typed event; `event_to_json` is its inverse. Reading
and writing whole record files is the application's (companion.record).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..base import (
    Note,
    Undo,
    field_of,
    flags_of,
    names_of,
    parse_line,
    record_event_json,
    text_of,
)
from .rules import (
    CardPlayed,
    GameEvent,
    GameStarted,
    ScoringCard,
    ScoringRevealed,
    Variant,
)

# --- corrections: a play or a reveal was really another card ---------------------------------


@dataclass(frozen=True)
class PlayCorrected:
    """The play of `seat` in trick `trick` of round `round` (0-based) was really `card`."""

    round: int
    trick: int
    seat: int
    card: int
    at: str = ""
    why: str = ""


@dataclass(frozen=True)
class ScoringCorrected:
    """The `index`-th scoring card revealed in round `round` (0-based) was really `card`."""

    round: int
    index: int
    card: ScoringCard
    at: str = ""
    why: str = ""


Correction = Undo | PlayCorrected | ScoringCorrected
RecordEvent = GameEvent | Correction | Note


# --- decoding -------------------------------------------------------------------------------


def _scoring(obj: dict[str, Any], what: str) -> ScoringCard:
    return ScoringCard.parse(field_of(obj, "card", str, what))


def _game_started(obj: dict[str, Any]) -> GameStarted:
    players = names_of(obj, "game_started")
    first_dealer = field_of(obj, "first_dealer", int, "game_started") if "first_dealer" in obj \
        else 0
    flags = flags_of(obj, ("tactical", "simultaneous"), "game_started")
    return GameStarted(players, first_dealer, Variant(**flags))


def _play_corrected(obj: dict[str, Any]) -> PlayCorrected:
    r, t, s, c = (field_of(obj, k, int, "play_corrected") for k in ("round", "trick", "seat",
                                                                     "card"))
    return PlayCorrected(r, t, s, c, text_of(obj, "at"), text_of(obj, "why"))


def _scoring_corrected(obj: dict[str, Any]) -> ScoringCorrected:
    r, i = (field_of(obj, k, int, "scoring_corrected") for k in ("round", "index"))
    return ScoringCorrected(r, i, _scoring(obj, "scoring_corrected"), text_of(obj, "at"),
                            text_of(obj, "why"))


PARSERS = {
    "game_started": _game_started,
    "scoring_revealed": lambda obj: ScoringRevealed(_scoring(obj, "scoring_revealed")),
    "card_played": lambda obj: CardPlayed(field_of(obj, "seat", int, "card_played"),
                                          field_of(obj, "card", int, "card_played")),
    "play_corrected": _play_corrected,
    "scoring_corrected": _scoring_corrected,
}


def parse_event(obj: Any) -> RecordEvent:
    """Decode one record line's JSON value. Raises ValueError (RuleError for a bad setup)."""
    event: RecordEvent = parse_line(obj, PARSERS)
    return event


def event_to_json(event: RecordEvent) -> dict[str, Any]:
    """The record form of an event (inverse of parse_event)."""
    shared = record_event_json(event)
    if shared is not None:
        return shared
    match event:
        case GameStarted():
            return {
                "type": "game_started",
                "players": list(event.players),
                "first_dealer": event.first_dealer,
                "variant": {
                    "tactical": event.variant.tactical,
                    "simultaneous": event.variant.simultaneous,
                },
            }
        case ScoringRevealed():
            return {"type": "scoring_revealed", "card": str(event.card)}
        case CardPlayed():
            return {"type": "card_played", "seat": event.seat, "card": event.card}
        case PlayCorrected():
            return {"type": "play_corrected", "round": event.round, "trick": event.trick,
                    "seat": event.seat, "card": event.card, "at": event.at, "why": event.why}
        case ScoringCorrected():
            return {"type": "scoring_corrected", "round": event.round, "index": event.index,
                    "card": str(event.card), "at": event.at, "why": event.why}
    raise TypeError(f"not a record event: {event!r}")


__all__ = [
    "Undo", "PlayCorrected", "ScoringCorrected", "Note", "Correction", "RecordEvent",
    "parse_event", "event_to_json",
]
