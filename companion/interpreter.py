"""From what the camera saw to game events: vision proposes, the tracker disposes.

The table watcher reports cards that appeared or were removed, each with a reading (its best
guess and honest candidate probabilities) and the zone it lies in. This module narrows each
reading with what the game knows (scoring cards still in the deck, number cards not yet played,
whose turn it is), turns what is certain into game events, and asks a person about the rest.
Nothing is scored on a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from .record import PlayCorrected, ScoringCorrected
from .rules import CardPlayed, Colour, Game, RuleError, ScoringCard, ScoringRevealed
from .store import now_iso

# A read is taken when its best legal candidate has at least this probability (given that the
# card is legal), is this many times likelier than the next legal one, and the reader itself gave
# it at least MIN_RAW; anything less goes to a person.
MIN_PROBABILITY = 0.5
MIN_ODDS = 4.0
MIN_RAW = 0.25
# A read that gives a card already lying on the table (revealed, or played by that seat this
# round) at least this probability is not narrowed to a new card: it may be that card again.
MAY_BE_ON_TABLE = 0.2
# Scoring cards of one trick arrive within a moment (a zero, then the card it covers); they are
# applied together, zeros first, once none arrived for this long.
SCORING_SETTLE_S = 1.0
# A card laid before its turn waits this long for the cards before it, then a person is asked.
TURN_GRACE_S = 3.0


class Host(Protocol):
    """What the interpreter needs from the referee."""

    @property
    def game(self) -> Game | None: ...
    def apply_event(self, event: Any) -> Any: ...
    def ask(self, message: str, choices: list[tuple[str, str, Callable[[], None]]],
            moot: Callable[[], bool] | None = None) -> None: ...


@dataclass
class _Pending:
    card: Any  # ScoringCard or int
    t: float
    seat: int | None = None
    asked: bool = False  # a person was asked about it (or chose it): do not ask again
    track: int = -1  # the watcher's track (physical card) it was seen as


@dataclass
class _Known:
    """What a physical card on the table stands for in the game."""

    round: int
    card: Any  # ScoringCard or int
    seat: int | None = None  # the seat that played it (number cards)


def _scoring(reading: Any) -> ScoringCard:
    return ScoringCard(reading.value, Colour(reading.colour) if reading.colour else None)


def _legal_scoring(game: Game, cand: Any) -> ScoringCard | None:
    if cand.kind != "scoring":
        return None
    card = _scoring(cand)
    return card if card in game.remaining_scoring() else None


def _legal_number(game: Game, cand: Any) -> int | None:
    if cand.kind != "number":
        return None
    return cand.value if cand.value in game.playable_cards() else None


def _sure(ranked: list[tuple[Any, float]]) -> bool:
    (_, p1), p2 = ranked[0], (ranked[1][1] if len(ranked) > 1 else 0.0)
    return p1 >= MIN_PROBABILITY and p1 >= MIN_ODDS * p2


def narrow(reading: Any, legal: Callable[[Any], Any]) -> tuple[Any | None, list[Any]]:
    """(the certain card or None, the legal candidates best first) for one reading.

    The probabilities are conditioned on the card being legal: the mass of the candidates the
    game rules out is removed (the rest of the mass, outside the top candidates, is assumed
    legal, which keeps the estimate conservative). A card is certain only where its conditioned
    probability also reaches the reader's own line: what the game rules out can lift an unsure
    read over it, nothing lowers it."""
    ranked = [(card, p) for cand, p in reading.candidates if (card := legal(cand)) is not None]
    if not ranked:
        return None, []
    ruled_out = sum(p for cand, p in reading.candidates if legal(cand) is None)
    legal_mass = max(1.0 - ruled_out, 1e-9)
    conditioned = [(card, p / legal_mass) for card, p in ranked]
    sure = (_sure(conditioned) and ranked[0][1] >= MIN_RAW
            and conditioned[0][1] >= reading.line)
    return (ranked[0][0] if sure else None), [card for card, _ in ranked]


def sure_card(reading: Any) -> Any | None:
    """The reading's card if it is certain without any help from the game."""
    ranked = list(reading.candidates)
    return ranked[0][0] if ranked and reading.kind != "unknown" and _sure(ranked) else None


class TableInterpreter:
    def __init__(self, host: Host) -> None:
        self.host = host
        self.scoring: list[_Pending] = []
        self.plays: dict[int, _Pending] = {}
        self.now = 0.0  # frame time of the latest sighting
        # Cards of the game the camera has seen lying on the table, per round: after a restart
        # the cards already there appear again, and an unsure read may be one of them.
        self._seen: set[Any] = set()
        self._seen_round = -1
        self._known: dict[int, _Known] = {}  # watcher track -> the reveal or play it stands for
        # seats whose card of the trick in play was taken away before the trick had its value
        # card, per (round, trick); once all are gone the camera missed that card: a person
        # says which it was (`_value_asked`), and no later reveal is given to that trick
        self._cleared: dict[tuple[int, int], set[int]] = {}
        self._value_asked: set[tuple[int, int]] = set()

    # -- what the camera saw -------------------------------------------------------------------

    def on_changes(self, changes: Iterable[Any], t: float) -> list[Any]:
        """Handle the watcher's changes at frame time `t`; return the tricks that were scored."""
        self.now = t
        game = self.host.game
        if game is None or game.game_over:
            return []
        changes = list(changes)
        # a card read again comes as its old reading removed and the new one appeared
        read_again = {c.observation.track for c in changes if c.kind == "appeared"}
        for change in changes:
            obs = change.observation
            if change.kind == "removed":
                known = None
                if obs.track not in read_again:
                    known = self._known.pop(obs.track, None)  # that card is gone from the table
                self._removed(game, obs, known)
            elif obs.track >= 0 and obs.track in self._known:
                self._read_again(game, obs)
            else:
                self._appeared(game, obs, t)
        return self.settle(t)

    def _read_again(self, game: Game, obs: Any) -> None:
        """A physical card that already stands for a reveal or a play, now read as another
        card: the same card misread once or the other time. Never a new reveal or play: a
        person says which (the new reading is a correction event). A card of an earlier round
        (the row being cleared) or an unsure glimpse changes nothing."""
        known = self._known[obs.track]
        now = sure_card(obs.reading)
        if known.round != game.round_index or now is None or now.kind == "unknown":
            return
        after: Any = _scoring(now) if now.kind == "scoring" else now.value
        if after == known.card or (now.kind == "scoring") != (known.seat is None):
            return
        if known.seat is None:
            if known.card not in game.revealed:
                return
            fix: Any = ScoringCorrected(game.round_index, game.revealed.index(known.card),
                                        after, now_iso(), "the camera read the card again")
            where = "in the scoring row"
        else:
            at = self._play_position(game, known.seat, known.card)
            if at is None:
                return
            fix = PlayCorrected(game.round_index, at, known.seat, after, now_iso(),
                                "the camera read the card again")
            where = f"in front of {self._name(game, known.seat)}"

        def take_new() -> None:
            if self._apply(fix) is not None:
                known.card = after

        self.host.ask(
            f"The card {where} read as {known.card} now looks like {after}. Which is it?",
            [(f"keep:{known.card}", str(known.card), lambda: None),
             (f"fix:{after}", str(after), take_new)],
            moot=lambda r=game.round_index: self._round_over(r))

    @staticmethod
    def _play_position(game: Game, seat: int, card: int) -> int | None:
        """The trick (0-based, this round) in which `seat` played `card`, if it did."""
        for trick in game.tricks_this_round:
            if any(p.seat == seat and p.card == card for p in trick.plays):
                return trick.index
        if any(p.seat == seat and p.card == card for p in game.trick_plays):
            return game.trick_index
        return None

    @staticmethod
    def _played_this_round(game: Game) -> dict[int, int]:
        """Number card -> the seat that played it, this round (derived from the game, so a
        restarted companion knows the cards already lying on the table)."""
        plays = [p for trick in game.tricks_this_round for p in trick.plays]
        return {p.card: p.seat for p in (*plays, *game.trick_plays)}

    def _appeared(self, game: Game, obs: Any, t: float) -> None:
        zone, reading = obs.zone, obs.reading
        kind = reading.kind
        if zone == "scoring":
            self._scoring_seen(game, reading, t, obs.track)
        elif isinstance(zone, int) and kind in ("number", "unknown"):
            self._number_seen(game, zone, reading, t, obs.track)
        elif kind == "number":
            self._ask_whose(game, reading, t, zone, obs.track)
        elif kind == "scoring" and isinstance(zone, int):
            self.host.ask(
                f"A scoring card ({reading.value}) lies in {self._name(game, zone)}'s place: "
                "move it to the scoring row.", [("ignore", "OK", lambda: None)])

    def _scoring_seen(self, game: Game, reading: Any, t: float, track: int) -> None:
        seen = sure_card(reading)
        if seen is not None and seen.kind == "scoring":
            card = _scoring(seen)
            if card in game.revealed or any(p.card == card for p in self.scoring):
                self._seen_now(game).add(("scoring", card))
                if card in game.revealed:
                    self._known[track] = _Known(game.round_index, card)
                return  # the same card seen again (moved, or uncovered): nothing new
        card, options = narrow(reading, lambda c: _legal_scoring(game, c))
        # narrowing rules out the cards already revealed, but those lie in the row: an unsure
        # read that may well be one the camera has not seen since a restart is no new reveal
        unseen = {c for c in game.revealed if ("scoring", c) not in self._seen_now(game)}
        on_table = sum(p for c, p in reading.candidates
                       if c.kind == "scoring" and _scoring(c) in unseen)
        if card is not None and on_table < MAY_BE_ON_TABLE:
            self.scoring.append(_Pending(card, t, track=track))
            return
        if game.trick_value is not None and on_table >= MAY_BE_ON_TABLE:
            return  # no reveal is due: a card of the row seen again
        if reading.kind == "number":
            self.host.ask(f"A number card ({reading.value}) lies in the scoring row.",
                          [("ignore", "OK", lambda: None)])
            return
        trick = (game.round_index, game.trick_index)
        self.host.ask("Which scoring card was just revealed?", [
            *((f"scoring:{c}", str(c), self._add_scoring(c, t, track)) for c in options[:4]),
            ("ignore", "Not a new scoring card", lambda: None),
        ], moot=lambda: self._trick_has_value(trick))

    def _number_seen(self, game: Game, seat: int, reading: Any, t: float, track: int) -> None:
        seen = sure_card(reading)
        seen_value = seen.value if seen is not None and seen.kind == "number" else None
        played_by = self._played_this_round(game)
        if seen_value is not None and played_by.get(seen_value) == seat:
            self._seen_now(game).add(("number", seen_value))
            self._known[track] = _Known(game.round_index, seen_value, seat)
            return  # already played by this seat: the same card seen again
        pending = self.plays.get(seat)
        if pending is not None and pending.card == seen_value:
            return
        card, options = narrow(reading, lambda c: _legal_number(game, c))
        lying = next((p.card for p in game.trick_plays if p.seat == seat), None)
        if lying is not None and ("number", lying) not in self._seen_now(game) and sum(
                p for c, p in reading.candidates
                if c.kind == "number" and c.value == lying) >= MAY_BE_ON_TABLE:
            card = None  # may well be this seat's card of this trick, not seen since: ask
        name = self._name(game, seat)
        played = next((p.card for p in game.trick_plays if p.seat == seat), None)
        if card is not None and played is not None and self._held(game):
            # the trick in play was cleared while a person says its value card: this is the
            # seat's card of the next trick, and it waits for that answer without a question
            self.plays[seat] = _Pending(card, t, seat, asked=True, track=track)
            return
        if card is not None and played is not None:
            fix = PlayCorrected(game.round_index, game.trick_index, seat, card, now_iso(),
                                "a second card seen in this seat's place")
            self.host.ask(f"{name} already played {played} in this trick; now {card} is there "
                          "too. Which counts?", [
                (f"card:{played}", str(played), lambda: None),
                (f"card:{card}", str(card), self._correcting(fix)),
            ])
            return
        if card is not None and pending is None:
            self.plays[seat] = _Pending(card, t, seat, track=track)
            return
        if card is not None:  # a second card in one seat's place during one trick
            self.host.ask(f"{name} has two cards out: {pending.card} and {card}. Which counts?", [
                (f"card:{pending.card}", str(pending.card), lambda: None),
                (f"card:{card}", str(card), self._set_play(seat, card, t, track)),
            ])
            return
        if seen_value in played_by:
            self.host.ask(f"Card {seen_value} in front of {name} was already played this "
                          "round — a misread?", [("ignore", "Ignore it", lambda: None)])
            return
        trick = (game.round_index, game.trick_index)
        self.host.ask(f"Which card did {name} play?", [
            *((f"card:{c}", str(c), self._set_play(seat, c, t, track)) for c in options[:4]),
            ("ignore", "Not a card / ignore", lambda: None),
        ], moot=lambda: self._seat_has_played(trick, seat))

    def _ask_whose(self, game: Game, reading: Any, t: float, zone: Any, track: int) -> None:
        card, _ = narrow(reading, lambda c: _legal_number(game, c))
        if card is None:
            return  # an unplayable number card outside every place: not part of the game
        seats = game.to_play()
        self.host.ask(f"Card {card} lies outside every seat's place: whose is it?", [
            *((f"seat:{s}", self._name(game, s), self._set_play(s, card, t, track))
              for s in seats),
            ("ignore", "Ignore it", lambda: None),
        ])

    def _removed(self, game: Game, obs: Any, known: _Known | None) -> None:
        seat, reading = obs.zone, obs.reading
        pending = self.plays.get(seat) if isinstance(seat, int) else None
        if pending is not None and reading.kind == "number" and pending.card == reading.value:
            del self.plays[seat]  # taken back before it counted
        if (known is not None and known.seat is not None and known.round == game.round_index
                and game.trick_value is None
                and any(p.seat == known.seat and p.card == known.card for p in game.trick_plays)):
            self._play_taken_away(game, known.seat)

    def _play_taken_away(self, game: Game, seat: int) -> None:
        """A card of the trick in play left the table before the trick had its value card.
        Once every card of a complete trick is gone, the trick was cleared: its value card was
        revealed and the camera missed it. Nothing is scored on a guess: a person says which."""
        trick = (game.round_index, game.trick_index)
        gone = self._cleared.setdefault(trick, set())
        gone.add(seat)
        if (game.to_play() or trick in self._value_asked
                or not {p.seat for p in game.trick_plays} <= gone
                or any(not p.card.is_zero for p in self.scoring)):  # its value card is due
            return
        self._value_asked.add(trick)
        options = [c for c in game.remaining_scoring() if not c.is_zero]

        def valued() -> bool:
            now = self._moved_on(trick)
            return now is None or now.trick_value is not None

        self.host.ask(
            "This trick's cards were taken away before the camera saw its scoring card. "
            "Which was it?",
            [(f"scoring:{c}", str(c), self._reveal(c)) for c in options], moot=valued)

    def _held(self, game: Game) -> bool:
        """The trick in play was cleared without its value card: reveals seen since wait."""
        return ((game.round_index, game.trick_index) in self._value_asked
                and game.trick_value is None)

    # -- turning sightings into events -----------------------------------------------------------

    def settle(self, t: float | None = None) -> list[Any]:
        """Apply what is certain and in order; ask about what waits too long."""
        t = self.now if t is None else t
        game = self.host.game
        tricks: list[Any] = []
        if game is None:
            return tricks
        if self.scoring and t - self.scoring[-1].t >= SCORING_SETTLE_S and not self._held(game):
            batch = sorted(self.scoring, key=lambda p: not p.card.is_zero)  # zeros first
            self.scoring = []
            # a card a person already named (the camera saw it late) is no new reveal
            batch = [p for p in batch if p.card not in game.revealed]
            for pending in batch:
                tricks += self._apply_pending(ScoringRevealed(pending.card), pending)
        progressed = True
        while progressed and not game.game_over:
            progressed = False
            for seat in game.to_play():
                pending = self.plays.pop(seat, None)
                if pending is not None:
                    tricks += self._apply_pending(CardPlayed(seat, pending.card), pending)
                    progressed = True
                    break
        self._ask_about_waiting(game, t)
        return tricks

    def _seen_now(self, game: Game) -> set[Any]:
        """The cards seen on the table this round ((kind, card) pairs)."""
        if self._seen_round != game.round_index:
            self._seen, self._seen_round = set(), game.round_index
        return self._seen

    def _apply_pending(self, event: ScoringRevealed | CardPlayed, pending: _Pending
                       ) -> list[Any]:
        """Apply a sighting's event; its physical card then stands for it."""
        game = self.host.game
        if game is None:
            return []
        kind = "scoring" if isinstance(event, ScoringRevealed) else "number"
        seen, known = self._seen_now(game), _Known(game.round_index, event.card, pending.seat)
        tricks = self._apply(event)
        if tricks is None:
            return []
        seen.add((kind, event.card))
        if pending.track >= 0:
            self._known[pending.track] = known
        return tricks

    def _apply(self, event: Any) -> list[Any] | None:
        """Apply an event through the referee: the trick it completed (a list of at most one),
        or None when the rules refuse it (a person is told)."""
        try:
            trick = self.host.apply_event(event)
        except RuleError as err:
            self.host.ask(f"The camera saw something the rules refuse: {err.detail}",
                          [("ignore", "OK", lambda: None)])
            return None
        return [trick] if trick is not None else []

    def _ask_about_waiting(self, game: Game, t: float) -> None:
        for seat, pending in list(self.plays.items()):
            if pending.asked or t - pending.t < TURN_GRACE_S:
                continue
            pending.asked = True
            turn = ", ".join(self._name(game, s) for s in game.to_play()) or "nobody"
            self.host.ask(
                f"{self._name(game, seat)} played {pending.card} out of turn "
                f"(waiting for {turn}).",
                [("wait", f"Keep it, wait for {turn}", lambda: None),
                 ("ignore", "Ignore the card", self._drop_play(seat))],
                moot=lambda seat=seat, pending=pending: self.plays.get(seat) is not pending)

    # -- choices ------------------------------------------------------------------------------

    def _add_scoring(self, card: ScoringCard, t: float, track: int) -> Callable[[], None]:
        def choose() -> None:
            self.scoring.append(_Pending(card, t, track=track))
        return choose

    def _reveal(self, card: ScoringCard) -> Callable[[], None]:
        def choose() -> None:
            self._apply(ScoringRevealed(card))
        return choose

    def _set_play(self, seat: int, card: int, t: float, track: int) -> Callable[[], None]:
        def choose() -> None:
            self.plays[seat] = _Pending(card, t, seat, asked=True, track=track)
        return choose

    def _correcting(self, fix: PlayCorrected) -> Callable[[], None]:
        def choose() -> None:
            self._apply(fix)
        return choose

    def _drop_play(self, seat: int) -> Callable[[], None]:
        def choose() -> None:
            self.plays.pop(seat, None)
        return choose

    # -- when a question answered itself --------------------------------------------------------

    def _round_over(self, round_index: int) -> bool:
        game = self.host.game
        return game is None or game.game_over or game.round_index != round_index

    def _moved_on(self, trick: tuple[int, int]) -> Game | None:
        """The game in play if it is still in that (round, trick), else None."""
        game = self.host.game  # read now: a correction replays the game into a new object
        if game is None or game.game_over or (game.round_index, game.trick_index) != trick:
            return None
        return game

    def _trick_has_value(self, trick: tuple[int, int]) -> bool:
        """The trick asked about has its value card now (or is over): no scoring card is
        missing from it any more."""
        game = self._moved_on(trick)
        return (game is None or game.trick_value is not None
                or any(not p.card.is_zero for p in self.scoring))

    def _seat_has_played(self, trick: tuple[int, int], seat: int) -> bool:
        """The seat asked about has a card in that trick now (seen clearly, or chosen), or the
        trick is over."""
        game = self._moved_on(trick)
        return game is None or seat in self.plays or any(p.seat == seat for p in game.trick_plays)

    @staticmethod
    def _name(game: Game, seat: int) -> str:
        return game.setup.players[seat]
