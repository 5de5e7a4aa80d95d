"""`tightrope-companion run` on damaged or unusable files: one line on stderr naming the file,
exit code 2, no traceback; a restart that resumes the game in progress whatever --record holds;
recorded sources that are empty, damaged or end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.commands import ManualEvent
from companion.config import Config
from companion.games.tightrope.events import event_to_json
from companion.games.tightrope.rules import CardPlayed, GameStarted, ScoringCard, ScoringRevealed
from companion.record import read_record
from companion.service import Companion, Options

ROOT = Path(__file__).parent.parent
SETUP = GameStarted(("Ana", "Ben", "Cy"), 0)
W, H = 1280, 720


def zones(seats: int = 3) -> dict:
    """Seat zones along the bottom and a scoring row, in a 1280x720 frame."""
    step = W // seats
    return {"seats": [[[i * step, 400], [(i + 1) * step - 1, 400], [(i + 1) * step - 1, H],
                       [i * step, H]] for i in range(seats)],
            "scoring": [[200, 50], [1080, 50], [1080, 350], [200, 350]]}


def frames(folder: Path, n: int, size: tuple[int, int] = (W, H)) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        cv2.imwrite(str(folder / f"frame_{i:03d}.png"), np.full((size[1], size[0], 3), 60,
                                                               np.uint8))
    return folder


@dataclass
class Case:
    """A start that must fail in one line naming `names` (a path, or part of the line)."""

    prepare: Callable[[Path], tuple[list[str], list[str]]]  # root -> (extra args, names)


def base(root: Path, *, source: Path | None = None, zones_file: Path | None = None,
         data: Path | None = None, web: bool = False) -> list[str]:
    if zones_file is None:
        zones_file = root / "zones.json"
        zones_file.write_text(json.dumps(zones()))
    setup = root / "setup.json"
    setup.write_text(json.dumps(event_to_json(SETUP)))
    source = source or frames(root / "frames", 2)
    args = ["--source", str(source), "--zones", str(zones_file), "--setup", str(setup),
            "--data-dir", str(data or root / "data"), "--exit-at-end", "--speed", "0"]
    return args + ([] if web else ["--no-web"])


def damaged_database(root: Path) -> tuple[list[str], list[str]]:
    (root / "data").mkdir()
    (root / "data" / "tightrope.db").write_bytes(b"SQLite format 3\0" + os.urandom(5000))
    return base(root), [str(root / "data" / "tightrope.db")]


def database_is_a_folder(root: Path) -> tuple[list[str], list[str]]:
    (root / "data" / "tightrope.db").mkdir(parents=True)
    return base(root), [str(root / "data" / "tightrope.db"), "folder"]


def data_folder_is_a_file(root: Path) -> tuple[list[str], list[str]]:
    (root / "data").write_text("not a folder")
    return base(root), [str(root / "data"), "is a file"]


def record_is_a_folder(root: Path) -> tuple[list[str], list[str]]:
    (root / "rec").mkdir()
    return base(root) + ["--record", str(root / "rec")], [str(root / "rec"), "folder"]


def record_cannot_be_written(root: Path) -> tuple[list[str], list[str]]:
    if os.geteuid() == 0:  # root may write anywhere: a record below a file cannot be
        (root / "file").write_text("x")
        path = root / "file" / "rec.jsonl"
    else:
        (root / "ro").mkdir(mode=0o500)
        path = root / "ro" / "rec.jsonl"
    return base(root) + ["--record", str(path)], [str(path)]


def tiny_frames(root: Path) -> tuple[list[str], list[str]]:
    source = frames(root / "tiny", 3, (8, 8))
    return base(root, source=source), [str(source / "frame_000.png"), "8x8"]


def garbage_config(root: Path) -> tuple[list[str], list[str]]:
    (root / "c.toml").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe garbage")
    return base(root) + ["--config", str(root / "c.toml")], [str(root / "c.toml")]


def garbage_zones(root: Path) -> tuple[list[str], list[str]]:
    (root / "z.json").write_text("{seats: nope")
    return base(root, zones_file=root / "z.json"), [str(root / "z.json")]


def zones_of_the_wrong_shape(root: Path) -> tuple[list[str], list[str]]:
    (root / "z.json").write_text(json.dumps({"seats": "three", "scoring": []}))
    return base(root, zones_file=root / "z.json"), [str(root / "z.json")]


def one_seat_for_three_players(root: Path) -> tuple[list[str], list[str]]:
    (root / "z.json").write_text(json.dumps(zones(1)))
    return base(root, zones_file=root / "z.json"), [str(root / "z.json"), "1 seat zones",
                                                     "3 players"]


def garbage_pin_file(root: Path) -> tuple[list[str], list[str]]:
    (root / "data").mkdir()
    (root / "data" / "host-pin").write_text("letmein\n")
    args = base(root, web=True) + ["--port", "8", "--exit-at-end"]
    return args, [str(root / "data" / "host-pin")]


def empty_video(root: Path) -> tuple[list[str], list[str]]:
    (root / "game.mp4").write_bytes(b"")
    return base(root, source=root / "game.mp4"), [str(root / "game.mp4")]


def garbage_video(root: Path) -> tuple[list[str], list[str]]:
    (root / "game.mp4").write_bytes(os.urandom(20_000))
    return base(root, source=root / "game.mp4"), [str(root / "game.mp4")]


def empty_folder(root: Path) -> tuple[list[str], list[str]]:
    (root / "empty").mkdir()
    return base(root, source=root / "empty"), [str(root / "empty"), "no image files"]


def unreadable_frames(root: Path) -> tuple[list[str], list[str]]:
    (root / "bad").mkdir()
    for i in range(3):
        (root / "bad" / f"frame_{i}.jpg").write_bytes(b"not a jpeg")
    return base(root, source=root / "bad"), [str(root / "bad"), "none of its 3 image files"]


CASES = [damaged_database, database_is_a_folder, data_folder_is_a_file, record_is_a_folder,
         record_cannot_be_written, tiny_frames, garbage_config, garbage_zones,
         zones_of_the_wrong_shape, one_seat_for_three_players, garbage_pin_file, empty_video,
         garbage_video, empty_folder, unreadable_frames]


def companion_cmd(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "companion", "run", *args]


def child_env() -> dict[str, str]:
    return {**os.environ, "TIGHTROPE_MOCK_GPIO": "1", "PYTHONPATH": str(ROOT)}


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    """Every case started at once (each is a process that imports OpenCV)."""
    procs = {}
    for case in CASES:
        root = tmp_path_factory.mktemp(case.__name__)
        args, names = case(root)
        procs[case.__name__] = (subprocess.Popen(
            companion_cmd(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=child_env()), names)
    results = {}
    for name, (proc, names) in procs.items():
        try:
            out, err = proc.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            err += "\n(still running after 180 s: killed)"
        results[name] = (proc.returncode, out, err, names)
    return results


@pytest.mark.parametrize("case", [c.__name__ for c in CASES])
def test_a_start_on_a_damaged_file_is_one_line_naming_it(started: dict, case: str) -> None:
    code, _, err, names = started[case]
    assert code == 2, err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert err.startswith("tightrope-companion: ")
    for name in names:
        assert name in err, err


# --- a restart resumes the game in progress whatever --record holds ------------------------------


def companion(root: Path) -> Companion:
    setup = root / "setup.json"
    setup.write_text(json.dumps(event_to_json(SETUP)))
    options = Options(config=Config(data_dir=root / "data"), setup=setup,
                      record=root / "rec.jsonl", web=False, camera=False)
    return Companion(options)


def a_game_in_progress(root: Path) -> int:
    first = companion(root)
    first.referee.call(ManualEvent(ScoringRevealed(ScoringCard(4))))
    first.referee.call(ManualEvent(CardPlayed(1, 5)))
    game_id = first.referee.game_id
    first.stop()
    return game_id


@pytest.mark.parametrize("damage", ["missing", "empty", "garbage", "another game"])
def test_a_restart_resumes_the_game_whatever_the_record_holds(tmp_path: Path, damage: str,
                                                              capsys) -> None:
    game_id = a_game_in_progress(tmp_path)
    record = tmp_path / "rec.jsonl"
    other = ('{"type": "game_started", "players": ["Ana", "Ben", "Cy"]}\n'
             '{"type": "scoring_revealed", "card": "9"}\n')
    garbage = {"missing": None, "empty": "", "garbage": "\x00\x01 not a record\n",
               "another game": other}[damage]
    if garbage is None:
        record.unlink()
    else:
        record.write_text(garbage)
    again = companion(tmp_path)
    try:
        assert again.referee.game_id == game_id
        assert [e for _, e in read_record(record)] == again.store.events(game_id)
        assert len(again.store.games()) == 1
    finally:
        again.stop()
    err = capsys.readouterr().err
    assert str(record) in err and err.count("\n") == 1
    if garbage:
        assert (tmp_path / "rec.jsonl.damaged").read_text() == garbage


def test_a_restart_with_the_record_of_the_game_says_nothing(tmp_path: Path, capsys) -> None:
    game_id = a_game_in_progress(tmp_path)
    record = tmp_path / "rec.jsonl"
    record.write_text(record.read_text()[:-5])  # the kill cut the last line short
    again = companion(tmp_path)
    again.stop()
    assert again.referee.game_id == game_id and capsys.readouterr().err == ""
    assert len(read_record(record)) == 3


# --- a recorded source that ends ----------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_source_that_ends_says_so_and_waits_without_spinning(tmp_path: Path) -> None:
    args = [a for a in base(tmp_path) if a != "--exit-at-end"]
    proc = subprocess.Popen(companion_cmd(args), stderr=subprocess.PIPE, text=True,
                            env=child_env())
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 120
        while not any("ended" in line for line in lines) and time.monotonic() < deadline:
            assert proc.poll() is None, lines
            time.sleep(0.1)
        assert any(f"the source {tmp_path / 'frames'} ended" in line for line in lines), lines
        before = cpu_seconds(proc.pid)
        time.sleep(2.0)
        assert cpu_seconds(proc.pid) - before < 0.3  # waiting, not spinning
        assert proc.poll() is None  # still serving (here: still there for Ctrl-C)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    assert not any("Traceback" in line for line in lines)
