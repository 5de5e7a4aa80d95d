"""The exact rules of solo Tightrope with playing cards (docs/rules-solo.md S1-S16): pure Python.

A `Game` applies events (`GameStarted`, `CardDrawn`, `CardsRedrawn`, `JackPlayed`,
`MissionPlayed`) one at a time, refuses what the rules forbid with a `RuleError` naming the rule,
and answers what the table shows: the pyramid, the missions, the cards left in both decks, the
informants. The hand and the hidden informants are face down: the companion counts them, and
knows every card that has been seen, so it can say which cards can still be where (S16).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum

from .. import base
from .cards import JACK, OPPONENT_DECK, REBELS_DECK, Card
from .scoring import Scoring, Variant, score

SEATS = range(1, 2)                        # S2: one player
START_HAND, MAX_HAND = 3, 5                # S2, S6
START_INFORMANTS = 3                       # S2, S13: and one more for each mission won
NEEDS = {1: 18, 2: 26, 3: 34}              # S3: the points a mission needs, by level


class Spot(Enum):
    """The pyramid's six spots (S3), named by level and place."""

    LOW_LEFT = "1a"
    LOW_MIDDLE = "1b"
    LOW_RIGHT = "1c"
    HIGH_LEFT = "2a"
    HIGH_RIGHT = "2b"
    BIG_HIT = "3"

    @property
    def level(self) -> int:
        return int(self.value[0])

    @property
    def need(self) -> int:
        return NEEDS[self.level]

    @property
    def rests_on(self) -> tuple[Spot, ...]:
        """S3 (ruling): a spot above rests on the two below it, and opens once both are won."""
        return RESTS_ON[self]


RESTS_ON = {
    Spot.LOW_LEFT: (), Spot.LOW_MIDDLE: (), Spot.LOW_RIGHT: (),
    Spot.HIGH_LEFT: (Spot.LOW_LEFT, Spot.LOW_MIDDLE),
    Spot.HIGH_RIGHT: (Spot.LOW_MIDDLE, Spot.LOW_RIGHT),
    Spot.BIG_HIT: (Spot.HIGH_LEFT, Spot.HIGH_RIGHT),
}


# --- errors -------------------------------------------------------------------------------


class RuleError(base.RuleError):
    """An event the solo rules forbid. `rule` names the rule of docs/rules-solo.md."""

    rule = "S5"


class WrongDeck(RuleError):
    rule = "S1"


class BadSetup(RuleError):
    rule = "S2"


class NotStarted(RuleError):
    rule = "S2"


class SpotNotOpen(RuleError):
    rule = "S3"


class NotInHand(RuleError):
    """No card named, or more than the hand holds."""

    rule = "S5"


class HandFull(RuleError):
    rule = "S6"


class NotAJack(RuleError):
    rule = "S8"


class NoHiddenInformant(RuleError):
    rule = "S8"


class WrongInformants(RuleError):
    rule = "S9"


class WrongLaidCard(RuleError):
    rule = "S13"


class GameOver(RuleError):
    rule = "S15"


class SeenTwice(RuleError):
    """A card seen where it cannot be: it is already somewhere else."""

    rule = "S16"


class NothingToUndo(RuleError):
    rule = "record"


# --- events -------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameStarted:
    players: tuple[str, ...]
    variant: Variant = Variant()

    def __post_init__(self) -> None:
        fault = base.seating_fault(self.players, SEATS, "Tightrope (solo)")
        if fault:
            raise BadSetup(fault)


@dataclass(frozen=True)
class CardDrawn:
    """One card from the Rebels' deck into the hand (S6); nobody sees which."""


@dataclass(frozen=True)
class CardsRedrawn:
    """`cards` discarded face up, as many drawn, as many informants dealt (S7)."""

    cards: tuple[Card, ...]


@dataclass(frozen=True)
class JackPlayed:
    """A jack from the hand turns `revealed`, a hidden informant, face up (S8)."""

    jack: Card
    revealed: Card


@dataclass(frozen=True)
class MissionPlayed:
    """`cards` played to `spot`; `informants` all of them, face up (S9); `laid` the played card
    left on the spot when the mission succeeds, if named (S13)."""

    spot: Spot
    cards: tuple[Card, ...]
    informants: tuple[Card, ...]
    laid: Card | None = None


GameEvent = GameStarted | CardDrawn | CardsRedrawn | JackPlayed | MissionPlayed


@dataclass(frozen=True)
class Mission:
    """A mission as it was resolved."""

    index: int
    spot: Spot
    cards: tuple[Card, ...]
    informants: tuple[Card, ...]
    scoring: Scoring
    laid: Card | None

    @property
    def success(self) -> bool:
        return self.scoring.total >= self.spot.need

    @property
    def photo_key(self) -> tuple[int, int]:
        return self.index, 0

    @property
    def photo_stem(self) -> str:
        return f"mission-{self.index + 1}"


# --- what the companion counts ------------------------------------------------------------


@dataclass
class Rebels:
    """The Rebels' deck: its draw pile and the hand (counted), every card of it seen face up
    (none comes back: S15), the spots won and the card named on each."""

    draw: int
    hand: int = START_HAND
    seen: list[Card] = field(default_factory=list)
    spots: dict[Spot, Card | None] = field(default_factory=dict)


@dataclass
class Opponent:
    """The Opponent's deck: the draw pile (counted), the discarded informants (all seen), the
    informants a jack turned, those hidden but deduced (dealt from a pile used up since, S14),
    and how many are hidden among the cards of the pile in use."""

    draw: int
    discard: list[Card] = field(default_factory=list)
    revealed: list[Card] = field(default_factory=list)
    deduced: list[Card] = field(default_factory=list)
    hidden: int = 0

    @property
    def face_down(self) -> int:
        """Every hidden informant, deduced or not."""
        return len(self.deduced) + self.hidden

    def known(self) -> list[Card]:
        """The informants whose cards are known: turned by a jack, or deduced."""
        return [*self.revealed, *self.deduced]

    @property
    def informants(self) -> int:
        return len(self.revealed) + self.face_down

    def unseen(self) -> frozenset[Card]:
        """The cards of the pile in use, drawn or not: the hidden informants dealt from it are
        `hidden` of these, any of them alike."""
        return OPPONENT_DECK - set(self.discard) - set(self.known())

    def deal(self, n: int) -> None:
        """n informants, face down. The pile used up, the discarded informants are shuffled
        into a new one; with none there, fewer are dealt (S14)."""
        for _ in range(n):
            if not self.draw:
                self._reshuffle()
            if not self.draw:
                return
            self.draw -= 1
            self.hidden += 1

    def _reshuffle(self) -> None:
        self.deduced += sorted(self.unseen())  # the pile is used up: its hidden cards are left
        self.hidden = 0
        self.draw, self.discard = len(self.discard), []


# --- the game -----------------------------------------------------------------------------


class Game(base.EventGame[GameEvent]):
    """A game of solo Tightrope built by applying events. The one place its rules live."""

    not_started = NotStarted
    nothing_to_undo = NothingToUndo

    def __init__(self, setup: GameStarted) -> None:
        if not isinstance(setup, GameStarted):
            raise NotStarted("a game begins with game_started")
        self.setup = setup
        self.log: list[GameEvent] = [setup]
        self.rebels = Rebels(REBELS_DECK.total() - START_HAND)
        self.opponent = Opponent(len(OPPONENT_DECK))
        self.missions: list[Mission] = []
        self.opponent.deal(START_INFORMANTS)

    # -- applying events --------------------------------------------------------------------

    def apply(self, event: GameEvent) -> Mission | None:
        """Apply one event; return the mission it resolved, if any. A refused event changes
        nothing."""
        self.check(event)
        self.log.append(event)
        match event:
            case CardDrawn():
                self._draw(1)
            case CardsRedrawn():
                self._redraw(event.cards)
            case JackPlayed():
                self._jack(event)
            case MissionPlayed():
                return self._mission(event)
        return None

    def check(self, event: GameEvent) -> None:
        """Would `apply` take the event now? Raises the RuleError naming the rule it breaks."""
        if isinstance(event, GameStarted):
            raise BadSetup("the game has already started")
        if self.game_over:
            raise GameOver(f"the game is over: {self.setup.players[0]} {self.result}")
        match event:
            case CardDrawn():
                if self.rebels.hand >= MAX_HAND:
                    raise HandFull(f"a card is drawn only into a hand of fewer than {MAX_HAND}")
            case CardsRedrawn():
                self._check_from_hand(event.cards)
            case JackPlayed():
                self._check_jack(event)
            case MissionPlayed():
                self._check_mission(event)
            case _:
                raise TypeError(f"not a game event: {event!r}")

    # -- the rules ----------------------------------------------------------------------------

    def _check_from_hand(self, cards: tuple[Card, ...]) -> None:
        """Cards played or discarded come from the hand (S5), each card once in the game (S16)."""
        if not cards:
            raise NotInHand("name at least one card")
        if len(cards) > self.rebels.hand:
            raise NotInHand(f"the hand holds only {self.rebels.hand} cards, not {len(cards)}")
        seen = Counter(self.rebels.seen)
        for card, count in Counter(cards).items():
            if seen[card] + count > card.copies:
                raise SeenTwice(f"{card} {_was_seen(seen[card], card.copies)}")

    def _check_jack(self, event: JackPlayed) -> None:
        if event.jack.rank != JACK:
            raise NotAJack(f"{event.jack} is not a jack")
        self._check_from_hand((event.jack,))
        o, card = self.opponent, event.revealed
        if not o.face_down:
            raise NoHiddenInformant("no informant is hidden")
        _check_opponents((card,))
        if card not in o.deduced and (card not in o.unseen() or not o.hidden):
            raise SeenTwice(f"{card} cannot be a hidden informant: {self._where(card)}")

    def _check_mission(self, event: MissionPlayed) -> None:
        spot, won = event.spot, self.rebels.spots
        if spot in won:
            raise SpotNotOpen(f"spot {spot.value} is already won")
        if any(s not in won for s in spot.rests_on):
            under = " and ".join(s.value for s in spot.rests_on)
            raise SpotNotOpen(f"spot {spot.value} rests on {under}: win them first")
        self._check_from_hand(event.cards)
        self._check_informants(event.informants)
        if event.laid is not None:
            if event.laid not in event.cards:
                raise WrongLaidCard(f"{event.laid} is not one of the cards played")
            total = self._score(event).total
            if total < spot.need:
                raise WrongLaidCard(f"the mission failed ({total} of {spot.need}): "
                                    "no card stays on the spot")

    def _check_informants(self, informants: tuple[Card, ...]) -> None:
        """The informants revealed are every informant: those a jack turned, those deduced,
        and as many others as are hidden, from the pile in use (S9, S16)."""
        o = self.opponent
        _check_opponents(informants)
        if len(informants) != o.informants:
            raise WrongInformants(f"there are {o.informants} informants, not {len(informants)}")
        known = o.known()
        for card in known:
            if card not in informants:
                why = "a jack turned it" if card in o.revealed else "no other card is left there"
                raise WrongInformants(f"{card} is one of the informants ({why})")
        unseen = o.unseen()
        for card in informants:
            if card not in known and card not in unseen:
                raise SeenTwice(f"{card} cannot be an informant: {self._where(card)}")

    def _where(self, card: Card) -> str:
        o = self.opponent
        if card in o.discard:
            return "it is in the Opponent's discards"
        if card in o.revealed:
            return "a jack has turned it already"
        return "it is in the Opponent's deck"

    def _draw(self, n: int) -> None:
        """Up to n cards into the hand; the last card of the deck ends the game (S15)."""
        taken = min(n, self.rebels.draw)
        self.rebels.draw -= taken
        self.rebels.hand += taken

    def _redraw(self, cards: tuple[Card, ...]) -> None:
        self.rebels.hand -= len(cards)
        self.rebels.seen += cards
        self._draw(len(cards))
        if not self.game_over:
            self.opponent.deal(len(cards))

    def _jack(self, event: JackPlayed) -> None:
        o = self.opponent
        self.rebels.hand -= 1
        self.rebels.seen.append(event.jack)
        if event.revealed in o.deduced:
            o.deduced.remove(event.revealed)
        else:
            o.hidden -= 1
        o.revealed.append(event.revealed)

    def _mission(self, event: MissionPlayed) -> Mission:
        mission = Mission(len(self.missions), event.spot, event.cards, event.informants,
                          self._score(event), event.laid)
        self.missions.append(mission)
        r, o = self.rebels, self.opponent
        r.hand -= len(event.cards)
        r.seen += event.cards
        if mission.success:
            r.spots[event.spot] = event.laid
        o.discard += event.informants
        o.revealed, o.deduced, o.hidden = [], [], 0
        if not self.game_over:
            self._draw(max(0, START_HAND - r.hand))  # a hand of three or more draws none
        if not self.game_over:
            o.deal(START_INFORMANTS + self.wins)
        return mission

    def _score(self, event: MissionPlayed) -> Scoring:
        return score(event.cards, event.informants, self.setup.variant)

    # -- questions ------------------------------------------------------------------------------

    @property
    def rounds_played(self) -> int:
        """The missions scored (base.Scoresheet)."""
        return len(self.missions)

    @property
    def players(self) -> tuple[str, ...]:
        return self.setup.players

    @property
    def wins(self) -> int:
        return len(self.rebels.spots)

    @property
    def won(self) -> bool:
        return Spot.BIG_HIT in self.rebels.spots

    @property
    def lost(self) -> bool:
        """S15 (ruling): lost the moment the Rebels' deck is empty."""
        return not self.won and self.rebels.draw == 0

    @property
    def game_over(self) -> bool:
        return self.won or self.lost

    @property
    def result(self) -> str | None:
        return "won" if self.won else "lost" if self.lost else None

    def open_spots(self) -> list[Spot]:
        """The spots a mission may go to now (S3)."""
        won = self.rebels.spots
        return [s for s in Spot if s not in won and all(u in won for u in s.rests_on)]

    def totals(self) -> list[int]:
        """The spots won: the game's score."""
        return [self.wins]

    def winners(self) -> list[int]:
        return [0] if self.won else []


def _check_opponents(cards: Iterable[Card]) -> None:
    """Informants are cards of the Opponent's deck: an ace to a ten, each of them once (S1)."""
    counted = Counter(cards)
    for card, count in counted.items():
        if card not in OPPONENT_DECK:
            raise WrongDeck(f"the Opponent's deck has no {card}")
        if count > 1:
            raise SeenTwice(f"{card} is named twice: the Opponent's deck has one")


def _was_seen(seen: int, copies: int) -> str:
    if copies == 1:
        return "was played or discarded already"
    return f"was played or discarded {seen} times already: the deck has {copies}"


__all__ = [
    "SEATS", "START_HAND", "MAX_HAND", "START_INFORMANTS", "NEEDS", "Spot", "Variant",
    "GameStarted", "CardDrawn", "CardsRedrawn", "JackPlayed", "MissionPlayed", "GameEvent",
    "Mission", "Rebels", "Opponent", "Game", "RuleError", "WrongDeck", "BadSetup", "NotStarted",
    "SpotNotOpen", "NotInHand", "HandFull", "NotAJack", "NoHiddenInformant", "WrongInformants",
    "WrongLaidCard", "GameOver", "SeenTwice", "NothingToUndo",
]
