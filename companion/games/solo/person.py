"""A person at a solo table who answers every question from the true record of the game.

What the player would say: how many cards he drew before a move (he drew them), which card
stays on a spot, an informant or a card of a mission the camera missed, a redraw it missed
(more informants in the row than it counted), and which card the camera saw: of the move the
question is about (the first of the record the table has not counted yet, of the kind the
question names), one of the cards it laid from the hand or of the informants it turned: the
one the question's photo shows, else first those lying where the question says, the reader's
ranking picking among them, never one he named already for this move. A card in the row the
reader ranks face down first is a card face down. It works from what a phone gets (the
conflict, its photo and the state of /api/view, whose "events" says how far the table's record
goes; a redraw he named late is a move of its own there) and the true game, as Attacke's
person does.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from .rules import CardDrawn, CardsRedrawn, Game, GameEvent, JackPlayed, MissionPlayed


class Person:
    def __init__(self, true: Game) -> None:
        self.true = true
        self.moves = [(i, e) for i, e in enumerate(true.log) if i and not isinstance(e, CardDrawn)]
        # (move, laid or turned) -> the cards named for it (a card laid and an informant may
        # have the same face: they come from two decks)
        self._named: dict[tuple[int, bool], Counter[str]] = {}
        # moves the table's record holds that the true one lacks: each redraw named late goes
        # in as a move of its own, so the table's count of events and moves runs ahead by one
        self._ahead = 0

    def answer(self, conflict: dict[str, Any], state: dict[str, Any],
               photo: str | None = None) -> str:
        """The choice id a person who saw the table picks for `conflict`; `photo`: the label
        of the card its photo shows (evaluate_table.Photos), None where unknown."""
        kind, _, rest = str(conflict["key"]).partition(":")
        ids = [c["id"] for c in conflict["choices"]]
        events = int(state.get("events", 0)) - self._ahead
        if kind == "draws":
            return self._draws(int(rest) - self._ahead, ids)
        if kind == "laid":
            missions = self.true.missions
            laid = missions[int(rest)].laid if int(rest) < len(missions) else None
            return str(laid) if str(laid) in ids else "none"
        if kind == "missing":  # an informant of the mission the camera did not see
            missions = self.true.missions
            shown = missions[int(rest)].informants if int(rest) < len(missions) else ()
            return next((str(c) for c in shown if str(c) in ids), ids[-1])
        if kind == "short":  # a card of the mission the camera did not see, or that is all
            missions = self.true.missions
            cards = missions[int(rest)].cards if int(rest) < len(missions) else ()
            seen = re.search(r"it needs with (.*): did the camera", str(conflict["message"]))
            counted = Counter(seen.group(1).split(", ")) if seen else Counter()
            missed = Counter(str(c) for c in cards) - counted
            return next((i for i in ids if missed[i] > 0), ids[-1])  # (the last: "all")
        if kind == "redrew":  # a redraw before this mission the camera did not see, or none
            listed = re.search(r"since the last mission: (.*)\)\. Which", str(conflict["message"]))
            told: Counter[str] = Counter(listed.group(1).split(", ")) if listed else Counter()
            missed = self._redrawn_before(int(rest)) - told
            named = next((i for i in ids if missed[i] > 0), "none")
            self._ahead += named != "none"
            return named
        if kind == "jack":  # the lone jack's move: played (the informant it turned) or not
            jack = next((e for i, e in self.moves if i >= events
                         and isinstance(e, CardsRedrawn | JackPlayed)), None)
            revealed = str(jack.revealed) if isinstance(jack, JackPlayed) else "none"
            return revealed if revealed in ids else "none"
        if kind != "card":
            return ids[-1]
        message = str(conflict["message"])
        turned = "in the row" in message or "with the jack" in message
        place = re.search(r"\(card (\d+) ", message)  # where the card lies: he looks there
        move = self._move(events, message)
        if move is None:
            return "none" if "none" in ids else ids[-1]
        return self._card(move, ids, turned, int(place.group(1)) - 1 if place else None, photo)

    def _redrawn_before(self, mission: int) -> Counter[str]:
        """The cards redrawn between the mission before `mission` and it."""
        starts = [i for i, e in enumerate(self.true.log) if isinstance(e, MissionPlayed)]
        begin = starts[mission - 1] if 0 < mission <= len(starts) else 0
        end = starts[mission] if mission < len(starts) else len(self.true.log)
        return Counter(str(c) for e in self.true.log[begin:end] if isinstance(e, CardsRedrawn)
                       for c in e.cards)

    def _move(self, events: int, message: str) -> int | None:
        """The move the card asked about is part of: the first the table's record lacks of
        its kind (a mission to the spot the question names, a move in the player's zone, a
        jack, a mission's informants); the table may be a move or two ahead of its record while
        a question waits."""
        spot = re.search(r"on spot (\w+)", message)

        def fits(event: GameEvent) -> bool:
            if spot is not None:
                return isinstance(event, MissionPlayed) and event.spot.value == spot.group(1)
            if "player's zone" in message:
                return isinstance(event, CardsRedrawn | JackPlayed)
            if "with the jack" in message:
                return isinstance(event, JackPlayed)
            return isinstance(event, MissionPlayed)

        return next((k for k, (i, e) in enumerate(self.moves) if i >= events and fits(e)),
                    None)

    def _draws(self, move: int, ids: list[str]) -> str:
        """The draws the record holds before its move `move`."""
        if move >= len(self.moves):
            return ids[0]
        at = self.moves[move][0]
        before = self.moves[move - 1][0] if move else 0
        drawn = str(at - before - 1)
        return drawn if drawn in ids else ids[0]

    def _card(self, move: int, ids: list[str], turned: bool, place: int | None,
              photo: str | None = None) -> str:
        """One card of move `move`: an informant it turned, or a card laid from the hand; of
        them, the one the photo shows, else first those that may lie at `place` (the row's
        informants lie in the order the record lists them)."""
        named = self._named.setdefault((move, turned), Counter())
        if ids and ids[0] == "back":  # the reader takes it for a card face down, and it is
            return "back"
        near = _near(self.moves[move:], turned, place)
        if place is not None and not near and not turned:
            return "none" if "none" in ids else ids[-1]  # no card of the move lies there
        left = _cards(self.moves[move][1], turned) - named
        looked = [photo] if photo in ids else []  # the card he sees first
        wanted = next((i for i in looked if left[i] > 0), None) or \
            next((i for i in ids if i in near and left[i] > 0), None)
        if wanted is None:
            wanted = next((i for i in ids if left[i] > 0), None)  # the reader's ranking first
        if wanted is None:
            return "none" if "none" in ids else ids[-1]
        named[wanted] += 1
        return wanted


def _near(moves: Sequence[tuple[int, GameEvent]], turned: bool, place: int | None) -> set[str]:
    """The cards that may lie at `place` (he looks there): the card the move laid there, or,
    in the row, the informants the record lists there and beside it (the camera counts the
    cards it sees, and it may have lost one); a jack's is the card it turned."""
    if place is None or not moves:
        return set()
    event = moves[0][1]
    if isinstance(event, JackPlayed):
        return {str(event.revealed if turned else event.jack)}
    if turned:
        mission = next((e for _, e in moves if isinstance(e, MissionPlayed)), None)
        row = mission.informants if mission is not None else ()
        return {str(c) for c in row[max(0, place - 1):place + 2]}
    cards = event.cards if isinstance(event, CardsRedrawn | MissionPlayed) else ()
    return {str(cards[place])} if place < len(cards) else set()


def _cards(event: GameEvent, turned: bool) -> Counter[str]:
    """The cards a move laid from the hand, or the informants it turned."""
    match event:
        case CardsRedrawn():
            return Counter() if turned else Counter(str(c) for c in event.cards)
        case JackPlayed():
            return Counter((str(event.revealed if turned else event.jack),))
        case MissionPlayed():
            return Counter(str(c) for c in (event.informants if turned else event.cards))
    return Counter()
