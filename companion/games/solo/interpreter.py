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
  informants. A mission that fails is applied at once; one that succeeds once the player has
  cleared all but one card from the spot (`laid`: that card), or all of them (`laid` none).
- **A jack** (S8): a lone jack laid in the player's zone and one informant turned face up.
- **A redraw** (S7): any other cards laid in the player's zone, once the laying settled; a lone
  jack is a redraw once it is taken away and no informant was turned for twice `settle_s`.
- **Draws** (S6) are never seen. Before a move, the draws its cards need (the hand must hold
  them) are certain; where the hand could have taken more, a person says how many ("How many
  cards did Ana draw before this move?", OK confirming the least). The Rebels' deck taken away
  for good says it ran out: the draws that emptied it.

Nothing is scored on a guess. A card read unsure, read as one the rules refuse (a Rebels' card
seen before, an informant that cannot be one), or part of a move the rules refused as a whole is
asked about, with every card the rules allow there, ranked by the reader, and OK confirming the
reader's own sure read where it is one of them. An answer names a card (`QH`, `back`) or says it
is no card of the game (`none`).

Undo: the cards of an event taken back are no card of the game any more, draws said are asked
again, and nothing is inferred until the table changes. Solo has no corrections of its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from vision.types import Change, Observation, Reading

from ..base import AnswerError, Apply, Choice, Decision, Question, Withdraw, ask_anew
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
MIN_PROBABILITY = 0.5  # a narrowed read is sure at this probability (given that it is legal),
MIN_ODDS = 4.0         # this many times likelier than the next legal card,
MIN_RAW = 0.25         # and the reader itself gave it at least this
BACK = "back"          # a card face down: an informant not turned, the Rebels' deck
HAND = 0               # the player's zone: a seat's zone, the only one
ROW = "scoring"        # the informants' row: the zones file's scoring row
DECK = "deck"          # the Rebels' deck's place
SPOTS = {s.value: s for s in Spot}
FACES: tuple[str, ...] = tuple(n for n in CARD_NAMES if n != BACK)


# --- the reader's names for a card: the one place that reads them ------------------------------


def candidates(reading: Reading | None) -> list[tuple[str, float]]:
    """The reader's candidate names for the card and their probabilities, best first."""
    return list(reading.named) if reading is not None else []


def sure_name(reading: Reading | None) -> str | None:
    """The name the reader is sure of (above its own line), or None."""
    return reading.label if reading is not None else None


def narrow(reading: Any, legal: Callable[[str], bool]) -> str | None:
    """The certain name of a card, or None. A sure read the rules allow is certain; one they
    refuse is not. An unsure read is certain where its best legal candidate, its probability
    conditioned on the card being legal, is likely enough, far likelier than the next, and
    reaches the reader's own line: what the rules rule out can lift a read, nothing lowers it."""
    sure = sure_name(reading)
    if sure is not None:
        return sure if legal(sure) else None
    cands = candidates(reading)
    ranked = sorted(((n, p) for n, p in cands if legal(n)), key=lambda x: -x[1])
    if not ranked:
        return None
    mass = max(1.0 - sum(p for n, p in cands if not legal(n)), 1e-9)
    p1 = ranked[0][1] / mass
    p2 = ranked[1][1] / mass if len(ranked) > 1 else 0.0
    line = reading.line if reading is not None else 0.0
    ok = p1 >= MIN_PROBABILITY and p1 >= MIN_ODDS * p2 and ranked[0][1] >= MIN_RAW and p1 >= line
    return ranked[0][0] if ok else None


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
    x: float = 0.0                   # across the picture: the row lists informants by it


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
    _last_change: float = 0.0
    _moved: int = 0                                        # the arrival order at the last event

    # -- what happened -------------------------------------------------------------------------

    def seen(self, changes: Iterable[Change], t: float) -> None:
        """The watcher's changes at frame time t."""
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
                self._order += 1
                self.cards[obs.track] = Seen(obs.track, _zone(obs), obs.reading, t, self._order,
                                             x=float(obs.center[0]))
            else:  # the same card, read again
                turned = _top(card.reading) != _top(obs.reading)
                card.reading, card.present = obs.reading, True
                if card.status == "waiting":
                    card.zone, card.refused = _zone(obs), ""
                    if turned:  # turned over where it lies (an informant): new on the table
                        self._order += 1
                        card.order, card.t = self._order, t

    def applied(self, decision: Apply) -> None:
        """The referee applied `decision`: its cards now stand for its move."""
        if not isinstance(decision.event, CardDrawn):  # a draw is not seen: nothing moved
            self._moved = self._order
        if decision.position is None:
            return
        at, tracks = decision.position
        for track in tracks:
            card = self.cards.get(track)
            if card is not None:
                card.status, card.at, card.refused = "counted", at, ""
        event = decision.event
        if isinstance(event, JackPlayed) and tracks[1] in self.cards:
            self.cards[tracks[1]].named = str(event.revealed)  # where it lies in the row

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
        self._held = self._version

    def corrected(self, correction: Any, game: Game) -> Apply | None:
        """Solo has no corrections of its own (an undo replays the game)."""
        return None

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
        spot, hand = self._spot_laying(), self._hand_laying()
        if spot and (not hand or spot[0].order < hand[0].order):  # the move laid first
            move = self._mission(game, spot, t, questions)
        else:
            move = self._from_hand(game, hand, t, questions)
        if move is not None:
            draws = self._draws_before(game, move, questions)
            if draws is not True:
                return draws or None
            return Apply(move.event, move.tracks[0] if move.tracks else None,
                         self._learned(move), (len(game.log), move.tracks))
        if self._deck_gone(game, t) and game.rebels.draw <= MAX_HAND - game.rebels.hand:
            return Apply(CardDrawn(), position=(len(game.log), ()))  # S15: it ran out
        return None

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
        row = self._row(laying[0].order, gone_too=True)
        if not self._settled(laying, t, row):
            return None
        names = self._certain(laying, lambda n, others: from_hand(game, n, others))
        self._ask_cards(game, laying, names, questions, f"lay on spot {spot.value}")
        faces = self._informants(game, row, questions)
        if faces is None or any(n is None for n in names):
            return None
        cards = tuple(Card.parse(n) for n in names if n is not None)
        informants = self._along_the_row(game, faces)
        tracks = (*(c.track for c in laying), *(c.track for c, _ in faces))
        laid = self._laid_card(game, spot, cards, informants, laying, names, t, questions)
        if laid is False:
            return None
        return Move(MissionPlayed(spot, cards, informants, laid), tracks, len(cards))

    def _informants(self, game: Game, row: list[Seen], questions: list[Question]
                    ) -> list[tuple[Seen, str]] | None:
        """The informants turned in the row since the mission's cards were laid, once as many
        lie there as the jack left hidden, every one certain; None meanwhile (a question for a
        card not certain that may be one of them)."""
        names = self._certain(row, lambda n, others: informant(game, n, others))
        wanted = game.opponent.informants - len(game.opponent.revealed)
        faces = [(c, n) for c, n in zip(row, names, strict=True) if n is not None and n != BACK]
        if len(faces) < wanted:
            self._ask_cards(game, row, names, questions, "turn in the row")
            return None
        last = faces[wanted - 1][0].order if wanted else -1
        doubt = [(c, n) for c, n in zip(row, names, strict=True) if n is None and c.order < last]
        if doubt:  # an unsure card among the informants: it may be one of them
            self._ask_cards(game, [c for c, _ in doubt], [None] * len(doubt), questions,
                            "turn in the row")
            return None
        return faces

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
        if len(left) <= 1 and gone and t - max(gone) >= self.settle_s - 1e-9:
            return Card.parse(left[0]) if left and left[0] else None
        if t - self._last_change >= 2 * self.settle_s - 1e-9 and len(left) > 1:
            questions.append(Question(
                f"laid:{number}",
                f"The mission to spot {spot.value} succeeded: which card stays on the spot?",
                (*(Choice(n, n) for n in dict.fromkeys(x for x in left if x)),
                 Choice("none", "None named")),
                None, 0, number, 0, laying[0].track))
        return False

    def _along_the_row(self, game: Game, faces: list[tuple[Seen, str]]) -> tuple[Card, ...]:
        """Every informant, as they lie along the row (left to right in the picture): those
        turned now, and those a jack turned before (first, where the camera lost them)."""
        turned = {c.named: c.x for c in self.cards.values()
                  if c.zone == ROW and c.status == "counted" and c.named}
        placed = [(turned.get(str(k), float("-inf")), i, k)
                  for i, k in enumerate(game.opponent.revealed)]
        placed += [(c.x, len(placed) + i, Card.parse(n)) for i, (c, n) in enumerate(faces)]
        return tuple(k for _, _, k in sorted(placed, key=lambda p: (p[0], p[1])))

    def _spot_laying(self) -> list[Seen]:
        """The cards of the mission being laid: those waiting on the spot of the first one."""
        waiting = sorted((c for c in self.cards.values() if c.status == "waiting"
                          and isinstance(c.zone, str) and c.zone in SPOTS),
                         key=lambda c: c.order)
        return _one_move([c for c in waiting if c.zone == waiting[0].zone] if waiting else [])

    def _hand_laying(self) -> list[Seen]:
        """The cards of the move being laid in front of the player."""
        return _one_move(sorted((c for c in self.cards.values() if c.status == "waiting"
                                 and c.zone == HAND), key=lambda c: c.order))

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
        row = self._row(self._moved)
        if not self._settled(laying, t, row):
            return None
        names = self._certain(laying, lambda n, others: from_hand(game, n, others))
        self._ask_cards(game, laying, names, questions, "lay in front of you")
        if any(n is None for n in names):
            return None
        cards = tuple(Card.parse(n) for n in names if n is not None)
        tracks = tuple(c.track for c in laying)
        if len(cards) == 1 and cards[0].rank == JACK and game.opponent.face_down:
            return self._jack(game, laying[0], cards[0], row, t, questions)
        return Move(CardsRedrawn(cards), tracks, len(cards))

    def _jack(self, game: Game, jack: Seen, card: Card, row: list[Seen], t: float,
              questions: list[Question]) -> Move | None:
        """A lone jack: it turned the informant that appeared face up, or it was discarded: it
        was taken away and no informant turned for twice `settle_s` (the turned card is read
        before the jack is taken away, and a slow read has that long)."""
        names = self._certain(row, lambda n, others: informant(game, n, others))
        faces = [(c, n) for c, n in zip(row, names, strict=True) if n != BACK]
        if faces:
            self._ask_cards(game, [c for c, _ in faces], [n for _, n in faces], questions,
                            "turn with the jack")
            seen, name = faces[0]
            if name is None:
                return None
            return Move(JackPlayed(card, Card.parse(name)), (jack.track, seen.track), 1)
        taken = not jack.present and t - jack.gone_t >= 2 * self.settle_s - 1e-9
        return Move(CardsRedrawn((card,)), (jack.track,), 1) if taken else None

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
                out.append(narrow(c.reading, lambda n, o=others: legal(n, o)))  # type: ignore[misc]
        return out

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
            ranked = sorted(legal, key=lambda n: -_probability(c.reading, n))
            sure = c.named or sure_name(c.reading)
            questions.append(Question(
                f"card:{c.track}",
                f"Which card did {game.players[0]} {doing}?{_why(c, legal)}",
                (*(Choice(n, _label(n)) for n in ranked), Choice("none", "Not a card of the game")),
                sure if sure in legal else None, 0, len(game.missions), 0, c.track))


# --- helpers -------------------------------------------------------------------------------------


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


def _top(reading: Any) -> str | None:
    """What a reading says first: its sure name, or its best guess."""
    best = max(candidates(reading), key=lambda x: x[1], default=None)
    return sure_name(reading) or (best[0] if best else None)


def _probability(reading: Any, name: str) -> float:
    return max((p for n, p in candidates(reading) if n == name), default=0.0)


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
