"""From what the camera saw to solo Tightrope's events: vision proposes, the rules dispose.

A pure decider, as Attacke's (`companion.games.attacke.interpreter`): the watcher's changes go in
(`seen`), people's answers go in (`answer`), and `decide(game, t)` says what follows, as values:
one `Apply(event)` at a time, or `Ask(question)` and `Withdraw(key)`. Every fact about the table
lives once, in `cards` (one entry per physical card: the watcher's track).

The table (docs/games.md, "Solo at the table"): the player's zone (seat 0) where he lays cards
from his hand that are not a mission (a redraw's discards, a jack); the informants' row (the
zones file's scoring row), face down (`back`) until a jack or a mission turns them; the six
spots of the pyramid (places `1a` .. `3`), where a mission's cards are laid and where the card
that stays marks the spot won; the Rebels' deck (place `deck`, optional), a pile face down.
The hand is never seen. What becomes an event:

- **A mission** (S9): cards laid on a spot, then every informant turned face up in the row:
  `MissionPlayed(spot, cards, informants, laid)` once as many faces lie in the row as there are
  informants. A mission that falls short of its spot with the cards seen is asked about first
  (did the camera miss a card? a person names it, or says that is all), then applied; one that
  succeeds once the player has cleared all but one card from the spot (`laid`: that card), or
  all of them (`laid` none).
- **A jack** (S8): a lone jack laid in the player's zone and one informant turned face up.
- **A redraw** (S7): any other cards laid in the player's zone, once the laying settled. A lone
  jack taken away with no informant seen turned for twice `settle_s` is asked about: discarded
  (a redraw), or which informant it turned (the camera may have missed it).
- **Draws** (S6) are never seen. Before a move, the draws its cards need (the hand must hold
  them) are certain; where the hand could have taken more, a person says how many ("How many
  cards did Ana draw before this move?", OK confirming the least). The Rebels' deck taken away
  for good says it ran out: the draws that emptied it.

The cards of the solo table lie side by side, none over another: a card read unsure across two
cards is no card, and one seen anew where a counted card lies is that card (on a spot, whatever
it is read as, while its mission's cards lie there). A move's cards are listed as they lie,
left to right; the informants line by line along the row. An informant the camera missed
before the row was cleared is named by a person; so is a redraw it missed, once the row shows
more informants (face down when a mission is laid, or turned) than it counts.

Nothing is scored on a guess. A card read unsure, read as one the rules refuse (a Rebels' card
seen before, an informant that cannot be one), or part of a move the rules refused as a whole is
asked about, with every card the rules allow there, ranked by the reader, and OK confirming the
reader's own sure read where it is one of them. An answer names a card (`QH`, `back`) or says it
is no card of the game (`none`).

Undo: the cards of an event taken back are no card of the game any more, draws said are asked
again, and nothing is inferred until the table changes. Solo has no corrections of its own.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from vision.types import Change, Observation

from ..base import (
    AnswerError,
    Apply,
    Choice,
    Decision,
    Question,
    Withdraw,
    ask_anew,
)
from ..names import candidates, certain_name, probability, sure_name
from .cards import CARD_NAMES, JACK, OPPONENT_DECK, Card
from .rules import (
    MAX_HAND,
    CardDrawn,
    CardsRedrawn,
    Game,
    GameEvent,
    JackPlayed,
    MissionPlayed,
    Spot,
)
from .scoring import score

SETTLE_S = 2.5         # a laying is over after this long without a new card there
GONE_S = 1.0           # a card taken away stays away this long before it counts as gone
ACROSS = 0.5           # an unsure card this many card widths from another is no card
SEEN_AGAIN_S = 3.0     # a card counted, seen anew within this long where it lay
MAY_BE_SAME = 0.2      # a card found anew on a spot just cleared, read as one of its mission's
BACK = "back"          # a card face down: an informant not turned, the Rebels' deck
HAND = 0               # the player's zone: a seat's zone, the only one
ROW = "scoring"        # the informants' row: the zones file's scoring row
DECK = "deck"          # the Rebels' deck's place
ALL_LAID = "all"       # the answer: the camera saw every card of a mission that falls short
NO_REDRAW = "none"     # the answer: no redraw was missed (a face too many is no informant)
SPOTS = {s.value: s for s in Spot}
# The places of the solo table, as the zones file names them, and as people say them.
PLACES: tuple[tuple[str, str], ...] = (
    *((s.value, f"spot {s.value} (needs {s.need})") for s in Spot), (DECK, "the Rebels' deck"))
FACES: tuple[str, ...] = tuple(n for n in CARD_NAMES if n != BACK)


def _card(name: str) -> Card | None:
    try:
        return Card.parse(name)
    except ValueError:
        return None


def from_hand(game: Game, name: str, others: Iterable[str] = ()) -> bool:
    """May `name` be a card of the Rebels' deck laid from the hand now, beside `others` of the
    same move? Face up, and seen no more often than the deck holds it (S16)."""
    card = _card(name)
    if card is None:
        return False
    seen = Counter(game.rebels.seen)[card] + list(others).count(name)
    return seen < card.copies


def informant(game: Game, name: str, others: Iterable[str] = ()) -> bool:
    """May a card in the row be `name` now, beside the faces `others`? Face down, or an
    informant not turned yet that the rules allow (S1, S14, S16), once."""
    if name == BACK:
        return True
    card = _card(name)
    o = game.opponent
    if card is None or card not in OPPONENT_DECK or name in others:
        return False
    return card in o.deduced or (o.hidden > 0 and card in o.unseen())


# --- the table of physical cards ------------------------------------------------------------------

Status = Literal["waiting", "counted", "ignored"]
Zone = int | str | None
Face = tuple[tuple[float, float], str, int | None]  # an informant turned: where, name, track


@dataclass
class Seen:
    """One physical card the camera saw (the watcher's track)."""

    track: int
    zone: Zone                       # HAND, ROW, DECK, a spot's name, or None
    reading: Any
    t: float                         # when it arrived
    order: int                       # arrival order
    present: bool = True
    gone_t: float = 0.0              # when it left
    status: Status = "waiting"
    named: str | None = None         # what a person said it is
    refused: str = ""                # why the rules refused the move it was part of
    at: int = -1                     # counted: its event's place in the game's log
    x: float = 0.0                   # where in the picture: the row lists informants by it,
    y: float = 0.0                   # line by line
    size: float = 0.0                # the card's longer side in the picture
    width: float = 0.0               # and its shorter side


@dataclass
class Move:
    """A move the table shows, its cards all certain: the event, and the tracks it counts."""

    event: GameEvent
    tracks: tuple[int, ...]
    laid: int                        # how many cards it takes from the hand


def _zone(obs: Observation) -> Zone:
    z = obs.zone
    if isinstance(z, bool):
        return None
    return z if isinstance(z, int | str) else None


@dataclass
class Interpreter:
    settle_s: float = SETTLE_S
    cards: dict[int, Seen] = field(default_factory=dict)
    asked: dict[str, Question] = field(default_factory=dict)
    _order: int = 0
    _version: int = 0                                      # grows with every change seen
    _held: int | None = None                               # the version at the last undo
    _draws: dict[int, int] = field(default_factory=dict)   # move number -> draws said before it
    _laid: dict[int, str] = field(default_factory=dict)    # mission number -> card said to stay
    _markers: dict[int, int] = field(default_factory=dict)  # mission -> staying card found anew
    _missing: dict[int, list[str]] = field(default_factory=dict)  # mission -> informants said
    _unseen_laid: dict[int, list[str]] = field(default_factory=dict)  # mission -> cards said
    _all_laid: set[int] = field(default_factory=set)  # missions short of their need: all seen
    _redrawn: dict[int, list[str]] = field(default_factory=dict)  # mission -> redraws missed
    _no_redraw: set[int] = field(default_factory=set)  # missions with a face too many: none
    _jacks: dict[int, str] = field(default_factory=dict)  # jack's track -> informant said, or none
    _last_change: float = 0.0
    _moved: int = 0                                # the last card of the last move: its order

    @property
    def still_s(self) -> float:
        """The longest wait on a still table (base.Interpreter)."""
        return 2 * self.settle_s

    # -- what happened -------------------------------------------------------------------------

    def seen(self, changes: Iterable[Change], t: float, moving: frozenset[Any] = frozenset()
             ) -> None:
        """The watcher's changes at frame time t. A mission's cards settle on the cards alone:
        one player lays them all, and the watcher commits a card once nothing moves over it,
        so hands (`moving`) tell nothing more."""
        changes = list(changes)
        read_again = {c.observation.track for c in changes if c.kind == "appeared"}
        for change in changes:
            obs = change.observation
            card = self.cards.get(obs.track)
            self._version += 1
            self._last_change = t
            if change.kind == "removed":
                if card is not None and obs.track not in read_again:
                    card.present, card.gone_t = False, t
            elif card is None:
                card = Seen(obs.track, _zone(obs), obs.reading, t, self._order + 1,
                            x=float(obs.center[0]), y=float(obs.center[1]), size=_size(obs),
                            width=_width(obs))
                lost = self._lost_here(card, t)
                if lost is not None:  # the same card, found again: it keeps its place in line
                    del self.cards[lost.track]
                    lost.track, lost.reading, lost.present = obs.track, obs.reading, True
                    self.cards[obs.track] = lost
                    continue
                self._order += 1
                self.cards[obs.track] = card
                if self._across(card, t):
                    card.status = "ignored"
            else:  # the same card, read again
                turned = _top(card.reading) != _top(obs.reading)
                card.reading, card.present = obs.reading, True
                if card.status == "waiting":
                    card.zone, card.refused = _zone(obs), ""
                    if turned:  # turned over where it lies (an informant): new on the table
                        self._order += 1
                        card.order, card.t = self._order, t

    def _lost_here(self, card: Seen, t: float) -> Seen | None:
        """A card of a move not counted yet that left where `card` now lies a moment ago
        (SEEN_AGAIN_S), read surely as the same card: the watcher lost it under the arm that
        cleared the cards beside it, and found it again. Counted cards are `_across`'s."""
        name = sure_name(card.reading)
        if name is None:
            return None
        return next((o for o in self.cards.values() if o.status == "waiting" and not o.present
                     and t - o.gone_t <= SEEN_AGAIN_S and o.zone == card.zone
                     and _top(o.reading) == name and _same_place(o, card)), None)

    def _across(self, card: Seen, t: float) -> bool:
        """No new card: the cards of the solo table lie side by side, none over another, so a
        card read unsure within half a card's width of a card lying there is a glimpse across
        cards, and one read as a counted card where that card lay a moment ago is that card
        seen again (a Rebels' card read so surely, any time later: it is played once, S16; the
        jokers are two)."""
        for o in self.cards.values():
            if o is card or o.zone != card.zone or o.status == "ignored" or \
                    not _same_place(o, card):
                continue
            if o.present and sure_name(card.reading) is None:
                return True
            if o.status != "counted":
                continue
            name = o.named or _top(o.reading)
            recent = o.present or (t - o.gone_t <= SEEN_AGAIN_S and self._still_lying(o))
            once = o.zone != ROW and _one_copy(name)  # a Rebels' card is played once (S16)
            if (recent and _top(card.reading) == name) or \
                    (once and sure_name(card.reading) == name):
                return True
        return False

    def applied(self, decision: Apply) -> None:
        """The referee applied `decision`: its cards now stand for its move."""
        if decision.position is None:
            return
        at, tracks = decision.position
        # what the table shows after the move's last card is the next move's (a draw is seen
        # nowhere: it moves nothing)
        self._moved = max((self.cards[k].order for k in tracks if k in self.cards),
                          default=self._moved)
        for track in tracks:
            card = self.cards.get(track)
            if card is not None:
                card.status, card.at, card.refused = "counted", at, ""
        self._drop_leftovers(tracks)
        event = decision.event
        if isinstance(event, JackPlayed) and len(tracks) > 1 and tracks[1] in self.cards:
            self.cards[tracks[1]].named = str(event.revealed)  # where it lies in the row

    def _still_lying(self, counted: Seen) -> bool:
        """A card of the move `counted` was part of still lies in its zone (it was not
        cleared)."""
        return any(c.present and c.status == "counted" and c.at == counted.at and
                   c.zone == counted.zone for c in self.cards.values())

    def _drop_leftovers(self, tracks: tuple[int, ...]) -> None:
        """Cards no part of a move just applied that are no card of the game: gone from the
        table, seen before its last card (a glimpse of a card that was not there, or one
        taken back), or its own cards seen anew where they lie while the move's cards lay there
        still (the watcher lost one a while and found it again), read unsure or as that
        card; on a spot, read as any card where that card's own track was lost (no card lies
        over another: a king of clubs found anew and read surely as the king of spades). The
        Rebels' deck is no move's card, even taken away before a move's last card counted."""
        mine = [self.cards[k] for k in tracks if k in self.cards]
        last = max((c.order for c in mine), default=None)
        if last is None:
            return
        for card in self.cards.values():
            if card.status != "waiting" or card.zone == DECK:  # its going ends the game (S15)
                continue
            lying = any(m.zone == card.zone and (m.present or m.gone_t > card.t) for m in mine)
            again = next((m for m in mine if lying and m.zone == card.zone and
                          _same_place(m, card) and
                          (sure_name(card.reading) in (None, m.named or _top(m.reading)) or
                           (not m.present and str(m.zone) in SPOTS))), None)
            if again is not None:  # that card: counted with it
                card.status, card.at, card.named = "counted", again.at, again.named
            elif not card.present and card.order < last:
                card.status = "ignored"

    def refused(self, decision: Apply, why: str) -> None:
        """The rules refused `decision`: its cards are asked about (draws said are asked
        again)."""
        if isinstance(decision.event, CardDrawn):
            self._draws.clear()
            self._held = self._version
            return
        for track in decision.position[1] if decision.position is not None else ():
            card = self.cards.get(track)
            if card is not None:
                card.refused, card.named = why, None

    def undone(self, game: Game) -> None:
        """A person took back the last event: the cards it counted are no card of the game any
        more; draws said are asked again; nothing is inferred until the table changes."""
        for card in self.cards.values():
            if card.status == "counted" and card.at >= len(game.log):
                card.status = "ignored"
        self._draws.clear()
        self._laid.clear()
        self._missing.clear()
        self._unseen_laid.clear()
        self._all_laid.clear()
        self._redrawn.clear()
        self._no_redraw.clear()
        self._held = self._version

    def corrected(self, correction: Any, game: Game) -> Apply | None:
        """Solo has no corrections of its own (an undo replays the game)."""
        return None

    def laid_out(self, game: Game) -> tuple[Card, ...]:
        """The cards laid on a spot for a mission not played yet (the snapshot shows its odds),
        once every one of them is certain: the odds of a guess would be a guess."""
        laying = [] if game.game_over else self._spot_laying()
        names = self._certain(laying, lambda n, others: from_hand(game, n, others))
        if not laying or any(n is None for n in names):
            return ()
        return tuple(Card.parse(n) for n in names if n is not None)

    # -- answers --------------------------------------------------------------------------------

    def answer(self, key: str, choice: str, game: Game, t: float) -> None:
        """A person answered question `key`; AnswerError if the choice is not one it offers."""
        q = self.asked.get(key)
        if q is None:
            raise AnswerError("that question was already answered")
        if choice not in {c.id for c in q.choices}:
            raise AnswerError(f"{choice!r} is not one of the choices")
        kind, _, rest = key.partition(":")
        if kind == "card":
            card = self.cards[int(rest)]
            if choice == "none":
                card.status = "ignored"
            else:
                card.named, card.refused = choice, ""
        elif kind == "draws":
            self._draws[int(rest)] = int(choice)
        elif kind == "laid":
            self._laid[int(rest)] = choice
        elif kind == "missing":
            self._missing.setdefault(int(rest), []).append(choice)
        elif kind == "short":
            if choice == ALL_LAID:
                self._all_laid.add(int(rest))
            else:
                self._unseen_laid.setdefault(int(rest), []).append(choice)
        elif kind == "jack":
            self._jacks[int(rest)] = choice
        elif kind == "redrew":
            if choice == NO_REDRAW:
                self._no_redraw.add(int(rest))
            else:
                self._redrawn.setdefault(int(rest), []).append(choice)
        self.asked.pop(key, None)

    # -- deciding --------------------------------------------------------------------------------

    def decide(self, game: Game | None, t: float) -> list[Decision]:
        """What follows from the table and the game now: one Apply (the referee applies it and
        asks again), or the questions to ask and withdraw."""
        if game is None or game.game_over:
            keys = list(self.asked)
            self.asked.clear()
            return [Withdraw(k) for k in keys]
        questions: list[Question] = []
        step = None if self._held == self._version else self._next(game, t, questions)
        if step is not None:
            return [step]
        return ask_anew(self.asked, questions)

    def _next(self, game: Game, t: float, questions: list[Question]) -> Apply | None:
        """The next event the table shows, or None (the questions that stand in its way are
        added to `questions`)."""
        self._staying_seen_again(game)
        missed = self._redraw_missed(game)
        if missed is not None:
            return missed
        spot, hand = self._spot_laying(), self._hand_laying()
        if spot and (not hand or _first(spot) < _first(hand)):  # the move laid first
            move = self._mission(game, spot, t, questions)
        else:
            move = self._from_hand(game, hand, t, questions)
        if move is not None:
            draws = self._draws_before(game, move, questions)
            if draws is not True:
                return draws or None
            return Apply(move.event, move.tracks[0] if move.tracks else None,
                         self._learned(move), (len(game.log), move.tracks))
        if not spot and not hand and self._deck_gone(game, t) and \
                game.rebels.draw <= MAX_HAND - game.rebels.hand:  # (a move waiting goes first)
            return Apply(CardDrawn(), position=(len(game.log), ()))  # S15: it ran out
        return None

    def _redraw_missed(self, game: Game) -> Apply | None:
        """A redraw a person named, that the camera missed (more informants were turned than
        the companion counted dealt): applied before the mission, so that its informant counts.
        Once: were the rules to refuse it, the mission asks again."""
        said = self._redrawn.get(len(game.missions))
        if not said:
            return None
        return Apply(CardsRedrawn((Card.parse(said.pop(0)),)), position=(len(game.log), ()))

    def _staying_seen_again(self, game: Game) -> None:
        """A card found anew on a spot won, not read surely as another card, is the card that
        stays there: the watcher lost it a while (a hand reaching past it) and found it again.
        No mission goes to a spot won (S3), so it is no card laid from the hand."""
        for card in self.cards.values():
            spot = SPOTS.get(str(card.zone)) if card.status == "waiting" else None
            stays = game.rebels.spots.get(spot) if spot is not None else None
            if stays is not None and sure_name(card.reading) in (None, str(stays)):
                card.status = "counted"
                card.at = max(k for k, e in enumerate(game.log)
                              if isinstance(e, MissionPlayed) and e.spot == spot)

    def _learned(self, move: Move) -> str | None:
        """A label a person gave a card of the move (its crop is worth keeping)."""
        return next((c.named for k in move.tracks if (c := self.cards[k]).named), None)

    # -- draws ---------------------------------------------------------------------------------

    def _draws_before(self, game: Game, move: Move, questions: list[Question]
                      ) -> Apply | bool:
        """A draw still to apply before `move`; True once its draws are all in; False while a
        person must say how many (the question is added)."""
        number = _moves(game)
        done = _trailing_draws(game)
        hand = game.rebels.hand - done
        least = max(0, move.laid - hand)
        most = max(least, min(MAX_HAND - hand, game.rebels.draw + done - 1))
        said = self._draws.get(number)
        if said is None and least == most:
            said = least
        if said is None:
            name = game.players[0]
            questions.append(Question(
                f"draws:{number}",
                f"How many cards did {name} draw before this move? The camera cannot see a "
                f"draw: {name} held {hand} after the last move and lays {move.laid} now.",
                tuple(Choice(str(k), str(k)) for k in range(least, most + 1)),
                str(least), 0, len(game.missions), 0, move.tracks[0] if move.tracks else None))
            return Apply(CardDrawn(), position=(len(game.log), ())) if done < least else False
        return Apply(CardDrawn(), position=(len(game.log), ())) if done < said else True

    def _deck_gone(self, game: Game, t: float) -> bool:
        """The Rebels' deck was seen at its place and has been taken away for good."""
        deck = [c for c in self.cards.values() if c.zone == DECK and c.status != "ignored"]
        return bool(deck) and not any(c.present for c in deck) and \
            t - max(c.gone_t for c in deck) >= self.settle_s - 1e-9

    # -- a mission -----------------------------------------------------------------------------

    def _mission(self, game: Game, laying: list[Seen], t: float, questions: list[Question]
                 ) -> Move | None:
        """The mission the table shows: cards laid on a spot, then every informant turned."""
        if not laying:
            return None
        spot = SPOTS[str(laying[0].zone)]
        row = self._row(_first(laying), gone_too=True)
        cleared = self._row_cleared(laying)
        if cleared is not None:  # what came into the row since is the next mission's
            row = [c for c in row if c.t < cleared]
        if not self._settled(laying, t, row):
            return None
        names = self._certain(laying, lambda n, others: from_hand(game, n, others))
        self._ask_cards(game, laying, names, questions, f"lay on spot {spot.value}")
        faces = self._informants(game, laying, row, t, questions, cleared)
        if faces is None or any(n is None for n in names):
            return None
        number = len(game.missions)
        said = self._unseen_laid.get(number, [])
        cards = tuple(Card.parse(n) for n in [*names, *said] if n is not None)
        informants = self._along_the_row(game, faces)
        total = score(cards, informants, game.setup.variant).total
        if number not in self._all_laid and len(cards) < MAX_HAND and total < spot.need:
            questions.append(self._short(game, spot, cards, total, number, laying))
            return None
        tracks = (*(c.track for c in laying), *(k for _, _, k in faces if k is not None))
        laid = self._laid_card(game, spot, cards, informants, laying, names, t, questions)
        if laid is False:
            return None
        marker = self._markers.get(number)
        tracks += (marker,) if marker is not None and laid is not None else ()
        return Move(MissionPlayed(spot, cards, informants, laid), tracks, len(cards))

    def _informants(self, game: Game, laying: list[Seen], row: list[Seen], t: float,
                    questions: list[Question], cleared: float | None = None
                    ) -> list[Face] | None:
        """The informants turned in the row since the mission's cards were laid, once as many
        lie there as the jack left hidden, every one certain; None meanwhile (a question for a
        card not certain that may be one of them, for more informants face down or turned than
        the companion counts dealt, or, once the row was cleared short of them, for an
        informant the camera missed)."""
        names = self._certain(row, lambda n, others: informant(game, n, others))
        number = len(game.missions)
        hidden = game.opponent.informants - len(game.opponent.revealed)
        down = self._face_down(laying)
        if down > hidden and number not in self._no_redraw:
            questions.append(self._more_faces(
                game, f"{down} informants lay face down when mission {number + 1} was laid, "
                f"but the camera counts {hidden} hidden", number))
            return None
        said = self._missing.get(number, [])
        wanted = hidden - len(said)
        faces = [(c, n) for c, n in zip(row, names, strict=True) if n is not None and n != BACK]
        if len(faces) < wanted:
            self._ask_cards(game, row, names, questions, "turn in the row")
            if not any(n is None for n in names) and (self._cleared(row, t) or
                                                      cleared is not None):
                questions.append(self._missed(game, [n for _, n in faces] + said, number))
            return None
        if len(faces) > wanted and number not in self._no_redraw:
            questions.append(self._more_faces(
                game, f"{len(faces)} informants lie turned for mission {number + 1}, but the "
                f"camera saw {wanted} dealt", number))
            return None
        last = faces[wanted - 1][0].order if wanted else -1
        doubt = [(c, n) for c, n in zip(row, names, strict=True) if n is None and c.order < last]
        if doubt:  # an unsure card among the informants: it may be one of them
            self._ask_cards(game, [c for c, _ in doubt], [None] * len(doubt), questions,
                            "turn in the row")
            return None
        return [*(((c.x, c.y), n, c.track) for c, n in faces[:wanted]),
                *(((float("inf"), float("inf")), n, None) for n in said)]

    def _face_down(self, laying: list[Seen]) -> int:
        """How many places of the row held a card face down, read surely so, when the
        mission's first card was laid: the informants hidden then, as the table shows them (the
        watcher may lose a card under a hand and find it anew: one place)."""
        first = min(laying, key=lambda c: c.order)
        places: list[Seen] = []
        for c in sorted(self.cards.values(), key=lambda c: c.order):
            if c.zone == ROW and c.status == "waiting" and sure_name(c.reading) == BACK and \
                    c.order < first.order and (c.present or c.gone_t >= first.t) and \
                    not any(_same_place(c, p) for p in places):
                places.append(c)
        return len(places)

    def _row_cleared(self, laying: list[Seen]) -> float | None:
        """When the next informants were dealt: a card face down, or one not read surely (the
        back of a deck the reader was never taught), came into the row once every card of the
        mission's row (those lying at its laying, those turned since) had been taken away. A
        card turned takes the place of the back it was; a new deal comes face down. None
        before."""
        first = min(laying, key=lambda c: c.order)
        row = sorted((c for c in self.cards.values() if c.zone == ROW and c.status != "ignored"
                      and (c.order > first.order or c.present or c.gone_t > first.t)),
                     key=lambda c: c.order)
        mission = [c for c in row if c.order < first.order]
        for c in row:
            if c.order < first.order:
                continue
            if mission and BACK in (_top(c.reading), sure_name(c.reading) or BACK) and all(
                    not k.present and k.gone_t <= c.t for k in mission):
                return c.t
            mission.append(c)
        return None

    def _cleared(self, row: list[Seen], t: float) -> bool:
        """The cards turned in the row have all been taken away, `settle_s` ago."""
        turned = [c for c in row if _top(c.reading) != BACK]
        return bool(turned) and not any(c.present for c in turned) and \
            t - max(c.gone_t for c in turned) >= self.settle_s - 1e-9

    def _missed(self, game: Game, shown: list[str], number: int) -> Question:
        """Which informant the camera did not see turned before the row was cleared."""
        known = [str(k) for k in game.opponent.revealed]
        legal = [n for n in FACES if informant(game, n, [*shown, *known])]
        return Question(
            f"missing:{number}",
            f"The row was cleared before the camera saw every informant of mission "
            f"{number + 1} ({len(shown) + len(known)} of {game.opponent.informants}): which "
            "other card was turned?",
            tuple(Choice(n, n) for n in legal), None, 0, number, 0, None)

    def _more_faces(self, game: Game, shown: str, number: int) -> Question:
        """More informants face down or turned than the companion counts dealt (`shown` says
        how many of each): a redraw the camera missed (each card redrawn deals one), or a card
        in the row that is no informant. Never dropped unasked: the informants and the decks'
        counts would be wrong."""
        since = [e for e in game.log[_after_last_mission(game):] if isinstance(e, CardsRedrawn)]
        counted = ", ".join(str(c) for e in since for c in e.cards) or "none"
        return Question(
            f"redrew:{number}",
            f"{shown} (redraws it counted since the last mission: {counted}). Which card did "
            "the player discard that the camera did not see?",
            (*(Choice(n, n) for n in FACES if from_hand(game, n)),
             Choice(NO_REDRAW, "None: a card in the row is no informant")),
            None, HAND, number, 0, None)

    def _short(self, game: Game, spot: Spot, cards: tuple[Card, ...], total: int, number: int,
               laying: list[Seen]) -> Question:
        """A mission that falls short of its spot (`total` with the cards the camera saw, fewer
        than a hand holds): did it miss one? (A card it never saw would make a mission that
        succeeded a failure.) Asked until a person says that is all; OK says so."""
        shown = [str(c) for c in cards]
        legal = [n for n in FACES if from_hand(game, n, shown)]
        return Question(
            f"short:{number}",
            f"The mission to spot {spot.value} scores {total} of the {spot.need} it needs with "
            f"{', '.join(shown) or 'no card'}: did the camera miss a card laid there?",
            (*(Choice(n, n) for n in legal), Choice(ALL_LAID, "No: that is all")),
            ALL_LAID, 0, number, 0, laying[0].track)

    def _laid_card(self, game: Game, spot: Spot, cards: tuple[Card, ...],
                   informants: tuple[Card, ...], laying: list[Seen], names: list[str | None],
                   t: float, questions: list[Question]) -> Card | None | Literal[False]:
        """The card that stays on the spot (S13): none for a failed mission; for one that
        succeeded, the one card left once the others were cleared (none if all were), or what
        a person says when they still lie there; False while it is not known yet."""
        if score(cards, informants, game.setup.variant).total < spot.need:
            return None
        number = len(game.missions)
        if number in self._laid:
            said = self._laid[number]
            return None if said == "none" else Card.parse(said)
        left = [n for c, n in zip(laying, names, strict=True) if c.present]
        gone = [c.gone_t for c in laying if not c.present]
        marker = self._found_again(laying, cards, gone) if gone and not left else None
        if marker is not None:  # the card that stays, lost under the clearing hand
            self._markers[number] = marker.track
            mission = {str(k) for k in cards}
            name = certain_name(marker.reading, lambda n: n in mission)
            if name is not None:
                return Card.parse(name)
            left = [str(k) for k in cards]  # a person says which (below)
        wait = self.settle_s if left else 2 * self.settle_s  # (time to find the staying card)
        if len(left) <= 1 and gone and t - max(gone) >= wait - 1e-9:
            return Card.parse(left[0]) if left and left[0] else None
        if t - self._last_change >= 2 * self.settle_s - 1e-9 and len(left) > 1:
            questions.append(Question(
                f"laid:{number}",
                f"The mission to spot {spot.value} succeeded: which card stays on the spot?",
                (*(Choice(n, n) for n in dict.fromkeys(x for x in left if x)),
                 Choice("none", "None named")),
                None, 0, number, 0, laying[0].track))
        return False

    def _found_again(self, laying: list[Seen], cards: tuple[Card, ...], gone: list[float]
                     ) -> Seen | None:
        """A card that came onto the mission's spot while its cards were being cleared, or
        soon after (twice `settle_s`), and may read as one of them: the card that stays on the
        spot, which the watcher lost under the clearing hand and found anew (not a card laid
        from the hand: that one was played)."""
        ours = {c.track for c in laying}
        names = [str(k) for k in cards]
        return next((c for c in sorted(self.cards.values(), key=lambda c: c.order)
                     if c.status == "waiting" and c.present and c.zone == laying[0].zone
                     and c.track not in ours
                     and min(gone) - GONE_S <= c.t <= max(gone) + 2 * self.settle_s
                     and max(probability(c.reading, n) for n in names) >= MAY_BE_SAME), None)

    def _along_the_row(self, game: Game, faces: list[Face]) -> tuple[Card, ...]:
        """Every informant, as they lie along the row (line by line, left to right in the
        picture): those turned now, and those a jack turned before (first, where the camera lost
        them; those it missed last)."""
        where = {c.named: (c.x, c.y) for c in self.cards.values()
                 if c.zone == ROW and c.status == "counted" and c.named}
        sizes = [c.size for c in self.cards.values() if c.zone == ROW and c.size > 0]
        line = max(sizes, default=1.0) / 2  # a card half a card lower lies in the next line
        placed = [(where.get(str(k), (float("-inf"), float("-inf"))), k)
                  for k in game.opponent.revealed]
        placed += [(at, Card.parse(n)) for at, n, _ in faces]
        return tuple(k for _, k in _reading_order(placed, line))

    def _spot_laying(self) -> list[Seen]:
        """The cards of the mission being laid: those waiting on the spot of the first one."""
        waiting = sorted((c for c in self.cards.values() if c.status == "waiting"
                          and isinstance(c.zone, str) and c.zone in SPOTS),
                         key=lambda c: c.order)
        return _as_laid(_one_move([c for c in waiting if c.zone == waiting[0].zone]
                                  if waiting else []))

    def _hand_laying(self) -> list[Seen]:
        """The cards of the move being laid in front of the player."""
        return _as_laid(_one_move(sorted((c for c in self.cards.values()
                                          if c.status == "waiting" and c.zone == HAND),
                                         key=lambda c: c.order)))

    def _row(self, after: int, gone_too: bool = False) -> list[Seen]:
        """The cards that came into the row after arrival `after` and are no part of the game
        yet (those gone too, for a mission's informants cleared before it was decided)."""
        return sorted((c for c in self.cards.values() if c.status == "waiting" and c.zone == ROW
                       and c.order > after and (c.present or gone_too)), key=lambda c: c.order)

    def _settled(self, laying: list[Seen], t: float, row: list[Seen]) -> bool:
        """No new card for `settle_s`, or an informant was turned since the last card laid (a
        card face down seen anew is no sign: the watcher may lose one under a hand)."""
        return t - max(c.t for c in laying) >= self.settle_s - 1e-9 or \
            any(c.order > max(k.order for k in laying) and _top(c.reading) != BACK
                for c in row)

    # -- cards from the hand: a jack, a redraw ---------------------------------------------------

    def _from_hand(self, game: Game, laying: list[Seen], t: float, questions: list[Question]
                   ) -> Move | None:
        if not laying:
            return None
        row = [c for c in self._row(self._moved, gone_too=True)
               if c.present or c.gone_t >= laying[0].t]  # a jack's informant may be cleared
        if not self._settled(laying, t, row):
            return None
        names = self._certain(laying, lambda n, others: from_hand(game, n, others))
        self._ask_cards(game, laying, names, questions, "lay in the player's zone")
        if any(n is None for n in names):
            return None
        cards = tuple(Card.parse(n) for n in names if n is not None)
        tracks = tuple(c.track for c in laying)
        if len(cards) == 1 and cards[0].rank == JACK and game.opponent.face_down:
            return self._jack(game, laying[0], cards[0], row, t, questions)
        return Move(CardsRedrawn(cards), tracks, len(cards))

    def _jack(self, game: Game, jack: Seen, card: Card, row: list[Seen], t: float,
              questions: list[Question]) -> Move | None:
        """A lone jack: it turned the informant that appeared face up; taken away with none
        seen turned for twice `settle_s` (a slow read has that long), a person says whether it
        was discarded or which informant it turned (the camera may have missed the card). A
        card of the row that most likely shows its back (an informant seen anew after a hand
        passed over it) is no turned one: not asked about one by one."""
        if not jack.present:  # turned before the jack was taken away: later ones are not its
            row = [c for c in row if c.t <= jack.gone_t]
        names = self._certain(row, lambda n, others: informant(game, n, others))
        faces = [(c, n) for c, n in zip(row, names, strict=True)
                 if n != BACK and (n is not None or _top(c.reading) != BACK)]
        if faces:
            self._ask_cards(game, [c for c, _ in faces], [n for _, n in faces], questions,
                            "turn with the jack")
            seen, name = faces[0]
            if name is None:
                return None
            return Move(JackPlayed(card, Card.parse(name)), (jack.track, seen.track), 1)
        if jack.present or t - jack.gone_t < 2 * self.settle_s - 1e-9:
            return None
        said = self._jacks.get(jack.track)
        if said is None:
            questions.append(self._jack_question(game, jack))
            return None
        if said == "none":
            return Move(CardsRedrawn((card,)), (jack.track,), 1)
        return Move(JackPlayed(card, Card.parse(said)), (jack.track,), 1)

    def _jack_question(self, game: Game, jack: Seen) -> Question:
        turned = [n for n in FACES if n != BACK and informant(game, n)]
        return Question(
            f"jack:{jack.track}", "A jack was laid and taken away; the camera saw no informant "
            "turned. Was it discarded, or which informant did it turn?",
            (Choice("none", "Discarded (a redraw)"), *(Choice(n, f"It turned {n}")
                                                         for n in turned)),
            None, HAND, len(game.missions), 0, jack.track)

    # -- certain names, and the questions about the rest -------------------------------------------

    def _certain(self, cards: list[Seen], legal: Callable[[str, list[str]], bool]
                 ) -> list[str | None]:
        """Each card's certain name, or None; a card is narrowed beside the others that a
        person named or the reader is sure of."""
        known = {c.track: c.named or sure_name(c.reading) for c in cards}
        out: list[str | None] = []
        for c in cards:
            others = [n for k, n in known.items() if k != c.track and n and n != BACK]
            if c.named is not None:
                out.append(c.named if legal(c.named, others) else None)
            elif c.refused:
                out.append(None)
            else:
                out.append(certain_name(c.reading, lambda n, o=others: legal(n, o)))  # type: ignore[misc]
        return out

    def _place(self, card: Seen, laying: list[Seen]) -> str:
        """Where the card asked about lies, for a person to find it: its place in the row,
        line by line and left to right, or in the order its move's cards were laid."""
        if card.zone != ROW:
            return f"card {laying.index(card) + 1} laid"
        row = [c for c in self.cards.values() if c.zone == ROW and c.status != "ignored"
               and (c.present or c is card)]
        line = max((c.size for c in row), default=1.0) / 2 or 0.5
        order = [c for _, c in _reading_order([((c.x, c.y), c) for c in row], line)]
        return f"card {order.index(card) + 1} of the row"

    def _ask_cards(self, game: Game, cards: list[Seen], names: list[str | None],
                   questions: list[Question], doing: str) -> None:
        """A question for each card not certain: every card the rules allow there (beside the
        certain others), ranked by the reader."""
        for c, certain in zip(cards, names, strict=True):
            if certain is not None:
                continue
            others = [n for k, n in zip(cards, names, strict=True) if k is not c and n and
                      n != BACK]
            in_row = c.zone == ROW
            pool = (BACK, *FACES) if in_row else FACES
            legal = [n for n in pool if (informant(game, n, others) if in_row
                                         else from_hand(game, n, others))]
            ranked = sorted(legal, key=lambda n: -probability(c.reading, n))
            sure = c.named or sure_name(c.reading)
            questions.append(Question(
                f"card:{c.track}",
                f"Which card did {game.players[0]} {doing} ({self._place(c, cards)})?"
                f"{_why(c, legal)}",
                (*(Choice(n, _label(n)) for n in ranked), Choice("none", "Not a card of the game")),
                sure if sure in legal else None, 0, len(game.missions), 0, c.track))


# --- helpers -------------------------------------------------------------------------------------


def _as_laid(laying: list[Seen]) -> list[Seen]:
    """A move's cards as they lie, left to right (in lines, where they fill more than one): the
    order they were laid, as a player lays them down. Not the order the watcher reported them:
    a card read unsure is reported later."""
    line = max((c.size for c in laying), default=1.0) / 2 or 0.5
    by_track = sorted(laying, key=lambda c: c.track)
    return [c for _, c in _reading_order([((c.x, c.y), c) for c in by_track], line)]


def _first(laying: list[Seen]) -> int:
    """When the first card of a laying was reported."""
    return min(c.order for c in laying)


def _one_move(laying: list[Seen]) -> list[Seen]:
    """The cards of one move: those laid until its first card was taken away (what was laid
    after that is the next move's, laid while a question about this one waited)."""
    gone = [c.gone_t for c in laying if not c.present]
    return [c for c in laying if c.t <= min(gone)] if gone else laying


def _moves(game: Game) -> int:
    """The moves the player has made: every event but the start and the draws."""
    return sum(1 for e in game.log[1:] if not isinstance(e, CardDrawn))


def _trailing_draws(game: Game) -> int:
    """The draws since the last move."""
    n = 0
    for event in reversed(game.log[1:]):
        if not isinstance(event, CardDrawn):
            break
        n += 1
    return n


T = TypeVar("T")


def _reading_order(placed: list[tuple[tuple[float, float], T]], line: float
                   ) -> list[tuple[tuple[float, float], T]]:
    """Cards by where they lie: lines from the top (a card more than `line` below the line's
    first starts the next), each left to right; a card never seen (inf) last."""
    by_y = sorted(placed, key=lambda p: p[0][1])
    lines: list[list[tuple[tuple[float, float], T]]] = []
    for item in by_y:
        if lines and item[0][1] - lines[-1][0][0][1] <= line:
            lines[-1].append(item)
        else:
            lines.append([item])
    return [item for ln in lines for item in sorted(ln, key=lambda p: p[0][0])]


def _same_place(a: Seen, b: Seen) -> bool:
    """Two sightings within half a card's width of each other: one card (none lies over
    another on the solo table)."""
    width = max(a.width, b.width)
    return width > 0 and math.hypot(a.x - b.x, a.y - b.y) < ACROSS * width


def _width(obs: Observation) -> float:
    """The card's shorter side in the picture (0 where its corners are not known)."""
    q = obs.quad
    if len(q) != 4:
        return 0.0
    return float(min(math.hypot(*(q[1] - q[0])), math.hypot(*(q[2] - q[1]))))


def _size(obs: Observation) -> float:
    """The card's longer side in the picture (0 where its corners are not known)."""
    q = obs.quad
    if len(q) != 4:
        return 0.0
    return float(max(math.hypot(*(q[1] - q[0])), math.hypot(*(q[2] - q[1]))))


def _top(reading: Any) -> str | None:
    """What a reading says first: its sure name, or its best guess."""
    best = max(candidates(reading), key=lambda x: x[1], default=None)
    return sure_name(reading) or (best[0] if best else None)


def _after_last_mission(game: Game) -> int:
    """Where the moves since the last mission begin in the game's log."""
    return max((k + 1 for k, e in enumerate(game.log) if isinstance(e, MissionPlayed)),
               default=1)


def _one_copy(name: str | None) -> bool:
    """A Rebels' card of which the deck holds one: not a joker (two), nor a back."""
    return name is not None and name != BACK and Card.parse(name).copies == 1


def _label(name: str) -> str:
    return "face down" if name == BACK else name


def _why(c: Seen, legal: list[str]) -> str:
    if c.refused:
        return f" The rules refused the move: {c.refused}."
    sure = sure_name(c.reading)
    if sure is not None and sure not in legal:
        return f" The camera read {_label(sure)}, which the rules do not allow here."
    best = max(candidates(c.reading), key=lambda x: x[1], default=None)
    if best is None:
        return " The camera could not read it."
    return f" The camera is not sure (best guess {_label(best[0])}, {best[1]:.0%} sure)."
