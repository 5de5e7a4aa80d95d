"""A whole rendered game of Attacke through the real watcher and referee: its cards printed in
a deck design of the simulator, the companion taught that deck from one photo a card, a person
answering the table's questions from the record. The contests scored equal the record's."""

from __future__ import annotations

import pytest

from companion.demo import taught_deck
from companion.evaluate_attacke import ATTACKE, play_footage
from companion.footage import render_game


@pytest.fixture(scope="module")
def demo_game(tmp_path_factory):
    """The demo's Attacke game (`demo --game attacke`, seed 1: three players, ten contests)."""
    events = list(ATTACKE.random_game(1, 3))
    frames = render_game(events, tmp_path_factory.mktemp("attacke-game"), seed=1)
    return events, frames, taught_deck(ATTACKE, 1, frames)


def test_the_demo_s_attacke_game_is_scored_contest_by_contest(demo_game):
    from vision.read import Reader

    events, frames, deck = demo_game
    result = play_footage(events, frames, Reader.from_deck(deck))
    assert result["contests"] == 10
    assert (result["right"], result["wrong"], result["not_scored"]) == (10, 0, 0)
    # measured: 3 questions, all about Ben's second blue 7 laid on his first ("did Ben pass?",
    # then naming it). Before the watcher looked for a fan's cards in a box across it
    # (recognize.look_within): 10, Cy's fans of red 5s and 2s in contest 7 unseen.
    assert result["questions"] <= 4
    assert result["questions_offering_the_truth"] >= result["questions"] - 1


@pytest.mark.parametrize("flags, message", [
    ({"game": "attacke", "tactical": True}, "--tactical is not a variant of Attacke"),
    ({"concealed": True}, "--concealed is not a variant of Tightrope"),
    ({"game": "attacke", "players": 7}, "Attacke is for 2 to 6 players, not 7"),
    ({"players": 2}, "Tightrope is for 3 to 5 players, not 2"),
    ({"game": "solo", "players": 2}, r"Tightrope \(solo\) is for 1 player, not 2"),
    ({"game": "solo", "concealed": True}, r"--concealed is not a variant of Tightrope \(solo\)"),
])
def test_the_demo_refuses_what_its_game_cannot_play_in_one_line(flags, message):
    import argparse

    from companion.demo import demo_events

    args = argparse.Namespace(**{"game": "tightrope", "players": None, "seed": 1,
                                 "rounds": None, "tactical": False, "simultaneous": False,
                                 "concealed": False, "persevering": False, **flags})
    with pytest.raises(ValueError, match=message):
        demo_events(args)


def test_the_demo_draws_an_attacke_game_with_its_variant():
    import argparse

    from companion.demo import demo_events

    args = argparse.Namespace(game="attacke", players=5, seed=3, rounds=None, tactical=False,
                              simultaneous=False, concealed=True, persevering=True)
    events = demo_events(args)
    assert len(events[0].players) == 5 and events[0].variant.concealed
    assert ATTACKE.fold(enumerate(events, 1)).game_over
