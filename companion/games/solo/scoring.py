"""How the cards of a mission score against the revealed informants (docs/rules-solo.md S9-S12).

The player commits his cards before the informants are revealed; what is left to choose after
that (which informants the queens cancel, which cards the kings double, what a wild joker stands
for) cannot change his play, so the companion chooses it in his favour: the best total, and it
says what it chose.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from .cards import JOKER, KING, QUEEN, Card

Key = tuple[int, str]  # what makes a played card and an informant match (S9)
WILD_ROLES = (10, QUEEN, KING)  # S12 (ruling): what a wild joker may stand for


@dataclass(frozen=True)
class Variant:
    """House rules of the game_started line, both about scoring."""

    joker_wild: bool = False  # S12: a joker stands for a 10, a queen or a king
    match_suit: bool = False  # S9: a double agent matches rank and suit, not rank alone

    def key(self, card: Card) -> Key:
        return (card.rank, card.suit if self.match_suit else "")


@dataclass(frozen=True)
class Scoring:
    """A mission's total and the choices made for the player."""

    total: int
    double_agents: tuple[Card, ...]  # played cards that count 0 (S9)
    cancelled: tuple[Card, ...]      # informants the queens cancelled (S10)
    doubled: tuple[Card, ...]        # played cards the kings doubled (S11)
    jokers: tuple[int, ...] = ()     # the rank each wild joker stood for, in played order (S12)


@dataclass(frozen=True)
class _Choice:
    total: int
    freed: frozenset[Key]  # keys whose informants the queens all cancelled
    double_agents: tuple[Card, ...]
    doubled: tuple[Card, ...]
    jokers: tuple[int, ...]


def score(cards: Sequence[Card], informants: Iterable[Card], variant: Variant) -> Scoring:
    """The best total of the played cards against these informants, and how it is made."""
    informants = tuple(informants)
    best = _best(cards, Counter(variant.key(i) for i in informants), variant)
    cancelled = tuple(i for i in informants if variant.key(i) in best.freed)
    return Scoring(best.total, best.double_agents, cancelled, best.doubled, best.jokers)


def best_total(cards: Sequence[Card], against: Counter[Key], variant: Variant) -> int:
    """The best total against informants given by their keys (what the odds need)."""
    return _best(cards, against, variant).total


def _best(cards: Sequence[Card], against: Counter[Key], variant: Variant) -> _Choice:
    jokers = sum(c.rank == JOKER for c in cards)
    roles = product(WILD_ROLES, repeat=jokers) if variant.joker_wild else [()]
    choices = (c for r in roles for c in _choices(cards, r, against, variant))
    # of equal totals the first: a joker as a 10 before a queen or a king, the fewest cancelled
    return max(choices, key=lambda c: c.total)


def _choices(cards: Sequence[Card], roles: tuple[int, ...], against: Counter[Key],
             variant: Variant) -> Iterator[_Choice]:
    """Every way the queens can cancel informants, each with the kings on the best cards."""
    acting = _acting(cards, roles)
    queens = sum(rank == QUEEN for _, rank in acting)
    kings = sum(rank == KING for _, rank in acting)
    numbers = [(card, rank) for card, rank in acting if 1 <= rank <= 10]
    # a wild joker standing for a 10 is no card of the Opponent's: it matches nothing
    keyed = [(card, rank, None if card.rank == JOKER else variant.key(card))
             for card, rank in numbers]
    matched = sorted({k for _, _, k in keyed if k is not None and against[k]})
    for size in range(len(matched) + 1):
        for freed in map(frozenset, combinations(matched, size)):
            if sum(against[k] for k in freed) > queens:
                continue
            agents = tuple(c for c, _, k in keyed if k in matched and k not in freed)
            free = sorted(((r, c) for c, r, k in keyed if k not in matched or k in freed),
                          key=lambda rc: -rc[0])
            doubled = free[:kings]
            total = sum(r for r, _ in free) + sum(r for r, _ in doubled)
            yield _Choice(total, freed, agents, tuple(c for _, c in doubled), roles)


def _acting(cards: Sequence[Card], roles: tuple[int, ...]) -> list[tuple[Card, int]]:
    """Each played card with the rank it acts as: a wild joker takes its role in turn."""
    wild = iter(roles)
    return [(c, next(wild, JOKER) if c.rank == JOKER else c.rank) for c in cards]


__all__ = ["Key", "WILD_ROLES", "Variant", "Scoring", "score", "best_total"]
