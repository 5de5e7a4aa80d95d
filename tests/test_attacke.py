"""Attacke's rules (docs/rules-attacke.md): every rule and ruling of the sheet, worked through,
and properties of random legal games."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import game_named
from companion.games.attacke.events import event_to_json, fold_record, parse_event
from companion.games.attacke.randgame import random_game
from companion.games.attacke.rules import (
    DECK,
    BadSetup,
    Card,
    CardsPlayed,
    Colour,
    ConcealedTwice,
    Game,
    GameOver,
    GameStarted,
    NotHigher,
    NotYourTurn,
    Passed,
    ShieldTenTwice,
    TooManyCards,
    Variant,
    WrongColour,
)
from companion.games.base import Undo
from companion.record import parse_lines

RED, BLUE = Colour.RED, Colour.BLUE
S7, S10 = Card(7), Card(10)


def red(*values: int) -> tuple[Card, ...]:
    return tuple(Card(v, RED) for v in values)


def blue(*values: int) -> tuple[Card, ...]:
    return tuple(Card(v, BLUE) for v in values)


def game(n: int = 3, first: int = 0, **variant: bool) -> Game:
    return Game(GameStarted(("Ana", "Ben", "Cy", "Dora", "Eli", "Fay")[:n], first,
                            Variant(**variant)))


def play(g: Game, *events: CardsPlayed | Passed) -> Game:
    for e in events:
        g.apply(e)
    return g


def win_red(g: Game, seat: int) -> None:
    """`seat` (whose turn it is, to open) takes a red contest: everybody else passes."""
    g.apply(CardsPlayed(seat, red(2)))
    while g.turn != seat and not g.game_over:
        g.apply(Passed(g.turn))  # type: ignore[arg-type]


# --- A1, A2: material and set-up ------------------------------------------------------------


def test_the_deck_holds_90_knights_in_five_colours_and_six_shields():
    knights = [c for c in DECK if not c.is_shield]
    assert len(DECK) == 96 and len(knights) == 90
    assert {c.colour for c in knights} == set(Colour)
    assert all(sum(c.colour == col for c in knights) == 18 for col in Colour)
    assert {c.value for c in knights} == {2, 3, 4, 5, 7}
    assert sorted(c.value for c in DECK if c.is_shield) == [7, 7, 7, 7, 10, 10]


def test_the_starting_player_gets_four_cards_the_others_five():
    g = game(4, first=2)
    assert g.piles.hands == [5, 5, 4, 5]
    assert g.piles.draw == 96 - 19
    assert g.turn == 2


@pytest.mark.parametrize("n", [1, 7])
def test_two_to_six_players_ruling(n):
    with pytest.raises(BadSetup, match="2 to 6 players"):
        game(n) if n < 7 else Game(GameStarted(tuple("ABCDEFG"), 0))


# --- A3-A5: a contest -------------------------------------------------------------------------


def test_the_opener_names_the_colour_and_the_others_must_beat_the_total():
    g = play(game(), CardsPlayed(0, red(3, 4)))
    assert g.contest.colour is RED and g.contest.totals == [7, 0, 0]
    assert g.piles.hands[0] == 4 - 2 + 1  # one card drawn, whatever the number played
    with pytest.raises(NotHigher, match="must beat 7"):
        g.apply(CardsPlayed(1, red(7)))  # equal is not higher
    g.apply(CardsPlayed(1, red(5, 3)))
    assert g.contest.totals == [7, 8, 0] and g.leader == 1


def test_a_total_adds_up_over_the_rounds_of_a_contest():
    g = play(game(), CardsPlayed(0, red(3)), CardsPlayed(1, red(4)), Passed(2),
             CardsPlayed(0, red(2)))  # 3 + 2 beats 4
    assert g.contest.total(0) == 5 and g.turn == 1


def test_knights_of_another_colour_are_refused():
    g = play(game(), CardsPlayed(0, red(3)))
    with pytest.raises(WrongColour, match="this contest is red"):
        g.apply(CardsPlayed(1, blue(7)))
    with pytest.raises(WrongColour, match="one colour"):
        play(game(), CardsPlayed(0, red(3) + blue(4)))


def test_turns_go_round_and_skip_who_passed():
    g = play(game(4), CardsPlayed(0, red(2)), Passed(1), CardsPlayed(2, red(3)))
    with pytest.raises(NotYourTurn, match="Dora's turn"):
        g.apply(CardsPlayed(1, red(7)))
    play(g, CardsPlayed(3, red(4)), CardsPlayed(0, red(3)))  # Ben is skipped: 0 -> 2
    assert g.turn == 2


def test_a_pass_discards_the_played_cards_and_draws_one():
    g = play(game(), CardsPlayed(0, red(2)), CardsPlayed(1, red(3, 4)))
    before = g.piles.hands[1]
    draw = g.piles.draw
    play(g, Passed(2), CardsPlayed(0, red(7)), Passed(1))
    assert g.piles.discard >= 2  # Ben's 3 and 4
    assert g.piles.hands[1] == before + 1 and g.piles.draw == draw - 3


def test_no_more_cards_than_the_hand_holds():
    g = game()
    with pytest.raises(TooManyCards, match="holds only 4"):
        g.apply(CardsPlayed(0, red(2, 2, 3, 3, 4)))


def test_no_more_copies_of_a_card_than_the_deck_has():
    g = play(game(), CardsPlayed(0, red(7, 7)))
    with pytest.raises(TooManyCards, match="3 of red-7"):
        g.apply(CardsPlayed(1, red(7, 7)))


# --- A8: shields ------------------------------------------------------------------------------


def test_shield_sevens_are_wild_in_any_number():
    g = play(game(), CardsPlayed(0, red(2)), CardsPlayed(1, (S7, S7)))
    assert g.contest.total(1) == 14


def test_a_shield_ten_once_a_contest():
    g = play(game(), CardsPlayed(0, red(2) + (S10,)), CardsPlayed(1, (S7, S7)))
    with pytest.raises(ShieldTenTwice):
        g.apply(CardsPlayed(2, (S10, S10)))
    play(g, Passed(2))
    with pytest.raises(ShieldTenTwice):
        g.apply(CardsPlayed(0, (S10,)))


def test_who_played_a_ten_and_lost_gives_back_his_last_chip():
    g = game()
    win_red(g, 0)  # Ana: red
    g.apply(CardsPlayed(0, blue(2)))  # Ana opens blue
    play(g, Passed(1), Passed(2))
    assert g.chips[0] == [RED, BLUE]
    g.apply(CardsPlayed(0, red(3)))  # Ana: red again, with a 10 she loses
    play(g, CardsPlayed(1, red(4)), Passed(2), CardsPlayed(0, (S10,)),
         CardsPlayed(1, (S7, S7)), Passed(0))
    last = g.contests[-1]
    assert last.winner == 1 and last.chips_returned == ((0, BLUE),)
    assert g.chips == [[RED], [RED], []]


def test_a_ten_costs_nothing_without_a_chip():
    g = play(game(), CardsPlayed(0, red(2) + (S10,)), CardsPlayed(1, (S7, S7)), Passed(2),
             Passed(0))
    assert g.contests[-1].chips_returned == () and g.chips == [[], [RED], []]


# --- A9, A10: the victor --------------------------------------------------------------------


def test_the_victor_is_who_is_left_even_when_all_pass_at_once():
    g = play(game(), CardsPlayed(0, red(2)))
    hand = g.piles.hands[0]
    ended = g.apply(Passed(1)) or g.apply(Passed(2))
    assert ended is not None and ended.winner == 0 and ended.chip_won
    assert g.piles.hands[0] == hand  # the victor draws no card
    assert g.chips[0] == [RED] and g.turn == 0 and g.contest.colour is None  # he opens


def test_a_colour_already_held_wins_no_second_chip():
    g = game()
    win_red(g, 0)
    win_red(g, 0)
    assert g.chips[0] == [RED] and not g.contests[-1].chip_won


def test_the_discards_become_the_draw_pile_when_it_runs_out():
    g = game(2)  # Ana opens red and Ben passes, again and again: Ana holds red already
    while g.piles.draw > 0:
        seat = g.turn
        g.apply(CardsPlayed(seat, red(2)) if g.contest.colour is None else Passed(seat))
    discards = g.piles.discard
    assert g.piles.draw == 0 and discards > 0
    opening = g.contest.colour is None
    g.apply(CardsPlayed(0, red(2)) if opening else Passed(1))  # the next draw: from the discards
    assert g.piles.draw == discards - 1
    assert g.piles.discard == (0 if opening else 1)  # Ana's card, put aside after the draw


def test_an_opener_without_knights_passes_the_opening_on_ruling():
    g = play(game(), Passed(0))
    assert g.turn == 1 and g.contest.colour is None and g.contest.opener == 1
    assert g.piles.hands[0] == 5  # he drew


# --- A11: the end ---------------------------------------------------------------------------


@pytest.mark.parametrize(("persevering", "chips"), [(False, 4), (True, 5)])
def test_the_game_ends_at_the_fourth_chip_or_the_fifth(persevering, chips):
    g = game(persevering=persevering)
    for colour in list(Colour)[:chips]:
        g.apply(CardsPlayed(0, (Card(2, colour),)))
        while g.turn != 0 and not g.game_over:
            g.apply(Passed(g.turn))  # type: ignore[arg-type]
    assert g.game_over and g.winners() == [0] and g.totals()[0] == chips
    with pytest.raises(GameOver, match="Ana won"):
        g.apply(CardsPlayed(0, red(2)))


# --- A12: the concealed tournament ----------------------------------------------------------


def test_face_down_cards_count_one_each_once_a_contest():
    g = play(game(concealed=True), CardsPlayed(0, red(4)), CardsPlayed(1, (), concealed=5))
    assert g.contest.total(1) == 5
    play(g, Passed(2), CardsPlayed(0, red(2)))
    with pytest.raises(ConcealedTwice, match="once a contest"):
        g.apply(CardsPlayed(1, red(2), concealed=1))
    with pytest.raises(ConcealedTwice, match="concealed variant"):
        play(game(), CardsPlayed(0, red(4)), CardsPlayed(1, (), concealed=5))


# --- the record ----------------------------------------------------------------------------


def test_a_record_names_its_game_and_reads_back():
    g = game_named("attacke")
    events = g.random_game(7, 3, concealed=True)
    lines = ['{"type": "tightrope-record", "version": 1, "game": "attacke"}',
             *(__import__("json").dumps(g.event_to_json(e)) for e in events)]
    record = parse_lines(lines)
    assert record.game.name == "attacke"
    assert [e for _, e in record.events] == events
    assert g.replay_json(g.fold(record.events)) == g.replay_json(Game.replay(events))


def test_games_whose_plays_differ_only_in_the_order_laid_are_scored_alike():
    g = game_named("attacke")
    start = GameStarted(("Ana", "Ben"), 0)
    red = (Card(3, Colour.RED), Card(4, Colour.RED))
    laid = Game.replay([start, CardsPlayed(0, red), Passed(1)])
    seen = Game.replay([start, CardsPlayed(0, red[::-1]), Passed(1)])  # the 4 found first
    other = Game.replay([start, CardsPlayed(0, (Card(2, Colour.RED), Card(5, Colour.RED))),
                         Passed(1)])
    assert g.replay_json(laid) != g.replay_json(seen)  # the record keeps the order seen
    assert g.scoring(laid) == g.scoring(seen) != g.scoring(other)


def test_undo_takes_back_the_last_event():
    events = random_game(random.Random(3), 3, contests=2)
    numbered = [*enumerate(events, 1), (99, Undo()), (100, events[-1])]
    assert fold_record(numbered).log == Game.replay(events).log


def test_bad_lines_are_one_line_errors():
    with pytest.raises(ValueError, match="not a card: 'pink-3'"):
        parse_event({"type": "cards_played", "seat": 0, "cards": ["pink-3"]})
    with pytest.raises(ValueError, match='"seat" of passed must be a whole number'):
        parse_event({"type": "passed", "seat": "0"})


# --- properties of random legal games --------------------------------------------------------


def _on_table(g: Game) -> int:
    c = g.contest
    if g.game_over:
        return 0
    return sum(len(c.played[s]) + c.concealed[s] for s in range(g.n) if c.in_play(s))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 6), persevering=st.booleans(),
       concealed=st.booleans())
def test_random_games_keep_every_rule(seed, n, persevering, concealed):
    events = random_game(random.Random(seed), n, Variant(persevering, concealed))
    g = Game(events[0])  # type: ignore[arg-type]
    target = g.setup.variant.chips_to_win
    for e in events[1:]:
        assert not g.game_over
        g.apply(e)  # type: ignore[arg-type]
        assert all(len(set(held)) == len(held) for held in g.chips)  # one chip a colour
        assert all(h >= 0 for h in g.piles.hands)
        # every card is somewhere: draw pile, discards, hands, on the table
        assert g.piles.draw + g.piles.discard + sum(g.piles.hands) + _on_table(g) == 96
    assert g.game_over and max(g.totals()) == target  # it ends at the target chip
    assert g.winners() == [s for s, t in enumerate(g.totals()) if t == target]
    record = [(i, parse_event(event_to_json(e))) for i, e in enumerate(events, 1)]
    assert fold_record(record).log == g.log  # replay(write(record)) is the game


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_undo_then_apply_is_the_same_game(seed):
    events = random_game(random.Random(seed), None, contests=3)
    g = Game.replay(events)  # type: ignore[arg-type]
    last = g.undo()
    g.apply(last)  # type: ignore[arg-type]
    assert g.log == events and g.piles == Game.replay(events).piles  # type: ignore[arg-type]
