"""The benches' person at a Tightrope table (companion.evaluate): a person who looks at the
photo of a question's card says so where it shows no card (a glare boxed as one) or a card
counted before, and rendered footage's truth tells where cards lie."""

from __future__ import annotations

import json
import random

import numpy as np

from companion.commands import NewGame, Resolve, Seen
from companion.evaluate import TrueTable, answer_all
from companion.evaluate_table import Photos
from companion.games.tightrope.interpreter import SCORING_SETTLE_S
from companion.games.tightrope.randgame import random_game
from companion.games.tightrope.rules import Game, Variant
from companion.referee import Referee
from companion.store import Store
from vision.types import ALL_CARDS, CardId, Change, Observation, Reading

RED_ZERO = CardId("scoring", 0, "red")
QUAD = np.array([[0, 0], [80, 0], [80, 120], [0, 120]], np.float32)


def a_glare_in_the_scoring_row(tmp_path) -> tuple[Referee, Game]:
    """A game started, and a glare on the table boxed as a card in the scoring row, read
    unsure (the zero-shot reader's best guess: a red zero, 43 %)."""
    true = Game.replay(random_game(random.Random(1), 3, Variant()))
    referee = Referee(Store(tmp_path / "table.db"))
    referee.handle(NewGame(true.setup))
    rest = [(c, 0.57 / 60) for c in ALL_CARDS if c != RED_ZERO]
    glare = Reading.of(None, 0.43, ((RED_ZERO, 0.43), *rest), 0.98)
    seen = Observation(glare, QUAD, (391.0, 309.0), "scoring", 3, track=1)
    referee.handle(Seen((Change("appeared", seen, 11),), 1.1))
    referee.handle(Seen((), 1.1 + SCORING_SETTLE_S + 0.1))
    assert referee.view()["conflict"]["key"] == "card:1"
    return referee, true


def test_a_person_who_looks_says_a_glare_is_no_scoring_card(tmp_path):
    referee, true = a_glare_in_the_scoring_row(tmp_path)
    assert answer_all(referee, true, sees=lambda key: "" if key == "card:1" else None) == (1, 1)
    assert referee.view()["conflict"] is None
    assert not referee.game.revealed  # nothing revealed: the row is still empty


def test_a_person_who_sees_a_card_counted_before_says_it_is_no_new_scoring_card(tmp_path):
    referee, true = a_glare_in_the_scoring_row(tmp_path)
    answer_all(referee, true, sees=lambda key: "scoring:9")  # a 9 of an earlier round, say
    assert not referee.game.revealed


def test_a_person_who_sees_the_trick_s_card_names_it(tmp_path):
    referee, true = a_glare_in_the_scoring_row(tmp_path)
    answer_all(referee, true, sees=lambda key: "scoring:blue0")
    assert list(referee.game.revealed) == [true.rounds[0].tricks[0].scoring[0]]


def test_a_person_who_does_not_look_names_the_trick_s_card_for_it(tmp_path):
    """What the benches' person did before: the record's first scoring card named for the
    glare (a whole zero-shot game was scored a trick off from there on)."""
    referee, true = a_glare_in_the_scoring_row(tmp_path)
    answer_all(referee, true, limit=1)
    assert list(referee.game.revealed) == [true.rounds[0].tricks[0].scoring[0]]


def test_the_truth_of_rendered_footage_says_where_cards_lie(tmp_path):
    corners = [[180, 240], [260, 240], [260, 362], [180, 362]]
    rows = [{"action": "reveal", "card": "scoring-0-blue", "frame": 18,
             "table": [{"label": "scoring-0-blue", "corners": corners, "center": [220, 301]}]},
            {"action": "clear", "frame": 40, "table": []}]
    (tmp_path / "truth.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    truth = TrueTable.of(tmp_path)
    assert truth is not None
    assert truth.card_at(10, (220, 301)) is None              # before it was laid
    assert truth.card_at(18, (250, 301)) == truth.card_at(39, (220, 301)) == "scoring-0-blue"
    assert truth.card_at(30, (391, 309)) is None              # beside it: the glare's place
    assert truth.card_at(40, (220, 301)) is None              # cleared
    assert TrueTable.of(tmp_path / "none") is None     # a game night's frames: no truth


class AsksForEver:
    """A referee whose question comes back however it is answered (as the "two cards out"
    question once did, when the rules refused its answer)."""

    def __init__(self) -> None:
        self.answers: list[str] = []

    def view(self) -> dict:
        return {"state": {}, "conflict": {"key": "where:7", "id": "q7", "seat": 0,
                                          "choices": [{"id": "ok", "label": "OK"}]}}

    def handle(self, command: Resolve) -> None:
        self.answers.append(command.choice)


def test_a_question_that_comes_back_once_answered_waits_for_the_next_frame():
    referee = AsksForEver()
    true = Game.replay(random_game(random.Random(1), 3, Variant()))
    assert answer_all(referee, true) == (1, 1)  # type: ignore[arg-type]
    assert referee.answers == ["ok"]


def test_the_photos_of_any_game_show_the_card_where_its_question_came_from():
    # Attacke and solo benches (companion.evaluate_table.Photos): the card truly lying where
    # the watcher saw the question's card come; "" for none (a glare), None if unknown
    truth = TrueTable([(10, [("red-4", 300.0, 600.0, 80.0)])])
    photos = Photos(truth)
    glare = Observation(Reading.of(None, 0.16, (), 0.98), QUAD, (900.0, 300.0), 5, 3, track=7)
    card = Observation(Reading.of(None, 0.4, (), 0.98), QUAD, (310.0, 605.0), 1, 3, track=8)
    photos.seen(12, [Change("appeared", glare, 12), Change("appeared", card, 12)])
    assert photos.sees("card:7") == "" and photos.sees("card:8") == "red-4"
    assert photos.sees("card:9") is None and photos.sees("pass:0:1") is None
    assert Photos(None).sees("card:7") is None  # a real night's frames: no truth


def test_a_question_s_photo_shows_the_card_as_it_came_not_the_next_one_there():
    """Tightrope zero-shot, design 171 on a plaid cloth: a question about Dora's 29 waited
    until the next trick, when her 45 lay in its place; the person who looked at the table
    then said "none" and the trick was lost, with every later one."""
    truth = TrueTable([(66, [("number-29", 900.0, 110.0, 80.0)]), (114, []),
                       (160, [("number-45", 892.0, 99.0, 80.0)])])
    photos = Photos(truth)
    dora = Observation(Reading.of(None, 0.95, (), 0.98), QUAD, (903.0, 112.0), 3, 3, track=3)
    photos.seen(77, [Change("appeared", dora, 77)])
    photos.seen(203, [])
    assert photos.sees("card:3") == "number-29"
