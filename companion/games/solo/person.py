"""A person at a solo table who answers every question from the true record of the game.

What the player would say: how many cards he drew before a move (he drew them), which card
stays on a spot, and which card the camera saw, of the move the table is at (the first move of
the record it has not counted yet): one of that move's cards, the reader's ranking picking among
them, never one he named already for this move. A card in the row the reader ranks face down
first is a card face down. It works from what a phone gets (the conflict and the state of
/api/view, whose "events" says how far the table's record goes) and the true game, as
Attacke's person does.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .rules import CardDrawn, CardsRedrawn, Game, GameEvent, JackPlayed, MissionPlayed


class Person:
    def __init__(self, true: Game) -> None:
        self.true = true
        self.moves = [(i, e) for i, e in enumerate(true.log) if i and not isinstance(e, CardDrawn)]
        self._named: tuple[int, Counter[str]] = (-1, Counter())  # (move, cards named for it)

    def answer(self, conflict: dict[str, Any], state: dict[str, Any]) -> str:
        """The choice id a person who saw the table picks for `conflict`."""
        kind, _, rest = str(conflict["key"]).partition(":")
        ids = [c["id"] for c in conflict["choices"]]
        if kind == "draws":
            return self._draws(int(rest), ids)
        if kind == "laid":
            missions = self.true.missions
            laid = missions[int(rest)].laid if int(rest) < len(missions) else None
            return str(laid) if str(laid) in ids else "none"
        if kind != "card":
            return ids[-1]
        return self._card(int(state.get("events", 0)), ids)

    def _draws(self, move: int, ids: list[str]) -> str:
        """The draws the record holds before its move `move`."""
        if move >= len(self.moves):
            return ids[0]
        at = self.moves[move][0]
        before = self.moves[move - 1][0] if move else 0
        drawn = str(at - before - 1)
        return drawn if drawn in ids else ids[0]

    def _card(self, events: int, ids: list[str]) -> str:
        """One card of the move the table is at (the first the table's record lacks)."""
        move = next((k for k, (i, _) in enumerate(self.moves) if i >= events), None)
        if move is None:
            return "none" if "none" in ids else ids[-1]
        done, named = self._named
        if done != move:
            named = Counter()
        if ids and ids[0] == "back":  # the reader takes it for a card face down, and it is
            return "back"
        left = _cards(self.moves[move][1]) - named
        wanted = next((i for i in ids if left[i] > 0), None)  # the reader's ranking first
        if wanted is None:
            return "none" if "none" in ids else ids[-1]
        named[wanted] += 1
        self._named = (move, named)
        return wanted


def _cards(event: GameEvent) -> Counter[str]:
    """Every card a move shows: the cards laid, and the informants turned."""
    match event:
        case CardsRedrawn():
            return Counter(str(c) for c in event.cards)
        case JackPlayed():
            return Counter((str(event.jack), str(event.revealed)))
        case MissionPlayed():
            return Counter(str(c) for c in (*event.cards, *event.informants))
    return Counter()
