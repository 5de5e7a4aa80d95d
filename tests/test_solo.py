"""Solo Tightrope with playing cards (docs/rules-solo.md): every sentence of the sheet and every
ruling, worked through; the odds against a brute-force count; properties of random games."""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction
from itertools import combinations
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.games import GAMES, game_named
from companion.games.base import Note, RecordError, Undo
from companion.games.solo.cards import (
    CARD_NAMES,
    JOKER,
    OPPONENT_DECK,
    REBELS_DECK,
    Card,
    cards_of,
)
from companion.games.solo.events import event_to_json, fold_record, parse_event
from companion.games.solo.odds import agent_chances, mission_chance, open_chances, totals
from companion.games.solo.randgame import random_game
from companion.games.solo.rules import (
    BadSetup,
    CardDrawn,
    CardsRedrawn,
    Game,
    GameOver,
    GameStarted,
    HandFull,
    JackPlayed,
    MissionPlayed,
    NoHiddenInformant,
    NotAJack,
    NotInHand,
    SeenTwice,
    Spot,
    SpotNotOpen,
    WrongDeck,
    WrongInformants,
    WrongLaidCard,
)
from companion.games.solo.scoring import Variant, score
from companion.games.solo.views import replay_json, scoresheet_text, snapshot
from companion.record import header_line, parse_lines, write_record

# every card of the Rebels' deck but the jokers, in an order tests use up
FRESH = [c for c in sorted(REBELS_DECK) if c.rank != JOKER]


def C(*names: str) -> tuple[Card, ...]:
    return cards_of(names)


def game(**variant: bool) -> Game:
    return Game(GameStarted(("Ana",), Variant(**variant)))


def total(played: str, informants: str = "", **variant: bool) -> int:
    return score(C(*played.split()), C(*informants.split()), Variant(**variant)).total


def quiet(g: Game, *avoid: int) -> tuple[Card, ...]:
    """Every informant, face up: those known, and the hidden ones of ranks not in `avoid`."""
    o = g.opponent
    free = [c for c in sorted(o.unseen()) if c.rank not in avoid]
    return (*o.known(), *free[:o.hidden])


def redraw_one_by_one(g: Game, n: int) -> None:
    """n discard-and-redraws of one fresh card each: n Rebels' cards and n informants."""
    for card in FRESH[:n]:
        g.apply(CardsRedrawn((card,)))


# --- S1, S2: material and set-up ------------------------------------------------------------------


def test_the_rebels_deck_is_a_full_pack_and_two_jokers_ruling():
    assert REBELS_DECK.total() == 54 and REBELS_DECK[Card(JOKER)] == 2
    assert len(REBELS_DECK) == 53  # 52 faces and the joker, twice


def test_the_opponents_deck_has_no_jacks_queens_kings_or_jokers():
    assert len(OPPONENT_DECK) == 40
    assert Counter(c.rank for c in OPPONENT_DECK) == {r: 4 for r in range(1, 11)}


def test_the_deck_the_reader_knows_is_54_teach_names():
    assert len(CARD_NAMES) == len(set(CARD_NAMES)) == 54
    assert {"AS", "10H", "QH", "KC", "joker", "back"} <= set(CARD_NAMES)
    assert game_named("solo").deck == CARD_NAMES
    assert [str(Card.parse(n)) for n in CARD_NAMES if n != "back"] == list(CARD_NAMES[:-1])


@pytest.mark.parametrize("name", ["1H", "11S", "TS", "10X", "Joker", "", "AS "])
def test_a_card_name_is_a_teach_name_or_refused(name):
    with pytest.raises(ValueError, match="not a card"):
        Card.parse(name)


def test_the_set_up_deals_three_hidden_informants_and_a_hand_of_three():
    g = game()
    assert g.rebels.hand == 3 and g.rebels.draw == 51
    assert g.opponent.hidden == 3 and g.opponent.informants == 3 and g.opponent.draw == 37
    assert g.opponent.revealed == [] and g.missions == [] and not g.game_over


@pytest.mark.parametrize("players", [(), ("Ana", "Ben")])
def test_a_solo_game_is_for_one_player(players):
    with pytest.raises(BadSetup, match="for 1 player, not"):
        GameStarted(players)
    with pytest.raises(BadSetup, match="for 1 player, not 2"):
        game_named("solo").random_game(1, 2)


# --- S3: the pyramid ------------------------------------------------------------------------------


def test_six_spots_and_what_each_level_needs():
    assert [(s.value, s.need) for s in Spot] == [
        ("1a", 18), ("1b", 18), ("1c", 18), ("2a", 26), ("2b", 26), ("3", 34)]
    assert game().open_spots() == [Spot.LOW_LEFT, Spot.LOW_MIDDLE, Spot.LOW_RIGHT]


def test_a_spot_above_rests_on_the_two_below_it_ruling():
    g = game()
    with pytest.raises(SpotNotOpen, match="2a rests on 1a and 1b: win them first"):
        g.apply(MissionPlayed(Spot.HIGH_LEFT, C("10S", "9S"), quiet(g)))
    g.apply(MissionPlayed(Spot.LOW_LEFT, C("10S", "9S"), quiet(g, 10, 9)))
    assert Spot.HIGH_LEFT not in g.open_spots()
    g.apply(MissionPlayed(Spot.LOW_MIDDLE, C("10H", "9H"), quiet(g, 10, 9)))
    assert g.open_spots() == [Spot.LOW_RIGHT, Spot.HIGH_LEFT]  # 2b still needs 1c
    with pytest.raises(SpotNotOpen, match="3 rests on 2a and 2b"):
        g.apply(MissionPlayed(Spot.BIG_HIT, C("10D"), quiet(g)))


def test_a_spot_won_is_won_for_good():
    g = game()
    g.apply(MissionPlayed(Spot.LOW_LEFT, C("10S", "9S"), quiet(g, 10, 9)))
    with pytest.raises(SpotNotOpen, match="1a is already won"):
        g.apply(MissionPlayed(Spot.LOW_LEFT, C("10H", "9H"), quiet(g)))


# --- S4: values -----------------------------------------------------------------------------------


def test_points_are_the_face_values_and_faces_and_jokers_are_worth_nothing():
    assert total("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S") == 55
    assert total("JS joker") == 0 and Card.parse("QS").value == Card.parse("KS").value == 0


# --- S5, S6: the hand and drawing -----------------------------------------------------------------


def test_a_card_is_drawn_only_into_a_hand_of_fewer_than_five():
    g = game()
    g.apply(CardDrawn())
    g.apply(CardDrawn())
    assert g.rebels.hand == 5 and g.rebels.draw == 49
    with pytest.raises(HandFull, match="S6: a card is drawn only into a hand of fewer than 5"):
        g.apply(CardDrawn())
    assert g.rebels.hand == 5  # a refused event changes nothing


def test_no_more_cards_than_the_hand_holds_and_at_least_one():
    g = game()
    with pytest.raises(NotInHand, match="S5: the hand holds only 3 cards, not 4"):
        g.apply(MissionPlayed(Spot.LOW_LEFT, C("10S", "9S", "8S", "7S"), quiet(g)))
    with pytest.raises(NotInHand, match="name at least one card"):
        g.apply(CardsRedrawn(()))


# --- S7: discard and draw again -------------------------------------------------------------------


def test_a_redraw_shows_the_cards_draws_as_many_and_adds_as_many_informants():
    g = game()
    g.apply(CardsRedrawn(C("2S", "3D")))
    assert g.rebels.hand == 3 and g.rebels.draw == 49 and g.rebels.seen == list(C("2S", "3D"))
    assert g.opponent.hidden == 5 and g.opponent.draw == 35


# --- S8: the jack ---------------------------------------------------------------------------------


def test_a_jack_turns_one_hidden_informant_and_is_discarded():
    g = game()
    g.apply(JackPlayed(Card.parse("JS"), Card.parse("7H")))
    o = g.opponent
    assert o.revealed == [Card.parse("7H")] and o.hidden == 2 and o.informants == 3
    assert g.rebels.hand == 2 and g.rebels.draw == 51  # no card drawn for it (ruling)
    assert Card.parse("JS") in g.rebels.seen


def test_what_a_jack_cannot_do():
    g = game()
    with pytest.raises(NotAJack, match="QS is not a jack"):
        g.apply(JackPlayed(Card.parse("QS"), Card.parse("7H")))
    with pytest.raises(WrongDeck, match="the Opponent's deck has no KH"):
        g.apply(JackPlayed(Card.parse("JS"), Card.parse("KH")))
    g.apply(JackPlayed(Card.parse("JS"), Card.parse("7H")))
    with pytest.raises(SeenTwice, match="S16: JS was played or discarded already"):
        g.apply(JackPlayed(Card.parse("JS"), Card.parse("8H")))
    with pytest.raises(SeenTwice, match="7H cannot be a hidden informant: a jack has turned it"):
        g.apply(JackPlayed(Card.parse("JH"), Card.parse("7H")))
    g.apply(JackPlayed(Card.parse("JH"), Card.parse("8H")))
    g.apply(CardDrawn())
    g.apply(JackPlayed(Card.parse("JD"), Card.parse("9H")))
    with pytest.raises(NoHiddenInformant, match="S8: no informant is hidden"):
        g.apply(JackPlayed(Card.parse("JC"), Card.parse("10H")))


def test_the_informants_turned_by_a_jack_are_among_those_revealed_at_the_mission():
    g = game()
    g.apply(JackPlayed(Card.parse("JS"), Card.parse("7H")))
    with pytest.raises(WrongInformants, match="7H is one of the informants .a jack turned it."):
        g.apply(MissionPlayed(Spot.LOW_LEFT, C("10S"), C("2C", "3C", "4C")))
    mission = g.apply(MissionPlayed(Spot.LOW_LEFT, C("10S", "7S"), C("2C", "7H", "3C")))
    assert mission is not None and mission.scoring.double_agents == C("7S")


def test_a_jack_in_a_mission_only_counts_nothing_ruling():
    g = game()
    g.apply(MissionPlayed(Spot.LOW_LEFT, C("10S", "JS", "9S"), quiet(g, 10, 9)))
    assert g.missions[0].scoring.total == 19 and g.opponent.revealed == []


# --- S9: a mission and its double agents ----------------------------------------------------------


def test_a_played_card_matching_an_informant_is_a_double_agent_worth_nothing():
    s = score(C("10H", "9H"), C("10S", "2C", "3C"), Variant())
    assert s.total == 9 and s.double_agents == C("10H")


def test_every_played_card_that_matches_is_a_double_agent_ruling():
    assert total("7H 7D 10S", "7S 2C 3C") == 10


def test_matching_is_by_rank_alone_unless_the_variant_asks_for_the_suit_too():
    assert total("10H 9H", "10S 2C 3C", match_suit=True) == 19
    assert total("10H 9H", "10H 2C 3C", match_suit=True) == 9
    assert total("10H 9H", "10H 2C 3C") == 9


def test_face_cards_and_jokers_are_never_double_agents():
    assert total("KH 10S QH JH joker", "2C 3C 4C") == 20


def test_the_informants_revealed_must_be_every_informant_and_possible():
    g = game()
    ten = C("10S")
    with pytest.raises(WrongInformants, match="S9: there are 3 informants, not 2"):
        g.apply(MissionPlayed(Spot.LOW_LEFT, ten, C("2C", "3C")))
    with pytest.raises(WrongDeck, match="S1: the Opponent's deck has no QC"):
        g.apply(MissionPlayed(Spot.LOW_LEFT, ten, C("2C", "3C", "QC")))
    with pytest.raises(SeenTwice, match="2C is named twice"):
        g.apply(MissionPlayed(Spot.LOW_LEFT, ten, C("2C", "2C", "3C")))
    g.apply(MissionPlayed(Spot.LOW_LEFT, ten, C("2C", "3C", "4C")))
    with pytest.raises(SeenTwice, match="2C cannot be an informant: it is in the Opponent's disc"):
        g.apply(MissionPlayed(Spot.LOW_LEFT, C("9S"), C("2C", "3D", "4D")))


# --- S10, S11: queens and kings -------------------------------------------------------------------


def test_a_queen_cancels_the_informant_that_helps_most_and_says_which():
    s = score(C("7H", "9C", "QS"), C("7S", "9D", "2C"), Variant())
    assert s.total == 9 and s.cancelled == C("9D") and s.double_agents == C("7H")


def test_a_rank_with_two_informants_takes_two_queens():
    assert total("9C QS", "9D 9H 2C") == 0
    assert total("9C QS QH", "9D 9H 2C") == 9


def test_a_king_doubles_the_best_card_that_is_no_double_agent():
    s = score(C("10H", "9H", "KS"), C("10S", "2C", "3C"), Variant())
    assert s.total == 18 and s.doubled == C("9H")


def test_each_card_is_doubled_once_at_most_ruling():
    assert total("10H KS KH") == 20
    assert total("10H 9H KS KH") == 38


def test_a_queen_can_free_the_card_a_king_then_doubles():
    s = score(C("10H", "QS", "KS", "2D"), C("10S", "2C", "3C"), Variant())
    assert s.total == 20 and s.cancelled == C("10S") and s.doubled == C("10H")
    assert s.double_agents == C("2D")


def test_the_cards_played_are_all_that_count_queens_held_back_do_nothing():
    g = game()
    g.apply(CardDrawn())
    g.apply(MissionPlayed(Spot.LOW_LEFT, C("10S", "9S"), C("10H", "2C", "3C")))
    assert g.missions[0].scoring.total == 9  # the 10S a double agent: no queen was played


# --- S12: the joker -------------------------------------------------------------------------------


def test_a_joker_is_worth_nothing_and_does_nothing_by_default_ruling():
    s = score(C("10H", "joker"), C("10S", "2C", "3C"), Variant())
    assert s.total == 0 and s.jokers == ()


@pytest.mark.parametrize(("played", "informants", "best", "role"), [
    ("9H joker", "2C 3C 4C", 19, 10),          # as a ten
    ("10H 10D joker", "10S 2C 3C", 20, 12),    # as a queen: both tens are freed
    ("10H 10D KD joker", "10S 2C 3C", 30, 12),  # as a queen, and the king doubles a ten
    ("10H 9H joker", "2C 3C 4C", 29, 10),      # a ten beats doubling the ten (+10 either way)
    ("10H joker 9D KD", "10S 9S 3C", 20, 10),  # as a ten, doubled by the king
])
def test_a_wild_joker_stands_for_a_ten_a_queen_or_a_king_whichever_helps_most(
        played, informants, best, role):
    s = score(C(*played.split()), C(*informants.split()), Variant(joker_wild=True))
    assert s.total == best and s.jokers == (role,)


@pytest.mark.parametrize(("played", "informants"), [
    ("10H 9H", "2C 3C 4C"), ("10H 9H KD", "10S 3C 4C"), ("AH", "AS 3C 4C"), ("", "2C 3C 4C")])
def test_a_wild_joker_as_a_ten_is_never_worse_than_as_a_king(played, informants):
    """A king adds the value of the card it doubles, ten at most: a ten adds ten."""
    cards, against = C(*played.split()), C(*informants.split())
    wild = score((*cards, Card(JOKER)), against, Variant(joker_wild=True))
    assert wild.total >= score((*cards, Card.parse("KS")), against, Variant()).total
    assert wild.jokers != (13,)


def test_a_wild_joker_never_matches_an_informant_ruling():
    assert total("joker 9H", "10S 10H 10D", joker_wild=True) == 19


# --- S13: after a mission -------------------------------------------------------------------------


def test_a_success_wins_the_spot_and_one_played_card_stays_on_it():
    g = game()
    mission = g.apply(MissionPlayed(Spot.LOW_LEFT, C("10S", "9S"), quiet(g, 10, 9), C("10S")[0]))
    assert mission is not None and mission.success and mission.scoring.total == 19
    assert g.rebels.spots == {Spot.LOW_LEFT: Card.parse("10S")} and g.wins == 1


def test_a_failure_wins_nothing_and_lays_no_card():
    g = game()
    with pytest.raises(WrongLaidCard, match=r"S13: the mission failed \(10 of 18\)"):
        g.apply(MissionPlayed(Spot.LOW_LEFT, C("10S"), quiet(g, 10), Card.parse("10S")))
    with pytest.raises(WrongLaidCard, match="9H is not one of the cards played"):
        g.apply(MissionPlayed(Spot.LOW_LEFT, C("10S", "9S"), quiet(g, 10, 9), Card.parse("9H")))
    mission = g.apply(MissionPlayed(Spot.LOW_LEFT, C("10S"), quiet(g, 10)))
    assert mission is not None and not mission.success and g.rebels.spots == {}


def test_after_a_mission_the_informants_are_discarded_the_hand_refilled_and_more_dealt():
    g = game()
    informants = quiet(g, 10, 9)
    g.apply(MissionPlayed(Spot.LOW_LEFT, C("10S", "9S"), informants))
    assert g.opponent.discard == list(informants)
    assert g.rebels.hand == 3 and g.rebels.draw == 49  # refilled to three
    assert g.opponent.hidden == 4 and g.opponent.draw == 33  # three, and one for the win
    g.apply(MissionPlayed(Spot.LOW_MIDDLE, C("AS"), quiet(g)))  # a failure
    assert g.opponent.informants == 4  # three and one a win so far, whatever the outcome


def test_a_hand_of_three_or_more_after_a_mission_draws_nothing():
    g = game()
    g.apply(CardDrawn())
    g.apply(CardDrawn())
    g.apply(MissionPlayed(Spot.LOW_LEFT, C("AS"), quiet(g)))
    assert g.rebels.hand == 4 and g.rebels.draw == 49


# --- S14: the Opponent's deck runs out ------------------------------------------------------------


def test_the_discarded_informants_are_shuffled_into_a_new_deck_when_a_card_is_needed():
    g = game()
    for i in range(12):  # 12 redraws of three: 39 informants, one card left in the pile
        g.apply(CardsRedrawn(tuple(FRESH[3 * i:3 * i + 3])))
    assert g.opponent.informants == 39 and g.opponent.draw == 1
    last = Card.parse("5H")
    g.apply(MissionPlayed(Spot.LOW_LEFT, C("KS"), tuple(sorted(OPPONENT_DECK - {last}))))
    o = g.opponent
    # one card dealt from the old pile (the 5H: nothing else was left there), then the 39
    # discards shuffled into a new pile and two more dealt from it
    assert o.deduced == [last] and o.hidden == 2 and o.draw == 37 and o.discard == []
    with pytest.raises(WrongInformants, match="5H is one of the informants .no other card is left"):
        g.apply(MissionPlayed(Spot.LOW_LEFT, C("KH"), C("2C", "3C", "4C")))
    g.apply(JackPlayed(Card.parse("JS"), last))
    assert o.deduced == [] and o.revealed == [last] and o.hidden == 2


def test_with_no_discards_to_shuffle_fewer_informants_are_dealt_ruling():
    g = game()
    redraw_one_by_one(g, 40)
    assert g.opponent.informants == 40 and g.opponent.draw == 0  # 3 + 37 of the 40 redraws
    assert g.opponent.deduced == sorted(OPPONENT_DECK)  # all of them, by elimination
    g.apply(MissionPlayed(Spot.LOW_LEFT, C("KS"), tuple(sorted(OPPONENT_DECK))))
    assert g.opponent.draw == 37 and g.opponent.hidden == 3  # all 40 shuffled, as needed


# --- S15: the end ---------------------------------------------------------------------------------


WINNING = [  # (spot, cards played, cards drawn before, informants revealed): six wins
    (Spot.LOW_LEFT, "10S 9S", 0, "7S 7H 7D"),
    (Spot.LOW_MIDDLE, "10H 9H", 0, "7C 6S 6H 6D"),
    (Spot.LOW_RIGHT, "10D 9D", 0, "6C 8S 8H 8D 8C"),
    (Spot.HIGH_LEFT, "10C 9C 8S", 0, "5S 5H 5D 5C 4S 4H"),
    (Spot.HIGH_RIGHT, "8H 8D 8C 7S", 1, "4D 4C 3S 3H 3D 3C 2S"),
    (Spot.BIG_HIT, "KS KH 7H 7D 6S", 2, "2H 2D 2C AS AH AD AC 10S"),
]


def play_to_the_big_hit(g: Game) -> None:
    for spot, played, draws, informants in WINNING:
        for _ in range(draws):
            g.apply(CardDrawn())
        cards = C(*played.split())
        g.apply(MissionPlayed(spot, cards, C(*informants.split()), cards[0]))


def test_the_big_hit_wins_the_game_at_once():
    g = game()
    play_to_the_big_hit(g)
    assert g.won and g.game_over and g.result == "won" and g.winners() == [0]
    assert g.totals() == [6] and g.missions[-1].scoring.total == 34
    assert g.rebels.hand == 0 and g.opponent.informants == 0  # no refill, no deal (ruling)
    with pytest.raises(GameOver, match="S15: the game is over: Ana won"):
        g.apply(CardDrawn())


def test_the_game_is_lost_the_moment_the_rebels_deck_is_empty_ruling():
    g = game()
    redraw_one_by_one(g, 50)
    assert g.rebels.draw == 1 and not g.game_over
    g.apply(CardsRedrawn((FRESH[50],)))
    assert g.rebels.draw == 0 and g.lost and g.result == "lost" and g.winners() == []
    with pytest.raises(GameOver, match="Ana lost"):
        g.apply(MissionPlayed(Spot.LOW_LEFT, C("KS"), quiet(g)))


def test_a_refill_that_takes_the_last_card_loses_and_deals_no_informants():
    g = game()
    redraw_one_by_one(g, 50)  # the Opponent's deck ran out too: all 40 are informants
    assert g.opponent.informants == 40 and g.opponent.draw == 0
    g.apply(MissionPlayed(Spot.LOW_LEFT, (FRESH[50], FRESH[51]), tuple(sorted(OPPONENT_DECK))))
    assert g.lost and g.rebels.hand == 2 and g.opponent.informants == 0


def test_the_rebels_discards_never_come_back():
    g = game()
    g.apply(CardsRedrawn(C("AS")))
    with pytest.raises(SeenTwice, match="AS was played or discarded already"):
        g.apply(MissionPlayed(Spot.LOW_LEFT, C("AS"), quiet(g)))


# --- S16: each card in one place ------------------------------------------------------------------


def test_two_jokers_may_be_seen_a_third_may_not_ruling():
    g = game()
    g.apply(CardsRedrawn(C("joker")))
    g.apply(CardsRedrawn(C("joker")))
    with pytest.raises(SeenTwice, match="joker was played or discarded 2 times already"):
        g.apply(CardsRedrawn(C("joker")))
    with pytest.raises(SeenTwice):
        game().apply(CardsRedrawn(C("joker", "joker", "joker")))


def test_a_card_of_each_deck_may_share_a_name():
    g = game()
    g.apply(MissionPlayed(Spot.LOW_LEFT, C("7H"), C("7H", "2C", "3C")))  # the Opponent's 7H
    assert g.missions[0].scoring.double_agents == C("7H")


# --- the odds -------------------------------------------------------------------------------------


def test_the_odds_of_two_cards_against_three_hidden_informants():
    g = game()
    no_ten_nor_nine = Fraction(comb(32, 3), comb(40, 3))
    assert mission_chance(g, C("10S", "9S"), Spot.LOW_LEFT) == no_ten_nor_nine
    with_a_queen = Fraction(comb(32, 3) + 8 * comb(32, 2), comb(40, 3))  # one match: cancelled
    assert mission_chance(g, C("10S", "9S", "QS"), Spot.LOW_LEFT) == with_a_queen
    assert open_chances(g, C("10S", "9S")) == {s: no_ten_nor_nine for s in g.open_spots()}


def test_a_jacks_reveal_changes_the_odds():
    g = game()
    g.apply(JackPlayed(Card.parse("JS"), Card.parse("10H")))
    assert mission_chance(g, C("10S", "9S"), Spot.LOW_LEFT) == 0  # the 10S is a double agent
    assert mission_chance(g, C("10S", "9S", "QS"), Spot.LOW_LEFT) == Fraction(
        comb(32, 2), comb(39, 2))  # the queen cancels the 10H if no 10 or 9 is hidden


def test_informants_known_by_elimination_make_the_odds_certain():
    g = game()
    redraw_one_by_one(g, 40)
    assert mission_chance(g, C("AS"), Spot.LOW_LEFT) == 0
    assert totals(C("AS", "KS"), g.opponent.deduced, [], 0, Variant()) == {0: 1}


@settings(max_examples=60, deadline=None)
@given(data=st.data(), variant=st.builds(Variant, st.booleans(), st.booleans()))
def test_the_odds_are_a_count_over_every_set_of_hidden_informants(data, variant):
    """The rank-count enumeration against the plain one: every subset of the pool alike."""
    ranks = st.sampled_from(sorted(OPPONENT_DECK)[:12])  # aces to threes: many matches
    pool = data.draw(st.lists(ranks, min_size=1, max_size=8, unique=True))
    hidden = data.draw(st.integers(0, min(4, len(pool))))
    rest = sorted(set(OPPONENT_DECK) - set(pool))
    known = data.draw(st.lists(st.sampled_from(rest[:6]), max_size=2, unique=True))
    hand = sorted(REBELS_DECK)[:12] + [c for c in REBELS_DECK if c.rank > 10 or not c.rank]
    cards = data.draw(st.lists(st.sampled_from(hand), min_size=1, max_size=5, unique=True))
    counted: Counter[int] = Counter(score(cards, (*known, *drawn), variant).total
                                    for drawn in combinations(pool, hidden))
    n = comb(len(pool), hidden)
    assert totals(cards, known, pool, hidden, variant) == {
        t: Fraction(k, n) for t, k in sorted(counted.items())}


def test_the_odds_refuse_more_hidden_informants_than_cards():
    with pytest.raises(ValueError, match="3 hidden informants cannot come from 2 cards"):
        totals(C("AS"), (), C("2C", "3C"), 3, Variant())


# --- the record and the views ---------------------------------------------------------------------


def test_solo_is_a_game_the_companion_knows():
    assert "solo" in GAMES
    solo = game_named("solo")
    assert (solo.name, solo.title, solo.seats) == ("solo", "Tightrope (solo)", range(1, 2))


def test_every_event_has_a_record_line_and_reads_back():
    events = [GameStarted(("Ana",), Variant(joker_wild=True)), CardDrawn(),
              CardsRedrawn(C("2S", "3D")), JackPlayed(Card.parse("JS"), Card.parse("7H")),
              MissionPlayed(Spot.LOW_LEFT, C("10S", "9S"), C("7H", "2C", "3C", "4C", "5C"),
                            Card.parse("9S")),
              Note("a remark"), Undo(why="oops")]
    for e in events:
        assert parse_event(json.loads(json.dumps(event_to_json(e)))) == e
    assert event_to_json(events[4]) == {
        "type": "mission_played", "spot": "1a", "cards": ["10S", "9S"],
        "informants": ["7H", "2C", "3C", "4C", "5C"], "laid": "9S"}


@pytest.mark.parametrize(("line", "message"), [
    ({"type": "cards_redrawn", "cards": ["ZZ"]}, "not a card: 'ZZ'"),
    ({"type": "cards_redrawn", "cards": "AS"}, '"cards" of cards_redrawn must be a list'),
    ({"type": "mission_played", "spot": "4", "cards": [], "informants": []}, "not a spot: '4'"),
    ({"type": "jack_played", "jack": "JS"}, 'jack_played needs "revealed"'),
    ({"type": "game_started", "players": ["Ana"], "variant": {"wild": True}},
     "unknown variant 'wild'"),
])
def test_a_bad_line_is_one_line_error(line, message):
    with pytest.raises(ValueError, match=message):
        parse_event(line)


def test_a_record_names_the_game_and_reads_back(tmp_path):
    solo = game_named("solo")
    events = solo.random_game(5)
    path = tmp_path / "solo.jsonl"
    write_record(path, events, "solo")
    text = path.read_text().splitlines()
    assert json.loads(text[0]) == {"type": "tightrope-record", "version": 1, "game": "solo"}
    assert text[0] == header_line("solo")
    record = parse_lines(text)
    assert record.game.name == "solo" and [e for _, e in record.events] == events
    assert solo.replay_json(solo.fold(record.events)) == replay_json(Game.replay(events))


def test_the_cli_replays_a_solo_record(tmp_path, capsys):
    events = game_named("solo").random_game(5)
    path = tmp_path / "solo.jsonl"
    write_record(path, events, "solo")
    assert main(["replay", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "solo" and out["result"] in ("won", "lost")
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"Ana {out['result']}"


def test_a_rule_broken_in_a_record_names_its_line():
    lines = ['{"type": "tightrope-record", "version": 1, "game": "solo"}',
             '{"type": "game_started", "players": ["Ana"]}',
             '{"type": "card_drawn"}', '{"type": "card_drawn"}', '{"type": "card_drawn"}']
    with pytest.raises(RecordError, match="^line 5: S6: a card is drawn only into a hand"):
        fold_record(parse_lines(lines).events)


def test_undo_takes_back_the_last_event():
    g = game()
    g.apply(CardDrawn())
    g.apply(MissionPlayed(Spot.LOW_LEFT, C("10S", "9S"), quiet(g, 10, 9)))
    last = g.log[-1]
    assert g.undo() == last
    assert g.missions == [] and g.rebels.hand == 4 and g.opponent.informants == 3


def test_the_views_show_what_the_queens_and_kings_did():
    g = game()
    g.apply(CardDrawn())
    g.apply(MissionPlayed(Spot.LOW_LEFT, C("10H", "QS", "KS", "2D"), C("10S", "2C", "3C"),
                          Card.parse("10H")))
    view = replay_json(g)
    assert view["missions"][0] == {
        "index": 0, "spot": "1a", "need": 18, "cards": ["10H", "QS", "KS", "2D"],
        "informants": ["10S", "2C", "3C"], "total": 20, "success": True,
        "double_agents": ["2D"], "cancelled": ["10S"], "doubled": ["10H"], "jokers": [],
        "laid": "10H"}
    assert view["pyramid"][0] == {"spot": "1a", "level": 1, "need": 18, "won": True,
                                  "card": "10H", "open": False}
    assert view["rebels"] == {"draw": 47, "hand": 3, "discards": 3}
    assert view["informants"]["count"] == 4 and view["result"] is None
    sheet = scoresheet_text(g)
    assert "Q cancels 10S" in sheet and "K doubles 10H" in sheet and "[1a*]" in sheet


def test_the_snapshot_gives_the_odds_of_the_cards_laid_out():
    g = game()
    shown = snapshot(g, C("10S", "9S"))
    assert shown["open_spots"] == ["1a", "1b", "1c"]
    assert shown["chances"] == {s: pytest.approx(comb(32, 3) / comb(40, 3))
                                for s in ("1a", "1b", "1c")}
    assert snapshot(g)["chances"] == {}
    assert shown["on_table_total"] == 19 and snapshot(g)["on_table_total"] is None
    g.apply(JackPlayed(Card.parse("JS"), Card.parse("10H")))  # a ten waits: the 10S counts 0
    assert snapshot(g, C("10S", "9S", "KD"))["on_table_total"] == 18


# --- properties of random legal games -------------------------------------------------------------


def _every_card_in_one_place(g: Game) -> None:
    r, o = g.rebels, g.opponent
    seen = Counter(r.seen)
    assert all(n <= c.copies for c, n in seen.items())
    assert all(c in seen for c in r.spots.values() if c is not None)
    assert r.draw + r.hand + len(r.seen) == REBELS_DECK.total()
    places = [o.discard, o.revealed, o.deduced]
    assert sum(map(len, places)) == len(set().union(*places))  # no card in two of them
    assert len(o.unseen()) == o.draw + o.hidden
    assert sum(map(len, places)) + len(o.unseen()) == len(OPPONENT_DECK)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_random_games_keep_every_rule(seed):
    events = random_game(random.Random(seed))
    g = Game(events[0])  # type: ignore[arg-type]
    for e in events[1:]:
        assert not g.game_over and g.rebels.draw > 0  # it ended no earlier than the deck
        before = g.opponent.informants
        mission = g.apply(e)  # type: ignore[arg-type]
        _every_card_in_one_place(g)
        assert g.lost == (g.rebels.draw == 0 and not g.won)  # lost exactly when it is empty
        if mission is not None and not g.game_over:
            assert g.opponent.informants == 3 + g.wins  # the informants follow the successes
        if isinstance(e, CardsRedrawn) and not g.game_over:  # as many as there are (S14)
            left = len(OPPONENT_DECK) - before  # in the pile and the discards
            assert g.opponent.informants == before + min(len(e.cards), left)
    assert g.game_over and (g.won or g.rebels.draw == 0)
    record = [(i, parse_event(json.loads(json.dumps(event_to_json(e)))))
              for i, e in enumerate(events, 1)]
    folded = fold_record(record)
    assert folded.log == g.log and replay_json(folded) == replay_json(g)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), data=st.data())
def test_undo_is_the_replay_without_the_last_event(seed, data):
    events = random_game(random.Random(seed))
    cut = data.draw(st.integers(2, len(events)))
    g = Game.replay(events[:cut])  # type: ignore[arg-type]
    assert g.undo() == events[cut - 1]
    assert replay_json(g) == replay_json(Game.replay(events[:cut - 1]))  # type: ignore[arg-type]


def test_random_games_are_won_and_lost():
    results = Counter(Game.replay(random_game(random.Random(s))).result  # type: ignore[arg-type]
                      for s in range(40))
    assert results["won"] and results["lost"] and results["won"] + results["lost"] == 40


def test_the_chance_an_informant_matches_each_rank():
    g = game()
    chances = agent_chances(g)
    assert len(chances) == 10 and chances[(7, "")] == 1 - Fraction(comb(36, 3), comb(40, 3))
    for (rank, _), p in chances.items():  # one card alone scores 0 exactly when it is matched
        assert p == totals(C(f"{'A' if rank == 1 else rank}S"), (), g.opponent.unseen(), 3,
                           Variant()).get(0, 0)
    g.apply(JackPlayed(Card.parse("JS"), Card.parse("10H")))
    assert agent_chances(g)[(10, "")] == 1  # a turned ten is a double agent for sure
    shown = snapshot(g)["match_chances"]
    assert shown["10"] == 1.0 and shown["A"] == pytest.approx(
        1 - comb(35, 2) / comb(39, 2))
    suited = Game(GameStarted(("Ana",), Variant(match_suit=True)))
    assert len(agent_chances(suited)) == 40
    assert snapshot(suited)["match_chances"]["7H"] == pytest.approx(3 / 40)
