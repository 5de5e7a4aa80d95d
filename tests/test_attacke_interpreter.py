"""Attacke's interpreter on its own: card lays and removals in, Attacke events out, nothing on a
guess."""

from __future__ import annotations

import dataclasses
import math
import random

import numpy as np
import pytest
from conftest import settle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games import attacke
from companion.games.attacke.interpreter import (
    SETTLE_S,
    Interpreter,
    candidates,
    sure_name,
)
from companion.games.attacke.randgame import random_game
from companion.games.attacke.rules import (
    CARD_NAMES,
    Card,
    CardsPlayed,
    Game,
    GameStarted,
    Passed,
    Variant,
)
from companion.games.base import AnswerError, EventLog, Question
from vision.geometry import Box
from vision.types import Change, Observation, Reading

QUAD = np.zeros((4, 2), np.float32)


def read(*cands: tuple[str, float], sure: bool = False) -> Reading:
    """A reading of Attacke's names (a taught deck's): the given candidates, the rest of the
    probability spread over the other cards; `sure`: the reader is sure of the first."""
    total = sum(p for _, p in cands)
    rest = [n for n in CARD_NAMES if n not in {c for c, _ in cands}]
    named = (*cands, *((n, (1 - total) / len(rest)) for n in rest))
    return Reading.of_name(cands[0][0] if sure else None, cands[0][1], named, 0.9)


def sure(name: str) -> Reading:
    return read((name, 0.999), sure=True)


def test_the_reading_helpers_read_the_names():
    r = read(("red-3", 0.6), ("red-2", 0.3))
    assert candidates(r)[:2] == [("red-3", 0.6), ("red-2", 0.3)] and sure_name(r) is None
    assert sure_name(sure("shield-10")) == "shield-10"
    assert candidates(None) == [] and sure_name(None) is None  # a card named, never seen


class Table:
    """The interpreter and a game, driven as the referee drives them."""

    def __init__(self, players: int = 3, variant: Variant | None = None, first: int = 0,
                 setup: GameStarted | None = None) -> None:
        setup = setup or GameStarted(("Ana", "Ben", "Cy", "Dora", "Eli", "Fay")[:players],
                                     first, variant or Variant())
        self.log = EventLog(Game(setup))
        self.it = attacke.GAME.interpreter()  # type: ignore[misc]
        assert isinstance(self.it, Interpreter)
        self.questions: dict[str, Question] = {}
        self.track = 0
        self.t = 0.0
        self.refused: list[str] = []

    @property
    def game(self) -> Game:
        return self.log.game  # type: ignore[return-value]

    def lay(self, seat: int | None, reading: Reading, dt: float = 0.4,
            at: tuple[float, float] | None = None) -> int:
        """A card appears in the zone of `seat`; `at`: its centre, a card 80 px wide lying
        across (else nowhere: no card is near it)."""
        self.track += 1
        self.t += dt
        quad = QUAD if at is None else Box(*at, 80, 123, 0.0).quad()
        obs = Observation(reading, quad, at or (0.0, 0.0), seat, 3, self.track)
        self.it.seen([Change("appeared", obs, 0)], self.t)
        self.settle()
        return self.track

    def take(self, *tracks: int, dt: float = 0.4) -> None:
        self.t += dt
        changes = [Change("removed", Observation(sure("red-2"), QUAD, (0, 0), None, 3, k), 0)
                   for k in tracks]
        self.it.seen(changes, self.t)
        self.settle()

    def swap(self, track: int, seat: int, reading: Reading, dt: float = 0.4) -> None:
        """The card of `track` taken away and another laid on its place at once: the watcher
        keeps the place's track and reports the card removed and read again."""
        self.t += dt
        old = self.it.cards[track].reading
        self.it.seen([Change("removed", Observation(old, QUAD, (0, 0), seat, 3, track), 0),
                      Change("appeared", Observation(reading, QUAD, (0, 0), seat, 3, track), 0)],
                     self.t)
        self.settle()

    def hand(self, seat: int, dt: float = 0.4) -> None:
        """A hand moves over the seat's zone (the camera saw motion there, no card)."""
        self.t += dt
        self.it.seen([], self.t, frozenset({seat}))
        self.settle()

    def wait(self, seconds: float = SETTLE_S) -> None:
        self.t += seconds
        self.settle()

    def settle(self) -> None:
        settle(self.it, self.log, self.t, self.questions, self.refused)

    def answer(self, key: str, choice: str) -> None:
        self.it.answer(key, choice, self.game, self.t)
        self.questions.pop(key, None)
        self.settle()

    def undo(self) -> None:
        self.log.game.undo()
        self.it.undone(self.game)
        self.settle()

    @property
    def events(self) -> list:
        return self.game.log[1:]


def C(name: str) -> Card:  # noqa: N802
    return Card.parse(name)


# --- a whole game, laid out on the table ----------------------------------------------------------


def play_out(events: list, rng: random.Random) -> Table:
    """Every event of a game as the table shows it: a play's cards laid one by one in the
    seat's zone (face-down ones as backs), a pass as the seat's cards taken away (nothing, for a
    seat that laid none), and the victor's cards taken away once the contest is over."""
    setup = events[0]
    truth = Game(setup)
    table = Table(setup=setup)
    laid: dict[int, list[int]] = {s: [] for s in range(setup.n)}
    for i, event in enumerate(events[1:], start=1):
        after = events[i + 1] if i + 1 < len(events) else None
        if isinstance(event, CardsPlayed):
            names = [str(c) for c in event.cards] + ["back"] * event.concealed
            for name in names:
                laid[event.seat].append(table.lay(event.seat, sure(name), dt=0.3))
            # the next seat's card settles the play (where the interpreter has caught up with
            # the game: no earlier pass waits for a sign), or time does
            caught_up = len(table.game.log) == len(truth.log)
            if event.concealed:  # the person says how many lie face down
                table.wait()
                key = f"backs:{truth.contest.index}:{event.seat}"
                assert table.questions[key].ok == str(event.concealed)
                table.answer(key, str(event.concealed))
            elif not (caught_up and isinstance(after, CardsPlayed) and after.seat != event.seat
                      and rng.random() < 0.5):
                table.wait()
        elif laid[event.seat]:
            if rng.random() < 0.5:
                table.take(*laid[event.seat])
            else:
                for k in laid[event.seat]:
                    table.take(k, dt=0.2)
            laid[event.seat] = []
            table.wait()
        ended = truth.apply(event)
        if ended is not None and ended.winner is not None:
            if laid[ended.winner]:
                table.take(*laid[ended.winner])
            laid = {s: [] for s in range(setup.n)}
            table.wait()
    table.wait()
    table.wait()
    assert not table.questions and not table.refused
    return table


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), players=st.sampled_from([3, 5]), concealed=st.booleans())
def test_a_whole_random_game_laid_out_gives_exactly_its_events(seed, players, concealed):
    rng = random.Random(seed)
    events = random_game(rng, players, Variant(False, concealed))
    table = play_out(events, rng)
    assert table.game.log == events


def test_the_package_plays_games_of_three_and_five_and_the_concealed_variant():
    for seed, players, concealed in ((1, 3, False), (2, 5, True), (3, 3, True)):
        events = list(attacke.GAME.random_game(seed, players, concealed=concealed))
        assert play_out(events, random.Random(seed)).game.log == events
        if concealed:
            assert any(isinstance(e, CardsPlayed) and e.concealed for e in events)


# --- one thing at a time --------------------------------------------------------------------------


def test_a_play_of_several_cards_waits_until_the_laying_settles():
    t = Table()
    t.lay(0, sure("red-3"))
    t.lay(0, sure("shield-7"))
    assert t.events == []
    t.wait()
    assert t.events == [CardsPlayed(0, (C("red-3"), C("shield-7")))]


def test_a_laying_goes_on_while_the_seat_s_hand_comes_back():
    """Ben lays a 2, a card the camera misses (only his hand is seen), then a 3: one play, the
    laying settling SETTLE_S after his hand last left, however long after its last card seen."""
    t = Table()
    t.lay(0, sure("green-2"))
    for _ in range(8):
        t.hand(0)
    assert t.t - 0.4 > SETTLE_S and t.events == []  # more than SETTLE_S after the 2
    t.lay(0, sure("green-3"))
    t.wait(SETTLE_S - 0.1)
    assert t.events == []
    t.hand(1)  # another seat's hand: his zone, not Ben's
    t.wait()
    assert t.events == [CardsPlayed(0, (C("green-2"), C("green-3")))]


def test_the_next_seat_s_card_settles_the_play_at_once():
    t = Table()
    t.lay(0, sure("red-3"))
    t.lay(1, sure("red-5"), dt=0.2)
    assert t.events == [CardsPlayed(0, (C("red-3"),))]
    t.wait()
    assert t.events[-1] == CardsPlayed(1, (C("red-5"),))


def test_an_unsure_read_is_asked_and_the_answer_completes_the_play():
    t = Table()
    track = t.lay(0, read(("red-3", 0.45), ("red-2", 0.4)))
    t.lay(0, sure("red-4"))
    t.wait()
    assert t.events == []
    q = t.questions[f"card:{track}"]
    ids = [c.id for c in q.choices]
    assert ids[:2] == ["red-3", "red-2"] and "blue-7" not in ids  # the opening is red (A4)
    assert ids[-1] == "none" and q.ok is None and (q.seat, q.round, q.trick) == (0, 0, 0)
    with pytest.raises(AnswerError):
        t.answer(f"card:{track}", "blue-7")
    t.answer(f"card:{track}", "red-2")
    assert t.events == [CardsPlayed(0, (C("red-2"), C("red-4")))] and not t.questions


def test_the_rules_narrow_an_unsure_read_to_the_contest_s_colour():
    t = Table()
    t.lay(0, sure("blue-3"))
    t.wait()
    # read 55 % blue 5, 40 % green 5: only blue may be laid in a blue contest (A4)
    t.lay(1, read(("blue-5", 0.55), ("green-5", 0.4)))
    t.wait()
    assert t.events[-1] == CardsPlayed(1, (C("blue-5"),)) and not t.questions


def test_a_card_the_rules_refuse_is_asked_with_the_legal_cards():
    t = Table()
    t.lay(0, sure("blue-3"))
    t.wait()
    track = t.lay(1, sure("red-5"))  # the contest is blue
    t.wait()
    q = t.questions[f"card:{track}"]
    ids = {c.id for c in q.choices}
    assert "red-5" not in ids and {"blue-5", "shield-7", "shield-10"} <= ids and q.ok is None
    assert "red 5" in q.message
    t.answer(f"card:{track}", "blue-5")
    assert t.events[-1] == CardsPlayed(1, (C("blue-5"),))


def test_a_play_the_rules_refuse_as_a_whole_is_asked_and_ok_keeps_the_sure_read():
    t = Table()
    t.lay(0, sure("green-5"))
    t.wait()
    track = t.lay(1, sure("green-3"))  # 3 does not beat 5 (A5)
    t.wait()
    assert t.refused and "A5" in t.refused[0]
    q = t.questions[f"card:{track}"]
    assert q.ok == "green-3" and "A5" in q.message
    t.answer(f"card:{track}", "green-3")  # confirmed, it still does not beat 5: one more card
    assert "more:0:1" in t.questions and t.events == [CardsPlayed(0, (C("green-5"),))]
    # he was not done: a second card joins the play, and the two beat 5
    t.lay(1, sure("green-4"))
    t.wait()
    assert t.events[-1] == CardsPlayed(1, (C("green-3"), C("green-4")))
    assert not t.questions


def test_a_second_shield_10_in_a_contest_is_refused_per_card():
    t = Table()
    t.lay(0, sure("red-2"))
    t.lay(0, sure("shield-10"))
    t.wait()
    t.lay(1, sure("red-7"))
    t.lay(1, sure("red-7"))
    t.wait()
    t.lay(2, sure("red-7"))
    t.lay(2, sure("red-7"))  # a third and fourth red 7: the deck has three (A1)
    t.wait()
    assert len(t.events) == 2
    assert any(q.key.startswith("card:") for q in t.questions.values())


def test_a_pass_is_seen_as_the_seat_s_cards_leaving_his_zone():
    t = Table()
    a = t.lay(0, sure("yellow-2"))
    t.wait()
    b = t.lay(1, sure("yellow-3"))
    t.wait()
    c = t.lay(2, sure("yellow-4"))
    t.wait()
    t.take(a)
    assert t.events[-1] == CardsPlayed(2, (C("yellow-4"),))  # not settled yet
    t.wait()
    assert t.events[-1] == Passed(0)
    t.take(b)
    t.wait()
    # Ben passed: Cy won, and the cards he takes away are the rules' own (no event)
    assert t.events[-1] == Passed(1) and t.game.contests[0].winner == 2
    t.take(c)
    t.wait()
    assert len(t.events) == 5 and not t.questions and t.game.turn == 2


def test_a_pass_with_an_empty_zone_is_seen_when_a_later_seat_acts():
    t = Table(first=0)
    t.lay(0, sure("purple-7"))
    t.wait()
    # Ben, at turn, lays nothing; Cy lays: Ben passed before him (turns go clockwise)
    t.lay(2, sure("purple-4"))
    t.lay(2, sure("purple-5"))
    assert t.events == [CardsPlayed(0, (C("purple-7"),))]
    t.wait()
    assert t.events[1:] == [Passed(1), CardsPlayed(2, (C("purple-4"), C("purple-5")))]
    assert not t.questions


def test_a_row_laid_over_the_line_into_the_next_zone_is_the_laying_seat_s():
    # Attacke zero-shot, seed 49: the last card of a seat's column runs over the line into the
    # next seat's zone; it lies on his row, and it is his, not the next seat's laying
    t = Table(first=0)
    t.lay(0, sure("red-5"), at=(600, 600))
    t.wait()
    t.lay(1, sure("red-7"), at=(100, 300))
    t.lay(1, sure("red-3"), at=(100, 345))
    t.lay(2, sure("red-4"), at=(100, 390))  # past the line
    t.wait()
    assert t.events == [CardsPlayed(0, (C("red-5"),)),
                        CardsPlayed(1, (C("red-7"), C("red-3"), C("red-4")))]
    own = t.lay(2, sure("red-2"), at=(100, 480))  # more than 0.75 of a width off the row
    assert t.it.cards[own].zone == 2


def test_a_laying_taken_away_before_it_settled_says_the_empty_seats_before_it_passed():
    # Attacke zero-shot, seed 48: Ben, at turn, lays nothing; Cy lays two cards, read unsure,
    # and takes them away 2.4 s after his last, as Ana challenges again over them: Ben passed,
    # and Cy's cards were his play (A5), not nothing of his before Ana's 7
    t = Table(first=0)
    t.lay(0, sure("purple-5"))
    t.wait()
    a = t.lay(2, read(("purple-3", 0.37), ("purple-4", 0.21)))
    b = t.lay(2, read(("purple-7", 0.84), ("purple-4", 0.11)), dt=1.9)
    t.take(a, b, dt=2.4)
    t.lay(0, sure("purple-7"), dt=0.3)
    t.wait()
    assert t.events == [CardsPlayed(0, (C("purple-5"),)), Passed(1)]
    assert {q.track for q in t.questions.values()} == {a, b}
    t.answer(f"card:{a}", "purple-3")
    t.answer(f"card:{b}", "purple-4")
    t.wait()
    assert t.events[2:] == [CardsPlayed(2, (C("purple-3"), C("purple-4"))),
                            CardsPlayed(0, (C("purple-7"),)), Passed(2)]


def test_a_card_lying_from_before_the_turn_is_no_act_of_its_seat():
    t = Table(players=4, first=1)
    t.lay(3, read(("shield-7", 0.19), ("blue-4", 0.15)))  # something lies before Dora already
    t.lay(1, sure("red-4"))
    t.wait()
    t.wait()  # Cy and Dora have laid nothing since Ben's play: no pass is seen
    assert t.events == [CardsPlayed(1, (C("red-4"),))]


def test_an_opener_with_no_knight_passes_with_an_empty_zone():
    t = Table(first=1)
    t.lay(2, sure("green-2"))  # Ben opens with nothing: Cy opens instead (A3, ruling)
    t.wait()
    assert t.events == [Passed(1), CardsPlayed(2, (C("green-2"),))]


def test_an_opener_with_no_knight_who_challenges_at_once_passed_first():
    # Attacke seed 1 (a first run): Ana, to open with no knight, passes; Ben opens with a
    # purple 3 read unsure (the rules narrow it), and Ana lays a shield before Ben's card
    # settled. Ben laid first: Ana passed, and her shield challenges his 3 (Cy passed between).
    t = Table(first=0)
    t.lay(1, read(("purple-3", 0.93), ("purple-7", 0.03)))
    t.lay(0, sure("shield-7"), dt=2.2)
    t.wait()
    t.wait()
    assert t.events[:2] == [Passed(0), CardsPlayed(1, (C("purple-3"),))]
    assert CardsPlayed(0, (C("shield-7"),)) in t.events and not t.refused


def test_a_glimpse_in_another_zone_is_no_act_before_a_laying():
    t = Table(first=0)
    t.lay(2, read(("purple-2", 0.2), ("blue-2", 0.1)))  # a glimpse of the cloth in Cy's zone
    t.lay(0, sure("red-5"), dt=2.6)
    t.wait()
    assert t.events == [CardsPlayed(0, (C("red-5"),))]


def test_the_victor_clearing_his_cards_says_the_last_empty_seat_passed():
    t = Table(players=3)
    a = t.lay(0, sure("blue-7"))
    t.wait()
    # Ben and Cy lay nothing; Ana takes her cards away: the contest is over, she won
    t.take(a)
    t.wait()
    assert t.events[1:] == [Passed(1), Passed(2)]
    assert t.game.contests[0].winner == 0 and t.game.turn == 0 and not t.questions


def test_a_card_seen_twice_in_the_victors_heap_leaves_with_it_and_is_no_play():
    t = Table(players=3)
    a = t.lay(0, sure("blue-2"))
    t.wait()
    b = t.lay(1, sure("blue-3"))
    t.wait()
    twice = t.lay(1, sure("blue-3"), dt=0.2)  # in Cy's turn: Ben's card found twice
    t.take(a, dt=0.8)  # Cy laid nothing, Ana passes: Ben won
    t.take(b, twice, dt=1.7)  # Ben clears his cards, the ghost with them
    t.wait()
    t.lay(1, sure("red-5"))  # and opens the next contest
    t.wait()
    assert t.events == [CardsPlayed(0, (C("blue-2"),)), CardsPlayed(1, (C("blue-3"),)),
                        Passed(2), Passed(0), CardsPlayed(1, (C("red-5"),))]


def test_a_card_laid_and_cleared_with_the_victors_is_his_play_all_the_same():
    t = Table(players=2)
    a = t.lay(0, sure("blue-2"))
    t.wait()
    b = t.lay(1, sure("blue-3"))
    t.wait()
    # Ana lays a card the camera misses; Ben beats it; Ana passes; Ben clears all at once
    c = t.lay(1, sure("blue-5"))
    t.take(a, dt=1.0)
    t.take(b, c, dt=0.3)
    t.wait()
    t.answer("pass:0:0", "more")
    t.answer("more:0:0", "blue-4")
    t.answer("more:0:0", "none")
    t.wait()
    t.wait()
    assert t.events[2:] == [CardsPlayed(0, (C("blue-4"),)), CardsPlayed(1, (C("blue-5"),)),
                            Passed(0)]


def cy_names_his_5_the_camera_missed() -> tuple[Table, list[int]]:
    """Ana, Ben and Cy challenged in red; Cy laid his 5 under his hand, the camera missed it,
    and Ana laid her 7; asked, a person named Cy's 5. The table, and Ana's cards' tracks."""
    t = Table()
    mine = []
    for seat, name in ((0, "red-2"), (1, "red-3"), (2, "red-4"), (0, "red-3"), (1, "red-3")):
        track = t.lay(seat, sure(name))
        mine += [track] if seat == 0 else []
        t.wait()
    t.hand(2)
    t.wait()
    mine.append(t.lay(0, sure("red-7")))
    t.wait()
    t.answer("pass:0:2", "more")
    t.answer("more:0:2", "red-5")
    t.answer("more:0:2", "none")
    return t, mine


def test_a_card_named_unseen_then_seen_and_named_again_is_one_card():
    # Attacke seed 4, zero-shot: Eli's green 2, named as a card the camera did not see, was
    # found a moment later read as a green 7 at 0.43; asked, a person named it green 2 again:
    # it is that card, seen late, not a second green 2.
    t, _ = cy_names_his_5_the_camera_missed()
    late = t.lay(2, read(("red-7", 0.43), ("red-5", 0.06)))  # seen late, read unsure
    t.wait()
    t.answer(f"card:{late}", "red-5")
    t.wait()
    assert t.events[5:] == [CardsPlayed(2, (C("red-5"),)), CardsPlayed(0, (C("red-7"),))]
    assert not t.questions


def test_cards_taken_away_while_a_question_held_the_game_are_a_pass_before_the_next_laying():
    # Attacke seed 11, zero-shot: the game waited on a question about Ana's play while Ben took
    # his cards away (he passed), Ana cleared hers and both laid the next contest's; Ben's new
    # card was taken for his play in the contest he had left, and the game stalled.
    t = Table(players=2)
    a = t.lay(0, sure("red-2"))
    t.wait()
    b = t.lay(1, sure("red-3"))
    t.wait()
    c = t.lay(0, read(("red-7", 0.5), ("red-5", 0.45)))
    t.wait()
    t.take(b, dt=1.0)
    t.wait()
    t.take(a, c, dt=1.0)
    t.wait()
    t.lay(0, sure("blue-5"), dt=1.0)
    t.lay(1, sure("blue-7"), dt=2.0)
    t.wait()
    t.answer(f"card:{c}", "red-7")
    t.wait()
    t.wait()
    assert t.events[2:] == [CardsPlayed(0, (C("red-7"),)), Passed(1),
                            CardsPlayed(0, (C("blue-5"),)), CardsPlayed(1, (C("blue-7"),))]
    assert not t.questions


def test_a_glare_in_an_empty_zone_is_no_act_of_its_seat():
    # Attacke seed 4, zero-shot: a lamp's glare in Fay's empty zone, read as five yellow cards
    # at 0.16 to 0.08, stood for her act: the seats before her were taken to have passed.
    t = Table(players=4, first=1)
    t.lay(3, read(("yellow-3", 0.16), ("yellow-4", 0.11), ("yellow-5", 0.1), ("yellow-7", 0.1)))
    t.wait()
    t.wait()
    assert t.events == []


def test_a_card_laid_while_a_question_held_the_turn_then_cleared_is_her_play():
    """The camera misses Cy's red 5; Ana lays a red 7 while the table is asked about him; his 5
    is seen late, after her 7; she clears all her cards (she passed after her play). Her 7
    came before her turn began and left with her counted cards, but reads as none of them:
    it is her play, not one of them seen twice."""
    t, mine = cy_names_his_5_the_camera_missed()
    t.lay(2, sure("red-5"))  # seen late
    t.take(*mine)
    t.wait()
    t.wait()
    assert t.events[5:7] == [CardsPlayed(2, (C("red-5"),)), CardsPlayed(0, (C("red-7"),))]


def ben_lays_again_while_anas_card_lies() -> Table:
    """Ana, Ben and Cy challenged in red; at Ana's turn Ben lays again, her red 3 still there."""
    t = Table()
    t.lay(0, sure("red-3"))
    t.wait()
    t.lay(1, sure("red-4"))
    t.wait()
    t.lay(2, sure("red-5"))
    t.wait()
    t.lay(1, sure("red-7"))
    t.wait()
    return t


def test_the_table_going_on_while_a_question_waits_makes_new_layings():
    t = Table(players=2)
    track = t.lay(0, read(("red-3", 0.6), ("red-5", 0.3)))  # unsure: asked
    t.lay(1, sure("red-4"))
    t.lay(0, sure("red-7"))  # Ana's next challenge, laid before anyone answered
    t.wait()
    t.answer(f"card:{track}", "red-3")
    t.wait()
    assert t.events == [CardsPlayed(0, (C("red-3"),)), CardsPlayed(1, (C("red-4"),)),
                        CardsPlayed(0, (C("red-7"),))]


def test_having_named_no_card_the_table_is_watched_before_asking_again():
    t = ben_lays_again_while_anas_card_lies()
    t.answer("pass:0:0", "more")
    t.answer("more:0:0", "none")  # he thought better of it: nothing unseen after all
    t.wait()
    assert not t.questions
    t.lay(2, sure("red-2"))  # the table changed: Ana is asked again
    t.wait()
    assert "pass:0:0" in t.questions


def test_cards_taken_away_before_the_laying_settled_were_a_play():
    # the demo's footage (Attacke seed 1): Ana opens with two reds; Ben and Cy pass without a
    # word the camera could see, and Ana takes her cards (she won) 1.6 s after her last card
    t = Table(players=3)
    a, b = t.lay(0, sure("red-7")), t.lay(0, sure("red-4"), dt=1.6)
    t.take(a, b, dt=1.6)
    t.wait()
    assert t.events == [CardsPlayed(0, (C("red-7"), C("red-4"))), Passed(1), Passed(2)]
    assert t.game.contests[0].winner == 0 and not t.questions


def test_an_unsure_card_cleared_before_it_was_named_is_asked_not_the_next_one():
    # the demo's footage (Attacke seed 1, contest 9): Ben's card read unsure, the others pass,
    # he takes his cards (he won) and opens the next contest with a red 4
    t = Table(players=2)
    a = t.lay(0, read(("blue-7", 0.47), ("blue-4", 0.36)))
    t.take(a, dt=2.6)
    t.lay(0, sure("red-4"), dt=1.7)
    t.wait()
    (q,) = t.questions.values()
    assert q.track == a and q.choices[0].id == "blue-7"
    t.answer(q.key, "blue-7")
    t.wait()
    assert t.events == [CardsPlayed(0, (C("blue-7"),)), Passed(1),
                        CardsPlayed(0, (C("red-4"),))]


def test_seats_that_laid_only_after_the_victor_cleared_passed_though_the_answer_came_late():
    # the demo's footage (Attacke seed 1, contest 3) read by the games reader: Ana's red 4 is
    # unsure (the general reader did not confirm the deck's read: nothing may narrow it); Ben
    # and Cy pass unseen, Ana clears her cards and opens the next contest, and Ben answers it,
    # all before anyone named the red 4
    t = Table(players=3)
    unconfirmed = dataclasses.replace(read(("red-4", 0.96), ("red-7", 0.02)), line=math.inf)
    a, b = t.lay(0, sure("red-7")), t.lay(0, unconfirmed, dt=2.4)
    t.take(a, b, dt=4.8)
    t.lay(0, sure("yellow-5"), dt=1.6)
    t.lay(1, sure("yellow-7"), dt=1.6)
    t.wait()
    t.answer(f"card:{b}", "red-4")
    t.wait()
    assert t.events == [CardsPlayed(0, (C("red-7"), C("red-4"))), Passed(1), Passed(2),
                        CardsPlayed(0, (C("yellow-5"),)), CardsPlayed(1, (C("yellow-7"),))]
    assert not t.questions and not t.refused


def test_a_card_seen_again_after_a_card_laid_over_it_hid_it_is_not_laid_twice():
    # unseen design, seed 6: Cy's green 3 vanished under his shield 10 for a moment, and came
    # back as a new track, read unsure
    t = Table(players=3, first=2)
    g = t.lay(2, sure("green-3"))
    t.wait()
    t.lay(0, sure("green-4"))
    t.wait()
    t.lay(2, sure("shield-10"))
    t.take(g, dt=0.7)
    t.lay(2, read(("green-3", 0.87), ("green-5", 0.07)), dt=0.9)
    t.wait()
    assert t.events == [CardsPlayed(2, (C("green-3"),)), CardsPlayed(0, (C("green-4"),)),
                        Passed(1), CardsPlayed(2, (C("shield-10"),))]


def test_a_card_lost_a_moment_beside_another_of_its_play_is_not_laid_again():
    # unseen design, seed 4: the watcher lost Dora's last card of a play for a moment and found
    # it again as a new track; no card lay over it, but her other card of the contest lay there
    t = Table(players=3)
    t.lay(0, sure("red-3"))
    t.wait()
    t.lay(1, sure("shield-7"))
    two = t.lay(1, sure("red-2"))
    t.wait()
    t.take(two, dt=0.3)
    t.lay(1, sure("red-2"), dt=0.3)
    t.wait()
    t.wait()
    assert t.events == [CardsPlayed(0, (C("red-3"),)), CardsPlayed(1, (C("shield-7"), C("red-2")))]


def test_a_card_moved_within_the_zone_is_not_played_twice():
    t = Table(players=3)
    a = t.lay(0, sure("red-7"))
    t.take(a, dt=0.3)
    t.lay(0, sure("red-7"), dt=0.3)  # the same card, laid down again a little further on
    t.wait()
    assert t.events == [CardsPlayed(0, (C("red-7"),))]


def test_a_card_laid_where_the_last_contest_s_card_lay_opens_the_next_contest():
    # unseen design, seed 3: the victor's card was taken away and the next contest's opening
    # card laid on its place while the hand still hid it, so the watcher read the place again
    t = Table(players=2)
    a = t.lay(0, sure("red-3"))
    t.wait()
    b = t.lay(1, sure("red-5"))
    t.wait()
    t.take(a)
    t.wait()
    assert t.game.contest.index == 1 and t.game.turn == 1
    t.swap(b, 1, sure("green-3"))
    t.wait()
    assert t.events[3:] == [CardsPlayed(1, (C("green-3"),))]


def test_a_counted_card_read_surely_as_another_in_its_contest_is_asked_about():
    """Attacke zero-shot, seed 89: Ben's blue 2, counted, read again as a blue 4 at 0.985
    while he laid his next card beside it; a card laid stays laid in its contest (A5), so the
    camera's new read is asked, not counted as a blue 4 laid."""
    t = Table(players=2)
    t.lay(0, sure("blue-3"))
    t.wait()
    two = t.lay(1, sure("blue-2"))
    t.lay(1, sure("blue-5"))
    t.wait()
    t.lay(0, sure("blue-5"))
    t.wait()
    t.lay(1, sure("blue-3"))  # Ben's turn again: his 3, and his 2 read as a 4
    t.swap(two, 1, read(("blue-4", 0.985), ("blue-2", 0.01), sure=True), dt=0.1)
    t.wait()
    q = t.questions[f"card:{two}"]
    assert "read it as blue 2, then as blue 4" in q.message
    t.answer(q.key, "none")  # it is his blue 2
    t.wait()
    assert t.events[3:] == [CardsPlayed(1, (C("blue-3"),))]


def test_a_counted_card_read_again_unsure_or_as_itself_is_not_laid_again():
    t = Table(players=3)
    a = t.lay(0, sure("red-3"))
    t.wait()
    t.swap(a, 0, read(("red-3", 0.6), ("red-2", 0.3)))
    t.swap(a, 0, sure("red-3"))
    t.wait()
    assert t.events == [CardsPlayed(0, (C("red-3"),))] and not t.questions


def test_a_seat_whose_cards_still_lie_is_asked_whether_he_passed():
    t = ben_lays_again_while_anas_card_lies()
    q = t.questions["pass:0:0"]
    assert [c.id for c in q.choices] == ["passed", "more", "wait"] and q.seat == 0
    t.answer("pass:0:0", "passed")
    assert t.events[-2:] == [Passed(0), CardsPlayed(1, (C("red-7"),))]


def test_cards_the_camera_did_not_see_are_named_by_a_person_one_by_one():
    t = ben_lays_again_while_anas_card_lies()  # Ana laid two unseen
    t.answer("pass:0:0", "more")
    q = t.questions["more:0:0"]
    assert {"red-2", "shield-7", "none"} <= {c.id for c in q.choices}
    assert "counts nothing" in q.message
    t.answer("more:0:0", "red-2")
    t.wait()
    assert "red 2" in t.questions["more:0:0"].message and len(t.events) == 3  # asked until done
    t.answer("more:0:0", "red-3")
    t.answer("more:0:0", "none")
    t.wait()
    assert t.events[3:] == [CardsPlayed(0, (C("red-2"), C("red-3"))),  # 8 beats Cy's 5
                            CardsPlayed(1, (C("red-7"),))]             # and Ben's 11 beats 8
    assert not t.questions


def _short_of_a_green_4() -> Table:
    """Ana's green 5; Ben's green 3, over a green 4 the camera did not see: a person confirms
    the 3, and the play, too low, asks for the card missed."""
    t = Table()
    t.lay(0, sure("green-5"))
    t.wait()
    track = t.lay(1, sure("green-3"))  # he laid a green 4 under it, unseen
    t.wait()
    t.answer(f"card:{track}", "green-3")
    return t


def test_a_play_short_of_the_best_asks_for_the_card_the_camera_missed():
    t = _short_of_a_green_4()
    q = t.questions["more:0:1"]
    assert "green 3" in q.message and "green-4" in {c.id for c in q.choices}
    t.answer("more:0:1", "green-4")
    t.answer("more:0:1", "none")
    t.wait()
    assert t.events[-1] == CardsPlayed(1, (C("green-3"), C("green-4"))) and not t.questions


def test_a_card_named_unseen_and_seen_late_after_another_seat_laid_is_of_the_laying():
    """Attacke zero-shot, seed 69: Dora's second green 2, named unseen while Eli laid his
    card, was found a second later, and taken for her next laying: her play was refused as too
    low, and the game went astray (3 of 12)."""
    t = _short_of_a_green_4()
    t.lay(2, read(("green-7", 0.4), ("green-2", 0.3)))  # Cy's card, meanwhile
    t.answer("more:0:1", "green-4")
    t.lay(1, sure("green-4"))  # found: the card named
    t.wait()
    assert t.events[1] == CardsPlayed(1, (C("green-3"), C("green-4")))


def test_a_card_named_unseen_and_seen_early_after_another_seat_laid_is_of_the_laying():
    """Attacke zero-shot, seed 68: Ben's green 4, read surely just after a box in another
    seat's zone and so taken for his next laying, was then named as a card the camera did not
    see: it is that card, not one more (it was counted again in the next contest)."""
    t = Table()
    ana = t.lay(0, sure("green-5"))
    t.wait()
    three = t.lay(1, read(("green-3", 0.8), ("green-7", 0.1)))
    box = t.lay(2, read(("green-7", 0.4), ("green-2", 0.3)))  # in Cy's zone, meanwhile
    four = t.lay(1, sure("green-4"))
    t.wait()
    t.answer(f"card:{three}", "green-3")  # too low: the card missed is asked
    t.answer("more:0:1", "green-4")
    t.answer("more:0:1", "none")
    t.answer(f"card:{box}", "none")
    t.take(ana)  # she passed
    t.wait()
    t.answer("pass:0:2", "passed")  # (Cy's zone changed: a person says)
    t.take(three, four)  # Ben won, and clears his cards
    t.wait()
    t.lay(1, sure("red-3"))
    t.wait()
    assert t.events == [CardsPlayed(0, (C("green-5"),)),
                        CardsPlayed(1, (C("green-3"), C("green-4"))), Passed(2), Passed(0),
                        CardsPlayed(1, (C("red-3"),))]
    assert not t.questions


def test_cards_taken_away_after_another_seat_laid_are_no_pass_without_a_person():
    t = Table(players=2)
    a = t.lay(0, sure("red-3"))
    t.wait()
    t.lay(1, sure("red-5"))
    t.wait()
    t.lay(1, sure("red-7"), dt=1.0)  # Ana laid unseen, Ben challenged again, then she passed
    t.take(a, dt=1.0)
    t.wait()
    t.wait()
    assert t.events == [CardsPlayed(0, (C("red-3"),)), CardsPlayed(1, (C("red-5"),))]
    assert "another player laid or took away cards" in t.questions["pass:0:0"].message
    t.answer("pass:0:0", "more")
    t.answer("more:0:0", "red-4")
    t.answer("more:0:0", "none")
    t.wait()
    assert t.events[2:] == [CardsPlayed(0, (C("red-4"),)), CardsPlayed(1, (C("red-7"),)),
                            Passed(0)]  # then her cards' leaving was her pass: Ben wins


def test_cards_taken_away_after_another_seat_took_hers_away_are_no_pass_without_a_person():
    """Ben laid face down over his card, unseen (the watcher keeps a covered card: it lies
    there still); Ana passed, taking her cards away, and Ben, the victor, cleared his. His
    cards' leaving came after hers: it is no pass of his until a person says what he did."""
    t = Table(players=2, variant=Variant(concealed=True))
    a = t.lay(0, sure("red-3"))
    t.wait()
    b = t.lay(1, sure("red-5"))
    t.wait()
    a2 = t.lay(0, sure("red-4"))
    t.wait()
    t.take(a, a2, dt=1.0)
    t.wait()
    t.take(b, dt=1.0)
    t.wait()
    t.wait()
    assert t.events == [CardsPlayed(0, (C("red-3"),)), CardsPlayed(1, (C("red-5"),)),
                        CardsPlayed(0, (C("red-4"),))]
    assert "took away cards before his" in t.questions["pass:0:1"].message
    t.answer("pass:0:1", "more")
    t.answer("more:0:1", "back")
    t.answer("more:0:1", "none")
    t.wait()
    t.answer("backs:0:1", "3")
    t.wait()
    assert t.events[3:] == [CardsPlayed(1, (), 3), Passed(0)]  # then Ana's leaving: her pass


def test_a_laying_the_next_seat_passed_after_is_played_though_a_hand_stayed_over_it():
    """Attacke zero-shot, seed 80: Ben laid a green 7; Ana took her cards away (she passed) a
    second and a half later, and Ben's hand came at once to clear the contest he won. His zone
    was never quiet for the settling time: the 7 was never played, nor Ana's pass."""
    t = Table(players=2)
    a = t.lay(0, sure("green-5"))
    t.wait()
    b = t.lay(1, sure("green-7"))
    t.take(a, dt=1.5)
    for _ in range(4):
        t.hand(1)  # Ben's hand over his zone, clearing
    assert t.events == [CardsPlayed(0, (C("green-5"),)), CardsPlayed(1, (C("green-7"),))]
    t.take(b)
    t.wait()
    assert t.events[2:] == [Passed(0)] and not t.questions


def test_a_later_seat_s_cards_taken_away_first_say_the_seat_between_laid_unseen():
    """Attacke zero-shot, seed 18: Eli opened, Ana challenged, the seats between had nothing
    in the contest; Eli laid a yellow 5 on his own cards, unseen, Ana passed (her cards taken
    away) and Eli cleared his. Ana's leaving told that the empty seats had passed, and Eli's
    turn was taken to begin only then: his cards' leaving was taken for his pass, and Ana won
    a contest she had lost. Her leaving came after Eli's turn: he did something unseen first."""
    t = Table(players=3, first=2)
    cy = t.lay(2, sure("red-5"))
    t.wait()
    ana = t.lay(0, sure("red-7"))
    t.wait()
    t.take(ana, dt=1.0)  # Ben has nothing in the contest; Cy laid a red 3 unseen first
    t.take(cy, dt=1.5)   # Cy, the victor, clears his cards
    t.wait()
    t.wait()
    assert t.events == [CardsPlayed(2, (C("red-5"),)), CardsPlayed(0, (C("red-7"),)),
                        Passed(1)]
    assert "took away cards before his" in t.questions["pass:0:2"].message
    t.answer("pass:0:2", "more")
    t.answer("more:0:2", "red-3")
    t.answer("more:0:2", "none")
    t.wait()
    assert t.events[3:] == [CardsPlayed(2, (C("red-3"),)), Passed(0)]


def test_backs_seen_after_a_person_counted_the_heap_are_that_heap():
    """A person said how many lie face down before the camera saw them all: the backs it sees
    later in that seat's zone are those, not a new act (face down is once a contest)."""
    t = Table(players=2, variant=Variant(concealed=True))
    t.lay(0, sure("red-3"))
    t.wait()
    t.lay(1, sure("back"))
    t.lay(1, sure("back"))
    t.wait()
    t.answer("backs:0:1", "4")
    assert t.events[-1] == CardsPlayed(1, (), 4)
    t.lay(1, sure("back"), dt=0.5)
    t.lay(1, sure("back"), dt=0.5)
    t.wait()
    assert not t.questions
    t.lay(0, sure("red-4"))
    t.wait()
    assert t.events[-1] == CardsPlayed(0, (C("red-4"),)) and not t.questions


def test_backs_read_as_a_shield_and_seen_after_the_heap_was_counted_are_that_heap():
    """Attacke zero-shot, seed 9: the design's backs read as a shield 10 (0.65-0.95). A person
    named each and said how many lie face down; one seen later, read as a shield 10 at 0.94,
    was taken for a new shield 10 of the seat when he took his cards away (his pass)."""
    t = Table(players=2, variant=Variant(concealed=True))
    t.lay(0, sure("red-3"))
    t.wait()
    like_a_shield = read(("shield-10", 0.72), ("back", 0.05))
    heap = [t.lay(1, like_a_shield) for _ in range(2)]
    t.wait()
    t.answer(f"card:{heap[0]}", "back")  # the other reads as it did: a back too
    t.answer("backs:0:1", "4")
    assert t.events[-1] == CardsPlayed(1, (), 4)
    late = t.lay(1, read(("shield-10", 0.94), ("back", 0.03)), dt=0.5)
    t.wait()
    assert t.events[-1] == CardsPlayed(1, (), 4) and f"card:{late}" not in t.questions
    t.lay(0, sure("red-2"))
    t.wait()
    t.take(*heap, late)  # Ben passes
    t.wait()
    t.wait()
    assert t.events[2:] == [CardsPlayed(0, (C("red-2"),)), Passed(1)]


def test_backs_read_alike_in_a_laying_where_a_person_named_one_a_back_are_backs():
    """Attacke zero-shot, seed 59: a design whose backs read as a shield 10 (0.74-0.90) had
    each back of a laying asked about, one by one (192 questions in a game). Once a person
    named one a back, the others read as it was are backs; the count a person is asked next
    checks it."""
    t = Table(players=2, variant=Variant(concealed=True))
    t.lay(0, sure("red-2"))
    t.wait()
    heap = [t.lay(1, read(("shield-10", p), ("back", 0.1))) for p in (0.85, 0.74, 0.81)]
    t.wait()
    assert {f"card:{k}" for k in heap} <= set(t.questions)
    t.answer(f"card:{heap[0]}", "back")
    assert set(t.questions) == {"backs:0:1"}  # the other two: backs, read as that one
    q = t.questions["backs:0:1"]
    assert q.ok == "3" and "The camera sees 3" in q.message
    t.answer(q.key, "3")
    assert t.events[-1] == CardsPlayed(1, (), 3) and not t.questions


def test_a_face_down_count_below_the_backs_read_alike_has_each_card_asked_about():
    # a face-up shield 10 read as the backs were: the person counts one back, not two, and
    # the card read alike is asked about again
    t = Table(players=2, variant=Variant(concealed=True))
    t.lay(0, sure("red-3"))
    t.wait()
    back = t.lay(1, read(("shield-10", 0.8), ("back", 0.1)))
    shield = t.lay(1, read(("shield-10", 0.86), ("back", 0.1)))
    t.wait()
    t.answer(f"card:{back}", "back")
    assert set(t.questions) == {"backs:0:1"} and t.questions["backs:0:1"].ok == "2"
    t.answer("backs:0:1", "1")
    assert set(t.questions) == {f"card:{shield}"}
    t.answer(f"card:{shield}", "shield-10")
    assert t.events[-1] == CardsPlayed(1, (C("shield-10"),), 1) and not t.questions


def backs_named(*sure_of: float) -> Table:
    """Ana opened with a red 2; Ben laid backs that read as a shield 10 this sure, a person
    named the first a back and counted them."""
    t = Table(players=2, variant=Variant(concealed=True))
    t.lay(0, sure("red-2"))
    t.wait()
    heap = [t.lay(1, read(("shield-10", p), ("back", 0.1))) for p in sure_of]
    t.wait()
    t.answer(f"card:{heap[0]}", "back")
    t.answer("backs:0:1", str(len(heap)))
    return t


def test_backs_read_as_a_back_named_earlier_in_the_game_are_backs():
    # the deck's backs read alike all game: a person named one once, and later layings of
    # such cards ask only how many lie face down
    t = backs_named(0.8, 0.77, 0.84)
    assert t.events[-1] == CardsPlayed(1, (), 3)
    for p in (0.83, 0.79):
        t.lay(0, read(("shield-10", p), ("back", 0.1)))
    t.wait()
    assert set(t.questions) == {"backs:0:0"} and t.questions["backs:0:0"].ok == "2"
    t.answer("backs:0:0", "2")
    assert t.events[-1] == CardsPlayed(0, (), 2)


def test_a_box_read_far_less_sure_than_the_backs_named_is_no_back():
    """Attacke zero-shot, seed 19: a second box on Ana's red 3 read as a shield 10 at 0.32,
    as the deck's backs read (0.77), was taken for a back."""
    t = backs_named(0.77, 0.8, 0.84)
    t.lay(0, sure("red-3"))
    ghost = t.lay(0, read(("shield-10", 0.32), ("back", 0.14)))
    t.wait()
    assert set(t.questions) == {f"card:{ghost}"}


def test_a_face_up_card_read_like_the_backs_is_asked_about_once_a_person_counts_none():
    t = Table(players=2, variant=Variant(concealed=True))
    t.lay(0, sure("red-2"))
    t.wait()
    back = t.lay(1, read(("shield-10", 0.8), ("back", 0.1)))
    t.lay(1, sure("red-3"))
    t.wait()
    t.answer(f"card:{back}", "back")
    t.answer("backs:0:1", "1")
    shield = t.lay(0, read(("shield-10", 0.86), ("back", 0.1)))  # face up: Ana's shield 10
    t.wait()
    assert set(t.questions) == {"backs:0:0"}
    t.answer("backs:0:0", "0")
    assert set(t.questions) == {f"card:{shield}"}
    t.answer(f"card:{shield}", "shield-10")
    assert t.events[-1] == CardsPlayed(0, (C("shield-10"),)) and not t.questions


def test_a_card_laid_just_before_the_last_and_taken_away_with_it_is_laid_not_moved():
    """Attacke zero-shot, seed 71: Cy laid a back, then, a second later, a red 2, and took
    both away with his other cards as soon as the others passed unseen. The back was taken
    for a card moved (another arrived within a second of its leaving), and his play was
    counted without it."""
    t = Table(players=2, variant=Variant(concealed=True))
    t.lay(0, sure("red-3"))
    t.wait()
    back = t.lay(1, sure("back"))
    four = t.lay(1, sure("red-4"), dt=0.9)
    t.take(back, four, dt=0.9)
    t.wait()
    assert set(t.questions) == {"backs:0:1"}
    t.answer("backs:0:1", "1")
    assert t.events[-1] == CardsPlayed(1, (C("red-4"),), 1)


def test_a_card_the_reader_read_as_another_before_it_was_sure_is_asked_about():
    """Attacke zero-shot, seed 15: Ben's red 3, lying still, read as a red 4 at 0.83, then
    surely as a red 5 at 0.98; counted as the 5, the contest was scored wrong."""
    t = Table(players=2)
    t.lay(0, sure("red-3"))
    t.wait()
    t.lay(1, sure("shield-7"), dt=0.2)
    three = t.lay(1, read(("red-4", 0.83), ("red-5", 0.08)), dt=0.2)
    t.swap(three, 1, read(("red-5", 0.98), sure=True), dt=0.2)
    t.wait()
    q = t.questions[f"card:{three}"]
    assert "read it as red 4, then as red 5" in q.message and q.ok is None
    assert "Laid with it: shield 7." in q.message  # the card beside it the camera knows
    t.answer(q.key, "red-3")
    t.wait()
    assert t.events[-1] == CardsPlayed(1, (C("shield-7"), C("red-3")))


def test_a_card_read_unsure_then_surely_as_its_likely_card_is_not_asked_about():
    t = Table(players=2)
    t.lay(0, sure("red-3"))
    t.wait()
    five = t.lay(1, read(("red-4", 0.55), ("red-5", 0.4)))
    t.swap(five, 1, sure("red-5"), dt=0.2)  # a look the reader's first read allowed
    t.wait()
    assert t.events[-1] == CardsPlayed(1, (C("red-5"),)) and not t.questions


def test_a_back_counts_one_face_down_in_the_concealed_variant():
    t = Table(variant=Variant(concealed=True))
    t.lay(0, sure("red-3"))
    t.wait()
    t.lay(1, sure("red-2"))
    t.lay(1, sure("back"))
    t.lay(1, sure("back"))
    t.wait()
    # backs lie in a heap the camera cannot count: a person says how many, OK the camera's
    q = t.questions["backs:0:1"]
    assert q.ok == "2" and [c.id for c in q.choices] == ["1", "2", "3", "4", "0"]
    assert t.events[-1] == CardsPlayed(0, (C("red-3"),))
    t.answer(q.key, "3")  # one lay hidden under the others
    assert t.events[-1] == CardsPlayed(1, (C("red-2"),), 3)
    # not in the plain game: a back there is asked about
    plain = Table()
    plain.lay(0, sure("red-3"))
    plain.wait()
    track = plain.lay(1, sure("back"))
    plain.wait()
    assert "back" not in {c.id for c in plain.questions[f"card:{track}"].choices}


def test_backs_a_person_says_are_none_of_the_seat_s_are_no_cards_of_the_game():
    # a back of the seat beside (its heap run over the line) is no card of his: a person says
    # he laid none face down, and his laying is the rest
    t = Table(variant=Variant(concealed=True))
    t.lay(0, sure("red-3"))
    t.wait()
    t.lay(1, sure("red-5"))
    stray = t.lay(1, sure("back"))
    t.wait()
    t.answer("backs:0:1", "0")
    assert t.events[-1] == CardsPlayed(1, (C("red-5"),))
    assert t.it.cards[stray].status == "ignored" and not t.questions


def test_a_card_outside_every_zone_is_nobody_s():
    t = Table()
    t.lay(None, sure("red-3"))
    t.wait()
    assert t.events == [] and not t.questions


def test_undo_takes_the_play_back_and_it_is_not_taken_again():
    t = Table()
    t.lay(0, sure("red-3"))
    t.wait()
    t.lay(1, sure("red-5"))
    t.wait()
    assert len(t.events) == 2
    t.undo()
    t.wait()
    assert t.events == [CardsPlayed(0, (C("red-3"),))] and t.game.turn == 1
    # Ben lays again; a person may say what the first was; the table goes on
    t.lay(1, sure("red-7"))
    t.wait()
    assert t.events[-1] == CardsPlayed(1, (C("red-7"),))


def test_undo_of_a_pass_by_removal_is_not_inferred_again_until_the_table_changes():
    t = Table()
    a = t.lay(0, sure("red-3"))
    t.wait()
    t.lay(1, sure("red-4"))
    t.wait()
    t.lay(2, sure("red-5"))
    t.wait()
    t.take(a)
    t.wait()
    assert t.events[-1] == Passed(0)
    t.undo()
    t.wait()
    assert t.events[-1] == CardsPlayed(2, (C("red-5"),))
    t.lay(1, sure("red-7"))  # the table changes: Ana's cards are still gone, she passed
    t.wait()
    assert t.events[-2:] == [Passed(0), CardsPlayed(1, (C("red-7"),))]


def test_an_answer_to_a_question_already_gone_is_an_error():
    t = Table()
    with pytest.raises(AnswerError):
        t.it.answer("card:99", "red-3", t.game, 0.0)
    assert t.it.corrected(object(), t.game) is None


def test_nothing_is_decided_after_the_game_is_over():
    events = random_game(random.Random(4), 3, Variant())
    t = Table(setup=events[0])
    for e in events[1:]:
        t.log.apply(e)
    assert t.game.game_over
    t.lay(0, sure("red-3"))
    t.wait()
    assert t.game.log == events


def _a_back_too_low() -> tuple[Table, int]:
    """Ana's red 7, Ben's shield 10, then one card face down from Ana, which is all the camera
    sees of her play; a person says one lies face down, and is asked what the back is."""
    t = Table(players=2, variant=Variant(concealed=True))
    t.lay(0, sure("red-7"))
    t.wait()
    t.lay(1, sure("shield-10"))
    t.wait()
    back = t.lay(0, sure("back"))
    t.wait()
    t.answer("backs:0:0", "1")
    t.wait()
    assert "would have 8" in t.questions[f"card:{back}"].message
    return t, back


def test_a_concealed_play_too_low_is_asked_for_the_card_the_camera_missed():
    """Ana laid a red 3 and one card face down; the camera saw the back only. The count a
    person gave stands: the play, too low, is short of a card, which a person names (before,
    the count was asked again and again, and the card never)."""
    t, back = _a_back_too_low()
    t.answer(f"card:{back}", "back")
    t.wait()
    assert "backs:0:0" not in t.questions
    t.answer("more:0:0", "red-3")
    t.answer("more:0:0", "none")
    t.wait()
    assert t.events[-1] == CardsPlayed(0, (C("red-3"),), 1) and not t.questions


def test_a_heap_a_person_says_holds_no_missing_card_is_counted_again():
    t, back = _a_back_too_low()
    t.answer(f"card:{back}", "back")
    t.wait()
    t.answer("more:0:0", "none")  # no card missed: the heap holds more than he said
    t.wait()
    t.answer("backs:0:0", "4")
    t.wait()
    assert t.events[-1] == CardsPlayed(0, (), 4) and not t.questions


def test_a_card_named_unseen_then_seen_late_is_that_card_not_one_more():
    """Ana laid a red 3 and a card face down; the camera saw the back, a person named the red 3.
    Then the camera finds the red 3 (it lay under her hand, read unsure): it is the card named,
    counted once, and asks nothing (bench seed 3, contest 5: Ana's yellow 5 was counted twice)."""
    t, back = _a_back_too_low()
    t.answer(f"card:{back}", "back")
    t.answer("more:0:0", "red-3")
    t.answer("more:0:0", "none")
    t.wait()
    assert t.events[-1] == CardsPlayed(0, (C("red-3"),), 1)
    t.lay(0, read(("red-3", 0.6), ("red-2", 0.2)), dt=1.0)
    t.wait()
    assert not t.questions and len(t.events) == 3
    t.lay(1, sure("shield-7"))
    t.wait()
    assert t.events[-1] == CardsPlayed(1, (C("shield-7"),)) and not t.questions
