"""The chance that a mission succeeds, before the player commits it (docs/rules-solo.md, Odds).

What the player cannot see are the hidden informants dealt from the Opponent's pile in use:
`hidden` cards among that pile's `unseen` ones (game.opponent), every such set alike likely (a
jack turns an informant the player cannot tell from the others). The other informants are known:
turned by a jack, or deduced, left over from a pile used up since (S14). A mission's total
depends on the hidden informants only through how many of them match each played card, so they
are enumerated by those counts, each with its multivariate hypergeometric weight, in exact
fractions; the queens, kings and wild jokers play at their best for each outcome, as the rules
play them (S10-S12).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from fractions import Fraction
from itertools import product
from math import comb, prod

from .cards import OPPONENT_DECK, Card
from .rules import Game, Spot
from .scoring import Key, Variant, best_total


def totals(cards: Sequence[Card], known: Iterable[Card], unseen: Collection[Card], hidden: int,
           variant: Variant) -> dict[int, Fraction]:
    """The chance of each best total of `cards`, against the `known` informants and `hidden`
    more drawn from `unseen`."""
    if not 0 <= hidden <= len(unseen):
        raise ValueError(f"{hidden} hidden informants cannot come from {len(unseen)} cards")
    pool = Counter(variant.key(c) for c in unseen)
    keys = sorted({variant.key(c) for c in cards if c.is_number} & pool.keys())
    others = len(unseen) - sum(pool[k] for k in keys)
    against = Counter(variant.key(c) for c in known)
    weights: Counter[int] = Counter()
    for counts in product(*(range(min(pool[k], hidden) + 1) for k in keys)):
        rest = hidden - sum(counts)
        if not 0 <= rest <= others:
            continue
        drawn: Counter[Key] = Counter(dict(zip(keys, counts, strict=True)))
        weight = comb(others, rest) * prod(comb(pool[k], n) for k, n in drawn.items())
        weights[best_total(cards, against + drawn, variant)] += weight
    outcomes = comb(len(unseen), hidden)
    return {total: Fraction(w, outcomes) for total, w in sorted(weights.items())}


def at_least(chances: dict[int, Fraction], need: int) -> Fraction:
    return sum((p for total, p in chances.items() if total >= need), Fraction(0))


def game_totals(game: Game, cards: Sequence[Card]) -> dict[int, Fraction]:
    """`totals` of the cards, were they played now."""
    o = game.opponent
    return totals(cards, o.known(), o.unseen(), o.hidden, game.setup.variant)


def mission_chance(game: Game, cards: Sequence[Card], spot: Spot) -> Fraction:
    return at_least(game_totals(game, cards), spot.need)


def open_chances(game: Game, cards: Sequence[Card]) -> dict[Spot, Fraction]:
    """The chance of success of the cards at each spot open now."""
    chances = game_totals(game, cards)
    return {spot: at_least(chances, spot.need) for spot in game.open_spots()}


def agent_chances(game: Game) -> dict[Key, Fraction]:
    """For each rank (each card, under match_suit): the chance that an informant waiting now
    matches it, so that a card of it played makes a double agent unless a queen cancels. The
    companion never sees the hand: this is what it can tell before any card is laid out."""
    o, variant = game.opponent, game.setup.variant
    known = {variant.key(c) for c in o.known()}
    unseen = Counter(variant.key(c) for c in o.unseen())
    n, hidden = sum(unseen.values()), o.hidden
    out = {}
    for key in sorted({variant.key(c) for c in OPPONENT_DECK}):
        missed = Fraction(comb(n - unseen[key], hidden), comb(n, hidden))
        out[key] = Fraction(1) if key in known else 1 - missed
    return out


__all__ = ["totals", "at_least", "game_totals", "mission_chance", "open_chances",
           "agent_chances"]
