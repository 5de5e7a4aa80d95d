"""The exact rules of Tightrope (docs/rules.md R1-R15): pure Python, no I/O.

A `Game` applies events (`GameStarted`, `ScoringRevealed`, `CardPlayed`) one at a time, refuses
anything the rules forbid with a typed `RuleError`, and answers what can happen now. Every score
is derived from the events; `undo()` replays the log without its last event.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from .. import base

TRICKS_PER_ROUND = 9
STICKS_PER_COLOUR = 25
FULL_DECK = 50
SEATS = range(3, 6)  # R1: three to five players


class Colour(Enum):
    BLUE = "blue"
    RED = "red"


# --- errors -------------------------------------------------------------------------------


class RuleError(base.RuleError):
    """An event Tightrope's rules forbid. `rule` names the rule of docs/rules.md it breaks."""

    rule = "R13"


class BadSetup(RuleError):
    rule = "R1"


class NotStarted(RuleError):
    rule = "R2"


class GameOver(RuleError):
    rule = "R2"


class UnknownSeat(RuleError):
    rule = "R1"


class ScoringCardUnavailable(RuleError):
    """The scoring card was already revealed this round (R5, R9)."""

    rule = "R5"


class ScoringAlreadyRevealed(RuleError):
    """The trick already has its value card (R5)."""

    rule = "R5"


class CardOutsideDeck(RuleError):
    rule = "R14"


class CardAlreadyPlayed(RuleError):
    rule = "R13"


class SeatAlreadyPlayed(RuleError):
    rule = "R13"


class NotYourTurn(RuleError):
    rule = "R13"


class NothingToUndo(RuleError):
    rule = "R2"


# --- value types --------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class ScoringCard:
    """One of the 11 scoring cards: 1..9, or a zero of one colour."""

    value: int
    colour: Colour | None = None

    def __post_init__(self) -> None:
        if self.value == 0 and self.colour is None:
            raise ValueError("a zero scoring card has a colour")
        if self.value != 0 and (self.colour is not None or not 1 <= self.value <= 9):
            raise ValueError(f"no scoring card {self.value} {self.colour}")

    @property
    def is_zero(self) -> bool:
        return self.value == 0

    @classmethod
    def parse(cls, text: str) -> ScoringCard:
        """Parse the record form: "1".."9", "blue0", "red0"."""
        if text in ("blue0", "red0"):
            return cls(0, Colour(text[:-1]))
        if isinstance(text, str) and len(text) == 1 and text in "123456789":
            return cls(int(text))
        raise ValueError(f'no scoring card "{text}" (expected "1".."9", "blue0" or "red0")')

    def __str__(self) -> str:
        return f"{self.colour.value}0" if self.colour else str(self.value)


SCORING_DECK: frozenset[ScoringCard] = frozenset(
    [ScoringCard(v) for v in range(1, 10)] + [ScoringCard(0, c) for c in Colour]
)


@dataclass(frozen=True)
class Variant:
    tactical: bool = False
    simultaneous: bool = False


@dataclass(frozen=True)
class GameStarted:
    players: tuple[str, ...]
    first_dealer: int = 0
    variant: Variant = Variant()

    def __post_init__(self) -> None:
        fault = base.seating_fault(self.players, SEATS, "Tightrope")
        if fault:
            raise BadSetup(fault)
        n = len(self.players)
        if not isinstance(self.first_dealer, int) or not 0 <= self.first_dealer < n:
            raise BadSetup(f"first dealer {self.first_dealer} is not a seat 0..{n - 1}")

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def deck_size(self) -> int:
        """Highest number card in use: 50, or 9N in the tactical variant (R14)."""
        return TRICKS_PER_ROUND * self.n if self.variant.tactical else FULL_DECK


@dataclass(frozen=True)
class ScoringRevealed:
    card: ScoringCard


@dataclass(frozen=True)
class CardPlayed:
    seat: int
    card: int


GameEvent = GameStarted | ScoringRevealed | CardPlayed


@dataclass(frozen=True)
class Play:
    seat: int
    card: int


@dataclass(frozen=True)
class Trick:
    """A scored trick."""

    round: int
    index: int
    leader: int
    scoring: tuple[ScoringCard, ...]  # the cards revealed in this trick, in order
    value: int
    covered: Colour | None
    plays: tuple[Play, ...]
    high: int
    low: int
    balances: tuple[int, ...]

    @property
    def photo_key(self) -> tuple[int, int]:
        return self.round, self.index

    @property
    def photo_stem(self) -> str:
        return f"r{self.round + 1}-t{self.index + 1}"

    @property
    def blue(self) -> int:
        """Blue sticks the high card took."""
        return 0 if self.covered is Colour.BLUE else self.value

    @property
    def red(self) -> int:
        """Red sticks the low card took."""
        return 0 if self.covered is Colour.RED else self.value


@dataclass(frozen=True)
class Round:
    """A finished round."""

    index: int
    dealer: int
    scores: tuple[int, ...]
    struck: tuple[tuple[int, int], ...]  # (seat, earlier round index) struck by a perfect round
    tricks: tuple[Trick, ...]


# --- the game -----------------------------------------------------------------------------


@dataclass
class _TrickInPlay:
    leader: int
    scoring: list[ScoringCard] = field(default_factory=list)
    value: int | None = None
    covered: Colour | None = None
    pending_zero: Colour | None = None
    plays: list[Play] = field(default_factory=list)


class Game(base.EventGame[GameEvent]):
    """A game of Tightrope built by applying events. The one place the rules live."""

    not_started = NotStarted
    nothing_to_undo = NothingToUndo

    def __init__(self, setup: GameStarted) -> None:
        if not isinstance(setup, GameStarted):
            raise NotStarted("a game begins with game_started")
        self.setup = setup
        self.log: list[GameEvent] = [setup]
        self.rounds: list[Round] = []
        self.last_trick: Trick | None = None
        self.dealer = 0
        self.balances: list[int] = []
        self._deck: set[ScoringCard] = set()
        self._revealed: list[ScoringCard] = []
        self._played: set[int] = set()
        self._tricks: list[Trick] = []
        self._trick = _TrickInPlay(leader=0)
        self._begin_round()

    # -- applying events --------------------------------------------------------------------

    def apply(self, event: GameEvent) -> Trick | None:
        """Apply one event; return the trick it completed, if any. Refused events change nothing."""
        self.check(event)
        if isinstance(event, ScoringRevealed):
            self._reveal(event.card)
        else:
            assert isinstance(event, CardPlayed)
            self._trick.plays.append(Play(event.seat, event.card))
            self._played.add(event.card)
        self.log.append(event)
        return self._score_if_complete()

    def check(self, event: GameEvent) -> None:
        """Would `apply` take the event now? Raises the RuleError naming the rule it breaks."""
        if isinstance(event, GameStarted):
            raise BadSetup("the game has already started")
        if self.game_over:
            raise GameOver("the game is over: all rounds are played")
        if isinstance(event, ScoringRevealed):
            self._check_reveal(event.card)
        elif isinstance(event, CardPlayed):
            self._check_play(event.seat, event.card)
        else:
            raise TypeError(f"not a game event: {event!r}")

    def _check_reveal(self, card: ScoringCard) -> None:
        trick = self._trick
        if trick.value is not None:
            raise ScoringAlreadyRevealed(
                f"trick {self.trick_index + 1} already has its scoring card {trick.value}"
            )
        if card not in self._deck:
            raise ScoringCardUnavailable(f"scoring card {card} was already revealed this round")

    def _reveal(self, card: ScoringCard) -> None:
        trick = self._trick
        self._deck.discard(card)
        self._revealed.append(card)
        trick.scoring.append(card)
        if not card.is_zero:
            trick.value, trick.covered, trick.pending_zero = card.value, trick.pending_zero, None
        elif trick.pending_zero is None:
            trick.pending_zero = card.colour
        else:  # the other zero straight after the first: they cancel (R5)
            trick.pending_zero = None

    def _check_play(self, seat: int, card: int) -> None:
        n = self.setup.n
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n:
            raise UnknownSeat(f"there is no seat {seat} (seats 0..{n - 1})")
        top = self.setup.deck_size
        if not isinstance(card, int) or isinstance(card, bool) or not 1 <= card <= top:
            raise CardOutsideDeck(f"card {card} is not in the deck in use (1..{top})")
        if card in self._played:
            raise CardAlreadyPlayed(f"card {card} was already played this round")
        if any(p.seat == seat for p in self._trick.plays):
            raise SeatAlreadyPlayed(
                f"{self.setup.players[seat]} (seat {seat}) already played in this trick"
            )
        expected = self.to_play()
        if seat not in expected:
            who = ", ".join(f"seat {s}" for s in expected)
            raise NotYourTurn(f"it is not seat {seat}'s turn ({who} to play)")

    def _score_if_complete(self) -> Trick | None:
        trick = self._trick
        if trick.value is None or len(trick.plays) < self.setup.n:
            return None
        high = max(trick.plays, key=lambda p: p.card).seat
        low = min(trick.plays, key=lambda p: p.card).seat
        # Covered colour pays nothing (R5); pairs go back at once (R8): the signed balance remains.
        self.balances[high] += 0 if trick.covered is Colour.BLUE else trick.value
        self.balances[low] -= 0 if trick.covered is Colour.RED else trick.value
        scored = Trick(
            round=len(self.rounds),
            index=len(self._tricks),
            leader=trick.leader,
            scoring=tuple(trick.scoring),
            value=trick.value,
            covered=trick.covered,
            plays=tuple(trick.plays),
            high=high,
            low=low,
            balances=tuple(self.balances),
        )
        self._tricks.append(scored)
        self.last_trick = scored
        if len(self._tricks) == TRICKS_PER_ROUND:
            self._end_round()
        else:
            self._trick = _TrickInPlay(leader=high)
        return scored

    # -- rounds -------------------------------------------------------------------------------

    def _begin_round(self) -> None:
        r = len(self.rounds)
        n = self.setup.n
        self.dealer = (self.setup.first_dealer + r) % n
        self.balances = [0] * n
        self._deck = set(SCORING_DECK)
        self._revealed = []
        self._played = set()
        self._tricks = []
        self._trick = _TrickInPlay(leader=(self.dealer + 1) % n)

    def _end_round(self) -> None:
        scores = tuple(abs(b) for b in self.balances)
        struck = []
        for seat, score in enumerate(scores):
            if score == 0:
                target = self._strike_target(seat)
                if target is not None:
                    struck.append((seat, target))
        self.rounds.append(
            Round(len(self.rounds), self.dealer, scores, tuple(struck), tuple(self._tricks))
        )
        if not self.game_over:
            self._begin_round()

    def _strike_target(self, seat: int) -> int | None:
        """The earliest of this seat's highest not-yet-struck earlier scores (R10)."""
        struck = self.struck_rounds(seat)
        open_rounds = [r for r in self.rounds if r.index not in struck]
        if not open_rounds:
            return None
        best = max(r.scores[seat] for r in open_rounds)
        return next(r.index for r in open_rounds if r.scores[seat] == best)

    # -- questions ------------------------------------------------------------------------------

    @property
    def n(self) -> int:
        return self.setup.n

    @property
    def rounds_played(self) -> int:
        """The rounds scored (base.Scoresheet)."""
        return len(self.rounds)

    @property
    def players(self) -> tuple[str, ...]:
        return self.setup.players

    @property
    def game_over(self) -> bool:
        return len(self.rounds) == self.setup.n

    @property
    def round_index(self) -> int:
        return len(self.rounds)

    @property
    def trick_index(self) -> int:
        return len(self._tricks)

    @property
    def leader(self) -> int | None:
        return None if self.game_over else self._trick.leader

    def to_play(self) -> tuple[int, ...]:
        """Seats that may play a number card now (R6, R15)."""
        if self.game_over:
            return ()
        n = self.setup.n
        played = {p.seat for p in self._trick.plays}
        if self.setup.variant.simultaneous:
            return tuple(s for s in range(n) if s not in played)
        if len(played) == n:
            return ()
        return ((self._trick.leader + len(played)) % n,)

    @property
    def played(self) -> frozenset[int]:
        """Number cards already played this round (R13)."""
        return frozenset(self._played)

    def playable_cards(self) -> frozenset[int]:
        """Number cards that may still appear this round: in the deck in use, not yet played."""
        if self.game_over:
            return frozenset()
        return frozenset(range(1, self.setup.deck_size + 1)) - self._played

    def remaining_scoring(self) -> list[ScoringCard]:
        """Scoring cards not yet revealed this round (R9)."""
        return sorted(self._deck, key=_scoring_order)

    @property
    def revealed(self) -> tuple[ScoringCard, ...]:
        return tuple(self._revealed)

    @property
    def tricks_this_round(self) -> tuple[Trick, ...]:
        return tuple(self._tricks)

    @property
    def trick_plays(self) -> tuple[Play, ...]:
        return tuple(self._trick.plays)

    @property
    def trick_scoring(self) -> tuple[ScoringCard, ...]:
        return tuple(self._trick.scoring)

    @property
    def trick_value(self) -> int | None:
        return self._trick.value

    @property
    def trick_covered(self) -> Colour | None:
        return self._trick.covered if self._trick.value is not None else self._trick.pending_zero

    def struck_rounds(self, seat: int, after: int | None = None) -> set[int]:
        """The rounds whose score `seat` struck (R10) in the first `after` rounds (all)."""
        return {target for r in self.rounds[:after] for s, target in r.struck if s == seat}

    def totals(self, after: int | None = None) -> list[int]:
        """Each seat's sum of not-struck round scores (R11) after the first `after` rounds (all
        played): a strike counts from the round that made it."""
        totals = []
        for seat in range(self.setup.n):
            struck = self.struck_rounds(seat, after)
            totals.append(sum(r.scores[seat] for r in self.rounds[:after]
                              if r.index not in struck))
        return totals

    def winners(self) -> list[int]:
        """Seats sharing the lowest total, once the game is over (R11)."""
        if not self.game_over:
            return []
        totals = self.totals()
        best = min(totals)
        return [s for s, t in enumerate(totals) if t == best]

    def supply_short(self) -> list[Colour]:
        """Colours of which the players hold more sticks than the box has (R12)."""
        blue = sum(b for b in self.balances if b > 0)
        red = -sum(b for b in self.balances if b < 0)
        held = ((Colour.BLUE, blue), (Colour.RED, red))
        return [colour for colour, sticks in held if sticks > STICKS_PER_COLOUR]


def _scoring_order(card: ScoringCard) -> tuple[int, str]:
    return (card.value, card.colour.value if card.colour else "")
