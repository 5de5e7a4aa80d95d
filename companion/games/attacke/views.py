"""Views of a game of Attacke: `replay --json`, the live snapshot the LEDs and the web show,
and the terminal's scoresheet. Every number is derived from the game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .rules import CARD_NAMES, Colour, Contest, Game


def contest_json(c: Contest) -> dict[str, Any]:
    return {
        "index": c.index,
        "opener": c.opener,
        "colour": c.colour.value if c.colour else None,
        "totals": c.totals,
        "cards": [[str(k) for k in p] for p in c.played],
        "concealed": list(c.concealed),
        "passed": sorted(c.passed),
        "winner": c.winner,
        "chip_won": c.chip_won,
        "chips_returned": [{"seat": s, "colour": col.value} for s, col in c.chips_returned],
    }


def chips_json(game: Game) -> list[list[str]]:
    """The chips each player holds, by colour, in the order of the contests."""
    return [[c.value for c in Colour if c in held] for held in game.chips]


def replay_json(game: Game) -> dict[str, Any]:
    return {
        "game": "attacke",
        "contests": [contest_json(c) for c in game.contests],
        "chips": chips_json(game),
        "totals": game.totals(),
        "winners": game.winners(),
    }


def scoring(game: Game) -> dict[str, Any]:
    """The replay as the score rests on it: a seat's cards of a contest as a set of cards (in
    the deck's order), not in the order laid. No rule asks that order, and the camera cannot
    always see it (a fan laid at once, its first card found last)."""
    replay = replay_json(game)
    for contest in replay["contests"]:
        contest["cards"] = [sorted(cards, key=CARD_NAMES.index) for cards in contest["cards"]]
    return replay


def snapshot(game: Game, laid_out: Sequence[Any] = ()) -> dict[str, Any]:
    """What the table shows now: the contest in play, whose turn, chips, piles. A play's cards
    are an event once laid: nothing is `laid_out` ahead of them."""
    c = game.contest
    return {
        "game": "attacke",
        "players": list(game.players),
        "variant": {"persevering": game.setup.variant.persevering,
                    "concealed": game.setup.variant.concealed},
        "contest": None if game.game_over else {
            **contest_json(c),
            "in_play": [s for s in range(game.n) if c.in_play(s)],
            "leader": game.leader,
        },
        "turn": game.turn,
        "chips": chips_json(game),
        "chips_to_win": game.setup.variant.chips_to_win,
        "hands": list(game.piles.hands),
        "draw_pile": game.piles.draw,
        "discards": game.piles.discard,
        "last_contest": contest_json(game.contests[-1]) if game.contests else None,
        "game_over": game.game_over,
        "winners": game.winners(),
        "events": len(game.log),
    }


def scoresheet_text(game: Game) -> str:
    """Contests x players (each player's total, * the winner), then the chips held."""
    names = game.players
    width = max(7, *(len(n) for n in names))
    lines = ["contest " + " ".join(f"{n:>{width}}" for n in names)]
    for c in game.contests:
        cells = [f"{c.total(s)}{'*' if s == c.winner else ''}" for s in range(game.n)]
        colour = c.colour.value if c.colour else "?"
        lines.append(f"{c.index + 1:>2} {colour:<6}" + "".join(f" {x:>{width}}" for x in cells))
    chips = chips_json(game)
    lines.append("chips   " + " ".join(f"{len(h):>{width}}" for h in chips))
    if game.game_over:
        lines.append("winner: " + ", ".join(names[s] for s in game.winners()))
    else:
        colour = game.contest.colour.value if game.contest.colour else "not yet opened"
        lines.append(f"(in play: contest {game.contest.index + 1}, {colour})")
    return "\n".join(lines)
