"""Random legal games of Attacke, dealt from a shuffled deck and played by simple players:
test material and the demo's script."""

from __future__ import annotations

import random

from .rules import DECK, Card, CardsPlayed, Game, GameEvent, GameStarted, Passed, Variant

NAMES = ("Ana", "Ben", "Cy", "Dora", "Eli", "Fay")


class _Table:
    """The real cards behind the rules' counts: who holds what, the draw pile, the discards."""

    def __init__(self, rng: random.Random, setup: GameStarted) -> None:
        self.rng = rng
        self.draw = list(DECK)
        rng.shuffle(self.draw)
        self.discard: list[Card] = []
        self.hands = [[self.draw.pop() for _ in range(4 if s == setup.first_player else 5)]
                      for s in range(setup.n)]
        self.laid: list[list[Card]] = [[] for _ in range(setup.n)]  # face up and face down

    def take(self, seat: int) -> None:
        if not self.draw:
            self.draw, self.discard = self.discard, []
            self.rng.shuffle(self.draw)
        if self.draw:
            self.hands[seat].append(self.draw.pop())

    def lay(self, seat: int, cards: list[Card]) -> None:
        for c in cards:
            self.hands[seat].remove(c)
        self.laid[seat] += cards

    def clear(self, seat: int) -> None:
        self.discard += self.laid[seat]
        self.laid[seat] = []


def _challenge(rng: random.Random, game: Game, hand: list[Card], seat: int) -> CardsPlayed | None:
    """The fewest strong cards that beat the best total, or None (pass)."""
    c = game.contest
    if c.colour is None:
        colours = {k.colour for k in hand if k.colour is not None}
        if not colours:
            return None
        colour = rng.choice(sorted(colours, key=lambda k: k.value))
        knights = [k for k in hand if k.colour == colour]
        return CardsPlayed(seat, tuple(rng.sample(knights, rng.randint(1, len(knights)))))
    need = max(c.total(s) for s in range(game.n) if s != seat) - c.total(seat) + 1
    usable = sorted((k for k in hand if k.colour in (c.colour, None)), key=lambda k: -k.value)
    if c.played_ten(seat):
        usable = [k for k in usable if k.value != 10 or not k.is_shield]
    chosen: list[Card] = []
    for k in usable:
        if sum(x.value for x in chosen) >= need:
            break
        if k.is_shield and k.value == 10 and any(x.is_shield and x.value == 10 for x in chosen):
            continue
        chosen.append(k)
    short = need - sum(x.value for x in chosen)
    concealed = 0
    if short > 0 and game.may_conceal(seat):
        spare = len(hand) - len(chosen)
        concealed = short if short <= spare else 0
        short -= concealed
    if short > 0 or rng.random() < 0.25:  # cannot beat it, or keeps the cards for later
        return None
    return CardsPlayed(seat, tuple(chosen), concealed)


def random_game(rng: random.Random, n: int | None = None, variant: Variant | None = None,
                contests: int | None = None) -> list[GameEvent]:
    """The events of a random legal game (stopped after `contests` contests if given)."""
    n = n if n is not None else rng.randint(2, 6)
    variant = variant if variant is not None else Variant(rng.random() < 0.3, rng.random() < 0.3)
    setup = GameStarted(NAMES[:n], rng.randrange(n), variant)
    game, table = Game(setup), _Table(rng, setup)
    events: list[GameEvent] = [setup]
    while not game.game_over and (contests is None or len(game.contests) < contests):
        seat = game.turn
        assert seat is not None
        play = _challenge(rng, game, table.hands[seat], seat)
        event: GameEvent
        if play is None:
            event = Passed(seat)
            if game.contest.colour is not None:
                table.clear(seat)
        else:
            event = play
            hidden = [k for k in sorted(table.hands[seat], key=lambda k: k.value)
                      if k not in play.cards][: play.concealed]
            table.lay(seat, list(play.cards) + hidden)
        ended = game.apply(event)
        events.append(event)
        table.take(seat)  # after every turn, played or passed (A6, A7)
        if ended is not None and ended.winner is not None:
            table.clear(ended.winner)  # the victor puts his cards aside and draws none (A9)
        assert [len(h) for h in table.hands] == game.piles.hands
    return events
