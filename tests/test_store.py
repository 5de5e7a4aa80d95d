"""The store against a real SQLite file, and a crash test with SIGKILL."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.games.tightrope.events import Note, Undo
from companion.games.tightrope.randgame import random_game
from companion.games.tightrope.rules import Game, GameStarted, Variant
from companion.games.tightrope.views import snapshot
from companion.store import Store, StoreError

HERE = Path(__file__).parent


def test_events_round_trip_and_resume(tmp_path):
    events = random_game(random.Random(1), 3, Variant(), rounds=1)
    db = tmp_path / "t.db"
    with Store(db) as store:
        game_id = store.new_game(events[0], at="2026-11-22T19:00:00Z")
        for event in events[1:20]:
            store.append(game_id, event)
        store.append(game_id, Note("coffee break"))
        store.append(game_id, Undo(why="wrong card"))
    with Store(db) as store:  # a restart: the unfinished game comes back exactly
        assert store.unfinished_game() == game_id
        assert store.events(game_id)[:20] == events[:20]
        assert snapshot(store.load(game_id).game) == snapshot(Game.replay(events[:19]))
        assert store.event_rows(game_id)[0][1] == "2026-11-22T19:00:00Z"
        store.finish(game_id)
        assert store.unfinished_game() is None


def test_store_settings_are_durable(tmp_path):
    with Store(tmp_path / "t.db") as store:
        assert store._read("PRAGMA journal_mode")[0][0] == "wal"
        assert store._read("PRAGMA synchronous")[0][0] == 2  # FULL


def test_unknown_game(tmp_path):
    with Store(tmp_path / "t.db") as store, pytest.raises(StoreError, match="no game 9"):
        store.append(9, Note("x"))


def test_history_and_player_stats(tmp_path):
    with Store(tmp_path / "t.db") as store:
        games = [random_game(random.Random(s), 3, Variant()) for s in (1, 2)]
        games[1][0] = GameStarted(("Ana", "Ben", "Dora"), 0)
        games[1] = Game.replay(games[1]).log
        ids = []
        for events in games:
            game_id = store.new_game(events[0])
            for event in events[1:]:
                store.append(game_id, event)
            store.finish(game_id)
            ids.append(game_id)
        store.add_photo(ids[0], 0, 3, "photos/1/0-3.jpg")
        assert store.photos(ids[0]) == {(0, 3): "photos/1/0-3.jpg"}
        history = store.games()
        assert [g.id for g in history] == ids[::-1]
        for summary, events in zip(history, games[::-1], strict=True):
            game = Game.replay(events)
            assert summary.totals == game.totals() and summary.winners == game.winners()
            assert summary.finished_at is not None and summary.rounds_played == 3
        stats = {s.name: s for s in store.player_stats()}
        assert stats["Ana"].games == 2 and stats["Cy"].games == 1 and stats["Dora"].games == 1
        ana_scores = [r.scores[0] for events in games for r in Game.replay(events).rounds]
        assert stats["Ana"].rounds == 6
        assert stats["Ana"].mean_round_score == round(sum(ana_scores) / 6, 2)
        assert stats["Ana"].perfect_rounds == ana_scores.count(0)
        wins = sum(0 in Game.replay(events).winners() for events in games)
        assert stats["Ana"].wins == wins


def test_sigkill_never_loses_a_committed_event(tmp_path):
    """Kill a writer at random moments (55 times) once it writes; every event it reported
    committed is there after reopening, and the state equals the replay of the stored prefix.
    (The kill's moment counts from the writer's first commit, not its start: on a loaded
    machine Python's start took most of the window, and the writer got nowhere.)"""
    db = tmp_path / "crash.db"
    rng = random.Random(11)
    confirmed: dict[int, int] = {}
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    for _ in range(55):
        child = subprocess.Popen([sys.executable, str(HERE / "crash_child.py"), str(db)],
                                 stdout=subprocess.PIPE, text=True, env=env)
        assert child.stdout is not None
        first = child.stdout.readline()  # it writes: the kill falls among its writes
        time.sleep(rng.uniform(0.08, 0.35))
        child.send_signal(signal.SIGKILL)
        out, _ = child.communicate()
        out = first + out
        for line in out.split("\n")[:-1]:  # the last line may have been cut by the kill
            game_id, seq = map(int, line.split())
            confirmed[game_id] = max(confirmed.get(game_id, -1), seq)
        with Store(db) as store:
            for game_id, seq in confirmed.items():
                stored = store.events(game_id)
                assert len(stored) >= seq + 1
                expected = random_game(random.Random(game_id), 3 + game_id % 3)
                assert stored == expected[: len(stored)]
                assert snapshot(store.load(game_id).game) == snapshot(
                    Game.replay(expected[: len(stored)])
                )
    assert sum(confirmed.values()) > 100  # the writer really got somewhere between kills


def test_a_full_database_refuses_an_append_and_takes_the_next(tmp_path):
    """A real "database or disk is full" (SQLite's page limit), also one at COMMIT: the event
    is not stored, and the store takes the next append once there is room."""
    events = random_game(random.Random(3), 3, Variant(), rounds=1)
    with Store(tmp_path / "t.db") as store:
        game_id = store.new_game(events[0])
        pages = store._read("PRAGMA page_count")[0][0]
        store._read(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(sqlite3.OperationalError, match="database or disk is full"):
            store.append(game_id, Note("x" * 20_000))  # needs pages the limit refuses
        store._read("PRAGMA max_page_count = 1000000")
        real = store._db

        class CommitFails:
            def execute(self, sql, *args):
                if sql == "COMMIT":
                    raise sqlite3.OperationalError("database or disk is full")
                return real.execute(sql, *args)

            def __getattr__(self, name):
                return getattr(real, name)

        store._db = CommitFails()
        with pytest.raises(sqlite3.OperationalError):
            store.append(game_id, events[1])
        store._db = real
        assert store.events(game_id) == events[:1]
        store.append(game_id, events[1])  # no transaction was left open
        assert store.events(game_id) == events[:2]


@pytest.mark.parametrize("damage", ["folder", "garbage", "truncated", "zeroed"])
def test_a_damaged_database_is_one_line_naming_it(tmp_path, damage):
    db = tmp_path / "t.db"
    with Store(db) as store:
        for seed in range(3):
            events = random_game(random.Random(seed), 3, Variant())
            game_id = store.new_game(events[0])
            for event in events[1:]:
                store.append(game_id, event)
        store._read("PRAGMA wal_checkpoint(TRUNCATE)")
    data = db.read_bytes()
    db.unlink()
    if damage == "folder":
        db.mkdir()
    elif damage == "garbage":
        db.write_bytes(bytes(range(256)) * (len(data) // 256))
    elif damage == "truncated":
        db.write_bytes(data[: len(data) // 2])
    else:
        db.write_bytes(data[:8192] + b"\0" * 4096 + data[12288:])
    with pytest.raises(StoreError) as info:
        Store(db)
    message = str(info.value)
    assert str(db) in message and "\n" not in message


def test_a_game_of_attacke_is_stored_and_listed_as_one(tmp_path):
    from companion.games import game_named

    attacke = game_named("attacke")
    events = list(attacke.random_game(4, 3))
    with Store(tmp_path / "t.db") as store:
        tightrope_id = store.new_game(GameStarted(("Ana", "Ben", "Cy")))
        store.finish(tightrope_id)
        game_id = store.new_game(events[0], game="attacke")
        for event in events[1:]:
            store.append(game_id, event)
        store.append(game_id, Undo(why="not his turn"))
    with Store(tmp_path / "t.db") as store:
        assert store.game_of(game_id).name == "attacke"
        assert store.events(game_id)[:-1] == events
        log = store.load(game_id)
        assert log.effective == events[:-1]
        assert attacke.replay_json(log.game) == attacke.replay_json(
            attacke.fold(enumerate(events[:-1], 1)))
        latest, first = store.games()
        assert (latest.game, first.game) == ("attacke", "tightrope")
        assert latest.rounds_played == len(log.game.contests) > 0
        # a Tightrope player's statistics are of Tightrope games only
        assert {s.name: s.games for s in store.player_stats()} == {"Ana": 1, "Ben": 1, "Cy": 1}


def test_a_database_from_before_games_were_named_holds_tightrope_games(tmp_path):
    db = tmp_path / "old.db"
    old = sqlite3.connect(db)
    old.executescript("""
        CREATE TABLE games (id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT);
        CREATE TABLE events (game_id INTEGER NOT NULL, seq INTEGER NOT NULL, at TEXT NOT NULL,
                             body TEXT NOT NULL, PRIMARY KEY (game_id, seq));
        INSERT INTO games VALUES (1, '2026-01-01T20:00:00Z', NULL);
        INSERT INTO events VALUES (1, 0, '2026-01-01T20:00:00Z',
            '{"type": "game_started", "players": ["Ana", "Ben", "Cy"], "dealer": 0}');
    """)
    old.commit()
    old.close()
    with Store(db) as store:
        assert store.game_of(1).name == "tightrope"
        assert store.load(1).game.players == ("Ana", "Ben", "Cy")
        assert store.unfinished_game() == 1
