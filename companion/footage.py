"""Simulated table footage of a game record: the demo's camera and the end-to-end test bed.

The rules decide what happens on the table (a trick is cleared once it is scored, the scoring
row once the round is over; in Attacke a seat's cards leave when he passes, and the victor's when
the contest is his; in the solo game a mission's cards lie on its spot until the informants are
turned); the simulator (vision.sim.footage) only draws the table actions.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .games.attacke import rules as attacke_rules
from .games.solo import rules as solo_rules
from .games.tightrope.rules import CardPlayed, Game, GameStarted, ScoringRevealed


def table_actions(events: list[Any], design: Any = None) -> list[Any]:
    """The table actions that play out `events`: Tightrope's (Reveal, Place, ClearTrick,
    ClearRound), or Attacke's (Lay, ClearSeat; its cards printed by `design`, an AttackeDesign,
    by default the one `attacke_design()` draws)."""
    if isinstance(events[0], attacke_rules.GameStarted):
        return attacke_actions(events, design if design is not None else attacke_design())
    if isinstance(events[0], solo_rules.GameStarted):
        return solo_actions(events, design if design is not None else deck_design("solo"))
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
    return deck_design("attacke", seed)


def deck_design(game: str, seed: int = 0) -> Any:
    """An edition of the deck of `game` ("attacke", "solo") for footage (a seed draws
    another)."""
    import numpy as np

    from vision.sim.faces import random_deck_design

    return random_deck_design(game, np.random.default_rng([seed, 16]), "train")


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


def solo_areas() -> dict[str, Any]:
    """The solo table as the simulator lays it out, no card over another (the watcher tells
    overlapping playing cards apart badly): the informants' row along the far edge in two lines
    (the scoring row), the spots of level 1 in a column on the left, those of levels 2 and 3
    beside them, each room for five cards in a line; the player's own laying (a redraw's
    discards, a jack) and the Rebels' deck on the right (docs/games.md, "Solo at the table")."""
    from vision.sim.footage import Area

    lines = (0.36, 0.535, 0.71)  # the tops of the spots' three lines
    left, right = (0.005, 0.34), (0.345, 0.68)
    spots = {name: Area(x[0], y, x[1], y + 0.175, step=1.05) for name, x, y in (
        ("1a", left, lines[0]), ("1b", left, lines[1]), ("1c", left, lines[2]),
        ("2a", right, lines[0]), ("2b", right, lines[1]), ("3", right, lines[2]))}
    return {
        "scoring": Area(0.005, 0.005, 0.995, 0.355, step=1.1),
        **spots,
        "front": Area(0.685, 0.36, 0.995, 0.72, step=1.1, zone=False),  # the player's zone
        "deck": Area(0.80, 0.76, 0.99, 0.99),
    }


DRAW_S = 1.0  # a card drawn: the hand reaches the deck, the table does not change
LOOK_S = 3.0  # the informants all turned: the player counts the mission before clearing


def solo_actions(events: list[Any], design: Any) -> list[Any]:
    """The table actions that play out a solo game: the informants dealt face down along the
    row in the order dealt; a jack laid in front of the player and an informant turned (picked
    up and laid back face up where it lay); a redraw's cards laid in front, taken away, then
    the new informants; a mission's cards laid on its spot, every informant turned, then the
    row cleared and the spot's cards taken away but the one that stays (S13), then the new
    informants; the Rebels' deck taken away once the game is over."""
    from vision.sim.faces import Printed
    from vision.sim.footage import LayAt, Pause, Take

    rules = solo_rules
    game = rules.Game(events[0])

    def card(name: Any) -> Printed:
        return Printed(str(name), design)

    def turn(slot: int, name: Any) -> list[Any]:
        """An informant picked up and laid back face up where it lay."""
        return [Take("scoring", (slot,)), LayAt("scoring", card(name), slot)]

    def deal(first: int, n: int) -> list[Any]:
        return [LayAt("scoring", card("back"), slot) for slot in range(first, first + n)]

    # an informant lies at the slot of its place in the list the next mission reveals
    coming = [next((e.informants for e in events[i:] if isinstance(e, rules.MissionPlayed)), ())
              for i in range(len(events))]
    dealt, turned = rules.START_INFORMANTS, set[int]()
    actions: list[Any] = [LayAt("deck", card("back")), *deal(0, dealt)]
    for i, event in enumerate(events[1:], start=1):
        before = game.opponent.informants
        game.apply(event)
        if isinstance(event, rules.CardDrawn):
            actions.append(Pause(DRAW_S))
        elif isinstance(event, rules.JackPlayed):
            slot = coming[i].index(event.revealed) if event.revealed in coming[i] else \
                min(set(range(dealt)) - turned)
            turned.add(slot)
            actions += [LayAt("front", card(event.jack)), *turn(slot, event.revealed),
                        Pause(DRAW_S), Take("front")]
        elif isinstance(event, rules.CardsRedrawn):
            new = game.opponent.informants - before
            actions += [*(LayAt("front", card(c)) for c in event.cards), Pause(DRAW_S),
                        Take("front"), *deal(dealt, new)]
            dealt += new
        elif isinstance(event, rules.MissionPlayed):
            spot = event.spot.value
            stays = event.cards.index(event.laid) if event.laid is not None else None
            actions += [LayAt(spot, card(c)) for c in event.cards]
            actions += [a for slot, c in enumerate(event.informants) if slot not in turned
                        for a in turn(slot, c)]
            others = tuple(k for k in range(len(event.cards)) if k != stays)
            actions += [Pause(LOOK_S), Take("scoring"), Take(spot, others)]
            dealt, turned = game.opponent.informants, set()
            actions += deal(0, dealt)
    if game.game_over:
        actions.append(Take("deck"))
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
    """Render (or find in the cache) the footage of a game, Tightrope's, Attacke's or the solo
    game's (their cards printed by `design`, by default `deck_design(game, seed)`); returns its
    folder."""
    from vision.sim.footage import render_footage
    from vision.sim.scene import Conditions

    setup = events[0]
    assert isinstance(setup, GameStarted | attacke_rules.GameStarted | solo_rules.GameStarted)
    solo = isinstance(setup, solo_rules.GameStarted)
    if not isinstance(setup, GameStarted) and design is None:
        design = deck_design("solo" if solo else "attacke", seed)
    actions = table_actions(events, design)
    if out_dir is None:
        out_dir = footage_folder(events, seed=seed, fps=fps, hold_s=hold_s, hand_s=hand_s,
                                 table=table)
    cond = Conditions(table=table, light_gradient=0.35, noise=2.0, glare=1, shadow=True)
    seats = 1 if solo else setup.n
    out = render_footage(actions, seats, out_dir, fps=fps, seed=seed, cond=cond,
                         hold_s=hold_s, hand_s=hand_s, progress=progress,
                         areas=solo_areas() if solo else None)
    os.utime(out)  # the cache keeps the most recently used games
    return out
