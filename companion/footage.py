"""Simulated table footage of a game record: the demo's camera and the end-to-end test bed.

The rules decide what happens on the table (a trick is cleared once it is scored, the scoring
row once the round is over); the simulator (vision.sim.footage) only draws the table actions.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from .rules import CardPlayed, Game, GameEvent, GameStarted, ScoringRevealed


def table_actions(events: list[GameEvent]) -> list[Any]:
    """The table actions (Reveal, Place, ClearTrick, ClearRound) that play out `events`."""
    from vision.cards import CardId
    from vision.sim.footage import ClearRound, ClearTrick, Place, Reveal

    game = Game(events[0])  # type: ignore[arg-type]
    actions: list[Any] = []
    for event in events[1:]:
        rounds_before = game.round_index
        trick = game.apply(event)
        if isinstance(event, ScoringRevealed):
            card = event.card
            colour = card.colour.value if card.colour else None
            actions.append(Reveal(CardId("scoring", card.value, colour)))
        elif isinstance(event, CardPlayed):
            actions.append(Place(event.seat, CardId("number", event.card)))
        if trick is not None:
            actions.append(ClearTrick())
        if game.round_index != rounds_before:
            actions.append(ClearRound())
    return actions


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tightrope-companion" / "footage"


def render_game(
    events: list[GameEvent],
    out_dir: Path | None = None,
    *,
    seed: int = 0,
    fps: float = 10.0,
    hold_s: float = 0.8,
    hand_s: float = 0.8,
    table: str = "wood_light",
) -> Path:
    """Render (or find in the cache) the footage of a game; returns its folder."""
    from vision.sim.footage import render_footage
    from vision.sim.scene import Conditions

    setup = events[0]
    assert isinstance(setup, GameStarted)
    actions = table_actions(events)
    if out_dir is None:
        key = hashlib.sha256(repr((events, seed, fps, hold_s, hand_s, table)).encode())
        out_dir = cache_dir() / key.hexdigest()[:16]
    cond = Conditions(table=table, light_gradient=0.35, noise=2.0, glare=1, shadow=True)
    return render_footage(actions, setup.n, out_dir, fps=fps, seed=seed, cond=cond,
                          hold_s=hold_s, hand_s=hand_s)
