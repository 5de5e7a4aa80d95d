"""Views of a game of solo Tightrope: `replay --json`, the live snapshot and the terminal's
scoresheet. Every number is derived from the game; the odds from companion.games.solo.odds."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

from .cards import RANK_NAMES, Card
from .odds import agent_chances, open_chances
from .rules import Game, Mission, Spot
from .scoring import best_total


def _names(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


def mission_json(m: Mission) -> dict[str, Any]:
    s = m.scoring
    return {
        "index": m.index,
        "spot": m.spot.value,
        "need": m.spot.need,
        "cards": _names(m.cards),
        "informants": _names(m.informants),
        "total": s.total,
        "success": m.success,
        "double_agents": _names(s.double_agents),
        "cancelled": _names(s.cancelled),   # informants a queen cancelled
        "doubled": _names(s.doubled),       # cards a king doubled
        "jokers": [RANK_NAMES[r] for r in s.jokers],
        "laid": str(m.laid) if m.laid is not None else None,
    }


def pyramid_json(game: Game) -> list[dict[str, Any]]:
    """Each spot, bottom row first: its need, whether it is won (and the card on it) or open."""
    won, open_now = game.rebels.spots, game.open_spots()
    return [{"spot": s.value, "level": s.level, "need": s.need, "won": s in won,
             "card": str(won[s]) if won.get(s) is not None else None, "open": s in open_now}
            for s in Spot]


def decks_json(game: Game) -> dict[str, Any]:
    """The cards left in both decks, the hand's size and the informants."""
    r, o = game.rebels, game.opponent
    return {
        "rebels": {"draw": r.draw, "hand": r.hand, "discards": len(r.seen) - len(r.spots)},
        "opponent": {"draw": o.draw, "discards": len(o.discard)},
        "informants": {"count": o.informants, "hidden": o.face_down,
                       "revealed": _names(o.revealed), "deduced": _names(o.deduced)},
    }


def replay_json(game: Game) -> dict[str, Any]:
    return {
        "game": "solo",
        "players": list(game.players),
        "variant": asdict(game.setup.variant),
        "missions": [mission_json(m) for m in game.missions],
        "pyramid": pyramid_json(game),
        **decks_json(game),
        "result": game.result,
        "totals": game.totals(),
        "winners": game.winners(),
    }


def match_chances(game: Game) -> dict[str, float]:
    """The chance that an informant waiting now matches a card of each rank ("7"), or of each
    card ("7H") under match_suit: what the player can weigh his hand by before he lays it out."""
    if game.game_over:
        return {}
    return {f"{RANK_NAMES[rank]}{suit}": float(p)
            for (rank, suit), p in agent_chances(game).items()}


def laid_total(game: Game, on_table: Sequence[Card]) -> int | None:
    """The mission's running total: what the cards laid out make against the informants known
    now (turned by a jack, or deduced), that is, if no hidden informant matches one."""
    if not on_table:
        return None
    v = game.setup.variant
    return best_total(on_table, Counter(v.key(c) for c in game.opponent.known()), v)


def snapshot(game: Game, on_table: Sequence[Card] = ()) -> dict[str, Any]:
    """What the table shows now; with the cards the player has laid out for a mission, their
    running total and the chance they succeed at each open spot."""
    chances = open_chances(game, on_table) if on_table and not game.game_over else {}
    return {
        **replay_json(game),
        "open_spots": [s.value for s in game.open_spots()],
        "last_mission": mission_json(game.missions[-1]) if game.missions else None,
        "on_table": _names(on_table),
        "on_table_total": laid_total(game, on_table),
        "chances": {s.value: float(p) for s, p in chances.items()},
        "match_chances": match_chances(game),
        "game_over": game.game_over,
        "events": len(game.log),
    }


def _mission_line(m: Mission) -> str:
    s = m.scoring
    notes = [f"double agents {' '.join(_names(s.double_agents))}"] if s.double_agents else []
    notes += [f"Q cancels {c}" for c in s.cancelled]
    notes += [f"K doubles {c}" for c in s.doubled]
    notes += [f"joker as {RANK_NAMES[r]}" for r in s.jokers]
    outcome = "won" if m.success else "lost"
    return (f"{m.index + 1:>2} {m.spot.value:<4} {s.total:>3}/{m.spot.need} {outcome:<4} "
            f"{' '.join(_names(m.cards)):<19} {' '.join(_names(m.informants))}"
            + (f"  ({'; '.join(notes)})" if notes else ""))


def _pyramid_lines(game: Game) -> list[str]:
    won = game.rebels.spots

    def cell(s: Spot) -> str:
        return f"[{s.value:>2}{'*' if s in won else ' '}]"

    rows = [[s for s in Spot if s.level == level] for level in (3, 2, 1)]
    return [" " * 3 * (3 - len(row)) + " ".join(cell(s) for s in row) for row in rows]


def scoresheet_text(game: Game) -> str:
    """The missions (total / need, the cards against the informants), the pyramid (* won),
    the decks and the result."""
    lines = [f" # spot total        {'cards':<19} informants"]
    lines += [_mission_line(m) for m in game.missions]
    lines += _pyramid_lines(game)
    d = decks_json(game)
    lines.append(f"Rebels' deck {d['rebels']['draw']}, hand {d['rebels']['hand']}; "
                 f"Opponent's deck {d['opponent']['draw']}, informants "
                 f"{d['informants']['count']} ({d['informants']['hidden']} hidden)")
    if game.game_over:
        lines.append(f"{game.players[0]} {game.result}")
    return "\n".join(lines)


def scoring(game: Game) -> dict[str, Any]:
    """The replay as the score rests on it: each mission's cards and informants in one order
    (sorted). Their order on the spot or along the row scores nothing, and the camera cannot
    always tell it (a card it lost and found again, one it missed and a person named)."""
    sheet = replay_json(game)
    missions = [{**m, "cards": sorted(m["cards"]), "informants": sorted(m["informants"])}
                for m in sheet["missions"]]
    return {**sheet, "missions": missions}
