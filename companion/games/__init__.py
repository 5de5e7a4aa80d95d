"""The games the companion referees, each a package of pure code behind one protocol
(`GameSpec`, docs/games.md). A game is imported only when it is asked for by name."""

from __future__ import annotations

import importlib

from .base import GameSpec

GAMES = ("tightrope", "attacke", "solo")
DEFAULT = "tightrope"  # a record or a command that names no game


def game_named(name: object) -> GameSpec:
    """The game called `name`; a ValueError in one line names the games there are."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r} (the games are {', '.join(GAMES)})")
    game: GameSpec = importlib.import_module(f"{__name__}.{name}").GAME
    return game


__all__ = ["GAMES", "DEFAULT", "GameSpec", "game_named"]
