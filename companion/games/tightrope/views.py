"""Views of a game: the `replay --json` result (docs/game-record.md), the state snapshot
(docs/state-snapshot.md) that the LEDs and the web page show, and the terminal's scoresheet."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from .rules import Game, Round, Trick


def trick_json(trick: Trick) -> dict[str, Any]:
    return {
        "leader": trick.leader,
        "high": trick.high,
        "low": trick.low,
        "blue": trick.blue,
        "red": trick.red,
        "balances": list(trick.balances),
    }


def trick_detail_json(trick: Trick) -> dict[str, Any]:
    """A trick with everything the table saw: its plays and scoring cards."""
    return {
        "round": trick.round,
        "trick": trick.index,
        **trick_json(trick),
        "plays": [{"seat": p.seat, "card": p.card} for p in trick.plays],
        "scoring": [str(c) for c in trick.scoring],
        "value": trick.value,
        "covered": trick.covered.value if trick.covered else None,
    }


@functools.lru_cache(maxsize=64)
def round_json(rnd: Round) -> dict[str, Any]:
    """A finished round, one dict for every view that lists it: the web's hub keeps the last
    256 views for phones that reconnect, and each lists every finished round (never mutated)."""
    return {
        "dealer": rnd.dealer,
        "scores": list(rnd.scores),
        "struck": [list(pair) for pair in rnd.struck],
        "tricks": [trick_json(t) for t in rnd.tricks],
    }


def replay_json(game: Game) -> dict[str, Any]:
    """Exactly the `replay --json` object of docs/game-record.md. A round still in play is
    listed too, with `"complete": false` and its scores so far, so a partial record can be
    inspected."""
    rounds = [round_json(r) for r in game.rounds]
    if not game.game_over and game.tricks_this_round:
        rounds.append({
            "dealer": game.dealer,
            "scores": [abs(b) for b in game.balances],
            "struck": [],
            "tricks": [trick_json(t) for t in game.tricks_this_round],
            "complete": False,
        })
    return {"rounds": rounds, "totals": game.totals(), "winners": game.winners()}


def snapshot(game: Game, laid_out: Sequence[Any] = ()) -> dict[str, Any]:
    """Everything the table shows now (docs/state-snapshot.md). A trick's cards are events
    as they are laid: nothing is `laid_out` ahead of them."""
    over = game.game_over
    setup = game.setup
    return {
        "players": list(setup.players),
        "variant": {"tactical": setup.variant.tactical,
                    "simultaneous": setup.variant.simultaneous},
        "rounds_total": setup.n,
        "round": game.round_index,
        "dealer": None if over else game.dealer,
        "trick": None if over else game.trick_index,
        "leader": game.leader,
        "to_play": list(game.to_play()),
        "trick_plays": [] if over else [{"seat": p.seat, "card": p.card} for p in game.trick_plays],
        "trick_scoring": [] if over else [str(c) for c in game.trick_scoring],
        "trick_value": None if over else game.trick_value,
        "covered": None if over or not game.trick_covered else game.trick_covered.value,
        "revealed": [] if over else [str(c) for c in game.revealed],
        "remaining_scoring": [] if over else [str(c) for c in game.remaining_scoring()],
        "playable": sorted(game.playable_cards()),
        "balances": list(game.balances),
        "last_trick": trick_detail_json(game.last_trick) if game.last_trick else None,
        "rounds": [round_json(r) for r in game.rounds],
        "totals": game.totals(),
        "winners": game.winners(),
        "game_over": over,
        "supply_short": [c.value for c in game.supply_short()],
        "events": len(game.log) - 1,
    }


def scoresheet_text(game: Game) -> str:
    """A plain scoresheet: rounds x players, struck scores in brackets, totals, winners."""
    names = game.setup.players
    width = max(6, *(len(n) for n in names))
    lines = ["round  " + " ".join(f"{n:>{width}}" for n in names)]
    for rnd in game.rounds:
        struck = {(seat, target) for r in game.rounds for seat, target in r.struck}
        cells = []
        for seat, score in enumerate(rnd.scores):
            text = f"[{score}]" if (seat, rnd.index) in struck else str(score)
            cells.append(f"{text:>{width}}")
        lines.append(f"{rnd.index + 1:>5}  " + " ".join(cells))
    lines.append("total  " + " ".join(f"{t:>{width}}" for t in game.totals()))
    if game.game_over:
        lines.append("winner: " + ", ".join(names[s] for s in game.winners()))
    else:
        lines.append(f"(in play: round {game.round_index + 1}, trick {game.trick_index + 1})")
    return "\n".join(lines)
