"""Random legal games: test material, benchmark load and the demo's script."""

from __future__ import annotations

import random

from .rules import (
    SCORING_DECK,
    TRICKS_PER_ROUND,
    CardPlayed,
    Game,
    GameEvent,
    GameStarted,
    ScoringCard,
    ScoringRevealed,
    Variant,
)

NAMES = ("Ana", "Ben", "Cy", "Dora", "Eli")


def random_game(
    rng: random.Random,
    n: int | None = None,
    variant: Variant | None = None,
    rounds: int | None = None,
) -> list[GameEvent]:
    """The events of a random legal game: shuffled scoring decks, dealt hands, random plays.

    `rounds` stops early (a partial game) after that many rounds."""
    n = n if n is not None else rng.randint(3, 5)
    variant = variant if variant is not None else Variant(rng.random() < 0.3, rng.random() < 0.3)
    setup = GameStarted(NAMES[:n], rng.randrange(n), variant)
    game = Game(setup)
    for _ in range(n if rounds is None else rounds):
        _play_round(rng, game)
    return game.log


def _play_round(rng: random.Random, game: Game) -> None:
    deck: list[ScoringCard] = sorted(SCORING_DECK, key=str)
    rng.shuffle(deck)
    numbers = list(range(1, game.setup.deck_size + 1))
    rng.shuffle(numbers)
    hands = [numbers[i * TRICKS_PER_ROUND:(i + 1) * TRICKS_PER_ROUND] for i in range(game.n)]
    for _ in range(TRICKS_PER_ROUND):
        while game.trick_value is None:
            game.apply(ScoringRevealed(deck.pop()))
        for _ in range(game.n):
            seat = rng.choice(game.to_play())
            hand = hands[seat]
            game.apply(CardPlayed(seat, hand.pop(rng.randrange(len(hand)))))
