"""The solo person answers from the record: the draws before a move, the card that stays, an
informant the camera missed, and a card of the move of the kind the question names, where the
question says it lies."""

from __future__ import annotations

from companion.games.solo.cards import Card
from companion.games.solo.person import Person
from companion.games.solo.rules import (
    CardDrawn,
    CardsRedrawn,
    Game,
    GameStarted,
    MissionPlayed,
    Spot,
)

C = Card.parse
EVENTS = [GameStarted(("Ana",)), CardDrawn(), CardDrawn(), CardsRedrawn((C("2C"), C("3C"))),
          MissionPlayed(Spot.LOW_LEFT, (C("10S"), C("9S")),
                        (C("2D"), C("3D"), C("4D"), C("5D"), C("6D")),
                        C("9S"))]
TRUE = Game.replay(EVENTS)


def ask(key: str, message: str, *ids: str) -> dict:
    return {"key": key, "message": message, "choices": [{"id": i, "label": i} for i in ids]}


def test_draws_the_card_that_stays_and_a_missed_informant_come_from_the_record():
    p = Person(TRUE)
    assert p.answer(ask("draws:0", "How many?", "0", "1", "2"), {"events": 1}) == "2"
    assert p.answer(ask("draws:1", "How many?", "0", "1"), {"events": 4}) == "0"
    assert p.answer(ask("laid:0", "Which stays?", "10S", "9S", "none"), {}) == "9S"
    assert p.answer(ask("missing:0", "Which other?", "5H", "4D", "AS"), {}) == "4D"


def test_a_card_is_one_of_its_move_where_the_question_says_it_lies():
    p = Person(TRUE)
    zone = "Which card did Ana lay in the player's zone (card 2 laid)? The camera is not sure."
    assert p.answer(ask("card:5", zone, "2C", "3C", "none"), {"events": 1}) == "3C"
    spot = "Which card did Ana lay on spot 1a (card 1 laid)? The camera is not sure."
    # the table is still at the redraw: the card on spot 1a is the mission's all the same
    assert p.answer(ask("card:6", spot, "9S", "10S", "none"), {"events": 1}) == "10S"
    ghost = "Which card did Ana lay on spot 1a (card 3 laid)? The camera is not sure."
    assert p.answer(ask("card:7", ghost, "9S", "10S", "none"), {"events": 4}) == "none"
    row = "Which card did Ana turn in the row (card 2 of the row)? The camera is not sure."
    assert p.answer(ask("card:8", row, "4D", "3D", "back", "none"), {"events": 4}) == "4D"
    assert p.answer(ask("card:9", row, "4D", "3D", "back", "none"), {"events": 4}) == "3D"


def test_a_redraw_named_late_puts_the_table_s_record_a_move_ahead_of_the_true_one():
    """The camera saw the 2C of a redraw but not the 3C: asked at the mission, the person
    names the 3C, and the table's record holds it as a move of its own (the true one does
    not). Asked next how many he drew before the following redraw, he counts from the true
    record all the same (two), not from the table's move number."""
    true = Game.replay([
        GameStarted(("Ana",)), CardsRedrawn((C("2C"), C("3C"))),
        MissionPlayed(Spot.LOW_LEFT, (C("10S"), C("9S")),
                      (C("2D"), C("3D"), C("4D"), C("5D"), C("6D"))),
        CardDrawn(), CardDrawn(), CardsRedrawn((C("4H"),))])
    p = Person(true)
    said = "since the last mission: 2C). Which card did the player discard"
    assert p.answer(ask("redrew:0", f"5 informants ({said}", "3C", "4H", "none"),
                    {"events": 2}) == "3C"
    # the table: GameStarted, the 2C, the 3C, the mission; the redraw of the 4H is move 3
    assert p.answer(ask("draws:3", "How many?", "0", "1", "2"), {"events": 4}) == "2"


def test_he_names_the_informant_the_photo_shows():
    """The row's place may hold either of two informants (the camera may have lost one); the
    photo shows which."""
    p = Person(TRUE)
    row = "Which card did Ana turn in the row (card 2 of the row)? The camera is not sure."
    assert p.answer(ask("card:8", row, "4D", "3D", "back", "none"), {"events": 4},
                    photo="3D") == "3D"
    assert p.answer(ask("card:9", row, "4D", "3D", "back", "none"), {"events": 4}) == "4D"
