"""A whole rendered game of solo Tightrope through the real watcher and referee: its playing
cards printed in a deck design of the simulator, the companion taught that deck from one photo a
card, a person answering the table's questions from the record. The missions scored equal the
record's (a mission's informants as a set: their order along the row scores nothing)."""

from __future__ import annotations

import pytest

from companion.demo import taught_deck
from companion.evaluate_solo import SOLO, play_footage
from companion.footage import render_game


@pytest.fixture(scope="module")
def demo_game(tmp_path_factory):
    """The demo's solo game (`demo --game solo`, seed 1: seven missions, 40 events)."""
    events = list(SOLO.random_game(1, 1))
    frames = render_game(events, tmp_path_factory.mktemp("solo-game"), seed=1)
    return events, frames, taught_deck(SOLO, 1, frames)


def test_the_demo_s_solo_game_is_scored_mission_by_mission(demo_game):
    from vision.read import Reader

    events, frames, deck = demo_game
    result = play_footage(events, frames, Reader.from_deck(deck))
    assert result["missions"] == 7
    assert (result["right"], result["wrong"], result["not_scored"]) == (7, 0, 0)
    assert result["same_sheet"] and result["result"] == "lost"
    assert result["questions"] == result["questions_offering_the_truth"]
