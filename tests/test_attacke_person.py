"""The Attacke person answers from the record: each unsure card of a play is one of the play's
cards not named yet, however many questions it answers about that play."""

from __future__ import annotations

from companion.games.attacke.person import Person
from companion.games.attacke.rules import (
    Card,
    CardsPlayed,
    Colour,
    Game,
    GameStarted,
    Passed,
    Variant,
)

GREEN_4 = Card(4, Colour.GREEN)
EVENTS = [GameStarted(("Ana", "Ben", "Cy"), first_player=0,
                      variant=Variant(persevering=False, concealed=True)),
          CardsPlayed(seat=0, cards=(GREEN_4,), concealed=3)]
STATE = {"contest": {"index": 0, "cards": [[], [], []], "concealed": [0, 0, 0]}}


def ask(track: int) -> dict:
    ids = ["back", "green-4", "green-3", "none"]  # the reader's likelier cards first
    return {"key": f"card:{track}", "message": "Which card did Ana lay in contest 1?",
            "round": 0, "seat": 0, "choices": [{"id": i, "label": i} for i in ids]}


def test_each_unsure_card_of_a_play_is_one_not_named_yet():
    person = Person(Game.replay(EVENTS))
    answers = [person.answer(ask(track), STATE) for track in range(5)]
    # three face down, then the green 4; a fifth card the play does not hold is none
    assert answers == ["back", "back", "back", "green-4", "none"]


def test_he_names_the_card_the_photo_shows_among_the_play_s():
    """Attacke zero-shot, seed 9: a back read as a shield 10, the play's knight ranked above
    the back; a person who names by the ranking calls it the knight, counted twice."""
    person = Person(Game.replay(EVENTS))
    ranked = ask(7)
    ranked["choices"] = [{"id": i, "label": i} for i in ["green-4", "back", "none"]]
    assert person.answer(ranked, STATE, photo="back") == "back"
    assert person.answer(ranked, STATE) == "green-4"  # not looking: the ranking
    # a photo of a card no play of his holds (another seat's, say): no card of his
    assert person.answer(ask(8), STATE, photo="green-3") == "none"


def test_he_does_not_name_a_card_the_question_says_was_laid_with_it():
    """Attacke zero-shot, seed 14: a box across Ben's green 7 and green 2 (read as a back)
    was asked about; its photo showed the 7, read surely beside it, and he named the 7."""
    true = Game.replay([EVENTS[0], CardsPlayed(seat=0, cards=(GREEN_4, Card(2, Colour.GREEN)))])
    person = Person(true)
    q = ask(1)
    q["message"] += " The camera is not sure (best guess face down). Laid with it: green 4."
    q["choices"] = [{"id": i, "label": i} for i in ["green-3", "green-4", "green-2", "none"]]
    assert person.answer(q, STATE, photo="green-4") == "green-2"


def test_a_card_laid_with_it_boxed_again_is_no_card():
    """Attacke zero-shot, seed 19: Eli's shield 7 and purple 2 were known, and a glimpse of
    the 2 (read as a shield 7 at 0.31) was asked about; the person named a card of Eli's later
    play, and the contest's total went wrong."""
    true = Game.replay([EVENTS[0], CardsPlayed(seat=0, cards=(GREEN_4,)),
                        CardsPlayed(seat=1, cards=(Card(5, Colour.GREEN),)), Passed(seat=2),
                        CardsPlayed(seat=0, cards=(Card(3, Colour.GREEN),))])  # her next play
    person = Person(true)
    q = ask(3)
    q["message"] += " Laid with it: green 4."
    assert person.answer(q, STATE, photo="green-4") == "none"


def test_a_card_of_no_play_of_his_on_the_photo_is_none():
    """Attacke zero-shot, seed 19: a glimpse of Fay's blue 3 being cleared with the last
    contest was asked about as a card of her next contest; he named her red 5 of that
    contest, and the real red 5 was then refused."""
    person = Person(Game.replay(EVENTS))
    assert person.answer(ask(4), STATE, photo="blue-3") == "none"
    assert person.answer(ask(5), STATE, photo="green-4") == "green-4"
