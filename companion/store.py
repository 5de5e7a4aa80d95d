"""The durable game log: SQLite in WAL mode with synchronous=FULL, append-only events.

Every appended event is committed (and on disk) before `append` returns, so a power cut loses
nothing that the table was told. Scores are never stored: they are replayed from the events.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .games import DEFAULT, GameSpec, game_named
from .games.base import Log

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS games (
    id          INTEGER PRIMARY KEY,
    started_at  TEXT NOT NULL,
    finished_at TEXT,
    game        TEXT NOT NULL DEFAULT 'tightrope'
);
CREATE TABLE IF NOT EXISTS game_players (
    game_id   INTEGER NOT NULL REFERENCES games(id),
    seat      INTEGER NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq     INTEGER NOT NULL,
    at      TEXT NOT NULL,
    body    TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS photos (
    game_id  INTEGER NOT NULL REFERENCES games(id),
    round    INTEGER NOT NULL,
    trick    INTEGER NOT NULL,
    path     TEXT NOT NULL,
    taken_at TEXT NOT NULL,
    PRIMARY KEY (game_id, round, trick)
);
"""


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class StoreError(ValueError):
    pass


@dataclass(frozen=True)
class GameSummary:
    id: int
    started_at: str
    finished_at: str | None
    players: list[str]
    totals: list[int]
    winners: list[int]
    rounds_played: int       # rounds (Tightrope), contests (Attacke), missions (solo) scored
    game: str = DEFAULT

    def to_json(self) -> dict[str, Any]:
        return self.__dict__.copy()


@dataclass(frozen=True)
class PlayerStats:
    name: str
    games: int
    wins: int
    rounds: int
    mean_round_score: float | None
    perfect_rounds: int

    def to_json(self) -> dict[str, Any]:
        return self.__dict__.copy()


class Store:
    """One SQLite file. Thread-safe: one connection behind a lock (writes are rare and tiny)."""

    def __init__(self, path: str | Path) -> None:
        """Open (or create) the database; one that cannot be used is a StoreError naming it."""
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise StoreError(f"the folder of the database {self.path} is a file") from None
        except OSError as err:
            raise StoreError(f"cannot make the folder of the database {self.path}: "
                             f"{err.strerror or err}") from None
        if self.path.is_dir():
            raise StoreError(f"the database {self.path} is a folder, not a file")
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
            self._migrate()
            damage = [row[0] for row in self._db.execute("PRAGMA quick_check(3)")]
        except sqlite3.Error as err:
            self._db.close()
            raise StoreError(f"the database {self.path} cannot be used: {err}") from None
        if damage != ["ok"]:
            self._db.close()
            detail = " ".join(" ".join(damage).split())[:200]
            raise StoreError(f"the database {self.path} is damaged: {detail}")

    def _migrate(self) -> None:
        """A database made before games were named holds Tightrope games only."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(games)")}
        if "game" not in columns:
            self._db.execute("ALTER TABLE games ADD COLUMN game TEXT NOT NULL DEFAULT 'tightrope'")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One durable transaction: committed (fsynced) on exit, rolled back on error."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:  # a failed COMMIT (a full disk) may leave it open
                    self._db.execute("ROLLBACK")
                raise

    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    # -- games and events -------------------------------------------------------------------

    def new_game(self, setup: Any, at: str | None = None, game: str = DEFAULT) -> int:
        """Create a game of `game` whose first event is `setup`; return its id."""
        spec = game_named(game)
        at = at or now_iso()
        with self._transaction() as db:
            game_id = db.execute("INSERT INTO games (started_at, game) VALUES (?, ?)",
                                 (at, spec.name)).lastrowid
            for seat, name in enumerate(setup.players):
                db.execute("INSERT OR IGNORE INTO players (name) VALUES (?)", (name,))
                db.execute(
                    "INSERT INTO game_players (game_id, seat, player_id) "
                    "SELECT ?, ?, id FROM players WHERE name = ?",
                    (game_id, seat, name),
                )
            db.execute(
                "INSERT INTO events (game_id, seq, at, body) VALUES (?, 0, ?, ?)",
                (game_id, at, json.dumps(spec.event_to_json(setup))),
            )
        assert game_id is not None
        return game_id

    def game_of(self, game_id: int) -> GameSpec:
        """The game game_id is a game of."""
        rows = self._read("SELECT game FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise StoreError(f"there is no game {game_id}")
        return game_named(rows[0][0])

    def append(self, game_id: int, event: Any, at: str | None = None) -> int:
        """Append one event durably; return its sequence number."""
        body = json.dumps(self.game_of(game_id).event_to_json(event))
        with self._transaction() as db:
            row = db.execute("SELECT MAX(seq) FROM events WHERE game_id = ?", (game_id,)).fetchone()
            if row[0] is None:
                raise StoreError(f"there is no game {game_id}")
            seq = row[0] + 1
            db.execute(
                "INSERT INTO events (game_id, seq, at, body) VALUES (?, ?, ?, ?)",
                (game_id, seq, at or now_iso(), body),
            )
        return seq

    def events(self, game_id: int) -> list[Any]:
        spec = self.game_of(game_id)
        rows = self._read("SELECT body FROM events WHERE game_id = ? ORDER BY seq", (game_id,))
        if not rows:
            raise StoreError(f"there is no game {game_id}")
        return [spec.parse_event(json.loads(body)) for (body,) in rows]

    def event_rows(self, game_id: int) -> list[tuple[int, str, dict[str, Any]]]:
        """(seq, at, record JSON) of every event: the game record with timestamps."""
        rows = self._read(
            "SELECT seq, at, body FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return [(seq, at, json.loads(body)) for seq, at, body in rows]

    def load(self, game_id: int) -> Log:
        return self.game_of(game_id).log(self.events(game_id))

    def finish(self, game_id: int, at: str | None = None) -> None:
        with self._transaction() as db:
            db.execute("UPDATE games SET finished_at = ? WHERE id = ? AND finished_at IS NULL",
                       (at or now_iso(), game_id))

    def unfinished_game(self) -> int | None:
        """The latest game not marked finished: the one to resume after a restart."""
        rows = self._read("SELECT id FROM games WHERE finished_at IS NULL ORDER BY id DESC LIMIT 1")
        return rows[0][0] if rows else None

    # -- photos ------------------------------------------------------------------------------

    def add_photo(self, game_id: int, round_index: int, trick: int, path: str) -> None:
        with self._transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO photos (game_id, round, trick, path, taken_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (game_id, round_index, trick, path, now_iso()),
            )

    def photos(self, game_id: int) -> dict[tuple[int, int], str]:
        rows = self._read("SELECT round, trick, path FROM photos WHERE game_id = ?", (game_id,))
        return {(r, t): path for r, t, path in rows}

    # -- history -----------------------------------------------------------------------------

    def games(self) -> list[GameSummary]:
        """Every game, newest first, with totals and winners replayed from its events."""
        rows = self._read("SELECT id, started_at, finished_at, game FROM games ORDER BY id DESC")
        summaries = []
        for game_id, started, finished, name in rows:
            game = self.load(game_id).game
            summaries.append(GameSummary(
                game_id, started, finished, list(game.players), game.totals(),
                game.winners(), game.rounds_played, name,
            ))
        return summaries

    def player_stats(self) -> list[PlayerStats]:
        """Per player over all Tightrope games: games, wins, mean round score, perfect rounds."""
        acc: dict[str, dict[str, int]] = {}
        for summary in self.games():
            if summary.game != DEFAULT:
                continue
            game = self.load(summary.id).game
            for seat, name in enumerate(game.setup.players):
                a = acc.setdefault(name, {"games": 0, "wins": 0, "rounds": 0, "sum": 0, "zero": 0})
                a["games"] += 1
                a["wins"] += seat in summary.winners
                scores = [r.scores[seat] for r in game.rounds]
                a["rounds"] += len(scores)
                a["sum"] += sum(scores)
                a["zero"] += scores.count(0)
        return [
            PlayerStats(name, a["games"], a["wins"], a["rounds"],
                        round(a["sum"] / a["rounds"], 2) if a["rounds"] else None, a["zero"])
            for name, a in sorted(acc.items())
        ]
