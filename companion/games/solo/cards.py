"""The playing cards of solo Tightrope (docs/rules-solo.md S1): one card type for both decks.

The Rebels' and the Opponent's decks are two packs of the same faces; which deck a card belongs
to follows from where it is seen (informants are the Opponent's, every other card the Rebels').
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

SUITS = "SHDC"  # spades, hearts, diamonds, clubs
JOKER, ACE, JACK, QUEEN, KING = 0, 1, 11, 12, 13
RANK_NAMES = {ACE: "A", **{r: str(r) for r in range(2, 11)}, JACK: "J", QUEEN: "Q", KING: "K"}
RANK_OF = {name: rank for rank, name in RANK_NAMES.items()}
JOKERS = 2  # S1 (ruling): the Rebels' pack has two jokers


@dataclass(frozen=True, order=True)
class Card:
    """A card of a pack: a rank (1 ace .. 13 king) and a suit, or a joker (rank 0, no suit)."""

    rank: int
    suit: str = ""

    def __post_init__(self) -> None:
        if self.rank == JOKER:
            if self.suit:
                raise ValueError("a joker has no suit")
        elif self.rank not in RANK_NAMES or len(self.suit) != 1 or self.suit not in SUITS:
            raise ValueError(f"there is no card of rank {self.rank} and suit {self.suit!r}")

    @property
    def value(self) -> int:
        """Points towards a mission (S4): ace 1 .. 10, a face card or a joker nothing."""
        return self.rank if ACE <= self.rank <= 10 else 0

    @property
    def is_number(self) -> bool:
        """An ace to a ten: the only cards the Opponent's deck holds."""
        return ACE <= self.rank <= 10

    @property
    def copies(self) -> int:
        """How many of this card the Rebels' deck holds."""
        return JOKERS if self.rank == JOKER else 1

    @classmethod
    def parse(cls, text: str) -> Card:
        """"AS", "10H", "QD", "joker": the teach names."""
        if text == "joker":
            return cls(JOKER)
        rank, suit = RANK_OF.get(str(text)[:-1]), str(text)[-1:]
        if rank is None or not suit or suit not in SUITS:
            raise ValueError(f"not a card: {text!r} (e.g. AS, 10H, QD, joker)")
        return cls(rank, suit)

    def __str__(self) -> str:
        return "joker" if self.rank == JOKER else f"{RANK_NAMES[self.rank]}{self.suit}"


def cards_of(names: list[str] | tuple[str, ...]) -> tuple[Card, ...]:
    return tuple(Card.parse(name) for name in names)


REBELS_DECK: Counter[Card] = Counter(
    {**{Card(rank, suit): 1 for suit in SUITS for rank in RANK_NAMES}, Card(JOKER): JOKERS})
OPPONENT_DECK: frozenset[Card] = frozenset(
    c for c in REBELS_DECK if c.is_number)  # S1: no jacks, queens, kings or jokers

# the reader's names: every face once ("joker" for both jokers) and a card lying face down
CARD_NAMES: tuple[str, ...] = (
    *(str(Card(rank, suit)) for suit in SUITS for rank in RANK_NAMES), "joker", "back")

__all__ = ["SUITS", "RANK_NAMES", "JOKER", "ACE", "JACK", "QUEEN", "KING", "JOKERS", "Card",
           "cards_of", "REBELS_DECK", "OPPONENT_DECK", "CARD_NAMES"]
