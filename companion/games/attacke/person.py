"""A person at an Attacke table who answers every question from the true record of the game.

What a player who watched would say: which card a seat laid (of the cards that seat really laid
in that contest and the table does not count yet), or whether the seat at turn really passed.
It works from what a phone gets (the conflict, its photo and the state of /api/view) and the
true game, as Tightrope's person does; it remembers the cards it named for a play not yet
counted, since a person who named one of two unsure cards of a play names the other card for
the second, and never one the question says was laid with it (the camera knows those): where
the photo shows one of those and the play holds no other, it is that card boxed again, no
card; a photo of a card of no play of his in the contest (the last contest's, being cleared)
is none either. Where the photo shows one of the cards left, he names that one: the back he
sees, not the play's other card the reader ranked above it.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from .rules import CardsPlayed, Contest, Game


def _contest(true: Game, index: int) -> Contest | None:
    """Contest `index` of the true game, ended or in play."""
    if index < len(true.contests):
        return true.contests[index]
    return true.contest if index == true.contest.index else None


class Person:
    def __init__(self, true: Game) -> None:
        self.true = true
        # (contest, seat) -> (the seat's cards the table counted then, the cards named since)
        self._named: dict[tuple[int, int], tuple[int, Counter[str]]] = {}
        self._plays = _plays(true)

    def answer(self, conflict: dict[str, Any], state: dict[str, Any],
               photo: str | None = None) -> str:
        """The choice id a person who saw the table picks for `conflict`; `photo`: the label
        of the card its photo shows (evaluate_table.Photos), None where unknown."""
        kind = str(conflict["key"]).split(":")[0]
        ids = [c["id"] for c in conflict["choices"]]
        index, seat = int(conflict.get("round", 0)), conflict.get("seat")
        contest = _contest(self.true, index)
        if contest is None or seat is None:
            return ids[-1]
        counted = _counted(state, index, seat)
        now = _play_at(self._plays.get((index, seat), []), sum(counted.values()))
        if kind == "pass":  # he laid cards not counted yet, or passed, or has not acted
            if now and "more" in ids:
                return "more"
            return "passed" if seat in contest.passed else "wait"
        if kind == "backs":  # the seat's face-down cards of the contest not counted yet
            laid = contest.concealed[seat] - _counted(state, index, seat)["back"]
            return str(laid) if str(laid) in ids else ids[-1]
        if kind == "more":  # he sees what the camera counts of the laying (the message says)
            laid = _through(self._plays.get((index, seat), []), sum(counted.values()))
            missing = laid - counted - _laying(str(conflict.get("message", "")))
            return next((i for i in ids if missing[i] > 0), "none")
        if kind != "card":
            return ids[-1]
        done, named = self._named.get((index, seat), (-1, Counter()))
        if done != sum(counted.values()):  # the play it named cards of was counted since
            named = Counter()
        # he saw the card: one of the play the table is at (the first not counted yet), not
        # one laid with it that he named or the camera knows (the question says which)
        known = named | _laid_with(str(conflict.get("message", "")))
        left = Counter(str(c) for c in contest.played[seat])
        left["back"] = contest.concealed[seat]
        left = left - counted - known
        now = now - known  # not in place: `now` is the true play, kept
        if photo and (now | left | known)[photo] == 0 and "none" in ids:
            return "none"  # a card of no play of his here (one being cleared, say)
        looked = [photo] if photo in ids else []  # the card he sees first
        wanted = next((i for i in looked + ids if now[i] > 0), None)
        if wanted is None and photo is not None and known[photo] > 0 and "none" in ids:
            return "none"  # the card laid with it, boxed again: no card of its own
        wanted = wanted or next((i for i in looked + ids if left[i] > 0), None)
        if wanted is None:
            return "none" if "none" in ids else ids[-1]
        named[wanted] += 1
        self._named[(index, seat)] = (sum(counted.values()), named)
        return wanted


def _laying(message: str) -> Counter[str]:
    """The cards the camera counts of the laying, from the question's words ("The camera counts
    green 4, face down in this laying.")."""
    found = re.search(r"The camera counts (.*) in this laying", message)
    if found is None or found.group(1) == "nothing":
        return Counter()
    return Counter("back" if label == "face down" else label.replace(" ", "-")
                   for label in found.group(1).split(", "))


def _laid_with(message: str) -> Counter[str]:
    """The cards the camera knows of the laying beside the one asked about, from the
    question's words ("Laid with it: purple 2, 3 face down.")."""
    found = re.search(r"Laid with it: (.*)\.", message)
    out: Counter[str] = Counter()
    for label in found.group(1).split(", ") if found else ():
        many = re.fullmatch(r"(\d+) face down", label)
        if many:
            out["back"] += int(many.group(1))
        else:
            out["back" if label == "face down" else label.replace(" ", "-")] += 1
    return out


def _counted(state: dict[str, Any], index: int, seat: int) -> Counter[str]:
    """The seat's cards of contest `index` the table counts now (face-down ones as backs)."""
    shown = state.get("contest") or {}
    if shown.get("index") != index or seat >= len(shown.get("cards", [])):
        return Counter()
    counted = Counter(shown["cards"][seat])
    counted["back"] = int(shown.get("concealed", [0] * (seat + 1))[seat])
    return counted


def _plays(true: Game) -> dict[tuple[int, int], list[Counter[str]]]:
    """(contest, seat) -> the seat's plays in that contest, in order, as cards by name."""
    game = Game(true.setup)
    out: dict[tuple[int, int], list[Counter[str]]] = {}
    for event in true.log[1:]:
        if isinstance(event, CardsPlayed):
            cards = Counter(str(c) for c in event.cards)
            cards["back"] = event.concealed
            out.setdefault((game.contest.index, event.seat), []).append(cards)
        game.apply(event)
    return out


def _through(plays: list[Counter[str]], counted: int) -> Counter[str]:
    """The cards of the plays up to the first not wholly among the `counted` cards, that one
    included: what the seat has laid by now (the camera may have counted a card of that play
    and missed another)."""
    out: Counter[str] = Counter()
    for play in plays:
        out += play
        if sum(out.values()) > counted:
            break
    return out


def _play_at(plays: list[Counter[str]], counted: int) -> Counter[str]:
    """The first play not wholly among the `counted` cards."""
    for play in plays:
        counted -= sum(play.values())
        if counted < 0:
            return play
    return Counter()
