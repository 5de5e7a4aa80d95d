"""What the pages and exports of a solo game show: its pyramid and its missions, derived from its
events.

The web page in play draws the live snapshot itself (static/solo.js); this module serves the
game's own page, its missions in detail and the CSV of missions. Every number comes from the
game's own views (companion.games.solo.views): nothing is counted here.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from companion.games.solo.rules import Game
from companion.games.solo.views import replay_json

from .sheets import safe_cell

ROWS = (("3",), ("2a", "2b"), ("1a", "1b", "1c"))  # the pyramid as it is drawn: the top first


def mission_notes(m: dict[str, Any]) -> str:
    """What the informants and the companion's choices did in a mission (as mission_json has
    it): "double agent 9S counts 0; a king doubles 10H"."""
    notes = [f"double agent {c} counts 0" for c in m["double_agents"]]
    notes += [f"a queen cancels {c}" for c in m["cancelled"]]
    notes += [f"a king doubles {c}" for c in m["doubled"]]
    notes += [f"a joker stands for {r}" for r in m["jokers"]]
    if m["laid"]:
        notes.append(f"{m['laid']} stays on the spot")
    return "; ".join(notes)


def mission_words(m: dict[str, Any]) -> str:
    """"won 1a: 20 of 18 (a queen cancels 10S)"."""
    outcome = "won" if m["success"] else "failed at"
    notes = mission_notes(m)
    return f"{outcome} {m['spot']}: {m['total']} of {m['need']}" + (f" ({notes})" if notes else "")


def missions(game: Game) -> list[dict[str, Any]]:
    """Every mission so far, oldest first, as the game's views give it, numbered from 1 and
    said in words."""
    out = replay_json(game)["missions"]
    for m in out:
        m["number"] = m["index"] + 1
        m["words"] = mission_words(m)
        m["notes"] = mission_notes(m)
    return out


def pyramid_rows(game: Game) -> list[list[dict[str, Any]]]:
    """The pyramid's spots, the Big Hit first, each with what it says in words."""
    spots = {s["spot"]: s for s in replay_json(game)["pyramid"]}
    for s in spots.values():
        s["state"] = (f"won{' · ' + s['card'] if s['card'] else ''}" if s["won"]
                      else "open" if s["open"] else "not open yet")
    return [[spots[name] for name in row] for row in ROWS]


def summary(game: Game) -> dict[str, Any]:
    """The game page: the player, the pyramid, the missions, the decks, the result."""
    view = replay_json(game)
    return {
        "player": game.players[0],
        "pyramid": pyramid_rows(game),
        "missions": missions(game),
        "rebels": view["rebels"],
        "opponent": view["opponent"],
        "informants": view["informants"],
        "wins": game.wins,
        "result": game.result,
        "game_over": game.game_over,
        "variant": view["variant"],
    }


def missions_csv(game: Game) -> str:
    """One row a mission: its spot, need, total, outcome, the cards played, the informants and
    what they did; then the spots won and the result."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["mission", "spot", "need", "total", "result", "cards", "informants",
                     "double agents", "queens cancel", "kings double", "jokers as",
                     "card on the spot"])
    for m in missions(game):
        writer.writerow([m["number"], m["spot"], m["need"], m["total"],
                         "won" if m["success"] else "failed", " ".join(m["cards"]),
                         " ".join(m["informants"]), " ".join(m["double_agents"]),
                         " ".join(m["cancelled"]), " ".join(m["doubled"]),
                         " ".join(m["jokers"]), m["laid"] or ""])
    won = [s["spot"] for row in pyramid_rows(game) for s in row if s["won"]]
    writer.writerow(["spots won", len(won), " ".join(sorted(won))])
    writer.writerow(["result", safe_cell(game.players[0]), game.result or "in play"])
    return out.getvalue()
