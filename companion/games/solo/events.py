"""Solo Tightrope's record lines (docs/game-record.md, "Solo Tightrope records"), and folding a
record into a game.

`parse_event` turns one decoded line into a typed event; `event_to_json` is its inverse. An undo
takes back the last game event still in effect; a note changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, fields
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
from .cards import Card, cards_of
from .rules import (
    CardDrawn,
    CardsRedrawn,
    Game,
    GameEvent,
    GameStarted,
    JackPlayed,
    MissionPlayed,
    Spot,
    Variant,
)

RecordEvent = GameEvent | Undo | Note
VARIANT_FLAGS = tuple(f.name for f in fields(Variant))


def _card(obj: dict[str, Any], key: str, what: str) -> Card:
    return Card.parse(field_of(obj, key, str, what))


def _cards(obj: dict[str, Any], key: str, what: str) -> tuple[Card, ...]:
    names = field_of(obj, key, list, what)
    if not all(isinstance(n, str) for n in names):
        raise ValueError(f'"{key}" of {what} must be a list of card names')
    return cards_of(names)


def _game_started(obj: dict[str, Any]) -> GameStarted:
    flags = flags_of(obj, VARIANT_FLAGS, "game_started")
    return GameStarted(names_of(obj, "game_started"), Variant(**flags))


def _mission_played(obj: dict[str, Any]) -> MissionPlayed:
    what = "mission_played"
    spot = field_of(obj, "spot", str, what)
    try:
        where = Spot(spot)
    except ValueError:
        spots = ", ".join(s.value for s in Spot)
        raise ValueError(f"not a spot: {spot!r} (the spots are {spots})") from None
    laid = _card(obj, "laid", what) if obj.get("laid") is not None else None
    return MissionPlayed(where, _cards(obj, "cards", what), _cards(obj, "informants", what), laid)


PARSERS = {
    "game_started": _game_started,
    "card_drawn": lambda obj: CardDrawn(),
    "cards_redrawn": lambda obj: CardsRedrawn(_cards(obj, "cards", "cards_redrawn")),
    "jack_played": lambda obj: JackPlayed(_card(obj, "jack", "jack_played"),
                                          _card(obj, "revealed", "jack_played")),
    "mission_played": _mission_played,
}


def parse_event(obj: Any) -> RecordEvent:
    """Decode one record line's JSON value. Raises ValueError (RuleError for a bad setup)."""
    event: RecordEvent = parse_line(obj, PARSERS)
    return event


def _names(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


def event_to_json(event: RecordEvent) -> dict[str, Any]:
    """The record form of an event (inverse of parse_event)."""
    shared = record_event_json(event)
    if shared is not None:
        return shared
    match event:
        case GameStarted():
            return {"type": "game_started", "players": list(event.players),
                    "variant": asdict(event.variant)}
        case CardDrawn():
            return {"type": "card_drawn"}
        case CardsRedrawn():
            return {"type": "cards_redrawn", "cards": _names(event.cards)}
        case JackPlayed():
            return {"type": "jack_played", "jack": str(event.jack),
                    "revealed": str(event.revealed)}
        case MissionPlayed():
            line: dict[str, Any] = {"type": "mission_played", "spot": event.spot.value,
                                    "cards": _names(event.cards),
                                    "informants": _names(event.informants)}
            if event.laid is not None:
                line["laid"] = str(event.laid)
            return line
    raise TypeError(f"not a record event: {event!r}")


def fold_record(numbered: Iterable[tuple[int, RecordEvent]]) -> Game:
    """The game of (line number, event) pairs; what the rules refuse is a RecordError on its
    line."""
    return Game.fold(numbered)
