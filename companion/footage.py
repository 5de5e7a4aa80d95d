"""Simulated table footage of a game record: the demo's camera and the end-to-end test bed.

The rules decide what happens on the table (a trick is cleared once it is scored, the scoring
row once the round is over; in Attacke a seat's cards leave when he passes, and the victor's when
the contest is his); the simulator (vision.sim.footage) only draws the table actions.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .games.attacke import rules as attacke_rules
from .games.tightrope.rules import CardPlayed, Game, GameStarted, ScoringRevealed


def table_actions(events: list[Any], design: Any = None) -> list[Any]:
    """The table actions that play out `events`: Tightrope's (Reveal, Place, ClearTrick,
    ClearRound), or Attacke's (Lay, ClearSeat; its cards printed by `design`, an AttackeDesign,
    by default the one `attacke_design()` draws)."""
    if isinstance(events[0], attacke_rules.GameStarted):
        return attacke_actions(events, design if design is not None else attacke_design())
    from vision.sim.footage import ClearRound, ClearTrick, Place, Reveal

    from .games.tightrope.interpreter import card_id

    setup = events[0]
    assert isinstance(setup, GameStarted)
    game = Game(setup)
    actions: list[Any] = []
    for event in events[1:]:
        rounds_before = game.round_index
        trick = game.apply(event)
        if isinstance(event, ScoringRevealed):
            actions.append(Reveal(card_id(event.card)))
        elif isinstance(event, CardPlayed):
            actions.append(Place(event.seat, card_id(event.card)))
        if trick is not None:
            actions.append(ClearTrick())
        if game.round_index != rounds_before:
            actions.append(ClearRound())
    return actions


def attacke_design(seed: int = 0) -> Any:
    """An edition of the Attacke deck for footage (a seed draws another)."""
    import numpy as np

    from vision.sim.attacke import random_attacke_design

    return random_attacke_design(np.random.default_rng([seed, 16]), "train")


THINK_S = 2.0  # a player who passes with nothing laid says so: the table lies still meanwhile


def attacke_actions(events: list[Any], design: Any) -> list[Any]:
    """The table actions that play out an Attacke game: each play's cards laid one by one in
    the seat's zone (its face-down cards as backs, A12); a pass takes the seat's cards of the
    contest away (A7), or, for a seat that laid none, is a pause while he says so; the victor
    takes his away when the contest is his (A9)."""
    from vision.sim.faces import Printed
    from vision.sim.footage import ClearSeat, Lay, Pause

    rules = attacke_rules
    game = rules.Game(events[0])
    actions: list[Any] = []
    for event in events[1:]:
        contest = game.contest
        ended = game.apply(event)
        if isinstance(event, rules.CardsPlayed):
            names = [str(c) for c in event.cards] + ["back"] * event.concealed
            actions += [Lay(event.seat, Printed(name, design)) for name in names]
        elif contest.played[event.seat] or contest.concealed[event.seat]:
            actions.append(ClearSeat(event.seat))
        else:
            actions.append(Pause(THINK_S))
        if ended is not None and ended.winner is not None:
            actions.append(ClearSeat(ended.winner))
    return actions


KEEP_CACHED = 3  # rendered games kept in the cache (about 250 MB each)


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tightrope-companion" / "footage"


def footage_folder(events: list[Any], *, seed: int = 0, fps: float = 10.0,
                   hold_s: float = 0.8, hand_s: float = 0.8, table: str = "wood_light") -> Path:
    """Where the cache keeps the footage of a game (rendered or not yet)."""
    key = hashlib.sha256(repr((events, seed, fps, hold_s, hand_s, table)).encode())
    return cache_dir() / key.hexdigest()[:16]


def is_rendered(folder: Path) -> bool:
    return (folder / ".footage").is_file()


def trim_cache(keep: int = KEEP_CACHED) -> tuple[int, int]:
    """Keep the `keep` most recently used games; returns (games left, bytes they take)."""
    root = cache_dir()
    if not root.is_dir():
        return 0, 0
    games = sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime,
                   reverse=True)
    for old in games[keep:]:
        shutil.rmtree(old, ignore_errors=True)
    kept = games[:keep]
    size = sum(f.stat().st_size for g in kept for f in g.iterdir() if f.is_file())
    return len(kept), size


def render_game(
    events: list[Any],
    out_dir: Path | None = None,
    *,
    seed: int = 0,
    fps: float = 10.0,
    hold_s: float = 0.8,
    hand_s: float = 0.8,
    table: str = "wood_light",
    progress: Callable[[int, int], None] | None = None,
    design: Any = None,
) -> Path:
    """Render (or find in the cache) the footage of a game, Tightrope's or Attacke's (its cards
    printed by `design`, by default `attacke_design(seed)`); returns its folder."""
    from vision.sim.footage import render_footage
    from vision.sim.scene import Conditions

    setup = events[0]
    assert isinstance(setup, GameStarted | attacke_rules.GameStarted)
    if isinstance(setup, attacke_rules.GameStarted) and design is None:
        design = attacke_design(seed)
    actions = table_actions(events, design)
    if out_dir is None:
        out_dir = footage_folder(events, seed=seed, fps=fps, hold_s=hold_s, hand_s=hand_s,
                                 table=table)
    cond = Conditions(table=table, light_gradient=0.35, noise=2.0, glare=1, shadow=True)
    out = render_footage(actions, setup.n, out_dir, fps=fps, seed=seed, cond=cond,
                         hold_s=hold_s, hand_s=hand_s, progress=progress)
    os.utime(out)  # the cache keeps the most recently used games
    return out
