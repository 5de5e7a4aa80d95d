"""The interpreter on its own: sightings and answers in, decisions out, nothing on a guess."""

from __future__ import annotations

import random

import numpy as np
import pytest
from conftest import settle
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from companion.games.base import AnswerError, Question, certain_by_rules
from companion.games.tightrope.events import PlayCorrected
from companion.games.tightrope.interpreter import (
    MISSING_GRACE_S,
    SCORING_LATE_S,
    SCORING_SETTLE_S,
    TURN_GRACE_S,
    Interpreter,
    choice_id,
    narrow,
)
from companion.games.tightrope.log import GameLog
from companion.games.tightrope.randgame import random_game
from companion.games.tightrope.rules import (
    Colour,
    GameStarted,
    ScoringCard,
    ScoringRevealed,
    Variant,
)
from vision.types import ALL_CARDS, CardId, Change, Observation, Reading

QUAD = np.zeros((4, 2), np.float32)


def sure(card: CardId, p: float = 0.999) -> Reading:
    rest = [(c, (1 - p) / 60) for c in ALL_CARDS if c != card]
    return Reading.of(card, p, ((card, p), *rest), 0.9)


def unsure(*cands: tuple[CardId, float]) -> Reading:
    total = sum(p for _, p in cands)
    rest = [(c, (1 - total) / (61 - len(cands))) for c in ALL_CARDS
            if c not in {k for k, _ in cands}]
    return Reading.of(None, cands[0][1], (*cands, *rest), 0.9)


def number(n: int) -> CardId:
    return CardId("number", n)


def scoring(v: int, colour: str | None = None) -> CardId:
    return CardId("scoring", v, colour)  # type: ignore[arg-type]


class Table:
    """The interpreter and a game, driven as the referee drives them."""

    def __init__(self, players: int = 3, variant: Variant | None = None) -> None:
        names = ("Ana", "Ben", "Cy", "Dora", "Eli")[:players]
        self.log = GameLog(GameStarted(names, 0, variant or Variant()))
        self.it = Interpreter()
        self.questions: dict[str, Question] = {}
        self.track = 0
        self.t = 0.0
        self.refused: list[str] = []
        self.applied: list = []  # every event applied, corrections too

    @property
    def game(self):
        return self.log.game

    def lay(self, zone, reading: Reading, dt: float = 0.5, track: int | None = None) -> int:
        """A card appears (committed by the watcher) dt seconds after the last change."""
        if track is None:
            self.track += 1
            track = self.track
        self.t += dt
        obs = Observation(reading, QUAD, (0.0, 0.0), zone, 3, track)
        self.it.seen([Change("appeared", obs, 0)], self.t)
        self.settle()
        return track

    def take(self, *tracks: int, dt: float = 0.5) -> None:
        self.t += dt
        changes = [Change("removed", Observation(sure(number(1)), QUAD, (0, 0), None, 3, k), 0)
                   for k in tracks]
        self.it.seen(changes, self.t)
        self.settle()

    def wait(self, seconds: float) -> None:
        self.t += seconds
        self.settle()

    def settle(self) -> None:
        settle(self.it, self.log, self.t, self.questions, self.refused, self.applied)

    def answer(self, key: str, choice: str) -> None:
        self.it.answer(key, choice, self.game, self.t)
        self.questions.pop(key, None)
        self.settle()


def reveal_and_play(table: Table, value: int, cards: list[int]) -> None:
    table.lay("scoring", sure(scoring(value)))
    table.wait(SCORING_SETTLE_S)
    for seat in table.game.to_play() and _order(table):
        table.lay(seat, sure(number(cards[seat])))


def _order(table: Table) -> list[int]:
    g = table.game
    return [(g.leader + i) % g.n for i in range(g.n)]


def test_a_clean_trick_is_scored_with_no_question():
    t = Table()
    reveal_and_play(t, 3, [7, 28, 36])
    trick = t.game.tricks_this_round[0]
    assert trick.value == 3 and {p.card for p in trick.plays} == {7, 28, 36}
    assert not t.questions


def test_a_zero_and_its_value_card_apply_zero_first_whatever_order_they_arrive():
    t = Table()
    t.lay("scoring", sure(scoring(4)), dt=0.2)
    t.lay("scoring", sure(scoring(0, "blue")), dt=0.2)
    t.wait(SCORING_SETTLE_S)
    assert t.game.trick_scoring == (ScoringCard(0, Colour.BLUE), ScoringCard(4))
    assert t.game.trick_covered is Colour.BLUE


def test_an_unsure_card_found_just_after_the_value_card_is_asked_before_the_trick_counts():
    # a zero half under the value card is found a frame after it, and not read surely: the
    # value card must not close the reveal without it
    t = Table()
    t.lay("scoring", sure(scoring(8)), dt=0.2)
    track = t.lay("scoring", unsure((scoring(0, "blue"), 0.5), (scoring(0, "red"), 0.3)),
                  dt=0.3)
    t.wait(SCORING_SETTLE_S)
    assert t.game.trick_value is None and f"card:{track}" in t.questions
    t.answer(f"card:{track}", "scoring:blue0")
    assert t.game.trick_scoring == (ScoringCard(0, Colour.BLUE), ScoringCard(8))


def test_two_zeros_count_in_the_order_the_camera_first_saw_them():
    # the red zero was seen first (its track is older) but read only after the blue one
    t = Table()
    t.lay("scoring", sure(scoring(0, "blue")), dt=0.2, track=11)
    t.lay("scoring", sure(scoring(0, "red")), dt=0.2, track=10)
    t.lay("scoring", sure(scoring(5)), dt=0.2, track=12)
    t.wait(SCORING_SETTLE_S)
    assert t.game.trick_scoring == (ScoringCard(0, Colour.RED), ScoringCard(0, Colour.BLUE),
                                    ScoringCard(5))


def test_an_unsure_card_seen_before_a_sure_zero_is_settled_first():
    # the red zero was seen first but not read surely; the blue zero on it was: the red one is
    # asked about before the blue one counts, so the two count in the order they were laid
    t = Table()
    red = t.lay("scoring", unsure((scoring(0, "red"), 0.5), (scoring(6), 0.3)), dt=0.2,
                track=10)
    t.lay("scoring", sure(scoring(0, "blue")), dt=0.2, track=11)
    t.lay("scoring", sure(scoring(5)), dt=0.2, track=12)
    t.wait(SCORING_SETTLE_S)
    assert t.game.trick_scoring == () and f"card:{red}" in t.questions
    t.answer(f"card:{red}", "scoring:red0")
    assert t.game.trick_scoring == (ScoringCard(0, Colour.RED), ScoringCard(0, Colour.BLUE),
                                    ScoringCard(5))


def test_an_unsure_scoring_card_is_asked_with_every_card_left_ranked():
    t = Table()
    track = t.lay("scoring", unsure((scoring(6), 0.5), (scoring(9), 0.4)))
    t.wait(SCORING_SETTLE_S)
    q = t.questions[f"card:{track}"]
    ids = [c.id for c in q.choices]
    assert ids[:2] == ["scoring:6", "scoring:9"] and "scoring:1" in ids and ids[-1] == "none"
    assert len(ids) == 11 + 1 and q.ok is None and q.track == track
    assert t.game.trick_value is None  # nothing on a guess
    t.answer(q.key, "scoring:9")
    assert t.game.trick_value == 9 and not t.questions


def test_a_zero_is_never_taken_on_what_the_rules_rule_out():
    """A scoring 9's red half, below a zero, read as a red zero at 0.96 (design 52, printed
    cloth): ruling out the number cards would lift it over the line, but a zero counts only on
    the reader's own word. The table is asked, and "not a new scoring card" is a choice."""
    t = Table()
    almost = unsure((scoring(0, "red"), 0.963), (number(10), 0.03))
    track = t.lay("scoring", almost)
    t.wait(SCORING_SETTLE_S)
    q = t.questions[f"card:{track}"]
    ids = [c.id for c in q.choices]
    assert ids[0] == "scoring:red0" and ids[-1] == "none" and t.game.trick_scoring == ()
    t.answer(q.key, "none")
    assert t.game.trick_scoring == () and not t.questions
    value = t.lay("scoring", unsure((scoring(5), 0.963), (number(10), 0.03)))
    t.wait(SCORING_SETTLE_S)  # a value card is still narrowed: the number cards ruled out
    assert t.game.trick_value == 5 and f"card:{value}" not in t.questions


def test_a_question_a_later_sure_read_answers_is_withdrawn():
    t = Table()
    track = t.lay("scoring", unsure((scoring(6), 0.5), (scoring(9), 0.4)))
    t.wait(SCORING_SETTLE_S)
    assert f"card:{track}" in t.questions
    t.lay("scoring", sure(scoring(6)), dt=0.1, track=track)  # the watcher read it again
    t.wait(SCORING_SETTLE_S)
    assert t.game.trick_value == 6 and not t.questions


def test_a_card_read_as_one_already_played_is_asked_with_the_truth_among_the_choices():
    """... and once named, the read the person overruled is not asked about again (design 57,
    zero-shot: "counted as 8 and now reads as 3" at once after "the camera read 3")."""
    t = Table()
    reveal_and_play(t, 5, [10, 20, 30])
    for k in range(1, 4):  # clear the first trick
        t.take(k + 1)
    t.lay("scoring", sure(scoring(2)))
    t.wait(SCORING_SETTLE_S)
    leader = t.game.leader
    track = t.lay(leader, sure(number(20)))  # a misread: 20 was played already
    q = t.questions[f"card:{track}"]
    assert t.game.trick_plays == () and "card:44" in [c.id for c in q.choices]
    # the read is offered too (one of the two reads of 20 is wrong), saying what it means
    assert q.choices[0].id == "card:20" and "Ben's card in trick 1 was another" in \
        q.choices[0].label and "Ben's card in trick 1 counts as 20" in q.message
    t.answer(q.key, "card:44")
    assert t.game.trick_plays[0].card == 44
    t.lay(leader, sure(number(20)), track=track)  # read again as the 20 the person overruled
    assert f"again:{track}" not in t.questions
    t.lay(leader, sure(number(40)), track=track)  # a new read is asked about
    assert [c.id for c in t.questions[f"again:{track}"].choices] == ["card:44", "card:40"]


def twenty_read_twice(t: Table) -> int:
    """Ben's 20 of the first trick (10, 20, 30) counted on the camera's read, the trick cleared,
    and the next leader's card read surely as 20 too: its track (asked about)."""
    reveal_and_play(t, 5, [10, 20, 30])
    for k in range(1, 4):
        t.take(k + 1)
    t.lay("scoring", sure(scoring(2)))
    t.wait(SCORING_SETTLE_S)
    return t.lay(t.game.leader, sure(number(20)))


def test_a_card_named_as_one_counted_on_a_read_asks_which_that_card_was_and_corrects_it():
    """Design 375, zero-shot: Ben's 6 read as 8 at 0.98 and counted; Ana's 8, read at 1.00
    four tricks later, was refused as played, no question could offer it, and the game went
    astray (5 of 36 tricks right). Named, the 20 asks what Ben's card was, and his play is
    corrected before the 20 is played."""
    t = Table()
    track = twenty_read_twice(t)
    t.answer(f"card:{track}", "card:20")
    q = t.questions["again:2"]  # Ben's card (track 2)
    assert q.seat == 1 and q.trick == 0 and t.game.trick_plays == ()
    assert "Which card did Ben play in trick 1 of round 1?" in q.message
    assert f"{t.game.setup.players[t.game.leader]}'s card was named as the 20" in q.message
    assert f"card:{track}" not in t.questions  # the 20 waits for that answer
    ids = [c.id for c in q.choices]
    assert ids[0] == "card:20" and "card:25" in ids and "card:10" not in ids  # 10: Ana's
    assert q.any_card == "number"  # (a phone shows the likeliest few, and takes any other)
    with pytest.raises(AnswerError):
        t.it.answer("again:2", "card:10", t.game, t.t)  # Ana's: played already
    t.answer("again:2", "card:25")
    assert isinstance(t.applied[-2], PlayCorrected) and t.applied[-2].card == 25
    assert not t.game.rounds and t.game.trick_plays[0].card == 20
    first = [(e.seat, e.card) for e in t.log.effective[2:5]]
    assert (1, 25) in first and (1, 20) not in first and not t.questions


def test_a_card_counted_on_a_read_kept_after_all_asks_about_the_other_again():
    t = Table()
    track = twenty_read_twice(t)
    t.answer(f"card:{track}", "card:20")
    t.answer("again:2", "card:20")  # Ben's was the 20 after all
    q = t.questions[f"card:{track}"]
    assert t.game.trick_plays == () and "card:20" not in [c.id for c in q.choices]
    t.answer(q.key, "card:44")
    assert t.game.trick_plays[0].card == 44 and "again:2" not in t.questions


def test_a_card_named_as_one_a_person_counted_is_refused():
    t = Table()
    track = twenty_read_twice(t)
    t.it.table.cards[2].by_person = True  # Ben's 20 was a person's word: it stands
    t.wait(0.5)
    q = t.questions[f"card:{track}"]
    assert "card:20" not in [c.id for c in q.choices]
    with pytest.raises(AnswerError):
        t.it.answer(q.key, "card:20", t.game, t.t)


def test_a_card_the_reader_is_sure_of_below_its_heads_line_is_taken_where_the_rules_allow_it():
    """The deck's photos settle a read its head gives less than the line (a 12 at 0.86, the 21
    at 0.14): the reader is sure, so the card is played without a question. Before, it was
    asked, and the question said the rules did not allow the 12 (design 11, seed 4)."""
    photos = Reading.of(number(12), 0.86, ((number(12), 0.86), (number(21), 0.14)), 0.95)
    t = Table()
    reveal_and_play(t, 5, [10, 20, 30])
    t.take(2, 3, 4)
    t.lay("scoring", sure(scoring(2)))
    t.wait(SCORING_SETTLE_S)
    t.lay(t.game.leader, photos)
    assert [p.card for p in t.game.trick_plays] == [12] and not t.questions
    nxt = (t.game.leader + 1) % t.game.n  # the same read at the next seat: the 12 is played
    track = t.lay(nxt, photos)
    assert [p.card for p in t.game.trick_plays] == [12]
    # the 12 counted is offered as well (one of the two reads is wrong), then the 21
    assert [c.id for c in t.questions[f"card:{track}"].choices][:2] == ["card:12", "card:21"]


def test_a_second_card_at_a_seat_that_played_is_no_card_of_the_trick():
    """Ben played 20 and a second card is seen at his place (the 20 found anew, a card slid
    there): the table is told that the 20 counts, and asked only to confirm. A choice "20: keep
    it" once named the other card as the 20, which the rules refuse as played already: the
    question came back for ever (design 11, checked cloth, zero-shot, seed 5)."""
    t = Table()
    t.lay("scoring", sure(scoring(5)))
    t.wait(SCORING_SETTLE_S)
    leader = t.game.leader
    t.lay(leader, sure(number(20)))
    track = t.lay(leader, unsure((number(26), 0.6), (number(28), 0.3)))
    t.wait(TURN_GRACE_S)
    q = t.questions[f"two:{track}"]
    assert [c.id for c in q.choices] == ["ok"] and q.ok == "ok"
    assert "20 counts, the other is no card of this trick" in q.message
    t.answer(q.key, "ok")
    assert f"two:{track}" not in t.questions
    assert [(p.seat, p.card) for p in t.game.trick_plays] == [(leader, 20)]


def test_any_legal_card_may_be_given_and_an_illegal_one_is_refused():
    t = Table()
    reveal_and_play(t, 5, [10, 20, 30])
    t.take(2, 3, 4)
    t.lay("scoring", sure(scoring(2)))
    t.wait(SCORING_SETTLE_S)
    track = t.lay(t.game.leader, unsure((number(11), 0.3), (number(17), 0.3)))
    t.it.table.cards[2].confirmed = True  # a person kept Ben's 20 (a read alone is doubted)
    with pytest.raises(AnswerError):
        t.answer(f"card:{track}", "card:20")  # already played this round
    t.answer(f"card:{track}", "card:49")  # not among the top candidates, still a legal card
    assert t.game.trick_plays[0].card == 49


def test_a_scoring_card_already_revealed_this_round_is_refused_as_an_answer():
    """Refused in one line, not taken and asked again for ever."""
    t = Table()
    reveal_and_play(t, 5, [10, 20, 30])
    t.take(2, 3, 4)
    track = t.lay("scoring", unsure((scoring(6), 0.5), (scoring(9), 0.4)))
    t.wait(SCORING_SETTLE_S)
    t.it.table.cards[1].confirmed = True  # a person kept the 5 (a read alone is doubted)
    with pytest.raises(AnswerError, match="R5: the 5 was already revealed this round"):
        t.answer(f"card:{track}", "scoring:5")
    assert f"card:{track}" in t.questions  # still asked, nothing taken
    t.answer(f"card:{track}", "scoring:9")
    assert t.game.trick_value == 9


def test_a_scoring_card_named_as_one_counted_on_a_read_asks_which_that_one_was():
    """Design 375, zero-shot, seed 53: a scoring 7 under a red zero read as 1 at 0.97 and
    counted (the rules lifting it); the 1 revealed a trick later, read at 1.00, was refused as
    revealed, and the question offered only the 7 and the 2 left. The 1 is offered too, and
    named, the first trick's scoring card is asked about and corrected."""
    t = Table()
    reveal_and_play(t, 5, [10, 20, 30])  # the 5: truly a 7, counted as read
    t.take(2, 3, 4)
    track = t.lay("scoring", sure(scoring(5)))
    t.wait(SCORING_SETTLE_S)
    q = t.questions[f"card:{track}"]
    assert q.choices[0].id == "scoring:5" and "trick 1 was another" in q.choices[0].label
    t.answer(q.key, "scoring:5")
    again = t.questions["again:1"]
    assert again.seat is None and again.trick == 0 and "scoring:7" in [c.id for c in again.choices]
    assert again.choices[0].id == "scoring:5" and f"card:{track}" not in t.questions
    t.answer("again:1", "scoring:7")
    assert not t.game.rounds
    assert t.game.trick_value == 5 and t.game.tricks_this_round[0].scoring[0].value == 7


def test_a_scoring_card_seen_only_after_the_plays_is_asked_never_assumed():
    t = Table()
    for seat in _order(t):  # the scoring card was not seen before the plays
        t.lay(seat, sure(number(10 + seat)))
    t.wait(2.5)  # more than SCORING_LATE_S
    late = t.lay("scoring", sure(scoring(7)))
    t.wait(SCORING_SETTLE_S)
    assert t.game.trick_value is None
    q = t.questions["value:0:0"]
    assert q.choices[0].id == "scoring:7" and q.track == late and q.ok is None
    t.answer(q.key, "scoring:3")  # it was the next trick's: trick 1's was a 3
    assert t.game.tricks_this_round[0].value == 3
    assert t.game.trick_value == 7  # the late card waited and became trick 2's


def test_an_unsure_late_scoring_card_named_by_its_best_guess_is_that_card():
    """The person names the trick's scoring card as the late card's best guess: that physical
    card is counted, not asked about again as the next trick's."""
    t = Table()
    for seat in _order(t):
        t.lay(seat, sure(number(10 + seat)))
    t.wait(2.5)  # more than SCORING_LATE_S
    late = t.lay("scoring", unsure((scoring(7), 0.94), (scoring(1), 0.03)))
    t.wait(SCORING_SETTLE_S)
    q = t.questions["value:0:0"]
    assert q.choices[0].id == "scoring:7" and q.track == late
    t.answer(q.key, "scoring:7")
    assert t.game.tricks_this_round[0].value == 7
    assert not t.questions  # no question about the same card for trick 2
    t.wait(SCORING_SETTLE_S)
    assert not t.questions and t.game.trick_value is None


def test_a_card_named_for_a_trick_goes_before_a_late_card_read_as_the_other_zero():
    """Asked about a late card read as a red zero (53 %), the person names the trick's card:
    the blue zero. It counts at once (the late card, its second guess, is taken for it), and
    the value card is asked; before, the blue zero sorted behind the late card (any card read
    unsure may be a zero), so it was never applied and the same question came back for ever
    (an unseen deck on a checked cloth, taught: 86,812 questions in one game)."""
    t = Table()
    for seat in _order(t):
        t.lay(seat, sure(number(10 + seat)))
    t.wait(2.5)  # more than SCORING_LATE_S
    late = t.lay("scoring", unsure((scoring(0, "red"), 0.53), (scoring(0, "blue"), 0.3)))
    t.wait(SCORING_SETTLE_S)
    assert t.questions["value:0:0"].track == late
    t.answer("value:0:0", "scoring:blue0")
    assert list(t.game.revealed) == [ScoringCard(0, Colour.BLUE)]
    q = t.questions["value:0:0"]  # the trick's value card now
    assert "scoring:blue0" not in {c.id for c in q.choices} and "scoring:5" in {
        c.id for c in q.choices}
    t.answer(q.key, "scoring:5")  # the 5, unseen
    assert t.game.tricks_this_round[0].scoring == (ScoringCard(0, Colour.BLUE), ScoringCard(5))
    assert t.it.table.cards[late].counts_as == ScoringCard(0, Colour.BLUE)  # its second guess
    assert not t.questions


def test_a_missed_scoring_card_is_asked_and_the_next_trick_catches_up_without_cascading():
    t = Table()
    plays = [t.lay(seat, sure(number(10 + seat))) for seat in _order(t)]
    t.take(*plays)  # the trick is cleared: its scoring card was never seen
    q = t.questions["value:0:0"]
    assert {c.id for c in q.choices} >= {"scoring:5", "scoring:blue0"} and q.ok is None
    # the next trick goes on while the question waits
    t.lay("scoring", sure(scoring(8)))
    t.wait(SCORING_SETTLE_S)
    assert t.game.trick_index == 0 and t.game.trick_value is None  # not taken for trick 1
    t.answer("value:0:0", "scoring:5")
    assert t.game.tricks_this_round[0].value == 5
    assert t.game.trick_value == 8


def test_a_card_laid_out_of_turn_waits_then_asks_for_the_one_not_seen():
    t = Table()
    t.lay("scoring", sure(scoring(6)))
    t.wait(SCORING_SETTLE_S)
    first, second, _ = _order(t)
    t.lay(second, sure(number(33)))
    assert t.game.trick_plays == ()
    t.wait(TURN_GRACE_S)
    q = t.questions[f"play:0:0:{first}"]
    ids = [c.id for c in q.choices]
    assert "card:12" in ids and ids[-2:] == ["card:33", "none"]  # the card seen elsewhere last
    t.lay(first, sure(number(12)))  # the camera sees it after all: the question goes
    assert f"play:0:0:{first}" not in t.questions
    assert [p.card for p in t.game.trick_plays] == [12, 33]


def test_an_unsure_box_in_a_later_seat_s_place_does_not_say_the_seats_before_it_played():
    # a glare on dark wood, boxed in the last seat's place and read unsure as a red zero, stood
    # for a card laid out of turn: the seats before it were asked for cards they had not laid
    t = Table()
    t.lay("scoring", sure(scoring(6)))
    t.wait(SCORING_SETTLE_S)
    first, second, last = _order(t)
    glare = t.lay(last, unsure((scoring(0, "red"), 0.27), (number(17), 0.1)))
    t.lay(first, sure(number(12)))
    t.wait(2 * TURN_GRACE_S)
    assert f"play:0:0:{second}" not in t.questions  # not asked for: nothing says it was laid
    t.lay(second, sure(number(33)))
    assert [p.card for p in t.game.trick_plays] == [12, 33]
    assert f"card:{glare}" in t.questions  # the box itself is asked about, "not a card" offered
    assert t.questions[f"card:{glare}"].choices[-1].id == "none"


def test_a_card_named_on_a_glare_is_taken_over_by_the_real_card_read_surely():
    # the person named Dora's card on the glare's question; the real card, laid a moment
    # later and read surely as it, is that card: not a second card, not a misplay
    t = Table()
    t.lay("scoring", sure(scoring(6)))
    t.wait(SCORING_SETTLE_S)
    first, second, last = _order(t)
    t.lay(first, sure(number(12)))
    t.lay(second, sure(number(33)))
    glare = t.lay(last, unsure((scoring(0, "red"), 0.27), (number(17), 0.1)))
    t.answer(f"card:{glare}", "card:40")
    assert [p.card for p in t.game.tricks_this_round[0].plays] == [12, 33, 40]
    real = t.lay(last, sure(number(40)))
    t.wait(2 * TURN_GRACE_S)
    assert not t.questions
    card = t.it.table.cards[real]
    assert card.status == "counted" and card.counts_as == 40 and card.seat == last
    assert t.it.table.cards[glare].status == "ignored"


def test_a_scoring_card_a_person_named_unseen_is_the_one_the_camera_reads_later():
    t = Table()
    first, second, last = _order(t)
    t.lay(first, sure(number(12)))
    t.lay(second, sure(number(33)))
    t.lay(last, sure(number(40)))
    t.wait(MISSING_GRACE_S)
    t.answer("value:0:0", "scoring:8")  # the camera did not see it; the person says 8
    assert t.game.trick_index == 1
    late = t.lay("scoring", sure(scoring(8)))  # then it does: the same card, nothing new
    t.wait(SCORING_SETTLE_S + SCORING_LATE_S)
    assert not t.questions and t.it.table.cards[late].counts_as == ScoringCard(8)


def test_a_cleared_trick_asks_for_each_missing_card_in_turn_after_a_card_named_unseen():
    # the only card seen of the trick was taken away; the person names the next seat's card,
    # which the camera never saw: the trick is still cleared, so the last seat is asked at
    # once (it waited, and took that seat's card of the next trick for this one's)
    t = Table()
    t.lay("scoring", sure(scoring(6)))
    t.wait(SCORING_SETTLE_S)
    first, second, last = _order(t)
    t.take(t.lay(first, sure(number(12))))
    t.answer(f"play:0:0:{second}", "card:33")
    assert f"play:0:0:{last}" in t.questions
    t.answer(f"play:0:0:{last}", "card:40")
    assert [p.card for p in t.game.tricks_this_round[0].plays] == [12, 33, 40]


def test_cards_lying_there_at_a_restart_are_the_game_s_own_cards():
    t = Table()
    reveal_and_play(t, 3, [7, 28, 36])
    t.lay("scoring", sure(scoring(1)))
    t.wait(SCORING_SETTLE_S)
    restarted = Interpreter()
    t.it = restarted
    t.t += 1.0
    events = len(t.game.log)
    for k, zone, card in ((101, "scoring", scoring(3)), (102, "scoring", scoring(1)),
                          (103, 0, number(7)), (104, 1, number(28)), (105, 2, number(36))):
        t.lay(zone, sure(card), dt=0.0, track=k)
    assert len(t.game.log) == events and not t.questions


def test_last_round_s_row_lying_there_at_a_restart_reveals_nothing():
    t = Table()
    events = random_game(random.Random(3), 3, Variant(), rounds=1)
    for e in events[1:]:
        t.log.apply(e)
    t.it = Interpreter()
    first_round = [e.card for e in events if isinstance(e, ScoringRevealed)]
    for k, card in enumerate(first_round):
        colour = card.colour.value if card.colour else None
        t.lay("scoring", sure(scoring(card.value, colour)), dt=0.0, track=200 + k)
    t.wait(SCORING_SETTLE_S)
    assert t.game.revealed == () and not t.questions


def counted_then_read_as(t: Table, counted: int, read: int) -> int:
    """After a first trick (7, 28, 36), the leader's card of the second is counted as
    `counted`, then read surely as `read`: its track."""
    reveal_and_play(t, 3, [7, 28, 36])
    t.lay("scoring", sure(scoring(5)))
    t.wait(SCORING_SETTLE_S)
    leader = t.game.leader
    track = t.lay(leader, sure(number(counted)))
    t.lay(leader, sure(number(read)), track=track)
    return track


def test_a_counted_card_read_again_as_another_asks_and_a_fix_is_a_correction():
    t = Table()
    track = counted_then_read_as(t, 17, 47)
    q = t.questions[f"again:{track}"]
    assert [c.id for c in q.choices] == ["card:17", "card:47"] and q.ok is None
    t.answer(q.key, "card:47")
    assert t.game.trick_plays[0].card == 47
    assert isinstance(t.applied[-1], PlayCorrected)


def test_a_fix_the_rules_refuse_is_not_asked_again():
    """The card counted as 17 reads as 7 later; the person says 7, but Ben played the 7 in
    the first trick: the correction is refused, and the question does not come back (it came
    back at once, for ever)."""
    t = Table()
    track = counted_then_read_as(t, 17, 7)
    q = t.questions[f"again:{track}"]
    t.answer(q.key, "card:7")
    assert t.refused and t.game.trick_plays[0].card == 17
    t.wait(1.0)
    assert f"again:{track}" not in t.questions


def test_a_card_a_person_named_is_learned_under_its_label():
    t = Table()
    track = t.lay("scoring", unsure((scoring(6), 0.5), (scoring(9), 0.4)))
    t.wait(SCORING_SETTLE_S)
    seen = []
    original = t.it.applied
    t.it.applied = lambda d: (seen.append(d), original(d))  # type: ignore[method-assign]
    t.answer(f"card:{track}", "scoring:9")
    assert seen[0].learn == "scoring-9" and seen[0].track == track


def test_simultaneous_plays_count_in_any_order():
    t = Table(4, Variant(simultaneous=True))
    t.lay("scoring", sure(scoring(2)))
    t.wait(SCORING_SETTLE_S)
    for seat, card in ((3, 40), (1, 11), (0, 5), (2, 22)):
        t.lay(seat, sure(number(card)), dt=0.1)
    assert t.game.tricks_this_round[0].value == 2


# --- a weakened reader and a person who answers from the truth -------------------------------


class WeakReader:
    """What the camera reads of a card: mostly sure and right; 10 % abstains; 10 % an unsure
    wrong best guess; 2 % a sure read of a card already played."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def read(self, card: CardId, already: list[CardId]) -> Reading:
        x = self.rng.random()
        pool = [c for c in ALL_CARDS if c.kind == card.kind and c != card]
        if x < 0.10:
            return unsure((self.rng.choice(pool), 0.3), (card, 0.25))
        if x < 0.20:
            return unsure((self.rng.choice(pool), 0.55), (card, 0.3))
        if x < 0.22 and already:
            return sure(self.rng.choice(already))
        return sure(card)


def play_with_a_weak_reader(seed: int, players: int, variant: Variant
                            ) -> tuple[Table, int, GameLog]:
    """A whole game through the interpreter: every card seen by a weak reader, every question
    answered by a person who saw the table. Returns the table, the questions asked and the true
    game."""
    rng = random.Random(seed)
    events = random_game(rng, players, variant, rounds=2)
    table = Table(players, variant)
    table.log = GameLog(events[0])  # type: ignore[arg-type]
    true = GameLog(events[0])  # type: ignore[arg-type]
    reader = WeakReader(rng)
    true_card: dict[int, CardId] = {}
    lying: list[int] = []
    row: list[int] = []
    asked = 0

    def answer_all() -> None:
        nonlocal asked
        for _ in range(30):
            if not table.questions:
                return
            key, q = next(iter(table.questions.items()))
            asked += 1
            right = _truth_for(q, true_card, true, table)
            assert right in [c.id for c in q.choices], (q, right)
            table.answer(key, right)
        raise AssertionError("questions keep coming")

    for e in events[1:]:
        round_before = true.game.round_index
        if isinstance(e, ScoringRevealed):
            card = CardId("scoring", e.card.value, e.card.colour.value if e.card.colour else None)
        else:
            card = number(e.card)
        already = [true_card[k] for k in lying + row if true_card[k].kind == card.kind]
        trick = true.apply(e)
        zone = "scoring" if isinstance(e, ScoringRevealed) else e.seat
        track = table.lay(zone, reader.read(card, already), dt=0.8)
        true_card[track] = card
        (row if zone == "scoring" else lying).append(track)
        table.wait(SCORING_SETTLE_S)
        answer_all()
        if trick is not None:
            table.take(*lying)
            lying = []
            answer_all()
            if true.game.round_index != round_before:
                table.take(*row)
                row = []
        table.wait(TURN_GRACE_S)
        answer_all()
    return table, asked, true


def _truth_for(q: Question, true_card: dict[int, CardId], true: GameLog, table: Table) -> str:
    """The choice a person who saw the table would make."""
    kind = q.key.split(":")[0]
    if q.ok is not None and kind in ("two", "where"):
        return q.ok  # a notice
    if kind in ("card", "again") and q.track in true_card:
        c = true_card[q.track]
        if c.kind == "scoring":
            return choice_id(ScoringCard(c.value, Colour(c.colour) if c.colour else None))
        return choice_id(c.value)
    r, k = (int(x) for x in q.key.split(":")[1:3])
    rounds = true.game.rounds
    tricks = rounds[r].tricks if r < len(rounds) else true.game.tricks_this_round
    if kind == "value":
        scoring = tricks[k].scoring if k < len(tricks) else true.game.trick_scoring
        return choice_id(scoring[len(table.game.trick_scoring)])
    if kind == "play":
        seat = int(q.key.split(":")[3])
        plays = tricks[k].plays if k < len(tricks) else true.game.trick_plays
        return choice_id(next(p.card for p in plays if p.seat == seat))
    raise AssertionError(f"no true answer for {q}")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), players=st.sampled_from([3, 4, 5]),
       tactical=st.booleans(), simultaneous=st.booleans())
# a person kept the 1 the camera read as 2; a red zero then read surely as 1 took its place
@example(seed=6935, players=5, tactical=True, simultaneous=False)
def test_a_weak_reader_and_a_person_never_score_a_trick_wrong(seed, players, tactical,
                                                              simultaneous):
    table, asked, true = play_with_a_weak_reader(seed, players, Variant(tactical, simultaneous))
    got = [t for r in table.game.rounds for t in r.tricks] + list(table.game.tricks_this_round)
    want = [t for r in true.game.rounds for t in r.tricks]
    assert got == want
    assert asked > 0


def test_a_read_whose_other_cards_the_rules_rule_out_is_certain_to_the_last_share():
    """Ana's last card of a round (only the 6 is left in her hand) read zero-shot on a checked
    cloth: 6 at 0.69, a scoring 6 at 0.24, and the rest spread thin over the other cards. Every
    other card is ruled out, so it is the 6, over the reader's line (0.977). Cut to its first
    five cards, the reading left 0.021 unaccounted, which kept the 6 at 0.97 and asked the table
    (design 11, zero-shot, seed 6)."""
    first = ((number(6), 0.693), (scoring(6), 0.238), (scoring(5), 0.031), (number(5), 0.015),
             (number(16), 0.002))
    rest = [(c, 0.021 / 56) for c in ALL_CARDS if c not in {k for k, _ in first}]
    reading = Reading.of(None, 0.693, (*first, *rest), 0.977)
    legal = {number(6): 6}.get
    assert narrow(reading, legal)[0] == 6
    assert narrow(Reading.of(None, 0.693, first, 0.977), legal)[0] is None


def test_doubt_spread_thin_over_ruled_out_cards_does_not_lift_a_read_with_a_legal_rival():
    """Design 171 on a plaid cloth, zero-shot: Ana's 20 read as a 30 at 0.972 (the 20 at
    0.017). The cards already played held 0.008, which lifted the 30 to 0.980, over the line:
    scored, and Ben's true 30 refused later. A read whose legal rival holds more than the rules
    rule out is asked about; one whose rival the rules rule out is still lifted."""
    first = ((number(30), 0.972), (number(20), 0.017), (number(36), 0.003), (number(38), 0.002))
    rest = [(c, 0.006 / 96) for c in ALL_CARDS if c not in {k for k, _ in first}]
    played = {36, 38} | {c.value for c, _ in rest[::3] if c.kind == "number"} - {20, 30}
    legal = {c: c.value for c in ALL_CARDS if c.kind == "number" and c.value not in played}.get
    reading = Reading.of(None, 0.972, (*first, *rest), 0.977)
    assert narrow(reading, legal)[1][0] == (30, 0.972) and narrow(reading, legal)[0] is None
    ruled_rival = ((number(42), 0.941), (number(48), 0.043), (number(43), 0.005))
    rest = [(c, 0.011 / 97) for c in ALL_CARDS if c not in {k for k, _ in ruled_rival}]
    reading = Reading.of(None, 0.941, (*ruled_rival, *rest), 0.977)
    legal = {number(42): 42, number(20): 20}.get  # the 48 and 43 played already
    assert narrow(reading, legal)[0] == 42


@given(shares=st.lists(st.floats(0.0, 1.0), min_size=4, max_size=4),
       line=st.floats(0.5, 0.999))
def test_the_rules_lift_a_read_only_by_ruling_out_more_than_its_rival_holds(shares, line):
    total = sum(shares) or 1.0
    best, rival, ruled_out, more = (x / total for x in shares)
    best, rival = max(best, rival), min(best, rival)
    if certain_by_rules(best, rival, ruled_out, line):
        assert best / max(1.0 - ruled_out, 1e-9) >= line  # never under the line, given legal
        assert best >= line or ruled_out >= rival
        assert certain_by_rules(best, rival, ruled_out + more, line)  # ruling out more: still
    if best >= line and best >= 4 * rival:
        assert certain_by_rules(best, rival, ruled_out, line)  # over the line on its own


def test_a_read_left_to_where_it_lies_is_the_number_card_in_a_seat_s_place():
    """A taught read the deck is sure of (the 3, 0.987) and the general reader takes for a
    scoring 3 comes unsure on the deck's own line (vision.read): in a seat's place only the
    number card can lie, so the 3 is played; the same read in the scoring row is asked."""
    three, scoring_three = number(3), scoring(3)
    rest = [(c, 0.002 / 59) for c in ALL_CARDS if c not in (three, scoring_three)]
    read = Reading.of(None, 0.987, ((three, 0.987), (scoring_three, 0.011), *rest), 0.947)
    t = Table()
    track = t.lay("scoring", read)
    t.wait(SCORING_SETTLE_S)
    assert not t.game.revealed and f"card:{track}" in t.questions
    t.answer(f"card:{track}", choice_id(ScoringCard(5)))
    t.wait(SCORING_SETTLE_S)
    t.lay(t.game.leader, read)
    assert [p.card for p in t.game.trick_plays] == [3]
