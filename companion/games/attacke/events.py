"""Attacke's record lines (docs/game-record.md, "Attacke"), and folding a record into a game.

`parse_event` turns one decoded line into a typed event; `event_to_json` is its inverse. An undo
takes back the last game event still in effect; a note changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..base import (
    Note,
    Undo,
    field_of,
    flags_of,
    names_of,
    parse_line,
    record_event_json,
)
from .rules import (
    Card,
    CardsPlayed,
    Game,
    GameEvent,
    GameStarted,
    Passed,
    Variant,
)

RecordEvent = GameEvent | Undo | Note


def _game_started(obj: dict[str, Any]) -> GameStarted:
    players = names_of(obj, "game_started")
    first = field_of(obj, "first_player", int, "game_started") if "first_player" in obj else 0
    flags = flags_of(obj, ("persevering", "concealed"), "game_started")
    return GameStarted(players, first, Variant(**flags))


def _cards_played(obj: dict[str, Any]) -> CardsPlayed:
    cards = field_of(obj, "cards", list, "cards_played") if "cards" in obj else []
    if not all(isinstance(c, str) for c in cards):
        raise ValueError('"cards" of cards_played must be a list of card names')
    concealed = field_of(obj, "concealed", int, "cards_played") if "concealed" in obj else 0
    return CardsPlayed(field_of(obj, "seat", int, "cards_played"),
                       tuple(Card.parse(c) for c in cards), concealed)


PARSERS = {
    "game_started": _game_started,
    "cards_played": _cards_played,
    "passed": lambda obj: Passed(field_of(obj, "seat", int, "passed")),
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
            return {"type": "game_started", "players": list(event.players),
                    "first_player": event.first_player,
                    "variant": {"persevering": event.variant.persevering,
                                "concealed": event.variant.concealed}}
        case CardsPlayed():
            line: dict[str, Any] = {"type": "cards_played", "seat": event.seat,
                                    "cards": [str(c) for c in event.cards]}
            if event.concealed:
                line["concealed"] = event.concealed
            return line
        case Passed():
            return {"type": "passed", "seat": event.seat}
    raise TypeError(f"not a record event: {event!r}")


def fold_record(numbered: Iterable[tuple[int, RecordEvent]]) -> Game:
    """The game of (line number, event) pairs; what the rules refuse is a RecordError on its
    line."""
    return Game.fold(numbered)
