"""What the pages and exports of a game of Attacke show: its contests, derived from its events.

The web page in play draws the live snapshot itself (static/attacke.js); this module serves the
game's own page, its contests in detail and the CSV of contests. Every number comes from the
game's own views (companion.games.attacke.views): nothing is counted here.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from companion.games.attacke.rules import Colour, Game
from companion.games.attacke.views import chips_json, contest_json

from .sheets import safe_cell

COLOURS = [c.value for c in Colour]
INITIALS = {c: c[0].upper() for c in COLOURS}  # red R, yellow Y, green G, blue B, purple P


def contests(game: Game) -> list[dict[str, Any]]:
    """Every contest won so far, oldest first, as the game's views give it, with its result in
    words: the chip the winner took (or why none) and the chips given back."""
    names = game.players
    out = []
    for c in game.contests:
        item = contest_json(c)
        item["number"] = c.index + 1
        item["result"] = result_words(item, names)
        out.append(item)
    return out


def result_words(c: dict[str, Any], names: tuple[str, ...] | list[str]) -> str:
    """"Ben took the red chip; Cy gave back blue." (a contest as contest_json has it)"""
    winner = names[c["winner"]]
    if c["chip_won"]:
        words = f"{winner} took the {c['colour']} chip"
    else:
        words = f"{winner} won no chip (already held, or none left)"
    back = [f"{names[r['seat']]} gave back {r['colour']}" for r in c["chips_returned"]]
    return "; ".join([words, *back])


def summary(game: Game) -> dict[str, Any]:
    """The game page: players, chips by colour, contests, the contest in play, winners."""
    return {
        "players": list(game.players),
        "chips": chips_json(game),
        "chips_to_win": game.setup.variant.chips_to_win,
        "contests": contests(game),
        "in_play": None if game.game_over else {
            "number": game.contest.index + 1,
            "colour": game.contest.colour.value if game.contest.colour else None,
            "totals": game.contest.totals,
        },
        "game_over": game.game_over,
        "winners": game.winners(),
        "variant": game.setup.variant,
    }


def contests_csv(game: Game) -> str:
    """Contests x players: each player's total and whether he passed or won, the chip won and
    the chips given back; then the chips each player holds and the winner(s)."""
    names = list(game.players)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    header = ["contest", "colour", "opener"]
    for name in names:
        header += [safe_cell(name), safe_cell(f"{name} result")]
    header += ["winner", "chip won", "chips given back"]
    writer.writerow(header)
    for c in contests(game):
        line: list[Any] = [c["number"], c["colour"], safe_cell(names[c["opener"]])]
        for seat, total in enumerate(c["totals"]):
            line += [total, "won" if seat == c["winner"] else "passed"]
        back = ", ".join(f"{names[r['seat']]} {r['colour']}" for r in c["chips_returned"])
        line += [safe_cell(names[c["winner"]]), c["colour"] if c["chip_won"] else "",
                 safe_cell(back)]
        writer.writerow(line)
    chips = chips_json(game)
    held: list[Any] = ["chips", "", ""]
    for seat in range(len(names)):
        held += [len(chips[seat]), " ".join(chips[seat])]
    writer.writerow(held)
    writer.writerow(["winner", safe_cell(", ".join(names[w] for w in game.winners()))])
    return out.getvalue()
