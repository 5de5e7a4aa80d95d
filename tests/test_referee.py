"""The referee: one loop, rules first, durable log, subscribers, conflicts; camera sightings
narrowed by what the game knows (the interpreter's own cases: test_interpreter.py)."""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import replace

import numpy as np
import pytest

from companion.commands import (
    ButtonPress,
    CameraStatus,
    CommandError,
    CommandTimeout,
    Correct,
    ManualEvent,
    NewGame,
    Resolve,
    Seen,
    StorageFailed,
)
from companion.games.tightrope.events import PlayCorrected, ScoringCorrected, Undo
from companion.games.tightrope.rules import CardPlayed, GameStarted, ScoringCard, ScoringRevealed
from companion.hub import Hub
from companion.keep import Applied, CorrectionCrops, RecordMirror, TrickPhotos
from companion.referee import Referee
from companion.store import Store
from vision.types import CardId, Change, Observation, Reading

SETUP = GameStarted(("Ana", "Ben", "Cy"), 0)


@pytest.fixture
def referee(tmp_path):
    store = Store(tmp_path / "game.db")
    ref = Referee(store, Hub())
    for listener in (RecordMirror(tmp_path / "rec.jsonl", store),
                     TrickPhotos(tmp_path / "photos", store),
                     CorrectionCrops(tmp_path / "corrections")):
        ref.subscribe(listener)
    ref.call(NewGame(SETUP))
    yield ref
    store.close()


def reading(*candidates: tuple[str, float], kind: str | None = None) -> Reading:
    """A reading from (label, probability) candidates; the best one decides unless `kind`."""
    cands = tuple((CardId.from_label(label), p) for label, p in candidates)
    best, p = cands[0]
    if kind == "unknown":
        return Reading("unknown", None, None, p, cands)
    return Reading(best.kind, best.value, best.colour, p, cands)


_tracks = iter(range(1, 1 << 30))


def seen(zone, rd: Reading, kind: str = "appeared", track: int | None = None) -> Change:
    """A watcher change; each card is its own track (physical card) unless `track` says."""
    quad = np.array([[20, 10], [40, 10], [40, 41], [20, 41]], np.float32)
    track = next(_tracks) if track is None else track
    return Change(kind, Observation(rd, quad, (5.0, 7.5), zone, 3, track), 0)


def sure(label: str) -> Reading:
    return reading((label, 0.99))


def feed(ref: Referee, t: float, *changes: Change) -> None:
    ref.call(Seen(tuple(changes), t, np.full((72, 128, 3), 90, np.uint8)))


def test_camera_plays_a_trick_with_a_photo(referee, tmp_path):
    feed(referee, 0.0, seen("scoring", sure("scoring-3")))
    feed(referee, 0.5, seen(1, sure("number-7")))
    feed(referee, 1.5, seen(2, sure("number-28")), seen(0, sure("number-36")))
    game = referee.game
    assert game.balances == [3, -3, 0] and game.leader == 0
    assert referee.store.photos(referee.game_id) == {(0, 0): f"{referee.game_id}/r1-t1.jpg"}
    assert (tmp_path / "photos" / f"{referee.game_id}/r1-t1.jpg").stat().st_size > 0
    assert len(referee.store.events(referee.game_id)) == 5
    assert len((tmp_path / "rec.jsonl").read_text().splitlines()) == 6  # header + 5


def test_zero_then_covered_card_apply_zero_first(referee):
    # The covered card is committed before the zero lying across it: both settle together.
    feed(referee, 0.0, seen("scoring", sure("scoring-4")), seen("scoring", sure("scoring-0-blue")))
    feed(referee, 1.2)
    assert [str(c) for c in referee.game.revealed] == ["blue0", "4"]
    assert referee.game.trick_covered.value == "blue"


def test_narrowing_by_game_knowledge(referee):
    # The reader hesitates between 6 and 9; 9 is gone from the deck, so it is the 6.
    for value, t in (("9", 0.0),):
        feed(referee, t, seen("scoring", sure(f"scoring-{value}")))
    feed(referee, 1.1, seen(1, sure("number-1")), seen(2, sure("number-2")),
         seen(0, sure("number-3")))
    feed(referee, 2.0, seen("scoring", reading(("scoring-9", 0.5), ("scoring-6", 0.45))))
    feed(referee, 3.1)
    assert str(referee.game.revealed[-1]) == "6" and referee.conflict is None


def test_narrowing_never_takes_a_card_below_the_readers_line(referee):
    # a misfit box read as a 4 at 0.68, the reader's line 0.9: nothing the game rules out
    # lifts it, so it is no reveal; the clear look at the card that follows is
    feed(referee, 0.0, seen("scoring", replace(reading(("scoring-4", 0.68), ("scoring-8", 0.02),
                                                       kind="unknown"), line=0.9), track=700))
    feed(referee, 1.1)
    assert referee.game.revealed == ()
    assert "Which scoring card" in referee.conflict.question.message
    feed(referee, 1.5, seen("scoring", replace(sure("scoring-1"), line=0.9), track=700))
    feed(referee, 2.6)
    assert [str(c) for c in referee.game.revealed] == ["1"] and referee.conflict is None
    # what the game rules out does lift a read over the line: the 9 is gone, so it is the 6
    feed(referee, 2.0, seen(1, sure("number-1")), seen(2, sure("number-2")),
         seen(0, sure("number-3")))
    feed(referee, 3.0, seen("scoring", replace(reading(("scoring-1", 0.5), ("scoring-6", 0.46),
                                                       kind="unknown"), line=0.9)))
    feed(referee, 4.1)
    assert [str(c) for c in referee.game.revealed] == ["1", "6"]


def test_a_read_its_corners_contradict_is_asked_about_not_taken(referee):
    # the middle read a 20 at 0.95, the corners a 29 (vision.index): the reader's line is out
    # of reach, so however sure the middle was and whatever the game allows, a person is asked
    feed(referee, 0.0, seen("scoring", sure("scoring-5")))
    to_play = referee.game.to_play
    vetoed = replace(reading(("number-20", 0.95), ("number-29", 0.01), kind="unknown"),
                     line=float("inf"))
    feed(referee, 1.0, seen(1, vetoed))
    assert referee.game.to_play == to_play  # nothing played
    conflict = referee.view()["conflict"]
    assert "Which card did Ben play in trick 1" in conflict["message"]
    assert conflict["choices"][0] == {"id": "card:20", "label": "20"}
    assert conflict["seat"] == 1 and conflict["trick"] == 0 and conflict["ok"] is None
    assert conflict["image"] == f"/api/conflicts/{conflict['id']}.jpg"
    assert referee.conflict_image(conflict["id"])[:2] == b"\xff\xd8"  # the card's crop, JPEG


def test_a_trick_cleared_before_its_value_card_was_seen_asks_which_it_was(referee):
    # the 6 of the second trick lies half under a zero and the camera never read it; the
    # cards are played and taken away, then the next trick's 7 is revealed: the 7 must not
    # become the value of the cleared trick
    feed(referee, 0.0, seen("scoring", sure("scoring-5")))
    plays = [(1, 10), (2, 20), (0, 30)]
    feed(referee, 1.1, *(seen(s, sure(f"number-{c}"), track=100 + c) for s, c in plays))
    feed(referee, 2.2, *(seen(s, sure(f"number-{c}"), track=200 + c) for s, c in [
        (0, 11), (1, 21), (2, 31)]))  # trick 2: the 30 (Ana) led; no value card seen
    assert referee.game.trick_index == 1 and referee.game.trick_value is None
    feed(referee, 3.0, seen(0, sure("number-11"), "removed", track=211))
    assert referee.conflict is None  # one card picked up is no cleared trick
    feed(referee, 3.1, *(seen(s, sure(f"number-{c}"), "removed", track=200 + c)
                         for s, c in [(1, 21), (2, 31)]))
    conflict = referee.view()["conflict"]
    assert "Which scoring card did Ana reveal in trick 2" in conflict["message"]
    assert "scoring:5" not in [c["id"] for c in conflict["choices"]]
    feed(referee, 4.0, seen("scoring", sure("scoring-7")))
    feed(referee, 4.5, seen(2, sure("number-41"), track=302))  # Cy leads the next trick
    feed(referee, 5.5)
    assert referee.game.trick_index == 1 and referee.game.revealed[-1] == ScoringCard(5)
    assert referee.view()["conflict"]["id"] == conflict["id"]  # no other question meanwhile
    referee.call(Resolve(conflict["id"], "scoring:6"))
    feed(referee, 6.0, seen("scoring", sure("scoring-6")))  # seen at last: nothing new
    feed(referee, 7.5)
    assert [str(c) for c in referee.game.revealed] == ["5", "6", "7"]
    assert referee.game.trick_index == 2 and referee.conflict is None
    assert [(p.seat, p.card) for p in referee.game.trick_plays] == [(2, 41)]


def test_unsure_read_asks_and_nothing_is_scored(referee):
    feed(referee, 0.0, seen("scoring", sure("scoring-5")))
    feed(referee, 1.1, seen(1, reading(("number-17", 0.5), ("number-47", 0.4), kind="unknown")))
    assert referee.status == "attention" and referee.game.trick_plays == ()
    conflict = referee.view()["conflict"]
    ids = [c["id"] for c in conflict["choices"]]
    assert ids[:2] == ["card:17", "card:47"] and ids[-1] == "none" and len(ids) == 50 + 1
    referee.call(Resolve(conflict["id"], "card:47"))
    assert referee.game.trick_plays[0].card == 47 and referee.status == "watching"
    kept = list((referee_dir(referee) / "corrections").rglob("*.png"))
    assert [k.name for k in kept] == ["number-47-1.png"]  # it joins the deck next time
    with pytest.raises(CommandError, match="already answered"):
        referee.call(Resolve(conflict["id"], "card:17"))


def test_a_card_named_is_told_with_what_the_camera_read_it_as(referee):
    """Ben's 6, read surely as an 8 and counted, then Ana's real 8: a person names Ana's the 8
    and Ben's the 6. The crops named are told with the camera's sure read, so the reader
    learns it was caught out on this deck (vision.memory)."""
    from companion.keep import Learned

    told: list[Learned] = []
    referee.subscribe(lambda notice: told.append(notice) if isinstance(notice, Learned) else None)
    feed(referee, 0.0, seen("scoring", sure("scoring-5")))
    feed(referee, 1.1, seen(1, sure("number-8"), track=402))
    feed(referee, 2.2, seen(2, sure("number-20"), track=403), seen(0, sure("number-8"), track=401))
    feed(referee, 3.3)
    conflict = referee.view()["conflict"]
    assert "Ben's card in trick 1 counts as 8" in conflict["message"]
    referee.call(Resolve(conflict["id"], "card:8"))
    again = referee.view()["conflict"]
    assert again["key"] == "again:402"
    referee.call(Resolve(again["id"], "card:6"))
    assert [(n.label, n.read_as) for n in told] == [("number-6", "number-8"),
                                                   ("number-8", "number-8")]


def test_a_question_the_camera_answers_later_is_withdrawn(referee):
    feed(referee, 0.0, seen("scoring", sure("scoring-5")))
    unsure = reading(("number-12", 0.3), ("number-22", 0.2), ("number-32", 0.1), kind="unknown")
    feed(referee, 1.1, seen(1, unsure, track=900))
    assert "Which card did Ben play" in referee.conflict.question.message
    feed(referee, 1.5, seen(1, unsure, "removed", track=900),
         seen(1, sure("number-32"), track=900))  # a clear look at the same card
    assert referee.conflict is None and referee.game.trick_plays[0].card == 32


def test_a_question_of_a_finished_trick_is_withdrawn(referee):
    feed(referee, 0.0, seen("scoring", sure("scoring-5")))
    feed(referee, 1.1, seen(1, reading(("number-12", 0.3), ("number-22", 0.2), kind="unknown")))
    referee.call(ManualEvent(CardPlayed(1, 22)))  # the host typed it in on the web page
    assert referee.conflict is None
    feed(referee, 2.0, seen("scoring", reading(("scoring-6", 0.3), ("scoring-3", 0.3))))
    assert referee.conflict is None  # this trick has its value card: not a new reveal


def test_an_unrelated_question_stays(referee):
    feed(referee, 0.0, seen("scoring", sure("scoring-5")))
    feed(referee, 1.1, seen(1, reading(("number-12", 0.3), ("number-22", 0.2), kind="unknown")))
    feed(referee, 1.2, seen(2, sure("number-40")))  # Cy's card waits for Ben's
    assert "Which card did Ben play" in referee.conflict.question.message
    assert referee.view()["waiting"] == 1


def test_a_scoring_card_read_again_as_another_asks_instead_of_revealing(referee):
    feed(referee, 0.0, seen("scoring", sure("scoring-9"), track=1))
    feed(referee, 1.1, seen(1, sure("number-1")), seen(2, sure("number-2")),
         seen(0, sure("number-3")))
    # the same card (track 1): the camera now reads the 9 as a 6
    feed(referee, 2.0, seen("scoring", sure("scoring-9"), "removed", track=1),
         seen("scoring", sure("scoring-6"), track=1))
    feed(referee, 3.5)
    assert [str(c) for c in referee.game.revealed] == ["9"]  # no new reveal on a re-read
    conflict = referee.view()["conflict"]
    assert "counted as 9 and now reads as 6" in conflict["message"]
    referee.call(Resolve(conflict["id"], "scoring:6"))  # it was the 6: a correction, replayed
    assert [str(c) for c in referee.game.revealed] == ["6"]
    assert referee.game.balances == [6, -6, 0]  # the 3 (Ana) high, the 1 (Ben) low


def test_a_card_of_the_last_round_read_again_while_cleared_is_nothing(tmp_path):
    import random

    from companion.games.tightrope.randgame import random_game

    events = random_game(random.Random(5), 3, rounds=1)
    store = Store(tmp_path / "game.db")
    ref = Referee(store, Hub())
    ref.call(NewGame(events[0]))
    first = events[1]  # the first scoring card, seen by the camera as track 7
    label = "scoring-" + (f"0-{first.card.colour.value}" if first.card.is_zero
                          else str(first.card.value))
    feed(ref, 0.0, seen("scoring", sure(label), track=7))
    feed(ref, 1.5)
    for event in events[2:]:  # the rest of round 1 typed in by hand
        ref.call(ManualEvent(event))
    assert ref.game.round_index == 1 and ref.game.revealed == ()
    other = "scoring-8" if label != "scoring-8" else "scoring-7"
    feed(ref, 2.0, seen("scoring", sure(label), "removed", track=7),
         seen("scoring", sure(other), track=7))  # the row being cleared, misread on the way
    feed(ref, 3.5)
    assert ref.game.revealed == () and ref.conflict is None
    store.close()


def test_ok_button_answers_nothing_without_a_single_sure_proposal(referee):
    feed(referee, 0.0, seen("scoring", sure("scoring-4")))
    feed(referee, 1.1, seen(1, sure("number-19"), track=2))
    feed(referee, 2.0, seen(1, sure("number-19"), "removed", track=2),
         seen(1, sure("number-16"), track=2))
    assert "counted as 19 and now reads as 16" in referee.conflict.question.message
    referee.call(ButtonPress("ok"))  # two proposals: the button only points at the phone
    assert referee.conflict is not None and "phone" in referee.message
    assert referee.game.trick_plays[0].card == 19


def test_ok_button_confirms_a_single_proposal(referee):
    feed(referee, 0.0, seen("scoring", sure("number-20")))  # a number card in the row
    assert referee.conflict.ok == "ok"
    referee.call(ButtonPress("ok"))
    assert referee.conflict is None and referee.game.revealed == ()


def test_out_of_turn_card_waits_then_asks(referee):
    feed(referee, 0.0, seen("scoring", sure("scoring-2")))
    feed(referee, 1.0, seen(2, sure("number-30")))  # Cy lays before Ben (seat 1 leads)
    assert referee.game.trick_plays == () and referee.conflict is None
    feed(referee, 2.0, seen(1, sure("number-10")))  # Ben's card: both go in, in turn order
    assert [p.seat for p in referee.game.trick_plays] == [1, 2]
    feed(referee, 3.0, seen(1, sure("number-11")))  # Ben again: a second card in one trick
    feed(referee, 6.5)
    conflict = referee.view()["conflict"]
    assert "Ben has two cards out" in conflict["message"]
    assert [c["id"] for c in conflict["choices"]] == ["ok"]
    referee.call(Resolve(conflict["id"], "ok"))  # the 11 is no card of this trick
    assert [p.card for p in referee.game.trick_plays] == [10, 30] and referee.conflict is None


def test_a_seat_not_seen_is_asked_after_the_grace(referee):
    feed(referee, 0.0, seen("scoring", sure("scoring-2")))
    feed(referee, 1.2, seen(2, sure("number-30")))  # Cy, but Ben (seat 1) leads
    feed(referee, 5.0)
    conflict = referee.view()["conflict"]
    assert "Which card did Ben play in trick 1 of round 1? The camera did not see it" in \
        conflict["message"]
    assert conflict["any_card"] == "number"
    referee.call(Resolve(conflict["id"], "card:12"))
    assert [p.card for p in referee.game.trick_plays] == [12, 30]


def test_misread_already_played_card_is_not_scored(referee):
    feed(referee, 0.0, seen("scoring", sure("scoring-2")))
    feed(referee, 1.1, seen(1, sure("number-10")), seen(2, sure("number-11")),
         seen(0, sure("number-12")))
    feed(referee, 2.0, seen("scoring", sure("scoring-3")))
    feed(referee, 3.1, seen(0, sure("number-10")))  # 10 was Ben's, in the last trick
    assert referee.game.trick_plays == () and referee.conflict is not None


def test_card_outside_zones_asks_whose(referee):
    feed(referee, 0.0, seen(None, sure("number-20")))
    choices = [c["id"] for c in referee.view()["conflict"]["choices"]]
    assert choices == ["seat:1", "none"]


def test_a_trick_entered_by_hand_keeps_no_photo(referee):
    feed(referee, 0.0)  # a frame the camera saw (an empty table with a hand, say)
    referee.call(ManualEvent(ScoringRevealed(ScoringCard(4))))
    for seat, card in ((1, 5), (2, 6), (0, 7)):
        referee.call(ManualEvent(CardPlayed(seat, card)))
    assert referee.game.tricks_this_round and referee.store.photos(referee.game_id) == {}


def test_refused_manual_event_changes_nothing(referee):
    referee.call(ManualEvent(ScoringRevealed(ScoringCard(4))))
    before = referee.store.events(referee.game_id)
    with pytest.raises(CommandError, match="R13"):
        referee.call(ManualEvent(CardPlayed(2, 17)))
    assert referee.store.events(referee.game_id) == before


def test_corrections_and_undo_button(referee):
    referee.call(ManualEvent(ScoringRevealed(ScoringCard(4))))
    for seat, card in ((1, 5), (2, 6), (0, 7)):
        referee.call(ManualEvent(CardPlayed(seat, card)))
    referee.call(Correct(PlayCorrected(0, 0, 1, 50, why="misread")))
    assert referee.game.balances == [0, 4, -4]
    referee.call(ButtonPress("undo"))
    assert referee.game.balances == [0, 0, 0] and len(referee.game.trick_plays) == 2
    assert isinstance(referee.store.events(referee.game_id)[-1], Undo)


def referee_dir(referee: Referee):
    return referee.store.path.parent


def test_resume_after_restart(tmp_path):
    store = Store(tmp_path / "g.db")
    ref = Referee(store)
    ref.call(NewGame(SETUP))
    ref.call(ManualEvent(ScoringRevealed(ScoringCard(4))))
    ref.call(ManualEvent(CardPlayed(1, 5)))
    store.close()
    again = Referee(Store(tmp_path / "g.db"))
    assert again.game_id == ref.game_id and again.game.to_play() == (2,)
    assert again.view()["state"] == ref.view()["state"]


def test_views_are_published_only_on_change_with_ids(referee):
    hub = referee.hub
    first, _ = hub.latest()
    feed(referee, 0.1)
    feed(referee, 0.2)
    assert hub.latest()[0] == first  # nothing changed: nothing published
    referee.call(CameraStatus(False, "camera lost"))
    last, view = hub.latest()
    assert last == first + 1 and view["status"] == "camera_lost"
    assert [i for i, _ in hub.since(first - 1)] == [first, last]


def test_loop_thread_serves_calls(referee):
    referee.start()
    try:
        referee.call(ManualEvent(ScoringRevealed(ScoringCard(4))))
        assert referee.game.trick_value == 4
    finally:
        referee.stop()


# --- a call is applied and answered, or withdrawn and never applied (issue 17) ------------------


def test_a_call_given_up_before_it_began_is_never_applied(referee):
    referee._thread = threading.Thread(target=lambda: None)  # "a loop runs" but is busy
    before = referee.store.events(referee.game_id)
    with pytest.raises(CommandTimeout, match="nothing was changed"):
        referee.call(ManualEvent(ScoringRevealed(ScoringCard(4))), timeout=0.05)
    referee._thread = None
    referee.drain()  # the loop comes back to its queue: the withdrawn call is skipped
    assert referee.store.events(referee.game_id) == before and referee.game.revealed == ()


def test_a_call_taken_before_the_timeout_is_waited_for(referee, monkeypatch):
    real_append = referee.store.append

    def slow_append(*args, **kwargs):
        time.sleep(0.3)
        return real_append(*args, **kwargs)

    monkeypatch.setattr(referee.store, "append", slow_append)
    referee.start()
    try:
        referee.call(ManualEvent(ScoringRevealed(ScoringCard(4))), timeout=0.05)  # no error
        assert [str(c) for c in referee.game.revealed] == ["4"]
    finally:
        referee.stop()


# --- a storage error refuses the change and the loop goes on (issue 18) --------------------------


def test_a_full_disk_refuses_the_event_and_the_loop_lives_on(referee, monkeypatch, tmp_path):
    referee.call(ManualEvent(ScoringRevealed(ScoringCard(4))))
    state, stored = referee.view()["state"], referee.store.events(referee.game_id)
    record = (tmp_path / "rec.jsonl").read_text()
    real_append = referee.store.append
    full = [True]

    def append(*args, **kwargs):
        if full[0]:
            raise sqlite3.OperationalError("database or disk is full")
        return real_append(*args, **kwargs)

    monkeypatch.setattr(referee.store, "append", append)
    referee.start()
    try:
        for event in (ManualEvent(CardPlayed(1, 5)), Correct(Undo(why="oops"))):
            with pytest.raises(StorageFailed, match="database or disk is full"):
                referee.call(event, timeout=2)
        assert referee.view()["state"] == state  # nothing applied that is not stored
        assert referee.store.events(referee.game_id) == stored
        assert (tmp_path / "rec.jsonl").read_text() == record
        view = referee.hub.latest()[1]
        assert view["status"] == "storage_error" and "disk is full" in view["message"]
        referee.put(Seen((), 9.0))  # camera frames keep coming: the loop handles them
        full[0] = False
        referee.call(ManualEvent(CardPlayed(1, 5)), timeout=2)  # the same loop, still alive
        assert referee.store.events(referee.game_id)[-1] == CardPlayed(1, 5)
        assert referee.hub.latest()[1]["status"] == "watching"
    finally:
        referee.stop()


def test_an_unexpected_error_answers_the_call_and_the_loop_goes_on(referee, monkeypatch, capsys):
    def broken(changes, t, moving=frozenset()):
        raise KeyError("a bug")

    monkeypatch.setattr(referee.interpreter, "seen", broken)
    referee.start()
    try:
        with pytest.raises(CommandError, match="the referee failed"):
            referee.call(Seen(("a change",), 1.0), timeout=2)
        referee.call(ManualEvent(ScoringRevealed(ScoringCard(4))), timeout=2)
        assert referee.game.trick_value == 4
    finally:
        referee.stop()
    assert "KeyError" in capsys.readouterr().err


def test_a_failing_record_file_does_not_refuse_a_stored_event(referee, monkeypatch, tmp_path):
    from pathlib import Path

    real_open = Path.open

    def no_room(self, *args, **kwargs):
        if self.name == "rec.jsonl":
            raise OSError(28, "No space left on device")
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", no_room)
    referee.call(ManualEvent(ScoringRevealed(ScoringCard(4))))  # stored: acknowledged
    assert referee.game.trick_value == 4 and referee.status == "storage_error"
    assert "rec.jsonl" in referee.view()["message"]
    monkeypatch.setattr(Path, "open", real_open)
    referee.call(ManualEvent(CardPlayed(1, 5)))  # the whole record is written again
    lines = (tmp_path / "rec.jsonl").read_text().splitlines()
    assert len(lines) == 4 and referee.status == "watching"


def test_the_record_is_rewritten_whole_or_not_at_all(referee, monkeypatch, tmp_path):
    from pathlib import Path

    referee.call(ManualEvent(ScoringRevealed(ScoringCard(4))))
    record = tmp_path / "rec.jsonl"
    before = record.read_text()
    real_open = Path.open

    class Full:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, text):
            self.handle.write(text[:10])
            raise OSError(28, "No space left on device")

    def half_write(self, mode="r", *args, **kwargs):
        handle = real_open(self, mode, *args, **kwargs)
        return Full(handle) if "w" in mode else handle

    monkeypatch.setattr(Path, "open", half_write)
    with pytest.raises(OSError):
        RecordMirror(record, referee.store).rewrite(referee.game_id)
    assert record.read_text() == before  # a kill or a full disk mid-write: the old record
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_correction_to_the_same_card_is_no_event(referee):
    referee.call(ManualEvent(ScoringRevealed(ScoringCard(4))))
    referee.call(ManualEvent(CardPlayed(1, 5)))
    before = referee.store.events(referee.game_id)
    referee.call(Correct(PlayCorrected(0, 0, 1, 5, why="same")))
    referee.call(Correct(ScoringCorrected(0, 0, ScoringCard(4))))
    assert referee.store.events(referee.game_id) == before
    with pytest.raises(CommandError, match="no play by seat 2"):
        referee.call(Correct(PlayCorrected(0, 0, 2, 5)))


def test_a_listener_that_cannot_keep_its_part_does_not_refuse_the_scored_trick(referee):
    def full_disk(notice):
        raise OSError(28, "No space left on device: the trick photo")

    referee.subscribe(full_disk)
    referee.call(ManualEvent(ScoringRevealed(ScoringCard(4))))
    for seat, card in ((1, 5), (2, 6), (0, 7)):
        referee.call(ManualEvent(CardPlayed(seat, card)))  # the last one scores the trick
    assert len(referee.store.events(referee.game_id)) == 5
    assert len(referee.game.tricks_this_round) == 1
    assert referee.status == "storage_error" and "photo" in referee.view()["message"]


def test_a_photo_that_cannot_be_kept_says_so_naming_it(referee, tmp_path):
    (tmp_path / "photos").write_text("a file where the photo folder should be")
    referee.call(ManualEvent(ScoringRevealed(ScoringCard(4))))
    for seat, card in ((1, 5), (2, 6), (0, 7)):
        referee.call(ManualEvent(CardPlayed(seat, card)))
    trick = referee.game.tricks_this_round[0]
    notice = Applied(referee.game_id, CardPlayed(0, 7), trick, np.zeros((72, 128, 3), np.uint8))
    with pytest.raises(OSError, match="photos"):
        TrickPhotos(tmp_path / "photos", referee.store)(notice)



def test_a_simultaneous_trick_is_the_same_whatever_order_its_plays_were_seen_in():
    from companion.evaluate import same_trick
    from companion.games.tightrope.rules import Game, Variant

    def trick(variant: Variant, plays: list[tuple[int, int]]):
        game = Game(GameStarted(("Ana", "Ben", "Cy"), 0, variant))
        game.apply(ScoringRevealed(ScoringCard(4)))
        for seat, card in plays:
            game.apply(CardPlayed(seat, card))
        return game.tricks_this_round[0]

    both = Variant(simultaneous=True)
    a, b = trick(both, [(0, 5), (1, 20), (2, 33)]), trick(both, [(2, 33), (0, 5), (1, 20)])
    assert a != b and same_trick(a, b, simultaneous=True)
    c = trick(both, [(0, 5), (1, 21), (2, 33)])
    assert not same_trick(a, c, simultaneous=True)  # another card is another trick
    std = Variant()
    d, e = trick(std, [(1, 5), (2, 20), (0, 33)]), trick(std, [(1, 5), (2, 20), (0, 33)])
    assert same_trick(d, e, simultaneous=False)


def test_a_game_the_table_cannot_referee_yet_is_refused_and_nothing_changes(referee,
                                                                           monkeypatch):
    from dataclasses import replace

    import companion.games.solo as solo
    from companion.games.solo.rules import GameStarted as SoloStarted

    # a game package with no interpreter (every game has one now: a fake stands in for one)
    monkeypatch.setattr(solo, "GAME", replace(solo.GAME, interpreter=None))
    before = referee.store.games()
    with pytest.raises(CommandError, match=r"^Tightrope \(solo\) cannot be refereed at the "
                                           r"table yet$"):
        referee.call(NewGame(SoloStarted(("Ana",)), game="solo"))
    assert referee.store.games() == before
    assert referee.view()["game"] == "tightrope" and referee.game_id == before[0].id


def test_the_solo_game_is_refereed_at_the_table(referee):
    from companion.games.solo.rules import GameStarted as SoloStarted

    game_id = referee.call(NewGame(SoloStarted(("Ana",)), game="solo"))
    assert referee.game_id == game_id and referee.view()["game"] == "solo"
