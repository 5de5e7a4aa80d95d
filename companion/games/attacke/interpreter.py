"""From what the camera saw to Attacke's events: vision proposes, the rules dispose.

A pure decider, as Tightrope's (`companion.games.tightrope.interpreter`): the watcher's changes go
in (`seen`), people's answers go in (`answer`), and `decide(game, t)` says what follows, as values:
one `Apply(event)` at a time, or `Ask(question)` and `Withdraw(key)`. Every fact about the table
lives once, in `cards` (one entry per physical card: the watcher's track).

The table: each seat has a zone in front of it (an observation's zone is its seat; None is
outside every zone, and such a card is nobody's). What becomes an event:

- **A challenge** (A3, A5): the cards new in the zone of the seat whose turn it is, once his
  laying has settled (no new card there for `settle_s`, or another seat acted after his last
  card: a card appeared in its zone, or all its cards of the contest left), every one of them
  read surely once the rules narrow its candidates, and the whole play accepted by the rules:
  `CardsPlayed(seat, face-up cards, face-down count)`. A `back` counts as one face-down card
  (A12).
- **A laying taken away before it settled** is a play all the same (A5: a card laid stays
  laid): the victor clearing his cards as soon as the others passed unseen. *Ruling:* a player
  who lays cards and takes them back at once has played them; a person undoes it.
- **A pass by removal** (A7): every card the seat at turn laid in this contest has left his
  zone, and stayed gone for `settle_s`: `Passed(seat)`; also where he laid new cards GONE_S or
  more after they left (a question held the game while the table went on). Not where another
  seat laid a card in this turn before they left: he did something the camera did not see
  first, a person says what.
- **A pass with an empty zone**: a seat at turn that has laid nothing in this contest (an
  opener with no knight, A3, or a player who never challenged) leaves nothing to see. Turns go
  clockwise and a player acts only in turn, so another seat still in the contest acting -- a card
  of his lying settled in his zone, likely a card (not a glare read as a little of several), or
  laid and taken away again before it settled, or all his cards of this contest gone -- says
  every seat at turn before him passed. *Ruling:*
  that is taken as the pass when the seat at turn has nothing in his zone at all (no card the
  camera still sees there, counted or not); where cards of his still lie there, a person says
  it ("Did Ben pass?", offering "passed"). A laying of his that arrives after that act is his
  next play, not his first (Attacke seed 1: Ana, to open with no knight, passed; Ben opened,
  and Ana's shield, laid before Ben's card settled, was taken for her opening and refused).
- **The contest's end** (A9) is the rules' own: the victor's cards, then taken away, are
  explained and make no event; so are the cards of a seat that passed.

Nothing is scored on a guess. A card read unsure, read as a card the rules refuse (another
colour than the contest's, a second shield 10, more copies than the deck holds, face down twice
in a contest), or part of a play the rules refused as a whole (not higher, more cards than the
hand holds) is asked about: "Which card did Ben lay in contest 3?", every card the rules allow
there, ranked by the reader, with OK confirming the reader's own sure read where it is one of
them. An answer names a card (`red-3`, `shield-10`, `back`), says it is no card of the game
(`none`), or, for a pass, `passed` / `more` / `wait`. Face-down cards (A12) lie in a heap the camera
cannot count: a play with backs waits for a person to say how many ("How many cards did Cy lay
face down in contest 3?", 1 to his hand, OK confirming the camera's count). That count also
checks the cards taken for backs only as they read like a card a person named a back: a deck
whose backs read unsure as one card has one named, not each.

Cards the camera did not see (a heap, a fan's hidden card): "Did Ben pass?" also offers "Ben
laid cards the camera did not see", and a play refused as too low whose every card a person
confirmed is short of a card (face down or not: a person who said how many lie face down knows
the heap); either way a person names the missing cards one by one (`more:` questions, until
`none`, after which a face-down count is asked again), and the play waits for him; a card the
camera finds soon after in his zone that may read as one he named is that card, seen late (one
it read surely as it and took for his next laying, seen early). The
next seat's turn begins when the table showed an event (`Position.shown`), not when it was
applied: answers come late, and the table goes on meanwhile.

A counted card read surely as another on its place while its contest is in play is that card
read again (a card laid stays laid): the new read is asked, the earlier named. Of a contest
over, it is the next contest's card laid on its place.

Undo: the cards of an event taken back are no card of the game any more (taken back, they are
not taken again), and no pass is inferred from the table until it changes. Attacke has no
corrections of its own: `corrected` returns None.

Readings: a deck taught Attacke's cards names them (`Reading.label`, `Reading.named`); they are
read only through `candidates` and `sure_name` below.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

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
from .rules import BACK, CARD_NAMES, Card, CardsPlayed, Game, NotHigher, Passed, RuleError

SETTLE_S = 2.5         # a seat's laying is over after this long without a new card there
GONE_S = 1.0           # ... or this long after all of it was taken away (not a card moved)
SEEN_AGAIN_S = 3.0     # a counted card seen again within this long of leaving, at its place
SAME_PLACE = 0.5       # (within this many card widths), and read as it with at least
MAY_BE_SAME = 0.2      # this probability, is the card seen again, not a new one
LIKELY = 0.5           # a card read unsure this sure of one card is likely a card: its seat acted
SEEN_LATE_S = 10.0     # a card named unseen, then seen within this long, reading as it, is it
BEFORE_S = 0.001       # a pass told by another seat's act came this much before that act
ON_ITS_ROW = 0.75      # a card this many card widths from a card of another zone lies on its row
MORE = "more"          # the answer: he laid cards the camera did not see


def legal_name(game: Game, seat: int, name: str, others: Iterable[str] = ()) -> bool:
    """May `seat` lay the card `name` now, beside the cards `others` of the same play? Each card
    on its own: the contest's colour (A4; an opening's knights share one), one shield 10 a
    contest (A8), no more copies on the table than the deck holds, face down only in the
    concealed variant and once a contest (A12). Whether the whole play beats the best total and
    fits the hand is the rules' own check."""
    others = list(others)
    if name == BACK:
        return game.may_conceal(seat)
    try:
        card = Card.parse(name)
    except ValueError:
        return False
    c = game.contest
    if not card.is_shield:
        colour = c.colour
        if colour is None:  # an opening: its knights name the colour together
            knights = [k for n in others if (k := _card(n)) is not None and not k.is_shield]
            colour = knights[0].colour if knights else None
        if colour is not None and card.colour != colour:
            return False
    elif card.value == 10 and (c.played_ten(seat) or "shield-10" in others):
        return False
    on_table = sum(1 for s, played in enumerate(c.played) if c.in_play(s)
                   for k in played if k == card) + others.count(name)
    return on_table < card.copies


def _legal_for(game: Game, seat: int, others: list[str]) -> Callable[[str], bool]:
    return lambda name: legal_name(game, seat, name, others)


def _card(name: str) -> Card | None:
    try:
        return Card.parse(name)
    except ValueError:
        return None


# --- the table of physical cards ------------------------------------------------------------------


class Position(NamedTuple):
    """Where an Apply was decided (the interpreter's own use of `Apply.position`)."""

    at: int                    # the event's place in the game's log
    contest: int
    tracks: tuple[int, ...]    # the cards that make it
    shown: float               # when the table showed it: the next seat's turn began then

Status = Literal["waiting", "counted", "ignored"]


@dataclass
class Seen:
    """One physical card the camera saw (the watcher's track)."""

    track: int
    zone: int | None                 # the seat whose zone it lies in; None: outside every zone
    reading: Any
    t: float                         # when it arrived
    order: int                       # arrival order
    present: bool = True
    gone_t: float = 0.0              # when it left
    status: Status = "waiting"
    named: str | None = None         # what a person said it is
    refused: str = ""                # why the rules refused the play it was part of
    doubted: str = ""                # the card an earlier read of it was likely, another's now
    contest: int = -1                # counted: the contest it was laid in
    at: int = -1                     # counted: its event's place in the game's log
    center: tuple[float, float] = (0.0, 0.0)
    width: float = 0.0               # the card's width in the frame
    late: bool = False               # seen after a person named it: laid when he said
    in_place_of: tuple[str, int] | None = None  # a counted card read surely as it: (name, contest)

    @property
    def seen(self) -> bool:
        """The camera saw it; a card a person named that it never saw has a negative track."""
        return self.track >= 0


def _width(obs: Observation) -> float:
    q = obs.quad
    return float(min(math.hypot(*(q[1] - q[0])), math.hypot(*(q[2] - q[1])))) if len(q) == 4 \
        else 0.0


def _zone(obs: Observation) -> int | None:
    return obs.zone if isinstance(obs.zone, int) and not isinstance(obs.zone, bool) else None


@dataclass
class Interpreter:
    settle_s: float = SETTLE_S
    cards: dict[int, Seen] = field(default_factory=dict)
    asked: dict[str, Question] = field(default_factory=dict)
    _order: int = 0
    _version: int = 0                                           # grows with every change seen
    _held: int | None = None                                    # the version at the last undo
    _waved: dict[str, int] = field(default_factory=dict)        # key -> cards seen when waved off
    _said_passed: set[tuple[int, int]] = field(default_factory=set)  # (contest, seat)
    _face_down: dict[tuple[int, int], int] = field(default_factory=dict)  # (contest, seat): said
    _short: set[tuple[int, int]] = field(default_factory=set)  # laid cards the camera missed
    _unseen: int = 0  # keys apart from the tracks: cards named, never seen, or taken away
    _turn_began: float = 0.0                 # when the table showed the last event applied
    _hands: dict[int, float] = field(default_factory=dict)  # seat -> when a hand last moved there
    _backs_read_as: set[str] = field(default_factory=set)  # best guesses of cards named backs
    _unlike: set[int] = field(default_factory=set)   # tracks a person said are no backs

    @property
    def still_s(self) -> float:
        """The longest wait on a still table (base.Interpreter)."""
        return self.settle_s

    # -- what happened -------------------------------------------------------------------------

    def seen(self, changes: Iterable[Change], t: float, moving: frozenset[Any] = frozenset()
             ) -> None:
        """The watcher's changes at frame time t, and the zones a hand moved over then: a
        seat's laying goes on while his hand comes and goes (a card the camera missed under
        it is still one of the laying), and is over SETTLE_S after the hand last left."""
        for zone in moving:
            if isinstance(zone, int):
                self._hands[zone] = t
        changes = list(changes)
        read_again = {c.observation.track for c in changes if c.kind == "appeared"}
        for change in changes:
            obs = change.observation
            card = self.cards.get(obs.track)
            self._version += 1
            if change.kind == "removed":
                if card is not None and obs.track not in read_again:
                    card.present, card.gone_t = False, t
                continue
            was = None
            if card is not None and _swapped(card, obs.reading):
                was = (card.named or sure_name(card.reading) or "", card.contest)
                self._retire(card, t)
                card = None
            if card is None:
                self._order += 1
                card = Seen(obs.track, self._zone_of(obs), obs.reading, t, self._order,
                            center=obs.center, width=_width(obs), in_place_of=was)
                self.cards[obs.track] = card
                self._seen_again(card, t) or self._seen_late(card)
                for other in self._waiting(card.zone):  # new evidence: asked again
                    other.refused = ""
                self._short = {(i, s) for i, s in self._short if s != card.zone}
            else:  # the same card, read again
                if card.status == "waiting":
                    card.doubted = card.doubted or _disagreeing(card.reading, obs.reading)
                    card.zone, card.refused = self._zone_of(obs), ""
                card.reading, card.present = obs.reading, True

    def _zone_of(self, obs: Observation) -> int | None:
        """The zone of the seat a card lies before: its own, or, where the card nearest it lies
        in another seat's zone, on its row (ON_ITS_ROW), that seat's: a row laid in front of a
        seat may run over the line (Attacke zero-shot, seed 49: the last of Cy's six face-down
        cards, laid in a column, lay past the line into Ben's zone, and Ben was taken to have
        laid it face down)."""
        zone = _zone(obs)
        x, y = obs.center
        near = [(math.hypot(c.center[0] - x, c.center[1] - y), c) for c in self.cards.values()
                if c.present and c.seen and c.track != obs.track]
        if not near:
            return zone
        apart, nearest = min(near, key=lambda n: n[0])
        on_its_row = apart < ON_ITS_ROW * max(_width(obs), nearest.width)
        return nearest.zone if on_its_row and nearest.zone is not None else zone

    def _retire(self, card: Seen, t: float) -> None:
        """A counted card taken away, another laid in its place: the watcher keeps the place's
        track, so the card leaves that key for one of its own."""
        card.present, card.gone_t = False, t
        self._unseen += 1
        self.cards[-self._unseen] = self.cards.pop(card.track)

    def _seen_late(self, card: Seen, named: str | None = None) -> bool:
        """A card that appears in a seat's zone soon after a person named a card of his the
        camera did not see, and may read as it (or that a person now names as it: `named`),
        is that card, seen late (it lay under the hand or under the cards laid after it), not
        one more. Attacke seed 4, zero-shot: Eli's green 2, named unseen, was found 1.4 s later,
        read as a green 7 at 0.43, and named green 2 again, a fourth card of his laying."""
        for old in self.cards.values():
            if old.seen or old.status == "ignored" or old.zone != card.zone or \
                    abs(card.t - old.t) > SEEN_LATE_S or old.named is None or \
                    not (old.named == named if named is not None else _may_be(card, old)):
                continue
            card.status, card.contest, card.at = old.status, old.contest, old.at
            card.named, card.order, card.late = old.named, old.order, True
            old.status = "ignored"
            return True
        return False

    def _seen_again(self, card: Seen, t: float) -> bool:
        """A card that appears where a counted card of the seat left a moment ago, while a card
        laid after it, or another of his of that contest, still lies there (it was covered or
        lost a moment, not taken away: a seat's cards leave together), and may read as it, is
        that card seen again, not a new one."""
        for old in self.cards.values():
            if old.status != "counted" or old.present or not old.seen or old.zone != card.zone or \
                    t - old.gone_t > SEEN_AGAIN_S or not any(
                        o.present and o.zone == card.zone and o is not old and o is not card
                        and (o.order > old.order
                             or (o.status == "counted" and o.contest == old.contest))
                        for o in self.cards.values()):
                continue
            near = math.hypot(old.center[0] - card.center[0], old.center[1] - card.center[1])
            if near <= SAME_PLACE * max(old.width, card.width) and _may_be(card, old):
                card.status, card.contest, card.at = "counted", old.contest, old.at
                old.status = "ignored"
                return True
        return False

    def applied(self, decision: Apply) -> None:
        """The referee applied `decision`: its cards now stand for its play, and the next
        seat's turn began when the table showed it (not when it was decided: a person's answer
        may come long after, while the table goes on)."""
        if not isinstance(decision.position, Position):
            return
        at, contest, tracks, shown = decision.position
        self._turn_began = max(self._turn_began, shown)
        for track in tracks:
            card = self.cards.get(track)
            if card is not None:
                card.status, card.contest, card.at, card.refused = "counted", contest, at, ""

    def refused(self, decision: Apply, why: str) -> None:
        """The rules refused `decision`: its cards are asked about (a pass a person said is
        forgotten)."""
        if not isinstance(decision.position, Position):
            return
        if isinstance(decision.event, Passed):
            self._said_passed.discard((decision.position.contest, decision.event.seat))
            self._held = self._version
            return
        for track in decision.position.tracks:
            card = self.cards.get(track)
            if card is not None:
                card.refused, card.named = why, None

    def undone(self, game: Game) -> None:
        """A person took back the last event: the cards it counted are no card of the game any
        more, and no pass is inferred from the table until it changes."""
        for card in self.cards.values():
            if card.status == "counted" and card.at >= len(game.log):
                card.status = "ignored"
        self._said_passed.clear()
        self._face_down.clear()
        self._short.clear()
        self._held = self._version

    def corrected(self, correction: Any, game: Game) -> Apply | None:
        """Attacke has no corrections of its own (an undo replays the game)."""
        return None

    def laid_out(self, game: Game) -> tuple[()]:
        """A play is an event once laid: none is shown ahead of it."""
        return ()

    # -- answers --------------------------------------------------------------------------------

    def answer(self, key: str, choice: str, game: Game, t: float) -> None:
        """A person answered question `key`; AnswerError if the choice is not one it offers or
        the rules refuse it."""
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
            elif not self._seen_late(card, choice):
                self._name(card, choice, game)
            like = _likely(card.reading)
            if choice == BACK and like is not None:
                self._backs_read_as.add(like)
        elif kind == "backs":
            contest, seat = (int(x) for x in rest.split(":"))
            if choice == "0":
                self._no_backs(game, seat)
            else:
                self._face_down[(contest, seat)] = int(choice)
        elif kind == "pass":
            contest, seat = (int(x) for x in rest.split(":"))
            if choice == "passed":
                _check(game, Passed(seat))
                self._said_passed.add((contest, seat))
            elif choice == MORE:
                self._short.add((contest, seat))
            else:
                self._waved[key] = self._order
        elif kind == "more":
            contest, seat = (int(x) for x in rest.split(":"))
            self._name_unseen(contest, seat, choice, game, t)
        self.asked.pop(key, None)

    def _no_backs(self, game: Game, seat: int) -> None:
        """A person says the seat laid no card face down: the backs the camera counts in his
        laying are no cards of his (a card of the seat beside, its row run over the line), and
        those it took for backs only as they read like backs named are no backs: asked about."""
        mine = self._laying(seat)
        as_read = self._as_read(game, seat, mine)
        names = self._as_backs(game, seat, mine, as_read)
        for card, read, name in zip(mine, as_read, names, strict=True):
            if name == BACK and read == BACK:
                card.status = "ignored"
            elif name == BACK:
                self._unlike.add(card.track)

    def _name_unseen(self, contest: int, seat: int, name: str, game: Game, t: float) -> None:
        """A card the seat laid that the camera did not see, or `none`: he laid no more."""
        if name == "none":  # (having named none, "did he pass?" waits for the table)
            self._short.discard((contest, seat))
            self._waved[f"pass:{contest}:{seat}"] = self._order
            if self._too_low(game, seat):  # a heap too few: its count is asked again
                self._face_down.pop((contest, seat), None)
            return
        self._version += 1
        early = self._seen_early(seat, name)
        if early is not None:
            early.named, early.late = name, True
            return
        self._unseen += 1
        self._order += 1
        self.cards[-self._unseen] = Seen(-self._unseen, seat, None, t, self._order,
                                         present=False, gone_t=t, named=name)

    def _seen_early(self, seat: int, name: str) -> Seen | None:
        """A card of the seat's, laid in this turn but after another seat's card and so taken
        for his next laying, read surely as the card a person now names as one the camera did
        not see: that card, seen early (Attacke zero-shot, seed 68: Ben's green 4, read at
        1.00 just after a second box on Dora's card, was counted again in the next contest)."""
        laying = {c.track for c in self._laying(seat)}
        return next((c for c in self._waiting(seat) if c.seen and c.track not in laying
                     and c.named is None and c.t >= self._turn_began
                     and sure_name(c.reading) == name), None)

    def _too_low(self, game: Game, seat: int) -> bool:
        """Is the seat's play, as the table counts it now, refused as not higher?"""
        play = self._play_of(game, seat) if game.turn == seat else None
        if play is None:
            return False
        try:
            game.check(play[0])
        except NotHigher:
            return True
        except RuleError:
            return False
        return False

    def _name(self, card: Seen, name: str, game: Game) -> None:
        before = card.named, card.refused
        card.named, card.refused = name, ""
        seat = game.turn
        if seat is None or card.zone != seat:
            return
        play = self._play_of(game, seat)
        if play is not None:
            try:
                game.check(play[0])
            except RuleError as err:
                key = (game.contest.index, seat)
                if isinstance(err, NotHigher):  # he laid one more the camera missed (named
                    self._short.add(key)        # next; "none" asks the face-down count again)
                    return
                card.named, card.refused = before
                raise AnswerError(str(err)) from err

    # -- deciding --------------------------------------------------------------------------------

    def decide(self, game: Game | None, t: float) -> list[Decision]:
        """What follows from the table and the game now: one Apply (the referee applies it and
        asks again), or the questions to ask and withdraw."""
        if game is None or game.game_over or game.turn is None:
            keys = list(self.asked)
            self.asked.clear()
            return [Withdraw(k) for k in keys]
        self._forget(game)
        self._doubt_in_place(game)
        self._heap_seen_late(game)
        step = self._next(game, t)
        if step is not None:
            return [step]
        return ask_anew(self.asked, (q for q in self._questions(game, t)
                                     if self._waved.get(q.key) != self._order))

    def _next(self, game: Game, t: float) -> Apply | None:
        seat = game.turn
        assert seat is not None
        index = game.contest.index
        begun = self._turn_began
        if (index, seat) in self._said_passed:
            self._said_passed.discard((index, seat))
            return Apply(Passed(seat), position=Position(len(game.log), index, (), begun))
        if (index, seat) in self._short:  # a person is naming the cards the camera missed
            return None
        mine = self._laying(seat)
        if mine:
            cleared = self._cleared_before(game, seat, mine, t)
            if cleared is None:
                cleared = self._left_before(game, seat, mine, t)
            if cleared is not None:  # he passed; his cards are his next contest's
                return Apply(Passed(seat), position=Position(len(game.log), index, (), cleared))
            if not self._settled(game, mine, t):
                return None
            play = self._play_of(game, seat)
            if play is None:
                return None
            event, cards = play
            seen = [c for c in cards if c.seen]
            named = next((c for c in seen if c.named is not None), None)
            first = named or (seen[0] if seen else None)
            return Apply(event, first.track if first else None, named.named if named else None,
                         Position(len(game.log), index, tuple(c.track for c in cards),
                                  max((c.t for c in seen), default=begun)))
        if self._held == self._version:
            return None
        laid = self._laid_seen(game, seat)
        if laid and not any(c.present for c in laid) and not self._acted_before(seat, laid) \
                and t - max(c.gone_t for c in laid) >= self.settle_s - 1e-9:
            return Apply(Passed(seat), position=Position(
                len(game.log), index, (), max(c.gone_t for c in laid)))
        acted = self._other_acted(game, seat, t) if self._empty(game, seat) else None
        if acted is not None:  # his pass came before that act, and so did the next seat's turn
            return Apply(Passed(seat), position=Position(len(game.log), index, (),
                                                         acted - BEFORE_S))
        return None

    def _play_of(self, game: Game, seat: int) -> tuple[CardsPlayed, list[Seen]] | None:
        """The play the seat's laying makes, if every one of its cards is certain."""
        mine = self._laying(seat)
        if not mine:
            return None
        names = self._certain(game, seat, mine)
        if any(n is None for n in names):
            return None
        up = tuple(Card.parse(n) for n in names if n is not None and n != BACK)
        backs = sum(n == BACK for n in names)
        if backs:  # backs lie in a heap the camera cannot count: a person says how many
            said = self._face_down.get((game.contest.index, seat))
            if said is None:
                return None
            backs = said
        return CardsPlayed(seat, up, backs), mine

    def _certain(self, game: Game, seat: int, mine: list[Seen]) -> list[str | None]:
        """Each waiting card's certain name, or None: named, read, or read as backs named were
        (`_as_backs`)."""
        return self._as_backs(game, seat, mine, self._as_read(game, seat, mine))

    def _as_read(self, game: Game, seat: int, mine: list[Seen]) -> list[str | None]:
        """Each waiting card's name as a person named it or the reader read it, or None; a card
        is narrowed beside the others of the play that a person named or the reader is sure
        of."""
        known = {c.track: _known(c) for c in mine}
        out: list[str | None] = []
        for c in mine:
            others = [n for k, n in known.items() if k != c.track and n is not None]
            if c.named is not None:
                out.append(c.named if legal_name(game, seat, c.named, others) else None)
            elif c.refused or c.doubted:
                out.append(None)
            else:
                out.append(certain_name(c.reading, _legal_for(game, seat, others)))
        return out

    def _as_backs(self, game: Game, seat: int, mine: list[Seen], names: list[str | None]
                  ) -> list[str | None]:
        """`names`, where cards left unsure read as a card people named a back this game was
        read (the same best guess, both LIKELY or more): backs. A deck's backs are one picture,
        and a design whose backs the camera takes for a shield 10 reads them all so (Attacke
        zero-shot, seed 59: 192 questions, one for each back). The face-down count a person is
        asked next checks it: a count below the backs so counted (a face-up card read like
        them among them), or none, drops the likeness, and each of those cards is asked about.
        A box read far less sure is no likeness: Attacke zero-shot, seed 19, a second box on
        Ana's red 3 read as a shield 10 at 0.32, like her backs, was taken for one, and her
        count of the contest's backs, laid a round later, confirmed it."""
        alike = [i for i, (c, name) in enumerate(zip(mine, names, strict=True))
                 if name is None and c.named is None and not c.refused and not c.doubted
                 and c.track not in self._unlike
                 and _likely(c.reading) in self._backs_read_as]
        if not alike or not legal_name(game, seat, BACK):
            return names
        said = self._face_down.get((game.contest.index, seat))
        if said is not None and said < sum(n == BACK for n in names) + len(alike):
            return names
        out = list(names)
        for i in alike:
            out[i] = BACK
        return out

    def _settled(self, game: Game, mine: list[Seen], t: float) -> bool:
        """Is the laying over: taken away, quiet for `settle_s`, or another seat acted after
        it (laid a card, or, the laying lying there still, took away all his cards of the
        contest: passed; where cards of the laying left too, the table is being cleared, and
        the rules for cards taken away decide: Attacke zero-shot, seed 71)?"""
        last = max(c.order for c in mine)
        gone = not any(c.present for c in mine)  # taken away, not moved: his laying was over
        return ((gone and t - max(c.gone_t for c in mine) >= GONE_S - 1e-9)
                or t - self._quiet(mine[0].zone, max(c.t for c in mine)) >= self.settle_s - 1e-9
                or any(c.order > last and c.zone is not None and c.zone != mine[0].zone
                       for c in self.cards.values())
                or (all(c.present for c in mine)
                    and self._passed_after(game, mine[0].zone, max(c.t for c in mine))))

    def _passed_after(self, game: Game, seat: int | None, since: float) -> bool:
        """Did another seat in the contest take away all his cards of it after `since` (the
        last card of this laying)? He passed, after it: the laying was over. Attacke zero-shot,
        seed 80: Ben laid a green 5, Ana took her cards away a second and a half later, and
        Ben's hand came at once to clear his won contest; his zone was never quiet, the green
        5 was never played, and a card he laid next was asked about as this contest's."""
        c = game.contest
        for other in range(game.n):
            laid = self._laid_seen(game, other) if other != seat and c.in_play(other) else []
            if laid and not any(k.present for k in laid) and \
                    min(k.gone_t for k in laid) > since:
                return True
        return False

    def _quiet(self, zone: int | None, since: float) -> float:
        """When the seat's zone last changed: `since` (its last card seen), or later, when a
        hand last moved over it."""
        return max(since, self._hands.get(zone, since)) if zone is not None else since

    def _waiting(self, zone: int | None) -> list[Seen]:
        """The cards in a seat's zone that are no part of the game yet, in arrival order."""
        return sorted((c for c in self.cards.values()
                       if c.status == "waiting" and c.present and c.zone == zone
                       and zone is not None), key=lambda c: c.order)

    def _laying(self, seat: int) -> list[Seen]:
        """The cards the seat at turn is laying: those waiting in his zone, and those that left
        it since his turn began. A card that left and was laid down again at
        once (moved: another card arrived within GONE_S and stayed after it left) is not laid
        twice; a card that arrived and left with it was cleared with it (Attacke zero-shot,
        seed 71: Cy's back, laid a second before his red 2, both taken away as he won, was
        taken for moved, and his play counted without it). Where cards
        left for good, the laying ended then (the victor clearing his cards as soon as the
        others passed unseen): it is the cards laid until then; what came later is his next.
        A card that appeared before his turn began and left with his counted cards, reading as
        one of them, was that one seen twice (a heap), not laid. A card of his laid after
        another seat's card is his next laying (the table went on while a question about this
        one waited)."""
        cleared = self._cleared(seat)
        zone = [c for c in self.cards.values() if c.status == "waiting" and c.zone == seat
                and self._may_be_laid(c, cleared)]
        zone = self._until_another_seat(seat, sorted(zone, key=lambda c: c.order))
        left = [c for c in zone if c.seen and not c.present and not any(
            o.seen and o.order > c.order and abs(o.t - c.gone_t) <= GONE_S
            and (o.present or o.gone_t - c.gone_t > GONE_S) for o in zone)]
        if not left:  # (a card a person named, unseen, is laid: it never lay in view)
            return [c for c in zone if c.present or not c.seen]
        ended = min(c.gone_t for c in left)
        return [c for c in zone if not c.seen or (c.t <= ended and (c in left or c.present))]

    def _may_be_laid(self, c: Seen, cleared: list[Seen]) -> bool:
        """A waiting card of the seat's zone that may be of his laying: lying there, named by
        a person, or gone since his turn began, unless it appeared before that and left with
        one of his counted cards (`cleared`) that it may read as (the turn waited on a
        question while he laid it, and it is his next play all the same)."""
        if c.present or not c.seen:
            return True
        if c.gone_t < self._turn_began:
            return False
        return c.t >= self._turn_began or not _left_with(c, cleared)

    def _cleared(self, seat: int) -> list[Seen]:
        """The seat's counted cards the camera saw taken away."""
        return [c for c in self.cards.values()
                if c.status == "counted" and c.zone == seat and c.seen and not c.present]

    def _until_another_seat(self, seat: int, zone: list[Seen]) -> list[Seen]:
        """The seen cards of `zone` (in order) up to the first laid after another seat's
        card; the cards a person named stay, seen late or not (Attacke zero-shot, seed 69:
        Dora's second green 2, named unseen while Eli laid his card, was found a second later,
        and taken for her next laying: her play was refused as too low, 3 of 12)."""
        others = [c.order for c in self.cards.values()
                  if c.seen and c.zone not in (None, seat) and c.status != "ignored"]
        seen = [c for c in zone if c.seen and not c.late]
        for before, after in zip(seen, seen[1:], strict=False):
            if any(before.order < o < after.order for o in others):
                return [c for c in zone if not c.seen or c.late or c.order < after.order]
        return zone

    def _laid(self, game: Game, seat: int) -> list[Seen]:
        """The counted cards `seat` laid in the contest in play."""
        return [c for c in self.cards.values() if c.status == "counted" and c.zone == seat
                and c.contest == game.contest.index]

    def _laid_seen(self, game: Game, seat: int) -> list[Seen]:
        """Those of them the camera saw: only they can be seen leaving."""
        return [c for c in self._laid(game, seat) if c.seen]

    def _acted_before(self, seat: int, laid: list[Seen]) -> bool:
        """Another seat laid a card in this turn, or took away cards of this contest, before
        the seat's cards left: he did something the camera did not see first (laid cards face
        down over his own, say, so that the others passed and he cleared the contest he won);
        a person says which."""
        left = max(c.gone_t for c in laid)
        contest = laid[0].contest
        return any(c.seen and c.zone is not None and c.zone != seat and (
            (c.status == "waiting" and self._turn_began <= c.t < left)
            or (c.status == "counted" and c.contest == contest and not c.present
                and self._turn_began < c.gone_t < left))  # (the pass that began his turn: no)
            for c in self.cards.values())

    def _empty(self, game: Game, seat: int) -> bool:
        """Nothing of this contest lies in the seat's zone, and the game holds none of his."""
        c = game.contest
        if c.played[seat] or c.concealed[seat] or self._laid(game, seat):
            return False
        return not any(k.present and k.zone == seat and k.status != "counted"
                       for k in self.cards.values())

    def _other_acted(self, game: Game, seat: int, t: float) -> float | None:
        """When another seat still in the contest acted, or None: a card of his laid since the
        turn began lies settled in his zone, likely a card (one lying from before is no act,
        nor a glare), or every card of his the camera saw laid in this contest has gone
        (settled; when the first left). Turns go clockwise: the seat at turn acted before him,
        and so did every seat between: the act is after their turns began too (Attacke
        zero-shot, seed 18: Ana's cards' leaving told that the empty seats had passed, and
        Eli's turn was taken to begin only then, so his own cards' leaving after hers was
        taken for his pass; he had laid a yellow 5 unseen first)."""
        c = game.contest
        for other in range(game.n):
            if other == seat or not c.in_play(other):
                continue
            settled = self._acts(other, t)
            if settled:
                return min(settled)
            laid = self._laid_seen(game, other)
            if laid and not any(k.present for k in laid) and \
                    t - max(k.gone_t for k in laid) >= self.settle_s - 1e-9:
                return min(k.gone_t for k in laid)
        return None

    def _laid_first(self, game: Game, seat: int, first: float, t: float) -> float | None:
        """When another seat still in the contest laid a card (`_acts`) before `first` (the
        seat's laying's first card), or None."""
        c = game.contest
        return min((when for other in range(game.n) if other != seat and c.in_play(other)
                    for when in self._acts(other, t, first)), default=None)

    def _acts(self, other: int, t: float, before: float = math.inf) -> list[float]:
        """When the cards in seat `other`'s zone that are an act of his arrived: laid since
        the turn began (one lying from before is no act) and before `before`, likely a card (a
        glare is none), and settled, or taken away after lying GONE_S or more (a laying taken
        back before it settled is laid all the same, A5: Attacke zero-shot, seed 48: Cy's two
        purple 5s lay 2.4 s and were taken away as Dora laid her 7 over his; the seats before
        him were not taken to have passed, nor he to have laid them). One that left with a
        counted card of his that it may read as is that card seen twice (a heap), no act."""
        cleared = self._cleared(other)
        return [k.t for k in self.cards.values()
                if k.status == "waiting" and k.zone == other and k.seen
                and self._turn_began <= k.t < before and _likely_a_card(k)
                and (t - k.t >= self.settle_s - 1e-9 if k.present
                     else k.gone_t - k.t >= GONE_S - 1e-9 and not _left_with(k, cleared))]

    def _cleared_before(self, game: Game, seat: int, mine: list[Seen], t: float
                        ) -> float | None:
        """When another seat laid a card (`_laid_first`) or his cards of this contest all left
        the table (settled) before any card of the seat's laying arrived, and
        he has none in the contest: he passed then (an opener with no knight, A3, whose next
        laying is a challenge; the victor clears his cards once the others passed; a question
        about the last play may have held the game back while the table went on). None
        otherwise."""
        c = game.contest
        if c.played[seat] or c.concealed[seat] or self._laid(game, seat):
            return None
        first = min((k.t for k in mine if k.seen), default=None)
        if first is not None and (before := self._laid_first(game, seat, first, t)) is not None:
            return before
        for other in range(game.n):
            laid = self._laid_seen(game, other) if other != seat else []
            if not laid or any(k.present for k in laid):
                continue
            gone = max(k.gone_t for k in laid)
            if first is not None and gone < first and t - gone >= self.settle_s - 1e-9:
                return gone
        return None

    def _left_before(self, game: Game, seat: int, mine: list[Seen], t: float) -> float | None:
        """When every card the seat laid in this contest that the camera saw left his zone
        (settled) GONE_S or more before the first card of his laying now arrived, no other
        seat having acted first: he passed then (A7), and what he lays now is his next
        contest's. Attacke seed 11, zero-shot: a question about the victor's face-down heap
        held the game until the next contest's cards lay on the table; Ben's shield and back
        of contest 12 were taken for his play in contest 11. None otherwise."""
        laid = self._laid_seen(game, seat)
        first = min((k.t for k in mine if k.seen), default=None)
        if not laid or first is None or any(k.present for k in laid) or \
                self._acted_before(seat, laid):
            return None
        gone = max(k.gone_t for k in laid)
        if first - gone >= GONE_S - 1e-9 and t - gone >= self.settle_s - 1e-9:
            return gone
        return None

    def _heap_seen_late(self, game: Game) -> None:
        """Backs that appear in a seat's zone after his face-down cards of this contest were
        counted, as many as a person said: more of that heap, seen late (face-down cards are
        laid once a contest, A12), not a new act. A back is read surely so, or as the heap's
        backs were read: Attacke zero-shot, seed 9, whose design's backs read as a shield 10
        at 0.65-0.95, took one seen late for a new shield 10 of the seat."""
        index = game.contest.index
        for (contest, seat), said in self._face_down.items():
            if contest != index:
                continue
            heap = [c for c in self.cards.values() if c.status == "counted" and c.zone == seat
                    and c.contest == index and BACK in (c.named, sure_name(c.reading))]
            if not heap:
                continue
            late = [c for c in self._waiting(seat) if sure_name(c.reading) == BACK
                    or any(_reads_like(c.reading, h.reading) for h in heap)]
            for card in late[:max(0, said - len(heap))]:
                card.status, card.contest, card.at = "counted", index, heap[0].at

    def _forget(self, game: Game) -> None:
        """Drop cards of earlier contests that left the table: they no longer matter."""
        index = game.contest.index
        self.cards = {k: c for k, c in self.cards.items()
                      if c.present or c.status == "waiting" or c.contest >= index - 1}

    def _doubt_in_place(self, game: Game) -> None:
        """A card read surely where a counted card of the contest in play lay: cards laid stay
        laid (A5), so the reader is taken to disagree with itself, and a person says what lies
        there (the earlier read named). Of a contest over, it is the next contest's card laid
        on its place. Attacke zero-shot, seed 89: Ben's blue 2, half under his next card, read
        as a blue 4 at 0.985 while he laid cards face down beside it, was counted a blue 4."""
        for c in self.cards.values():
            if c.in_place_of is not None and c.status == "waiting" and not c.doubted and \
                    c.in_place_of[1] == game.contest.index:
                c.doubted = c.in_place_of[0]
            c.in_place_of = None

    # -- questions ------------------------------------------------------------------------------

    def _questions(self, game: Game, t: float) -> list[Question]:
        seat = game.turn
        assert seat is not None
        index, name = game.contest.index, game.players[seat]
        where = f"contest {index + 1}"
        mine = self._laying(seat)
        out = []
        if (index, seat) in self._short and all(self._certain(game, seat, mine)):
            return [self._unseen_question(game, seat, mine)]
        if mine:
            if not self._settled(game, mine, t):
                return []
            names = self._certain(game, seat, mine)
            for c, certain in zip(mine, names, strict=True):
                if certain is not None and not c.refused:
                    continue
                others = [n for k, n in zip(mine, names, strict=True) if k is not c and n]
                legal = [n for n in CARD_NAMES if legal_name(game, seat, n, others)]
                ranked = _ranked(c.reading, legal)
                sure = _known(c)
                ok = sure if sure in legal else None
                out.append(Question(
                    f"card:{c.track}",
                    f"Which card did {name} lay in {where}?{_why(c, legal)}{_beside(others)}",
                    (*(Choice(n, _label(n)) for n in ranked),
                     Choice("none", "Not a card of the game")),
                    ok, seat, index, 0, c.track))
            backs = sum(n == BACK for n in names)
            if backs and (index, seat) not in self._face_down:
                most = max(backs, game.piles.hands[seat] - (len(names) - backs))
                out.append(Question(
                    f"backs:{index}:{seat}",
                    f"How many cards did {name} lay face down in {where}? The camera sees "
                    f"{backs}; face-down cards in a heap may hide one another.",
                    (*(Choice(str(k), str(k)) for k in range(1, most + 1)),
                     Choice("0", "None: no card of his lies face down")),
                    str(backs), seat, index, 0,
                    next(c.track for c, n in zip(mine, names, strict=True) if n == BACK)))
            return out
        laid = self._laid_seen(game, seat)
        present = [c for c in laid if c.present]
        gone = [c for c in laid if not c.present]
        if self._empty(game, seat):
            return []  # a pass with an empty zone: no question
        acted_first = bool(gone) and self._acted_before(seat, laid)
        if laid and not present and not acted_first:
            return []  # a pass by removal: no question
        partly_gone = bool(gone) and t - max(c.gone_t for c in gone) >= self.settle_s - 1e-9
        if partly_gone or acted_first or self._other_acted(game, seat, t) is not None:
            why = ("another player laid or took away cards before his were taken away"
                   if acted_first else f"cards of {name}'s still lie in front of him")
            out.append(Question(
                f"pass:{index}:{seat}",
                f"It is {name}'s turn in {where}: did {name} pass? The camera saw nothing new "
                f"from him; {why}.",
                (Choice("passed", f"{name} passed"),
                 Choice(MORE, f"{name} laid cards the camera did not see"),
                 Choice("wait", "Not yet")),
                None, seat, index, 0, present[0].track if present else None))
        return out

    def _unseen_question(self, game: Game, seat: int, mine: list[Seen]) -> Question:
        """Which card the seat laid that the camera did not see (asked until `none`)."""
        index, name = game.contest.index, game.players[seat]
        names = [n for n in self._certain(game, seat, mine) if n is not None]
        legal = [n for n in CARD_NAMES if legal_name(game, seat, n, names)
                 and not (n == BACK and BACK in names)]  # face down: their count is asked
        seen = ", ".join(_label(n) for n in names) or "nothing"
        return Question(
            f"more:{index}:{seat}",
            f"Which card did {name} lay in contest {index + 1} that the camera did not see? "
            f"The camera counts {seen} in this laying.",
            (*(Choice(n, _label(n)) for n in legal), Choice("none", "No other card")),
            None, seat, index, 0, next((c.track for c in mine if c.seen), None))


# --- helpers -------------------------------------------------------------------------------------


def _check(game: Game, event: Passed | CardsPlayed) -> None:
    try:
        game.check(event)
    except RuleError as err:
        raise AnswerError(str(err)) from err


def _likely_a_card(card: Seen) -> bool:
    """Named by a person, read surely, or read as one card at LIKELY or more: not a glimpse
    of the table, nor a glare (Attacke seed 4, zero-shot: a lamp's glare in Fay's empty zone,
    read as five yellow cards at 0.16 to 0.08, stood for her act, and the three seats before
    her were taken to have passed)."""
    return card.named not in (None, "none") or sure_name(card.reading) is not None or \
        _likely(card.reading) is not None


def _likely(reading: Any) -> str | None:
    """The reader's best guess for a card, where LIKELY or more."""
    best = candidates(reading)[:1]
    return best[0][0] if best and best[0][1] >= LIKELY else None


def _left_with(card: Seen, cleared: list[Seen]) -> bool:
    """Did the card leave with one of the counted cards `cleared` that it may read as (within
    GONE_S): that card seen twice, in a heap?"""
    return any(abs(card.gone_t - g.gone_t) <= GONE_S and _may_be(card, g) for g in cleared)


def _may_be(card: Seen, other: Seen) -> bool:
    """May `card` read as `other` (the name a person gave it, or its sure read)?"""
    name = other.named or sure_name(other.reading)
    return name is not None and probability(card.reading, name) >= MAY_BE_SAME


def _reads_like(reading: Any, other: Any) -> bool:
    """Is the reader's best guess for a card (MAY_BE_SAME or more) its best for `other`'s? A
    design's backs may all read as one card, a shield 10 say, and a person named them."""
    guess, like = candidates(reading)[:1], candidates(other)[:1]
    return bool(guess and like) and guess[0][0] == like[0][0] and \
        min(guess[0][1], like[0][1]) >= MAY_BE_SAME


def _swapped(card: Seen, reading: Any) -> bool:
    """Is a counted card, read again surely as another card it can hardly be, another card laid
    where it lay (a heap taken away and the next contest's card laid on its place), not the
    same card read again?"""
    known = card.named or sure_name(card.reading)
    now = sure_name(reading)
    return card.status == "counted" and known is not None and now is not None and \
        now != known and probability(reading, known) < MAY_BE_SAME


def _ranked(reading: Any, legal: list[str]) -> list[str]:
    """Every legal card, the reader's likelier ones first (then in deck order)."""
    return sorted(legal, key=lambda n: -probability(reading, n))


def _label(name: str) -> str:
    return "face down" if name == BACK else name.replace("-", " ")


def _beside(others: list[str]) -> str:
    """The cards of the laying the camera knows, beside the one asked about: a person looking
    at a fan of three tells which card is meant (Attacke zero-shot, seed 16: a box across two
    cards of a fan was named as the one beside it, read surely, and the play counted twice)."""
    if not others:
        return ""
    backs = others.count(BACK)
    words = [_label(n) for n in others if n != BACK] + \
        ([f"{backs} face down" if backs > 1 else "face down"] if backs else [])
    return f" Laid with it: {', '.join(words)}."


def _known(card: Seen) -> str | None:
    """What a card is known to be: named by a person, or read surely by a reader that did not
    read it as another card before."""
    if card.named is not None:
        return card.named
    return None if card.doubted else sure_name(card.reading)


def _disagreeing(before: Any, after: Any) -> str:
    """The card an earlier read of a card still lying there was likely (LIKELY or more), where
    a sure read of it now names another that read gave under MAY_BE_SAME: the reader
    disagrees with itself, and its sureness is not to be taken (Attacke zero-shot, seed 15:
    Ben's red 3 read as a red 4 at 0.83, then as a red 5 at 0.98, and counted so)."""
    now, guess = sure_name(after), candidates(before)[:1]
    if now is None or not guess or guess[0][0] == now or guess[0][1] < LIKELY:
        return ""
    return guess[0][0] if probability(before, now) < MAY_BE_SAME else ""


def _why(c: Seen, legal: list[str]) -> str:
    if c.refused:
        return f" The rules refused the play: {c.refused}."
    sure = sure_name(c.reading)
    if sure is not None and c.doubted:
        return f" The camera read it as {_label(c.doubted)}, then as {_label(sure)}."
    if sure is not None and sure not in legal:
        return f" The camera read {_label(sure)}, which the rules do not allow here."
    best = max(candidates(c.reading), key=lambda x: x[1], default=None)
    if best is None:
        return " The camera could not read it."
    return f" The camera is not sure (best guess {_label(best[0])}, {best[1]:.0%} sure)."

