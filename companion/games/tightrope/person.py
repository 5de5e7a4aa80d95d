"""A person at the table who answers every question from the true record of the game.

What a player who watched would say: the card a seat really played in that trick, the scoring
card really revealed, "nobody's" for a card that is no card of the game. It works from what a
phone gets (the conflict and the state of /api/view) and the game's true record, so the same
person answers in-process (`eval --footage`, the end-to-end tests) and through the JSON API
(tests outside the project). An end-to-end run then reports how many questions the table had
to answer.
"""

from __future__ import annotations

from typing import Any

from .interpreter import choice_id
from .rules import Game, Play, ScoringCard


def _trick(true: Game, r: int, k: int) -> tuple[tuple[ScoringCard, ...], tuple[Play, ...]]:
    """(scoring cards, plays) of trick k of round r in the true game (in play or done)."""
    if r < len(true.rounds):
        t = true.rounds[r].tricks[k]
        return t.scoring, t.plays
    if k < true.trick_index:
        t = true.tricks_this_round[k]
        return t.scoring, t.plays
    return true.trick_scoring, true.trick_plays


def answer(conflict: dict[str, Any], state: dict[str, Any], true: Game) -> str:
    """The choice id a person who saw the table picks for `conflict` (as in the view's JSON)."""
    key: str = conflict["key"]
    kind = key.split(":")[0]
    ids = [c["id"] for c in conflict["choices"]]
    r, k, seat = conflict.get("round", 0), conflict.get("trick", 0), conflict.get("seat")
    try:
        scoring, plays = _trick(true, r, k)
    except IndexError:
        scoring, plays = (), ()
    wanted: str | None = None
    if kind in ("value",) or (kind == "card" and conflict.get("any_card") == "scoring"):
        done = len(state.get("trick_scoring", [])) if (state.get("round"), state.get("trick")) \
            == (r, k) else 0
        if done < len(scoring):
            wanted = choice_id(scoring[done])
    elif kind in ("play", "card") and seat is not None:
        wanted = next((choice_id(p.card) for p in plays if p.seat == seat), None)
    elif kind == "again" and seat is None:
        wanted = _reveal_at(true, r, k, conflict)
    elif kind == "again":
        wanted = next((choice_id(p.card) for p in plays if p.seat == seat), None)
    elif kind in ("two", "where"):  # notices, confirmed with OK
        wanted = "ok"
    if wanted is not None and wanted in ids:
        return wanted
    if conflict.get("any_card") and wanted is not None:
        return wanted  # not listed, but any legal card may be given
    return "none" if "none" in ids else ids[-1]


def _reveal_at(true: Game, r: int, k: int, conflict: dict[str, Any]) -> str | None:
    """Of the two scoring cards a re-read question offers, the one trick k really had."""
    scoring, _ = _trick(true, r, k)
    offered = [c["id"] for c in conflict["choices"]]
    for card in scoring:
        if choice_id(card) in offered:
            return choice_id(card)
    return None
