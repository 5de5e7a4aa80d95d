"""The worked examples and rulings of RULES.md, one test each."""

from __future__ import annotations

import pytest

from companion.games.tightrope.rules import (
    BadSetup,
    CardAlreadyPlayed,
    CardOutsideDeck,
    CardPlayed,
    Colour,
    Game,
    GameOver,
    GameStarted,
    NothingToUndo,
    NotYourTurn,
    ScoringAlreadyRevealed,
    ScoringCard,
    ScoringCardUnavailable,
    ScoringRevealed,
    SeatAlreadyPlayed,
    UnknownSeat,
    Variant,
)

ALL_VALUES = [str(v) for v in range(1, 10)]


def reveal(game: Game, *cards: str):
    for card in cards:
        game.apply(ScoringRevealed(ScoringCard.parse(card)))


def play(game: Game, *cards: int):
    """Play `cards` in turn order, starting with whoever is to play; return the scored trick."""
    trick = None
    for card in cards:
        (seat,) = game.to_play()
        trick = game.apply(CardPlayed(seat, card))
    return trick


def new_game(n: int = 3, first_dealer: int = 0, **variant: bool) -> Game:
    return Game(GameStarted(("Ana", "Ben", "Cy", "Dora", "Eli")[:n], first_dealer,
                            Variant(**variant)))


def test_worked_example_three_pays_both_colours():
    game = new_game(3)
    reveal(game, "3")
    trick = play(game, 7, 28, 36)  # seats 1, 2, 0
    assert (trick.high, trick.low, trick.blue, trick.red) == (0, 1, 3, 3)
    assert game.balances == [3, -3, 0]


def test_blue_zero_covers_blue_highest_gets_nothing():
    game = new_game(3)
    reveal(game, "blue0", "4")
    trick = play(game, 10, 20, 30)
    assert trick.covered is Colour.BLUE
    assert (trick.blue, trick.red) == (0, 4)
    assert game.balances == [0, -4, 0]  # seat 0 played 30: nothing; seat 1 played 10: 4 red


def test_red_zero_covers_red_lowest_gets_nothing():
    game = new_game(3)
    reveal(game, "red0", "5")
    trick = play(game, 10, 20, 30)
    assert (trick.blue, trick.red) == (5, 0)
    assert game.balances == [5, 0, 0]


@pytest.mark.parametrize("order", [("blue0", "red0"), ("red0", "blue0")])
def test_two_zeros_in_a_row_cancel(order):
    game = new_game(3)
    reveal(game, *order, "6")
    trick = play(game, 1, 2, 3)
    assert trick.covered is None and (trick.blue, trick.red) == (6, 6)
    assert trick.scoring == tuple(ScoringCard.parse(c) for c in (*order, "6"))


def test_zero_covers_only_its_own_trick():
    game = new_game(3)
    reveal(game, "blue0", "2")
    play(game, 1, 2, 3)
    reveal(game, "7")
    trick = play(game, 4, 5, 6)
    assert trick.covered is None and trick.blue == 7


def test_zeros_in_separate_tricks_do_not_cancel():
    game = new_game(3)
    reveal(game, "blue0", "2")
    play(game, 1, 2, 3)
    reveal(game, "red0", "8")
    trick = play(game, 4, 5, 6)
    assert trick.covered is Colour.RED and (trick.blue, trick.red) == (8, 0)


def test_zero_below_ninth_value_card_is_never_revealed():
    game = new_game(3)
    for i, value in enumerate(ALL_VALUES):
        reveal(game, value)
        play(game, *(3 * i + k for k in (1, 2, 3)))
    assert game.round_index == 1  # the round ended with two zeros still in the deck
    assert game.rounds[0].tricks[-1].scoring == (ScoringCard(9),)
    assert len(game.remaining_scoring()) == 11  # a fresh deck for round 2


def test_leader_rotation_and_highest_leads():
    game = new_game(4, first_dealer=2)
    assert game.dealer == 2 and game.leader == 3 and game.to_play() == (3,)
    reveal(game, "1")
    play(game, 5, 50, 6, 7)  # seats 3, 0, 1, 2: seat 0 high
    assert game.leader == 0 and game.to_play() == (0,)


def test_balancing_keeps_one_signed_number():
    game = new_game(3)
    reveal(game, "5")
    play(game, 1, 2, 40)  # seat 1 low (-5), seat 0 high (+5)
    reveal(game, "3")
    play(game, 45, 8, 9)  # leader seat 0: 45 high (+3), seat 1 plays 8 low (-3)
    assert game.balances == [8, -8, 0]
    reveal(game, "9")
    play(game, 1 + 9, 12, 46)  # leader 0: 10 (low: -9); seat 1 12; seat 2 46 high: +9
    assert game.balances == [-1, -8, 9]


def _play_round(game: Game, highs: list[int], lows: list[int], values=ALL_VALUES):
    """Play nine tricks where seat highs[i] plays high and lows[i] low."""
    played = iter(range(1, 51))
    for i, value in enumerate(values):
        reveal(game, value)
        n = game.n
        cards = {}
        middle = [next(played) for _ in range(n)]
        cards[lows[i]] = middle[0]
        cards[highs[i]] = middle[-1]
        rest = iter(middle[1:-1])
        for seat in range(n):
            if seat not in cards:
                cards[seat] = next(rest)
        for _ in range(n):
            (seat,) = game.to_play()
            game.apply(CardPlayed(seat, cards[seat]))


def _round_with_scores(game: Game):
    """A round in which seat 0 wins every trick (score 45) and seat 1 loses every trick."""
    _play_round(game, [0] * 9, [1] * 9)


def test_perfect_round_one_strikes_nothing():
    game = new_game(3)
    _round_with_scores(game)
    assert game.rounds[0].scores == (45, 45, 0)
    assert game.rounds[0].struck == ()  # seat 2 is perfect, but nothing earlier to strike


def test_perfect_round_strikes_highest_earlier_score_earliest_on_ties():
    game = new_game(3)
    _round_with_scores(game)  # round 0: (45, 45, 0)
    # Round 1: seat 1 high 1..5, seat 2 low 1..5 then seat 2 high 6..9 and seat 1 low.
    # seat 1: +1+2+3+4+5 -6-7-8-9 = -15; seat 2: -15 +30 = +15; seat 0 never high or low: 0.
    _play_round(game, [1] * 5 + [2] * 4, [2] * 5 + [1] * 4)
    assert game.rounds[1].scores == (0, 15, 15)
    assert game.rounds[1].struck == ((0, 0),)
    assert game.totals() == [0, 60, 15]
    # after round 1 alone, round 0's 45 still counted: a strike counts from its own round
    assert game.totals(after=1) == [45, 45, 0] and game.totals(after=2) == game.totals()
    # Round 2: seat 0 perfect again: round 0 is struck, so the highest left is round 1's 0.
    _play_round(game, [1] * 5 + [2] * 4, [2] * 5 + [1] * 4)
    assert game.rounds[2].struck == ((0, 1),)
    assert game.game_over


def test_strike_prefers_earliest_of_equal_highest():
    game = new_game(4)
    for _ in range(3):
        _round_with_scores(game)  # seats 2 and 3 perfect each round
    r = game.rounds
    assert r[0].scores == (45, 45, 0, 0)
    assert r[1].struck == ((2, 0), (3, 0)) and r[2].struck == ((2, 1), (3, 1))


def test_shared_win():
    game = new_game(3)
    for _ in range(3):
        _round_with_scores(game)
    assert game.totals() == [135, 135, 0] and game.winners() == [2]
    game2 = new_game(3)
    for seat in range(3):  # each seat wins every trick of one round, the next seat loses
        _play_round(game2, [seat] * 9, [(seat + 1) % 3] * 9)
    # Seats 0 and 1 each had a perfect round after a 45 and struck it; seat 2 never could.
    assert game2.totals() == [45, 45, 90]
    assert game2.winners() == [0, 1]


def test_game_over_refuses_more():
    game = new_game(3)
    for _ in range(3):
        _round_with_scores(game)
    with pytest.raises(GameOver):
        reveal(game, "1")
    assert game.to_play() == () and game.playable_cards() == frozenset()


@pytest.mark.parametrize("n,top", [(3, 27), (4, 36), (5, 45)])
def test_tactical_deck(n, top):
    game = new_game(n, tactical=True)
    assert max(game.playable_cards()) == top and len(game.playable_cards()) == 9 * n
    reveal(game, "1")
    with pytest.raises(CardOutsideDeck, match=f"1..{top}"):
        game.apply(CardPlayed(game.to_play()[0], top + 1))


def test_simultaneous_any_order_and_highest_leads():
    game = new_game(3, simultaneous=True)
    assert set(game.to_play()) == {0, 1, 2}
    reveal(game, "2")
    game.apply(CardPlayed(2, 30))
    game.apply(CardPlayed(0, 5))
    assert set(game.to_play()) == {1}
    trick = game.apply(CardPlayed(1, 40))
    assert trick.high == 1 and game.leader == 1


@pytest.mark.parametrize(
    "setup_moves,bad,error",
    [
        ([], CardPlayed(2, 5), NotYourTurn),
        ([CardPlayed(1, 5)], CardPlayed(2, 5), CardAlreadyPlayed),
        ([CardPlayed(1, 5)], CardPlayed(1, 6), SeatAlreadyPlayed),
        ([], CardPlayed(1, 51), CardOutsideDeck),
        ([], CardPlayed(1, 0), CardOutsideDeck),
        ([], CardPlayed(7, 5), UnknownSeat),
        ([ScoringRevealed(ScoringCard(4))], ScoringRevealed(ScoringCard(5)),
         ScoringAlreadyRevealed),
    ],
)
def test_misplays_are_typed_and_change_nothing(setup_moves, bad, error):
    game = new_game(3)
    for move in setup_moves:
        game.apply(move)
    before = (list(game.log), game.balances[:], game.to_play(), game.playable_cards())
    with pytest.raises(error) as info:
        game.apply(bad)
    assert isinstance(info.value, ValueError) and info.value.rule.startswith("R")
    assert (list(game.log), game.balances, game.to_play(), game.playable_cards()) == before


def test_card_played_in_earlier_trick_is_refused_but_allowed_next_round():
    game = new_game(3)
    reveal(game, "4")
    play(game, 1, 2, 3)
    reveal(game, "5")
    with pytest.raises(CardAlreadyPlayed, match="card 2"):
        game.apply(CardPlayed(game.to_play()[0], 2))


def test_scoring_card_twice_in_a_round_is_refused():
    game = new_game(3)
    reveal(game, "4")
    play(game, 1, 2, 3)
    with pytest.raises(ScoringCardUnavailable, match="4"):
        reveal(game, "4")


def test_remaining_scoring_is_public():
    game = new_game(3)
    reveal(game, "blue0", "4")
    remaining = [str(c) for c in game.remaining_scoring()]
    assert remaining == ["red0", "1", "2", "3", "5", "6", "7", "8", "9"]
    assert [str(c) for c in game.revealed] == ["blue0", "4"]


def test_supply_warning_when_one_colour_runs_short():
    game = new_game(3)
    values = ["9", "8", "7", "6"]  # seat 0 always high: 9+8+7 = 24 (fine), then 30 (short)
    for i, value in enumerate(values[:3]):
        reveal(game, value)
        play(game, 40 + i, 1 + i * 2, 2 + i * 2)
    assert game.supply_short() == []
    reveal(game, "6")
    play(game, 49, 20, 21)
    assert [c.value for c in game.supply_short()] == ["blue", "red"]


@pytest.mark.parametrize(
    "players,first_dealer",
    [(("A", "B"), 0), (("A", "B", "C", "D", "E", "F"), 0), (("A", "A", "B"), 0),
     (("A", "B", "C"), 3), (("A", "", "C"), 0)],
)
def test_bad_setups(players, first_dealer):
    with pytest.raises(BadSetup):
        GameStarted(players, first_dealer)


def test_undo_restores_state_and_refuses_start():
    game = new_game(3)
    with pytest.raises(NothingToUndo):
        game.undo()
    reveal(game, "3")
    before = (game.balances[:], game.to_play())
    play(game, 7, 28, 36)
    for _ in range(3):
        game.undo()
    assert (game.balances, game.to_play()) == before


def test_scoring_card_parse():
    assert str(ScoringCard.parse("blue0")) == "blue0"
    for bad in ("0", "10", "green0", "", "4 "):
        with pytest.raises(ValueError):
            ScoringCard.parse(bad)
