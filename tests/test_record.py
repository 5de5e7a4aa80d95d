"""The game record: reading, writing, corrections as events, and `replay --json`."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.games.tightrope.events import Note, PlayCorrected, ScoringCorrected, Undo
from companion.games.tightrope.log import CorrectionError, GameLog, fold_record
from companion.games.tightrope.randgame import random_game
from companion.games.tightrope.rules import (
    CardPlayed,
    GameStarted,
    ScoringCard,
    ScoringRevealed,
    Variant,
)
from companion.games.tightrope.views import replay_json
from companion.record import RecordError, iter_lines, read_record, write_record

SAMPLE = Path(__file__).parent.parent / "companion" / "samples" / "sample-game.jsonl"

START = ('{"type": "game_started", "players": ["Ana", "Ben", "Cy"], "first_dealer": 0, '
         '"variant": {"tactical": false, "simultaneous": false}}')


def lines(*events: str) -> list[str]:
    return [START, *events]


def test_design_example_record_reads():
    text = lines('{"type": "scoring_revealed", "card": "4"}',
                 '{"type": "card_played", "seat": 1, "card": 17}')
    events = [e for _, e in iter_lines(text)]
    assert events == [
        GameStarted(("Ana", "Ben", "Cy"), 0, Variant()),
        ScoringRevealed(ScoringCard(4)),
        CardPlayed(1, 17),
    ]


@pytest.mark.parametrize(
    "bad,message",
    [
        ("{nope", "line 2: not JSON"),
        ('{"type": "card_drawn"}', 'line 2: unknown event type "card_drawn"'),
        ('{"card": 4}', 'line 2: an event needs a "type"'),
        ('{"type": "card_played", "seat": "1", "card": 17}', '"seat" of card_played'),
        ('{"type": "card_played", "seat": 1, "card": 17.0}', "whole number"),
        ('{"type": "card_played", "seat": 1}', 'needs "card"'),
        ('{"type": "scoring_revealed", "card": 4}', '"card" of scoring_revealed'),
        ('{"type": "scoring_revealed", "card": "green0"}', 'no scoring card "green0"'),
        ("[1, 2]", "an event is a JSON object"),
    ],
)
def test_malformed_lines_name_the_line(bad, message):
    with pytest.raises(RecordError, match=message) as info:
        list(iter_lines(lines(bad)))
    assert info.value.line == 2


def test_unknown_version_is_refused():
    with pytest.raises(RecordError, match="version 2"):
        list(iter_lines(['{"type": "tightrope-record", "version": 2}', START]))


def test_rule_break_names_line_and_rule():
    text = lines('{"type": "scoring_revealed", "card": "4"}',
                 '{"type": "card_played", "seat": 1, "card": 17}',
                 '{"type": "card_played", "seat": 2, "card": 17}')
    with pytest.raises(RecordError, match=r"^line 4: R13: card 17 was already played"):
        fold_record(iter_lines(text))


def test_record_must_start_with_game_started():
    with pytest.raises(RecordError, match="line 1: .*begins with game_started"):
        fold_record(iter_lines(['{"type": "scoring_revealed", "card": "4"}']))


def _log() -> GameLog:
    return GameLog.from_events(random_game(random.Random(3), 3, Variant(), rounds=1))


def test_play_corrected_recomputes_the_scores():
    log = _log()
    last = log.game.rounds[0].tricks[8]  # the last trick: no later trick depends on its leader
    low_play = next(p for p in last.plays if p.seat == last.low)
    used = {p.card for t in log.game.rounds[0].tricks for p in t.plays}
    spare = max(set(range(1, 51)) - used)  # an unused card above all: the low seat goes high
    log.apply(PlayCorrected(0, 8, low_play.seat, spare, at="2026-11-22T08:00:00Z", why="misread"))
    fixed = log.game.rounds[0].tricks[8]
    assert fixed.high == low_play.seat and fixed.low != low_play.seat
    assert fixed.balances != last.balances
    assert log.game.rounds[0].scores == tuple(abs(b) for b in fixed.balances)


def test_correction_that_changes_a_later_leader_is_refused():
    log = _log()
    first = log.game.rounds[0].tricks[0]
    low_play = next(p for p in first.plays if p.seat == first.low)
    used = {p.card for t in log.game.rounds[0].tricks for p in t.plays}
    spare = max(set(range(1, 51)) - used)
    assert spare > max(p.card for p in first.plays)  # the low seat would have led trick 2
    with pytest.raises(CorrectionError, match="would break R13: it is not seat"):
        log.apply(PlayCorrected(0, 0, low_play.seat, spare))


def test_correction_that_breaks_the_rules_changes_nothing():
    log = _log()
    before = replay_json(log.game)
    other = log.game.rounds[0].tricks[1].plays[0].card  # already played in trick 2
    seat = log.game.rounds[0].tricks[0].plays[0].seat
    with pytest.raises(CorrectionError, match="already played"):
        log.apply(PlayCorrected(0, 0, seat, other))
    with pytest.raises(CorrectionError, match="no play by seat 1 in trick 12"):
        log.apply(PlayCorrected(0, 12, 1, 5))
    assert replay_json(log.game) == before


def test_scoring_corrected_changes_the_value():
    events = [GameStarted(("A", "B", "C")), ScoringRevealed(ScoringCard(4)),
              CardPlayed(1, 1), CardPlayed(2, 2), CardPlayed(0, 3)]
    log = GameLog.from_events(events)
    assert log.game.balances == [4, -4, 0]
    log.apply(ScoringCorrected(0, 0, ScoringCard(7), why="glare"))
    assert log.game.balances == [7, -7, 0]
    log.apply(Note("Ana swears it was a 7"))
    log.apply(Undo())
    assert log.game.balances == [0, 0, 0] and log.game.to_play() == (0,)


def test_corrections_round_trip_through_a_file(tmp_path):
    events = [GameStarted(("A", "B", "C")), ScoringRevealed(ScoringCard(4)),
              CardPlayed(1, 1), Undo("2026-11-22T08:00:00Z", "wrong card"), CardPlayed(1, 9),
              PlayCorrected(0, 0, 1, 8, "t", "misread"),
              ScoringCorrected(0, 0, ScoringCard(5)),
              Note("hi", "t")]
    path = tmp_path / "game.jsonl"
    write_record(path, events)
    assert [e for _, e in read_record(path)] == events
    game = fold_record(read_record(path)).game
    assert [(p.seat, p.card) for p in game.trick_plays] == [(1, 8)]
    assert game.trick_value == 5


def test_replay_json_shape(capsys):
    assert main(["replay", str(SAMPLE), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"rounds", "totals", "winners"}
    assert len(result["rounds"]) == 4
    rnd = result["rounds"][0]
    assert set(rnd) == {"dealer", "scores", "struck", "tricks"}
    assert set(rnd["tricks"][0]) == {"leader", "high", "low", "blue", "red", "balances"}
    assert len(rnd["tricks"]) == 9 and len(rnd["scores"]) == 4


def test_replay_cli_invalid_record_one_line_no_traceback(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines('{"type": "scoring_revealed", "card": "4"}',
                                   '{"type": "card_played", "seat": 2, "card": 17}')))
    proc = subprocess.run([sys.executable, "-m", "companion", "replay", str(bad), "--json"],
                          capture_output=True, text=True)
    assert proc.returncode != 0 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "line 3" in proc.stderr and "R13" in proc.stderr and "turn" in proc.stderr


def test_replay_cli_missing_file(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_replay_text_scoresheet(capsys):
    assert main(["replay", str(SAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "Ana" in out and "total" in out and "winner" in out
