"""Game record files: JSON Lines, one event a line (docs/game-record.md).

The header line names the record's game (`"game": "attacke"`); a record without one is
Tightrope. The game's own package decodes each event; this module reads and writes whole files
and names the line of anything it cannot take.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .games import DEFAULT, GameSpec, game_named
from .games.base import RecordError

FORMAT = "tightrope-record"
VERSION = 1


@dataclass(frozen=True)
class Record:
    """A record's game and its events, each with its line number."""

    game: GameSpec
    events: list[tuple[int, Any]]


def header_line(game: str = DEFAULT) -> str:
    """The first line of a record. A Tightrope record's is as it always was (no game named)."""
    header: dict[str, Any] = {"type": FORMAT, "version": VERSION}
    if game != DEFAULT:
        header["game"] = game
    return json.dumps(header)


def dumps(event: Any, game: str = DEFAULT) -> str:
    return json.dumps(game_named(game).event_to_json(event), separators=(", ", ": "))


def parse_lines(lines: Iterable[str]) -> Record:
    """The game and events of a record's lines. A header may open the record; it names the game
    (Tightrope if it does not)."""
    game: GameSpec = game_named(DEFAULT)
    events: list[tuple[int, Any]] = []
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as err:
            raise RecordError(f"not JSON ({err.msg.lower()} column {err.colno})", number) from None
        if isinstance(obj, dict) and obj.get("type") == FORMAT:
            game = _header(obj, number, bool(events))
            continue
        try:
            events.append((number, game.parse_event(obj)))
        except ValueError as err:
            raise RecordError(str(err), number) from None
    return Record(game, events)


def _header(obj: dict[str, Any], number: int, late: bool) -> GameSpec:
    if obj.get("version") != VERSION:
        raise RecordError(f"record version {obj.get('version')!r} is not {VERSION}", number)
    name = obj.get("game", DEFAULT)
    if late and name != DEFAULT:
        raise RecordError("the header must come before the first event", number)
    try:
        return game_named(name)
    except ValueError as err:
        raise RecordError(str(err), number) from None


def iter_lines(lines: Iterable[str]) -> list[tuple[int, Any]]:
    """(line number, event) for each event line of a record."""
    return parse_lines(lines).events


def read_game_record(path: str | Path) -> Record:
    """A record file's game and events; a RecordError says why not (callers name the file)."""
    try:
        with open(path, encoding="utf-8") as handle:
            return parse_lines(handle)
    except OSError as err:
        raise RecordError(f"cannot read it ({err.strerror})") from None
    except UnicodeDecodeError:
        raise RecordError("not UTF-8 text") from None


def read_record(path: str | Path) -> list[tuple[int, Any]]:
    """The events of a record file; a RecordError says why not (callers name the file)."""
    return read_game_record(path).events


def write_record(path: str | Path, events: Iterable[Any], game: str = DEFAULT) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(header_line(game) + "\n")
        for event in events:
            handle.write(dumps(event, game) + "\n")


__all__ = ["FORMAT", "VERSION", "Record", "RecordError", "header_line", "dumps", "parse_lines",
           "iter_lines", "read_game_record", "read_record", "write_record"]
