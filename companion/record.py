"""The game record: JSON Lines, one event a line (docs/game-record.md).

`parse_event` turns one decoded line into a typed event; `read_record` reads a whole file and
names the line of anything it cannot take. `event_to_json` is the inverse of `parse_event`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .rules import (
    CardPlayed,
    GameEvent,
    GameStarted,
    RuleError,
    ScoringCard,
    ScoringRevealed,
    Variant,
)

FORMAT = "tightrope-record"
VERSION = 1


class RecordError(ValueError):
    """A record line that cannot be read or applied. `line` is 1-based, or None."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line is not None else message)
        self.line = line
        self.detail = message


# --- corrections and notes: events about the record itself ---------------------------------


@dataclass(frozen=True)
class Undo:
    """Take back the last game event still in effect."""

    at: str = ""
    why: str = ""


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


@dataclass(frozen=True)
class Note:
    text: str
    at: str = ""


Correction = Undo | PlayCorrected | ScoringCorrected
RecordEvent = GameEvent | Correction | Note


# --- decoding -------------------------------------------------------------------------------


def _field(obj: dict[str, Any], key: str, kind: type, what: str) -> Any:
    if key not in obj:
        raise ValueError(f'{what} needs "{key}"')
    value = obj[key]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValueError(f'"{key}" of {what} must be a whole number, not {json.dumps(value)}')
    if kind is not int and not isinstance(value, kind):
        raise ValueError(f'"{key}" of {what} must be a {kind.__name__}, not {json.dumps(value)}')
    return value


def _text(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key, "")
    if not isinstance(value, str):
        raise ValueError(f'"{key}" must be text')
    return value


def _scoring(obj: dict[str, Any], what: str) -> ScoringCard:
    return ScoringCard.parse(_field(obj, "card", str, what))


def _game_started(obj: dict[str, Any]) -> GameStarted:
    players = _field(obj, "players", list, "game_started")
    if not all(isinstance(p, str) for p in players):
        raise ValueError('"players" of game_started must be a list of names')
    first_dealer = _field(obj, "first_dealer", int, "game_started") if "first_dealer" in obj else 0
    variant = obj.get("variant", {})
    if not isinstance(variant, dict):
        raise ValueError('"variant" of game_started must be an object')
    flags = {}
    for key in ("tactical", "simultaneous"):
        flags[key] = variant.get(key, False)
        if not isinstance(flags[key], bool):
            raise ValueError(f'variant "{key}" must be true or false')
    unknown = set(variant) - set(flags)
    if unknown:
        raise ValueError(f"unknown variant {sorted(unknown)[0]!r}")
    return GameStarted(tuple(players), first_dealer, Variant(**flags))


def parse_event(obj: Any) -> RecordEvent:
    """Decode one record line's JSON value. Raises ValueError (RuleError for a bad setup)."""
    if not isinstance(obj, dict):
        raise ValueError("an event is a JSON object")
    kind = obj.get("type")
    match kind:
        case "game_started":
            return _game_started(obj)
        case "scoring_revealed":
            return ScoringRevealed(_scoring(obj, kind))
        case "card_played":
            return CardPlayed(_field(obj, "seat", int, kind), _field(obj, "card", int, kind))
        case "undo":
            return Undo(_text(obj, "at"), _text(obj, "why"))
        case "play_corrected":
            r, t, s, c = (_field(obj, k, int, kind) for k in ("round", "trick", "seat", "card"))
            return PlayCorrected(r, t, s, c, _text(obj, "at"), _text(obj, "why"))
        case "scoring_corrected":
            r, i = (_field(obj, k, int, kind) for k in ("round", "index"))
            return ScoringCorrected(r, i, _scoring(obj, kind), _text(obj, "at"), _text(obj, "why"))
        case "note":
            return Note(_field(obj, "text", str, kind), _text(obj, "at"))
        case None:
            raise ValueError('an event needs a "type"')
        case _:
            raise ValueError(f"unknown event type {json.dumps(kind)}")


def event_to_json(event: RecordEvent) -> dict[str, Any]:
    """The record form of an event (inverse of parse_event)."""
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
        case Undo():
            return {"type": "undo", "at": event.at, "why": event.why}
        case PlayCorrected():
            return {"type": "play_corrected", "round": event.round, "trick": event.trick,
                    "seat": event.seat, "card": event.card, "at": event.at, "why": event.why}
        case ScoringCorrected():
            return {"type": "scoring_corrected", "round": event.round, "index": event.index,
                    "card": str(event.card), "at": event.at, "why": event.why}
        case Note():
            return {"type": "note", "text": event.text, "at": event.at}
    raise TypeError(f"not a record event: {event!r}")


def dumps(event: RecordEvent) -> str:
    return json.dumps(event_to_json(event), separators=(", ", ": "))


def header_line() -> str:
    return json.dumps({"type": FORMAT, "version": VERSION})


# --- whole records ----------------------------------------------------------------------------


def iter_lines(lines: Iterable[str]) -> Iterator[tuple[int, RecordEvent]]:
    """Yield (line number, event) for each non-blank line; a header may open the record."""
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as err:
            raise RecordError(f"not JSON ({err.msg.lower()} column {err.colno})", number) from None
        if isinstance(obj, dict) and obj.get("type") == FORMAT:
            if obj.get("version") != VERSION:
                raise RecordError(f"record version {obj.get('version')!r} is not {VERSION}", number)
            continue
        try:
            yield number, parse_event(obj)
        except ValueError as err:
            raise RecordError(str(err), number) from None


def read_record(path: str | Path) -> list[tuple[int, RecordEvent]]:
    """The events of a record file; a RecordError says why not (callers name the file)."""
    try:
        with open(path, encoding="utf-8") as handle:
            return list(iter_lines(handle))
    except OSError as err:
        raise RecordError(f"cannot read it ({err.strerror})") from None
    except UnicodeDecodeError:
        raise RecordError("not UTF-8 text") from None


def write_record(path: str | Path, events: Iterable[RecordEvent]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(header_line() + "\n")
        for event in events:
            handle.write(dumps(event) + "\n")


__all__ = [
    "RecordError", "RuleError", "Undo", "PlayCorrected", "ScoringCorrected", "Note",
    "Correction", "RecordEvent", "parse_event", "event_to_json", "dumps", "header_line",
    "iter_lines", "read_record", "write_record",
]
