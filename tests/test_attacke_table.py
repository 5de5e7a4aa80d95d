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
    assert result["questions"] == result["questions_offering_the_truth"] <= 2
