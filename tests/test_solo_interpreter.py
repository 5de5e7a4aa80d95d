"""Solo Tightrope's interpreter on its own: cards laid, turned and cleared in, solo events out,
nothing on a guess."""

from __future__ import annotations

import random

import numpy as np
import pytest
from conftest import settle
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from companion.games import solo
from companion.games.base import AnswerError, EventLog, Question
from companion.games.solo.cards import CARD_NAMES, Card
from companion.games.solo.interpreter import (
    DECK,
    HAND,
    ROW,
    SETTLE_S,
    Interpreter,
    candidates,
    sure_name,
)
from companion.games.solo.randgame import random_game
from companion.games.solo.rules import (
    CardDrawn,
    CardsRedrawn,
    Game,
    GameStarted,
    JackPlayed,
    MissionPlayed,
    Spot,
)
from vision.types import Change, Observation, Reading

QUAD = np.zeros((4, 2), np.float32)


def read(*cands: tuple[str, float], sure: bool = False) -> Reading:
    """A reading of playing-card names: the given candidates, the rest of the probability spread
    over the other cards; `sure`: the reader is sure of the first."""
    total = sum(p for _, p in cands)
    rest = [n for n in CARD_NAMES if n not in {c for c, _ in cands}]
    named = (*cands, *((n, (1 - total) / len(rest)) for n in rest))
    return Reading.of_name(cands[0][0] if sure else None, cands[0][1], named, 0.9)


def sure(name: str) -> Reading:
    return read((name, 0.999), sure=True)


def C(name: str) -> Card:  # noqa: N802
    return Card.parse(name)


def test_the_reading_helpers_read_the_names():
    r = read(("QH", 0.6), ("QD", 0.3))
    assert candidates(r)[:2] == [("QH", 0.6), ("QD", 0.3)] and sure_name(r) is None
    assert sure_name(sure("back")) == "back" and candidates(None) == []


class Table:
    """The interpreter and a game, driven as the referee drives them."""

    def __init__(self, setup: GameStarted | None = None) -> None:
        self.log = EventLog(Game(setup or GameStarted(("Ana",))))
        self.it = solo.GAME.interpreter()  # type: ignore[misc]
        assert isinstance(self.it, Interpreter)
        self.questions: dict[str, Question] = {}
        self.track = 0
        self.t = 0.0
        self.refused: list[str] = []

    @property
    def game(self) -> Game:
        return self.log.game  # type: ignore[return-value]

    @property
    def events(self) -> list:
        return self.game.log[1:]

    def lay(self, zone: int | str, reading: Reading, dt: float = 0.4, x: float = 0.0,
            w: float = 0.0) -> int:
        """A card laid at x (`w`: its width in the picture; 0, its corners unknown)."""
        self.track += 1
        self.t += dt
        quad = np.float32([[x - w / 2, -w * .7], [x + w / 2, -w * .7], [x + w / 2, w * .7],
                           [x - w / 2, w * .7]]) if w else QUAD
        obs = Observation(reading, quad, (x, 0.0), zone, 3, self.track)
        self.it.seen([Change("appeared", obs, 0)], self.t)
        self.settle()
        return self.track

    def take(self, *tracks: int, dt: float = 0.4) -> None:
        self.t += dt
        changes = [Change("removed", Observation(sure("back"), QUAD, (0, 0), None, 3, k), 0)
                   for k in tracks]
        self.it.seen(changes, self.t)
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

    def said_all_laid(self) -> None:
        """A person says the camera saw every card of a mission that falls short."""
        key = next(k for k in self.questions if k.startswith("short:"))
        assert self.questions[key].ok == "all"
        self.answer(key, "all")

    def drew(self, n: int = 0) -> None:
        """A person says how many cards were drawn before the move the table shows."""
        key = next(k for k in self.questions if k.startswith("draws:"))
        self.answer(key, str(n))

    def undo(self) -> None:
        self.log.game.undo()
        self.it.undone(self.game)
        self.settle()


def dealt(t: Table, n: int = 3) -> list[int]:
    return [t.lay(ROW, sure("back"), dt=0.1, x=i) for i in range(n)]


# the 5S laid on spot 1a, its informants the 5D, the 3D and the 4D: a mission short of its spot
FIVE_OF_SPADES = MissionPlayed(Spot.LOW_LEFT, (C("5S"),), (C("5D"), C("3D"), C("4D")))


def missed_the_4d(t: Table) -> None:
    """The 5S laid on 1a and its informants turned and cleared; the camera saw the 5D and the
    3D, not the 4D."""
    backs = dealt(t)
    t.lay("1a", sure("5S"))
    t.take(*backs)
    faces = [t.lay(ROW, sure(name), x=i) for i, name in enumerate(("5D", "3D"))]
    t.take(*faces)


def said_4d_was_turned(t: Table) -> None:
    """A person names the 4D the camera missed and says the 5S was all the mission laid (it
    falls short of its spot); nothing was drawn before it."""
    t.answer("missing:0", "4D")
    t.said_all_laid()
    t.drew(0)


# --- one thing at a time --------------------------------------------------------------------------


def test_a_redraw_is_the_cards_laid_in_front_once_the_laying_settles():
    t = Table()
    dealt(t)
    t.lay(HAND, sure("2C"))
    t.lay(HAND, sure("3D"))
    assert t.events == []
    t.wait()
    t.drew(0)
    assert t.events == [CardsRedrawn((C("2C"), C("3D")))] and not t.questions


def test_the_second_joker_laid_where_the_first_lay_is_a_card_of_its_own():
    """A card read surely as one played before, where that one lay, is that card seen again
    (each card is played once, S16), but the deck holds two jokers."""
    t = Table()
    dealt(t)
    first = t.lay(HAND, sure("joker"), w=60)
    t.wait()
    t.drew(0)
    t.take(first)
    t.wait()
    t.lay(ROW, sure("back"), x=3)  # the informant its redraw dealt
    t.lay(HAND, sure("joker"), w=60)
    t.wait()
    t.drew(0)
    assert t.events == [CardsRedrawn((C("joker"),)), CardsRedrawn((C("joker"),))]


def test_a_lone_jack_and_an_informant_turned_are_a_jack_played():
    t = Table()
    backs = dealt(t)
    t.lay(HAND, sure("JS"))
    t.wait()
    assert t.events == []  # a jack alone: played, or discarded? the row will tell
    t.take(backs[1])
    t.lay(ROW, sure("7H"))
    t.drew(1)
    assert t.events == [CardDrawn(), JackPlayed(C("JS"), C("7H"))]


def test_informants_seen_anew_as_likely_backs_are_not_asked_about_for_a_jack():
    """Under the hand that turns one informant, the camera loses the others and sees them anew,
    unsure but likelier their backs than anything: the turned one is the jack's, and nobody
    is asked which card each of the others is."""
    t = Table()
    backs = dealt(t)
    t.lay(HAND, sure("JS"))
    t.wait()
    t.take(*backs)
    t.lay(ROW, read(("back", 0.85), ("7H", 0.05)), x=0)
    t.lay(ROW, sure("7H"), x=1)
    t.lay(ROW, read(("back", 0.8), ("5D", 0.1)), x=2)
    assert list(t.questions) == ["draws:0"]  # (how many she drew is asked of every move)
    t.drew(1)
    assert t.events == [CardDrawn(), JackPlayed(C("JS"), C("7H"))]


def test_the_card_staying_on_a_spot_lost_under_the_clearing_hand_and_found_anew_is_it():
    """The mission's cards are cleared but one; the watcher loses that one under the hand and
    finds it again, unsure, a moment later: it is the card that stays on the spot, not a card
    laid from the hand (nobody is asked which card was laid there)."""
    t = Table()
    backs = dealt(t)
    mission = [t.lay("1c", sure(name)) for name in ("10S", "9S", "8S", "QS")]
    t.take(*backs)
    for name in ("2D", "3D", "4D"):
        t.lay(ROW, sure(name))
    t.take(*mission, *range(t.track - 2, t.track + 1))
    t.wait(1.0)
    t.lay("1c", read(("QS", 0.85), ("QC", 0.1)))  # found anew, unsure
    t.wait()
    t.wait()
    t.drew(1)  # (four cards from a hand of three)
    assert not [k for k in t.questions if k.startswith("card:")]
    played = [e for e in t.events if isinstance(e, MissionPlayed)]
    assert len(played) == 1 and played[0].laid == C("QS")


def test_the_card_staying_on_a_spot_won_found_anew_later_is_no_new_card():
    """Later in the game, the watcher loses the card that stays on a spot won (a hand reached
    past it) and finds it again, read unsure: no mission goes to a spot won, so it is that
    card, not a card laid from the hand that a person must name."""
    t = Table()
    backs = dealt(t)
    mission = [t.lay("1c", sure(name)) for name in ("10S", "9S", "QS")]
    t.take(*backs)
    row = [t.lay(ROW, sure(name)) for name in ("2D", "3D", "4D")]
    t.take(*row, *mission[:2])
    t.wait()
    t.drew(0)
    assert [e.laid for e in t.events if isinstance(e, MissionPlayed)] == [C("QS")]
    dealt(t, 4)
    t.take(mission[2])
    t.wait()
    t.lay("1c", read(("10S", 0.45), ("QS", 0.15)))  # the queen, found anew and misread
    t.wait()
    t.wait()
    assert not t.questions and len(t.events) == 1
    t.lay(HAND, sure("5H"))  # the next move is not held up by it
    t.wait()
    t.drew(0)
    assert t.events[1:] == [CardsRedrawn((C("5H"),))]


def test_a_jack_s_informant_read_late_is_its_own_even_once_cleared():
    t = Table()
    backs = dealt(t)
    jack = t.lay(HAND, read(("JS", 0.45), ("JC", 0.4)))  # a question waits for the jack
    t.take(backs[0])
    face = t.lay(ROW, sure("7H"))
    t.take(jack)
    t.take(face)  # the informant cleared before anyone answered
    t.wait(3 * SETTLE_S)
    t.answer(f"card:{jack}", "JS")
    t.drew(0)
    assert t.events == [JackPlayed(C("JS"), C("7H"))]


def test_a_lone_jack_taken_away_with_no_informant_seen_turned_is_asked_about():
    t = Table()
    dealt(t)
    jack = t.lay(HAND, sure("JS"))
    t.wait()
    t.take(jack)
    t.lay(ROW, sure("back"), x=3)  # a card face down seen anew (or dealt): no sign either way
    t.wait()
    assert t.events == [] and not t.questions  # a slow read of the card turned has this long
    t.wait()
    q = t.questions[f"jack:{jack}"]  # discarded, or the camera missed the card it turned
    assert q.choices[0].id == "none" and "5D" in {c.id for c in q.choices}
    t.answer(f"jack:{jack}", "none")
    t.drew(0)
    assert t.events == [CardsRedrawn((C("JS"),))]


def test_a_jack_whose_informant_the_camera_missed_is_played_on_a_person_s_word():
    t = Table()
    dealt(t)
    jack = t.lay(HAND, sure("JS"))
    t.wait()
    t.take(jack)
    t.wait()
    t.wait()
    t.answer(f"jack:{jack}", "5D")
    t.drew(0)
    assert t.events == [JackPlayed(C("JS"), C("5D"))]


def test_a_mission_is_its_cards_on_a_spot_and_every_informant_turned():
    t = Table()
    backs = dealt(t)
    for name in ("10S", "9S", "AH"):
        t.lay("1b", sure(name))
    t.take(*backs)
    for name in ("2D", "3D"):
        t.lay(ROW, sure(name))
    assert t.events == []  # two of three informants turned
    t.lay(ROW, sure("4D"))
    # 20 of 18: it succeeded; the card that stays is known once the others are cleared
    assert t.events == []
    t.take(*range(t.track - 4, t.track + 1))  # 9S, AH and the informants: 10S stays
    t.wait()
    t.drew(0)
    assert t.events == [MissionPlayed(Spot.LOW_MIDDLE, (C("10S"), C("9S"), C("AH")),
                                      (C("2D"), C("3D"), C("4D")), C("10S"))]


def test_the_cards_laid_on_a_spot_are_laid_out_until_the_mission_is_played():
    t = Table()
    backs = dealt(t)
    t.lay("1b", sure("10S"))
    unsure = t.lay("1b", read(("9S", 0.6), ("9C", 0.3)))
    t.lay("1b", sure("AH"))
    t.wait()
    assert t.it.laid_out(t.game) == ()  # no odds on a guess
    t.answer(f"card:{unsure}", "9S")
    assert t.it.laid_out(t.game) == (C("10S"), C("9S"), C("AH"))
    state = solo.GAME.snapshot(t.game, t.it.laid_out(t.game))
    assert state["on_table"] == ["10S", "9S", "AH"] and set(state["chances"]) == {"1a", "1b", "1c"}
    t.take(*backs)
    for name in ("2D", "3D", "4D"):
        t.lay(ROW, sure(name))
    t.take(*range(t.track - 4, t.track + 1))  # all but the 10S, which marks the spot won
    t.wait()
    t.drew(0)
    assert t.events and t.it.laid_out(t.game) == ()


def test_an_informant_turned_over_where_it_lies_keeps_its_track_and_counts():
    t = Table()
    backs = dealt(t)
    t.lay("1a", sure("5S"))
    for back, name in zip(backs, ("5D", "3D", "4D"), strict=True):  # the watcher's same track
        t.t += 0.4
        obs = Observation(sure(name), QUAD, (float(back), 0.0), ROW, 3, back)
        t.it.seen([Change("appeared", obs, 0)], t.t)
        t.settle()
    t.said_all_laid()  # a mission short of its spot: the camera saw all its cards
    t.drew(0)
    assert t.events == [FIVE_OF_SPADES]


def test_an_informant_the_camera_missed_is_asked_once_the_row_is_cleared():
    t = Table()
    missed_the_4d(t)
    assert t.events == [] and not t.questions
    t.wait()
    q = t.questions["missing:0"]
    ids = [c.id for c in q.choices]
    assert "4D" in ids and "5D" not in ids and "3D" not in ids and "QD" not in ids
    said_4d_was_turned(t)
    assert t.events == [FIVE_OF_SPADES]


def test_informants_turned_after_the_row_was_cleared_are_the_next_mission_s():
    # the bench's seed 2 (an unseen design): a question held the mission back while its last
    # informant was turned and cleared unseen, the next informants were dealt, the next mission
    # laid and one of its informants turned; that one is not this mission's
    t = Table()
    backs = dealt(t)
    held = t.lay("1a", read(("5S", 0.6), ("5C", 0.3)))  # unsure: a question waits
    t.take(*backs)
    faces = [t.lay(ROW, sure(name), x=i) for i, name in enumerate(("5D", "3D"))]  # 4D unseen
    t.take(*faces)
    t.wait()
    dealt(t)
    t.lay("1b", sure("10S"), dt=2.0)
    t.lay(ROW, sure("8D"), dt=1.0, x=5)  # the next mission's informant
    t.wait()
    t.answer(f"card:{held}", "5S")
    t.wait()
    q = t.questions["missing:0"]
    assert "4D" in [c.id for c in q.choices] and "8D" in [c.id for c in q.choices]
    said_4d_was_turned(t)
    assert t.events[0] == FIVE_OF_SPADES


def test_the_next_deal_read_unsure_after_the_row_was_cleared_is_no_informant_of_the_mission():
    # the bench's zero-shot seed 5: the reader, never taught the deck's back, reads the next
    # informants dealt face down unsure (a queen of diamonds, half sure); dealt once the row was
    # cleared, they are the next mission's, and the informant the camera missed is asked about
    t = Table()
    missed_the_4d(t)
    for i in range(3):
        t.lay(ROW, read(("QD", 0.5), ("QH", 0.1)), dt=0.2, x=i)
    t.wait()
    assert not [k for k in t.questions if k.startswith("card:")]
    said_4d_was_turned(t)
    assert t.events[0] == FIVE_OF_SPADES


def test_a_mission_card_found_anew_and_misread_where_it_lies_is_that_card():
    # the bench's solo seed 14: the watcher lost the king of clubs of a mission under a hand
    # and found it anew where it lay, read surely as the king of spades, while the mission
    # waited on a question; no new mission was laid there (no card lies over another)
    t = Table()
    backs = dealt(t)
    cards = [t.lay("1b", sure(n), x=100.0 * i, w=60.0) for i, n in enumerate(("2S", "3S"))]
    t.take(*backs)
    for i, name in enumerate(("5D", "6D", "7D")):
        t.lay(ROW, sure(name), x=100.0 * i, w=60.0)
    assert "short:0" in t.questions  # the mission waits
    t.take(cards[0])
    t.lay("1b", sure("KS"), x=3.0, w=60.0)
    t.said_all_laid()
    t.drew(0)
    assert t.events == [MissionPlayed(Spot.LOW_MIDDLE, (C("2S"), C("3S")),
                                      (C("5D"), C("6D"), C("7D")))]
    assert t.it.laid_out(t.game) == () and not t.questions


def test_a_glimpse_across_two_cards_is_no_card():
    t = Table()
    dealt(t)
    t.lay(HAND, sure("2C"), x=0, w=80)
    t.lay(HAND, sure("3D"), x=84, w=80)
    t.lay(HAND, read(("4H", 0.3), ("5H", 0.2)), x=46, w=80)  # a box across both
    t.wait()
    t.drew(0)
    assert t.events == [CardsRedrawn((C("2C"), C("3D")))] and not t.questions


def test_a_card_the_watcher_lost_and_found_where_it_lies_is_not_laid_twice():
    t = Table()
    backs = dealt(t)
    first = t.lay("1a", sure("5S"), x=0, w=80)
    t.lay("1a", sure("6S"), x=84, w=80)
    t.take(first)  # lost under a hand a while
    t.take(*backs)
    for i, name in enumerate(("5D", "3D", "4D")):
        t.lay(ROW, sure(name), x=i * 84, w=80)
    t.said_all_laid()  # a mission short of its spot: the camera saw all its cards
    t.drew(0)
    assert t.events == [MissionPlayed(Spot.LOW_LEFT, (C("5S"), C("6S")),
                                      (C("5D"), C("3D"), C("4D")))]
    t.lay("1a", read(("5S", 0.6), ("5C", 0.2)), x=2, w=80)  # found again, the others there
    t.wait(3 * SETTLE_S)
    assert len(t.events) == 1 and not t.questions


def test_the_card_that_stays_is_known_though_the_arm_clearing_the_others_hid_it():
    """The arm that clears a won mission's other cards lies over the one that stays: the
    watcher loses it and finds it again, a new track, where it lay. It is that card: the spot is
    marked with it, not left empty (demo --game solo, seed 2)."""
    t = Table()
    backs = dealt(t)
    stays = t.lay("1b", sure("10S"), x=0, w=80)
    others = [t.lay("1b", sure(name), x=84 * (i + 1), w=80)
              for i, name in enumerate(("9S", "AH"))]
    t.take(*backs)
    informants = [t.lay(ROW, sure(name), x=i * 84, w=80)
                  for i, name in enumerate(("2D", "3D", "4D"))]
    for _ in range(3):  # hidden under the arm and found again, each time a new track
        t.take(stays, dt=0.3)
        stays = t.lay("1b", sure("10S"), dt=0.5, x=3, w=80)
    t.take(*others, *informants)  # the others and the informants cleared
    t.take(stays, dt=0.2)
    stays = t.lay("1b", sure("10S"), dt=0.6, x=2, w=80)
    t.wait()
    t.drew(0)
    assert t.events == [MissionPlayed(Spot.LOW_MIDDLE, (C("10S"), C("9S"), C("AH")),
                                      (C("2D"), C("3D"), C("4D")), C("10S"))]


def test_a_failed_mission_is_scored_at_once_and_leaves_no_card():
    t = Table()
    backs = dealt(t)
    t.lay("1a", sure("5S"))
    t.lay("1a", sure("6S"))
    t.take(*backs)
    for name in ("5D", "3D", "4D"):  # the 5 is a double agent: 6 of 18
        t.lay(ROW, sure(name))
    t.said_all_laid()  # a mission short of its spot: the camera saw all its cards
    t.drew(0)
    assert t.events == [MissionPlayed(Spot.LOW_LEFT, (C("5S"), C("6S")),
                                      (C("5D"), C("3D"), C("4D")))]


def test_a_mission_of_more_cards_than_the_hand_holds_implies_the_draws():
    t = Table()
    backs = dealt(t)
    for name in ("10S", "9S", "8S", "7S", "6S"):  # five cards: two draws were needed
        t.lay("1c", sure(name))
    t.take(*backs)
    for name in ("2D", "3D", "4D"):
        t.lay(ROW, sure(name))
    t.take(*range(t.track - 7, t.track + 1))  # all of them: no card named
    t.wait()
    assert t.events == []  # the spot is watched a while longer for its card, lost and found
    t.wait()
    assert t.events[:2] == [CardDrawn(), CardDrawn()] and not t.questions
    assert isinstance(t.events[2], MissionPlayed) and t.events[2].laid is None


def test_draws_the_hand_could_have_taken_are_asked_ok_is_the_least():
    t = Table()
    dealt(t)
    t.lay(HAND, sure("2C"))
    t.wait()
    q = t.questions["draws:0"]
    assert [c.id for c in q.choices] == ["0", "1", "2"] and q.ok == "0" and t.events == []
    with pytest.raises(AnswerError):
        t.it.answer("draws:0", "3", t.game, t.t)
    t.answer("draws:0", "2")
    assert t.events == [CardDrawn(), CardDrawn(), CardsRedrawn((C("2C"),))]
    assert t.game.rebels.hand == 5 and not t.questions


def test_an_unsure_read_is_asked_with_the_cards_the_rules_allow_and_the_answer_scores_it():
    t = Table()
    dealt(t)
    t.lay(HAND, sure("2C"))
    t.wait()
    t.answer("draws:0", "0")
    t.lay(HAND, read(("2C", 0.5), ("2S", 0.48)))  # 2C is gone: the rules say 2S
    t.wait()
    t.answer("draws:1", "0")
    assert t.events[-1] == CardsRedrawn((C("2S"),))
    track = t.lay(HAND, read(("3H", 0.45), ("3D", 0.4)))
    t.wait()
    q = t.questions[f"card:{track}"]
    ids = [c.id for c in q.choices]
    assert ids[:2] == ["3H", "3D"] and "2C" not in ids and "back" not in ids
    assert ids[-1] == "none" and q.ok is None and "not sure" in q.message
    with pytest.raises(AnswerError):
        t.it.answer(f"card:{track}", "2C", t.game, t.t)  # seen already: not a choice
    t.answer(f"card:{track}", "3D")
    t.answer("draws:2", "0")
    assert t.events[-1] == CardsRedrawn((C("3D"),)) and not t.questions


def test_a_sure_read_the_rules_refuse_is_asked():
    t = Table()
    backs = dealt(t)
    t.lay("1a", sure("5S"))
    t.lay("1a", sure("6S"))
    t.take(*backs)
    t.lay(ROW, sure("2D"))
    t.lay(ROW, sure("3D"))
    track = t.lay(ROW, sure("QD"))  # the Opponent's deck has no queens (S1)
    assert t.events == []
    q = t.questions[f"card:{track}"]
    ids = [c.id for c in q.choices]
    assert "QD" not in ids and "2D" not in ids and "4D" in ids and "back" in ids
    assert "QD" in q.message and q.ok is None
    t.answer(f"card:{track}", "8D")
    t.said_all_laid()  # a mission short of its spot: the camera saw all its cards
    t.drew(0)
    assert t.events == [MissionPlayed(Spot.LOW_LEFT, (C("5S"), C("6S")),
                                      (C("2D"), C("3D"), C("8D")))]


def test_an_informant_turned_by_a_jack_is_one_of_the_mission_s():
    t = Table()
    backs = dealt(t)
    t.lay(HAND, sure("JS"))
    t.take(backs[0])
    t.lay(ROW, sure("7H"))
    t.wait()
    t.answer("draws:0", "0")
    assert t.events == [JackPlayed(C("JS"), C("7H"))]
    t.lay("1a", sure("5S"))
    t.lay("1a", sure("6S"))
    t.take(backs[1], backs[2])
    t.lay(ROW, sure("2D"))
    t.lay(ROW, sure("3D"))
    t.said_all_laid()  # a mission short of its spot: the camera saw all its cards
    t.drew(0)
    assert t.events[-1] == MissionPlayed(Spot.LOW_LEFT, (C("5S"), C("6S")),
                                         (C("7H"), C("2D"), C("3D")))


def test_a_mission_the_rules_refuse_as_a_whole_asks_about_its_cards():
    t = Table()
    backs = dealt(t)
    t.lay("2a", sure("10S"))  # 2a rests on 1a and 1b (S3)
    t.take(*backs)
    for name in ("2D", "3D", "4D"):
        t.lay(ROW, sure(name))
    t.said_all_laid()  # a mission short of its spot: the camera saw all its cards
    t.drew(0)
    assert t.refused and "S3" in t.refused[0] and t.events == []
    assert any(key.startswith("card:") for key in t.questions)


def test_moves_made_while_a_question_waits_are_taken_in_the_order_made():
    t = Table()
    backs = dealt(t)
    discard = t.lay(HAND, sure("2C"))
    t.wait()
    assert "draws:0" in t.questions
    t.take(discard)
    backs.append(t.lay(ROW, sure("back"), x=3))  # the redraw's informant
    t.lay(HAND, sure("3C"))  # the next redraw, laid before anyone answered
    t.wait()
    t.answer("draws:0", "0")
    t.drew(0)
    assert t.events == [CardsRedrawn((C("2C"),)), CardsRedrawn((C("3C"),))]


def test_a_success_whose_cards_all_still_lie_asks_which_stays():
    t = Table()
    backs = dealt(t)
    t.lay("1a", sure("10S"))
    t.lay("1a", sure("9S"))
    t.take(*backs)
    for name in ("2D", "3D", "4D"):
        t.lay(ROW, sure(name))
    t.wait(2 * SETTLE_S)
    q = t.questions["laid:0"]
    assert [c.id for c in q.choices] == ["10S", "9S", "none"]
    t.answer("laid:0", "9S")
    t.answer("draws:0", "0")
    assert t.events == [MissionPlayed(Spot.LOW_LEFT, (C("10S"), C("9S")),
                                      (C("2D"), C("3D"), C("4D")), C("9S"))]


def test_the_deck_taken_away_for_good_is_the_draws_that_emptied_it():
    t = Table(GameStarted(("Ana",)))
    deck = t.lay(DECK, sure("back"))
    for _ in range(49):  # 51 left: one card redrawn a time, down to two
        t.log.apply(CardsRedrawn((_next_card(t.game),)))
    assert t.game.rebels.draw == 2 and t.game.rebels.hand == 3 and not t.game.game_over
    t.take(deck)
    assert not t.game.game_over
    t.wait()
    assert t.game.lost and t.events[-2:] == [CardDrawn(), CardDrawn()]


def _next_card(game: Game) -> Card:
    """A Rebels' card not seen yet."""
    seen = set(game.rebels.seen)
    return next(c for c in (Card.parse(n) for n in CARD_NAMES if n not in ("back", "joker"))
                if c not in seen)


def test_undo_takes_the_move_back_and_it_is_not_taken_again():
    t = Table()
    dealt(t)
    t.lay(HAND, sure("2C"))
    t.wait()
    t.drew(0)
    assert t.events == [CardsRedrawn((C("2C"),))]
    t.undo()
    t.wait()
    assert t.events == [] and not t.questions


def test_an_answer_to_a_question_already_gone_is_an_error():
    t = Table()
    with pytest.raises(AnswerError):
        t.it.answer("card:1", "2C", t.game, t.t)


# --- whole games, laid out on the table ----------------------------------------------------------


def draws_before_moves(events: list) -> list[int]:
    """The draws the record holds before each move."""
    out, n = [], 0
    for event in events[1:]:
        if isinstance(event, CardDrawn):
            n += 1
        else:
            out.append(n)
            n = 0
    return out


class Person:
    """Answers the table's questions from the true record and the true names of the cards."""

    def __init__(self, events: list, names: dict[int, str]) -> None:
        self.draws = draws_before_moves(events)
        self.laid = [str(e.laid) if e.laid else "none" for e in events
                     if isinstance(e, MissionPlayed)]
        self.names = names
        self.asked = 0

    def truth(self, key: str) -> str:
        kind, _, rest = key.partition(":")
        if kind == "card":
            return self.names[int(rest)]
        if kind == "jack":  # a lone jack taken away with no informant seen: play_out lays the
            return "none"   # one a jack turns, so such a jack was discarded
        if kind == "short":  # a mission short of its spot: play_out lays every card of it
            return "all"
        return str(self.draws[int(rest)]) if kind == "draws" else self.laid[int(rest)]

    def answers(self, table: Table) -> None:
        while table.questions:
            key = next(iter(table.questions))
            truth = self.truth(key)
            assert truth in {c.id for c in table.questions[key].choices}, key
            self.asked += 1
            table.answer(key, truth)


class Reader:
    """Reads a card as the reader might: surely right, or (at `unsure`) unsure, its best guess
    right or wrong, or (at `refused`) surely as a card the rules refuse there."""

    def __init__(self, rng: random.Random, unsure: float = 0.0, refused: float = 0.0) -> None:
        self.rng, self.unsure, self.refused = rng, unsure, refused

    def __call__(self, name: str, impossible: str | None) -> Reading:
        roll = self.rng.random()
        other = self.rng.choice([n for n in CARD_NAMES if n not in (name, "back")])
        if roll < self.refused and impossible is not None:
            return sure(impossible)
        if roll < self.refused + self.unsure / 2:
            return read((name, 0.6), (other, 0.1))
        if roll < self.refused + self.unsure:
            return read((other, 0.5), (name, 0.35))
        return sure(name)


def play_out(events: list, reader: Reader) -> tuple[Table, Person]:
    """Every event of a game as the table shows it: a redraw's cards laid in front and taken
    away, then as many informants dealt; a jack laid and an informant turned; a mission's cards
    laid on its spot, every informant turned, then cleared (the card that stays left on the
    spot), then the new informants; the Rebels' deck taken away once it ran out."""
    truth, table = Game(events[0]), Table(events[0])
    names: dict[int, str] = {}
    person = Person(events, names)

    def lay(zone: int | str, name: str, impossible: str | None = None, x: float = 0.0) -> int:
        reading = reader(name, impossible) if name != "back" else sure(name)
        track = table.lay(zone, reading, x=x)
        names[track] = name
        person.answers(table)
        return track

    def take(*tracks: int) -> None:
        table.take(*tracks)
        person.answers(table)

    def wait() -> None:
        table.wait()
        person.answers(table)

    # the informants lie along the row in the order dealt (the record's order at a mission):
    # slot i of the row is the i-th informant dealt since the last mission
    coming = [next((e.informants for e in events[i:] if isinstance(e, MissionPlayed)), ())
              for i in range(len(events))]
    deck = lay(DECK, "back")
    row = {i: lay(ROW, "back", x=i) for i in range(3)}  # slot -> the card lying there
    turned: set[int] = set()                            # slots a jack turned
    for i, event in enumerate(events[1:], start=1):
        before = truth.opponent.informants
        seen = [str(c) for c in truth.rebels.seen if c.copies == 1] or [None]
        truth.apply(event)
        dealt_now = truth.opponent.informants - (0 if isinstance(event, MissionPlayed) else before)
        if isinstance(event, JackPlayed):
            jack = lay(HAND, str(event.jack), seen[0])
            slot = coming[i].index(event.revealed) if event.revealed in coming[i] else \
                min(set(row) - turned)
            take(row[slot])
            row[slot] = lay(ROW, str(event.revealed), "QD", x=slot)
            turned.add(slot)
            wait()
            take(jack)
        elif isinstance(event, CardsRedrawn):
            laid = [lay(HAND, str(c), seen[0]) for c in event.cards]
            wait()
            take(*laid)
            wait()
            for _ in range(dealt_now):
                row[len(row)] = lay(ROW, "back", x=len(row))
        elif isinstance(event, MissionPlayed):
            laid = [lay(event.spot.value, str(c), seen[0]) for c in event.cards]
            for slot, card in enumerate(event.informants):
                if slot not in turned:
                    take(row[slot])
                    row[slot] = lay(ROW, str(card), "QD", x=slot)
            stays = next((k for k in laid if names[k] == str(event.laid)), None)
            take(*row.values())
            take(*(k for k in laid if k != stays))
            wait()
            row = {s: lay(ROW, "back", x=s) for s in range(dealt_now)}
            turned = set()
    if truth.game_over:
        take(deck)
    wait()
    wait()
    assert not table.questions
    return table, person


def test_a_whole_game_read_perfectly_gives_exactly_its_events():
    events = random_game(random.Random(7))
    table, person = play_out(events, Reader(random.Random(7)))
    assert table.game.log == events and not table.refused
    assert person.asked > 0  # draws the hand could have held are asked


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
@example(seed=1451)  # the last move a jack redrawn, the deck taken away as it waits: it goes first
def test_a_random_game_read_perfectly_gives_exactly_its_events(seed):
    events = random_game(random.Random(seed))
    table, _ = play_out(events, Reader(random.Random(seed)))
    assert table.game.log == events


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), unsure=st.sampled_from([0.2, 0.5]),
       refused=st.sampled_from([0.0, 0.1]))
# the deck taken away as the last mission waits on an answer: it still ends the game
@example(seed=55114, unsure=0.2, refused=0.0)
def test_an_unsure_or_wrong_reader_and_a_truthful_person_score_no_mission_wrong(
        seed, unsure, refused):
    events = random_game(random.Random(seed))
    table, _ = play_out(events, Reader(random.Random(seed + 1), unsure, refused))
    truth = Game.replay(events)
    assert [(m.spot, m.cards, m.informants, m.scoring) for m in table.game.missions] == \
        [(m.spot, m.cards, m.informants, m.scoring) for m in truth.missions]
    assert table.game.log == events


@pytest.mark.parametrize("answer", ["5H", "none"])
def test_more_informants_turned_than_dealt_are_asked_about_never_dropped(answer):
    """The camera missed a redraw of one card, so the companion counts 3 informants where 4
    were dealt (it saw 3 of them face down). All 4 are turned: which card did the player
    discard unseen? Named, the redraw is applied before the mission and its informant counts;
    "none" keeps the first three."""
    t = Table()
    backs = dealt(t, 3)  # (a fourth was dealt for the redraw the camera missed: unseen too)
    mission = [t.lay("1b", sure(name)) for name in ("10S", "9S")]
    t.take(*backs)
    row = [t.lay(ROW, sure(name), x=i) for i, name in enumerate(("2D", "3D", "4D", "6D"))]
    q = t.questions["redrew:0"]
    assert "4 informants lie turned" in q.message and "saw 3 dealt" in q.message
    assert answer in [c.id for c in q.choices] and not t.events
    t.answer("redrew:0", answer)
    t.take(*row, *mission)
    t.wait(2 * SETTLE_S)
    t.drew(0)
    played = [e for e in t.events if isinstance(e, MissionPlayed)]
    informants = ("2D", "3D", "4D", "6D") if answer != "none" else ("2D", "3D", "4D")
    assert played[0].informants == tuple(C(n) for n in informants)
    assert (CardsRedrawn((C("5H"),)) in t.events) == (answer != "none")


def test_more_informants_face_down_than_dealt_ask_for_the_redraw_before_any_is_turned():
    """The bench's solo seed 10: the camera missed a redraw of one card, and then the face of
    the informant at the row's first place (it saw the card face down taken, no face there).
    The faces it saw equal what it counted dealt, yet the row showed one face down too many
    when the mission was laid: which card was discarded unseen? Then, the row cleared, which
    informant was turned unseen."""
    t = Table()
    backs = [t.lay(ROW, sure("back"), dt=0.1, x=100.0 * i, w=60.0) for i in range(4)]
    mission = [t.lay("1b", sure(name)) for name in ("10S", "9S")]
    t.wait()  # the mission laid: the row is looked at
    q = t.questions["redrew:0"]
    assert "4 informants lay face down when mission 1 was laid" in q.message
    assert "counts 3 hidden" in q.message and not t.events
    t.answer("redrew:0", "5H")
    assert t.events == [CardsRedrawn((C("5H"),))]
    t.take(backs[0])  # the 2C turned: its face never seen
    row = []
    for back, name in zip(backs[1:], ("3D", "4D", "6D"), strict=True):
        t.take(back)
        row.append(t.lay(ROW, sure(name), x=100.0 * backs.index(back), w=60.0))
    assert not [e for e in t.events if isinstance(e, MissionPlayed)]
    t.take(*row)
    t.wait()
    q = t.questions["missing:0"]
    assert "2C" in [c.id for c in q.choices]
    t.answer("missing:0", "2C")
    t.take(*mission)
    t.wait(2 * SETTLE_S)
    t.drew(0)
    played = [e for e in t.events if isinstance(e, MissionPlayed)]
    assert sorted(map(str, played[0].informants)) == ["2C", "3D", "4D", "6D"]


def test_a_card_face_down_lost_and_found_in_its_place_is_one_informant():
    """The watcher lost a card face down under a hand and found it anew where it lay: one
    informant, no question."""
    t = Table()
    backs = [t.lay(ROW, sure("back"), dt=0.1, x=100.0 * i, w=60.0) for i in range(3)]
    t.take(backs[1])
    again = t.lay(ROW, sure("back"), x=103.0, w=60.0)
    mission = [t.lay("1b", sure(name)) for name in ("10S", "9S")]
    t.wait()
    assert not t.questions
    row = []
    for back, name in zip((backs[0], again, backs[2]), ("3D", "4D", "6D"), strict=True):
        t.take(back)
        row.append(t.lay(ROW, sure(name), x=100.0 * len(row), w=60.0))
    assert not any(k.startswith("redrew") for k in t.questions)
    t.take(*row, *mission)
    t.wait(2 * SETTLE_S)
    t.drew(0)
    played = [e for e in t.events if isinstance(e, MissionPlayed)]
    assert [str(c) for c in played[0].informants] == ["3D", "4D", "6D"]


def test_a_mission_short_of_its_spot_asks_for_a_card_the_camera_missed():
    """The camera saw the 10 but not the 9 laid beside it: 10 of 18 would score a failure
    that was a success. Asked, a person names the 9 (OK would say that was all)."""
    t = Table()
    backs = dealt(t)
    ten = t.lay("1a", sure("10S"))
    t.take(*backs)
    row = [t.lay(ROW, sure(name)) for name in ("2D", "3D", "4D")]
    q = t.questions["short:0"]
    ids = [c.id for c in q.choices]
    assert "scores 10 of the 18 it needs with 10S" in q.message and q.ok == "all"
    assert "9S" in ids and "10S" not in ids and ids[-1] == "all"  # one 10 of spades (S16)
    assert t.events == []
    t.answer("short:0", "9S")
    assert "short:0" not in t.questions
    t.take(ten, *row)
    t.wait(2 * SETTLE_S)  # all cleared: the spot is watched a while for a card lost and found
    t.drew(0)
    assert t.events == [MissionPlayed(Spot.LOW_LEFT, (C("10S"), C("9S")),
                                      (C("2D"), C("3D"), C("4D")))]
