"""Random legal games of solo Tightrope, played from two truly shuffled packs by a simple player
who looks at his hand and asks the odds: test material and the demo's script."""

from __future__ import annotations

import random
from fractions import Fraction

from .cards import JACK, OPPONENT_DECK, REBELS_DECK, Card
from .odds import mission_chance
from .rules import (
    MAX_HAND,
    START_HAND,
    START_INFORMANTS,
    CardDrawn,
    CardsRedrawn,
    Game,
    GameEvent,
    GameStarted,
    JackPlayed,
    MissionPlayed,
    Spot,
)
from .scoring import Variant, score

NAMES = ("Ana", "Ben")
BOLD = Fraction(1, 2)  # the player goes on a mission at this chance of success, or better


class _Table:
    """The real cards behind the rules' counts: both piles, the hand, the informants."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.rebels = list(REBELS_DECK.elements())
        self.opponent = sorted(OPPONENT_DECK)
        rng.shuffle(self.rebels)
        rng.shuffle(self.opponent)
        self.discard: list[Card] = []          # the Opponent's
        self.informants: list[Card] = []
        self.turned: list[Card] = []           # informants a jack turned
        self.hand: list[Card] = []
        self.deal(START_INFORMANTS)
        self.draw(START_HAND)

    def draw(self, n: int) -> None:
        for _ in range(min(n, len(self.rebels))):
            self.hand.append(self.rebels.pop())

    def deal(self, n: int) -> None:
        for _ in range(n):
            if not self.opponent:
                self.opponent, self.discard = self.discard, []
                self.rng.shuffle(self.opponent)
            if not self.opponent:
                return
            self.informants.append(self.opponent.pop())

    def give(self, cards: list[Card]) -> None:
        for c in cards:
            self.hand.remove(c)

    def turn_one(self) -> Card:
        card = self.rng.choice([c for c in self.informants if c not in self.turned])
        self.turned.append(card)
        return card

    def after_mission(self, won_game: bool, wins: int) -> None:
        """S13: the hand filled up to three, then the new informants (none once it is over)."""
        if won_game:
            return
        self.draw(START_HAND - len(self.hand))
        if self.rebels:
            self.deal(START_INFORMANTS + wins)

    def redraw(self, cards: list[Card]) -> None:
        """S7: the cards discarded, as many drawn, as many informants (none once it is over)."""
        self.give(cards)
        self.draw(len(cards))
        if self.rebels:
            self.deal(len(cards))

    def counts(self) -> tuple[int, int, int, int]:
        return len(self.rebels), len(self.hand), len(self.opponent), len(self.informants)

    def clear_informants(self) -> tuple[Card, ...]:
        shown = tuple(self.informants)
        self.discard += shown
        self.informants, self.turned = [], []
        return shown


def _weak(game: Game, hand: list[Card]) -> list[Card]:
    """The cards worth changing: known double agents, low numbers and jacks with nothing to
    turn; at least the weakest card."""
    o, key = game.opponent, game.setup.variant.key
    known = {key(c) for c in o.known()}
    idle_jack = not o.face_down
    weak = [c for c in hand if key(c) in known or (c.is_number and c.value <= 5)
            or (c.rank == JACK and idle_jack)]
    return weak or [min(hand, key=lambda c: (c.value, c.rank))]


def _mission(rng: random.Random, game: Game, table: _Table, spot: Spot,
             play: list[Card]) -> MissionPlayed:
    table.give(play)
    informants = table.clear_informants()
    total = score(play, informants, game.setup.variant).total
    laid = max(play) if total >= spot.need and rng.random() < 0.8 else None
    return MissionPlayed(spot, tuple(play), informants, laid)


def _turn(rng: random.Random, game: Game, table: _Table) -> GameEvent:
    """The player's next move, done on the table."""
    hand = table.hand
    jack = next((c for c in hand if c.rank == JACK), None)
    if jack is not None and game.opponent.face_down and rng.random() < 0.8:
        table.give([jack])
        return JackPlayed(jack, table.turn_one())
    play = [c for c in hand if c.rank != JACK]
    if len(hand) < MAX_HAND and (not play or rng.random() < 0.9):
        table.draw(1)
        return CardDrawn()
    spots = game.open_spots()
    spot = rng.choice([s for s in spots if s.need == spots[0].need])
    if play and (mission_chance(game, play, spot) >= BOLD or rng.random() < 0.15):
        return _mission(rng, game, table, spot, play)
    weak = _weak(game, hand)
    table.redraw(weak)
    return CardsRedrawn(tuple(weak))


def random_game(rng: random.Random, variant: Variant | None = None, players: int = 1,
                missions: int | None = None) -> list[GameEvent]:
    """The events of a random legal game (stopped after `missions` missions if given)."""
    variant = variant if variant is not None else Variant(rng.random() < 0.3, rng.random() < 0.3)
    setup = GameStarted(NAMES[:players], variant)
    game, table = Game(setup), _Table(rng)
    events: list[GameEvent] = [setup]
    while not game.game_over and (missions is None or len(game.missions) < missions):
        event = _turn(rng, game, table)
        if game.apply(event) is not None:
            table.after_mission(game.won, game.wins)
        events.append(event)
        r, o = game.rebels, game.opponent
        assert table.counts() == (r.draw, r.hand, o.draw, o.informants)  # what the rules count
    return events
