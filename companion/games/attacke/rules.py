"""The exact rules of Attacke (docs/rules-attacke.md A1-A12): pure Python, no I/O.

A `Game` applies events (`GameStarted`, `CardsPlayed`, `Passed`) one at a time, refuses anything
the rules forbid with a typed `RuleError` naming the rule, and answers what the table shows now:
the contest (its colour, each player's total, who is still in), the chips each player holds,
the cards in the draw pile. Hands are hidden, but their sizes follow from the events: every
player draws exactly one card after each turn he plays or passes (A6, A7).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum

from .. import base

SEATS = range(2, 7)  # A1 (ruling): two to six players


class Colour(Enum):
    """The five contests (A1, ruling: the sheet does not name the colours)."""

    RED = "red"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"
    PURPLE = "purple"


KNIGHT_VALUES = {2: 4, 3: 4, 4: 4, 5: 3, 7: 3}  # A1 (ruling): 18 knights a colour, 90 in all
SHIELD_VALUES = {7: 4, 10: 2}                   # A1 (ruling): six shields
CHIPS_PER_COLOUR = 5                            # 25 victory chips
STARTING_HAND, HAND = 4, 5                      # A2


# --- errors -------------------------------------------------------------------------------


class RuleError(base.RuleError):
    """An event Attacke's rules forbid. `rule` names the rule of docs/rules-attacke.md."""

    rule = "A4"


class BadSetup(RuleError):
    rule = "A1"


class NotStarted(RuleError):
    rule = "A2"


class GameOver(RuleError):
    rule = "A11"


class NotYourTurn(RuleError):
    rule = "A3"


class WrongColour(RuleError):
    rule = "A4"


class NotHigher(RuleError):
    rule = "A5"


class TooManyCards(RuleError):
    """More cards than the hand holds, or than the deck has of a card."""

    rule = "A6"


class ShieldTenTwice(RuleError):
    rule = "A8"


class ConcealedTwice(RuleError):
    rule = "A12"


class NothingToUndo(RuleError):
    rule = "record"


# --- cards and events ---------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Card:
    """A knight (a colour and a value) or a shield (no colour, 7 or 10)."""

    value: int
    colour: Colour | None = None

    def __post_init__(self) -> None:
        values = KNIGHT_VALUES if self.colour is not None else SHIELD_VALUES
        if self.value not in values:
            kind = "knight" if self.colour is not None else "shield"
            raise BadSetup(f"there is no {kind} of value {self.value}")

    @property
    def is_shield(self) -> bool:
        return self.colour is None

    @property
    def copies(self) -> int:
        """How many of this card the deck holds."""
        return SHIELD_VALUES[self.value] if self.is_shield else KNIGHT_VALUES[self.value]

    @classmethod
    def parse(cls, text: str) -> Card:
        """"red-3", "purple-7", "shield-7", "shield-10"."""
        kind, _, value = str(text).partition("-")
        if not value.isdigit():
            raise ValueError(f"not a card: {text!r} (e.g. red-3, shield-10)")
        if kind == "shield":
            return cls(int(value))
        try:
            return cls(int(value), Colour(kind))
        except ValueError:
            raise ValueError(f"not a card: {text!r} (e.g. red-3, shield-10)") from None

    def __str__(self) -> str:
        if self.colour is None:
            return f"shield-{self.value}"
        return f"{self.colour.value}-{self.value}"


DECK: tuple[Card, ...] = (
    *(Card(v, c) for c in Colour for v, n in KNIGHT_VALUES.items() for _ in range(n)),
    *(Card(v) for v, n in SHIELD_VALUES.items() for _ in range(n)),
)  # 96 cards
BACK = "back"  # the reader's name for a card laid face down (A12)
# The names of the deck's cards, in the deck's order: what the reader is taught (`teach`).
CARD_NAMES: tuple[str, ...] = (*(str(Card(v, c)) for c in Colour for v in sorted(KNIGHT_VALUES)),
                               *(str(Card(v)) for v in sorted(SHIELD_VALUES)), BACK)


@dataclass(frozen=True)
class Variant:
    persevering: bool = False  # A11: five chips to win, not four
    concealed: bool = False    # A12: once a contest, cards face down worth 1 each

    @property
    def chips_to_win(self) -> int:
        return 5 if self.persevering else 4


@dataclass(frozen=True)
class GameStarted:
    players: tuple[str, ...]
    first_player: int = 0
    variant: Variant = Variant()

    def __post_init__(self) -> None:
        fault = base.seating_fault(self.players, SEATS, "Attacke")
        if fault:
            raise BadSetup(fault)
        if not 0 <= self.first_player < len(self.players):
            raise BadSetup(f"first player {self.first_player} is not a seat")

    @property
    def n(self) -> int:
        return len(self.players)


@dataclass(frozen=True)
class CardsPlayed:
    """`seat` opens or challenges: `cards` face up, and `concealed` cards face down (A12)."""

    seat: int
    cards: tuple[Card, ...] = ()
    concealed: int = 0


@dataclass(frozen=True)
class Passed:
    seat: int


GameEvent = GameStarted | CardsPlayed | Passed


@dataclass(frozen=True)
class Contest:
    """A contest as it stands or as it ended."""

    index: int
    opener: int
    colour: Colour | None = None
    played: tuple[tuple[Card, ...], ...] = ()   # each seat's face-up cards
    concealed: tuple[int, ...] = ()             # each seat's face-down cards
    passed: frozenset[int] = frozenset()
    winner: int | None = None
    chip_won: bool = False                      # the winner took a chip (A9)
    chips_returned: tuple[tuple[int, Colour], ...] = ()  # (seat, chip) given back (A8)

    @property
    def photo_key(self) -> tuple[int, int]:
        return self.index, 0

    @property
    def photo_stem(self) -> str:
        return f"contest-{self.index + 1}"

    def total(self, seat: int) -> int:
        return sum(c.value for c in self.played[seat]) + self.concealed[seat]

    @property
    def totals(self) -> list[int]:
        return [self.total(s) for s in range(len(self.played))]

    @property
    def best(self) -> int:
        return max(self.totals, default=0)

    def in_play(self, seat: int) -> bool:
        return seat not in self.passed

    def played_ten(self, seat: int) -> bool:
        return any(c.is_shield and c.value == 10 for c in self.played[seat])


# --- the game -----------------------------------------------------------------------------


@dataclass
class _Piles:
    """The cards the table counts: the draw pile, the discards and each hand's size."""

    draw: int
    discard: int = 0
    hands: list[int] = field(default_factory=list)


class Game(base.EventGame[GameEvent]):
    """A game of Attacke built by applying events. The one place its rules live."""

    not_started = NotStarted
    nothing_to_undo = NothingToUndo

    def __init__(self, setup: GameStarted) -> None:
        if not isinstance(setup, GameStarted):
            raise NotStarted("a game begins with game_started")
        self.setup = setup
        self.log: list[GameEvent] = [setup]
        n = setup.n
        hands = [STARTING_HAND if s == setup.first_player else HAND for s in range(n)]
        self.piles = _Piles(len(DECK) - sum(hands), 0, hands)
        self.chips: list[list[Colour]] = [[] for _ in range(n)]  # in the order won
        self.contests: list[Contest] = []
        self.contest = self._open(setup.first_player)
        self.turn: int | None = self.contest.opener
        self._used_concealed: set[int] = set()

    # -- applying events --------------------------------------------------------------------

    def apply(self, event: GameEvent) -> Contest | None:
        """Apply one event; return the contest it ended, if any. Refused events change nothing."""
        self.check(event)
        self.log.append(event)
        if isinstance(event, CardsPlayed):
            return self._play(event)
        assert isinstance(event, Passed)
        return self._pass(event.seat)

    def check(self, event: GameEvent) -> None:
        """Would `apply` take the event now? Raises the RuleError naming the rule it breaks."""
        if isinstance(event, GameStarted):
            raise BadSetup("the game has already started")
        if self.game_over:
            raise GameOver(f"the game is over: {self._names(self.winners())} won")
        if not isinstance(event, CardsPlayed | Passed):
            raise TypeError(f"not a game event: {event!r}")
        if not 0 <= event.seat < self.setup.n:
            raise BadSetup(f"seat {event.seat} is not at the table")
        if event.seat != self.turn:
            raise NotYourTurn(f"it is {self._names([self.turn])}'s turn, not "
                              f"{self.setup.players[event.seat]}'s")
        if isinstance(event, CardsPlayed):
            self._check_play(event)

    # -- the rules ----------------------------------------------------------------------------

    def _check_play(self, event: CardsPlayed) -> None:
        c, seat = self.contest, event.seat
        if not event.cards and not event.concealed:
            raise TooManyCards("a challenge lays at least one card")
        if event.concealed < 0:
            raise TooManyCards("a number of face-down cards is never negative")
        if event.concealed and not self.setup.variant.concealed:
            raise ConcealedTwice("face-down cards belong to the concealed variant")
        if event.concealed and seat in self._used_concealed:
            raise ConcealedTwice("face-down cards are laid once a contest")
        knights = {k.colour for k in event.cards if k.colour is not None}
        colour = c.colour
        if colour is None:
            if len(knights) != 1:
                raise WrongColour("the opener lays knights of one colour: it names the contest")
            colour = next(iter(knights))
        elif knights - {colour}:
            raise WrongColour(f"this contest is {colour.value}: knights of "
                              f"{', '.join(sorted(k.value for k in knights - {colour}))} "
                              "may only go face down")
        tens = sum(1 for k in event.cards if k.is_shield and k.value == 10)
        if tens + c.played_ten(seat) > 1:
            raise ShieldTenTwice("a player lays one shield 10 a contest at most")
        if len(event.cards) + event.concealed > self.piles.hands[seat]:
            raise TooManyCards(f"{self.setup.players[seat]} holds only "
                               f"{self.piles.hands[seat]} cards")
        on_table = Counter(k for s, p in enumerate(c.played) if c.in_play(s) for k in p)
        on_table += Counter(event.cards)  # a passed player's cards are in the discards
        for card, count in on_table.items():
            if count > card.copies:
                raise TooManyCards(f"the deck has {card.copies} of {card}, not {count}")
        total = c.total(seat) + sum(k.value for k in event.cards) + event.concealed
        best = max((c.total(s) for s in range(self.setup.n) if s != seat), default=0)
        if total <= best:
            raise NotHigher(f"a challenge must beat {best}; "
                            f"{self.setup.players[seat]} would have {total}")

    def _play(self, event: CardsPlayed) -> Contest | None:
        c, seat = self.contest, event.seat
        played = list(c.played)
        played[seat] = played[seat] + event.cards
        concealed = list(c.concealed)
        concealed[seat] += event.concealed
        if event.concealed:
            self._used_concealed.add(seat)
        colour = c.colour or next(k.colour for k in event.cards if not k.is_shield)
        self.contest = Contest(c.index, c.opener, colour, tuple(played), tuple(concealed),
                               c.passed)
        self.piles.hands[seat] -= len(event.cards) + event.concealed
        self._draw(seat)
        return self._next_turn(seat)

    def _pass(self, seat: int) -> Contest | None:
        c = self.contest
        if c.colour is None:  # an opener with no knight: the next player opens (A3, ruling)
            self._draw(seat)
            self.contest = self._open((seat + 1) % self.n)
            self.turn = self.contest.opener
            return None
        self.piles.discard += len(c.played[seat]) + c.concealed[seat]
        self._draw(seat)
        self.contest = Contest(c.index, c.opener, c.colour, c.played, c.concealed,
                               c.passed | {seat})
        return self._next_turn(seat)

    def _next_turn(self, seat: int) -> Contest | None:
        n = self.setup.n
        still = [s for s in range(n) if self.contest.in_play(s)]
        if len(still) == 1:
            return self._end(still[0])
        self.turn = next(s for s in ((seat + k) % n for k in range(1, n + 1))
                         if self.contest.in_play(s))
        return None

    def _end(self, winner: int) -> Contest:
        c = self.contest
        colour = c.colour
        assert colour is not None
        won = colour not in self.chips[winner] and sum(
            colour in held for held in self.chips) < CHIPS_PER_COLOUR
        if won:
            self.chips[winner].append(colour)
        returned = []
        for seat in range(self.setup.n):
            if seat != winner and c.played_ten(seat) and self.chips[seat]:
                returned.append((seat, self.chips[seat].pop()))  # the last chip won (ruling)
        self.piles.discard += len(c.played[winner]) + c.concealed[winner]
        done = Contest(c.index, c.opener, colour, c.played, c.concealed, c.passed, winner, won,
                       tuple(returned))
        self.contests.append(done)
        self._used_concealed = set()
        if self.game_over:
            self.turn = None
        else:
            self.contest = self._open(winner)
            self.turn = self.contest.opener
        return done

    def _open(self, seat: int) -> Contest:
        """A new contest, opened by `seat` or, with an empty hand, the next seat with cards."""
        n = self.setup.n
        opener = next((s for s in ((seat + k) % n for k in range(n)) if self.piles.hands[s]),
                      seat)
        return Contest(len(self.contests), opener, None, ((),) * n, (0,) * n)

    def _draw(self, seat: int) -> None:
        """One card from the draw pile; the discards are shuffled into a new one when it is
        empty (A10); with none there, nothing is drawn."""
        if self.piles.draw == 0:
            self.piles.draw, self.piles.discard = self.piles.discard, 0
        if self.piles.draw:
            self.piles.draw -= 1
            self.piles.hands[seat] += 1

    # -- questions ------------------------------------------------------------------------------

    @property
    def n(self) -> int:
        return self.setup.n

    @property
    def rounds_played(self) -> int:
        """The contests scored (base.Scoresheet)."""
        return len(self.contests)

    @property
    def players(self) -> tuple[str, ...]:
        return self.setup.players

    @property
    def game_over(self) -> bool:
        return any(len(held) >= self.setup.variant.chips_to_win for held in self.chips)

    @property
    def leader(self) -> int | None:
        """Who leads the contest now (the best total), or None before the first card."""
        c = self.contest
        if c.colour is None:
            return None
        return max(range(self.n), key=lambda s: (c.in_play(s), c.total(s)))

    def totals(self) -> list[int]:
        """The chips each player holds: the game's score."""
        return [len(held) for held in self.chips]

    def winners(self) -> list[int]:
        if not self.game_over:
            return []
        return [s for s, held in enumerate(self.chips)
                if len(held) >= self.setup.variant.chips_to_win]

    def may_conceal(self, seat: int) -> bool:
        return self.setup.variant.concealed and seat not in self._used_concealed

    def _names(self, seats: Iterable[int | None]) -> str:
        return ", ".join(self.setup.players[s] for s in seats if s is not None)


__all__ = [
    "SEATS", "Colour", "Card", "DECK", "Variant", "GameStarted", "CardsPlayed", "Passed",
    "GameEvent", "Contest", "Game", "RuleError", "BadSetup", "NotStarted", "GameOver",
    "NotYourTurn", "WrongColour", "NotHigher", "TooManyCards", "ShieldTenTwice",
    "ConcealedTwice", "NothingToUndo", "KNIGHT_VALUES", "SHIELD_VALUES", "CHIPS_PER_COLOUR",
]
