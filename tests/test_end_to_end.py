"""End to end: rendered table footage of whole games through `tightrope-companion run`, and
a kill -9 in the middle of a game followed by a restart on the rest of the footage."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.footage import render_game, table_actions
from companion.randgame import random_game
from companion.record import event_to_json, write_record
from companion.rules import Variant
from companion.store import Store

FPS = 10.0
HAND_S = 0.5
HOLD_S = 0.6
GAMES = {
    # name: (players, variant, rounds, seed)
    "3p-standard": (3, Variant(), None, 31),
    "5p-tactical-simultaneous": (5, Variant(tactical=True, simultaneous=True), 2, 52),
}


def footage_root() -> Path:
    """Rendered footage is cached between runs of the suite (it is deterministic)."""
    root = Path(os.environ.get("TIGHTROPE_TEST_CACHE", Path(__file__).parent.parent /
                               ".test-cache")) / "footage"
    root.mkdir(parents=True, exist_ok=True)
    return root


@pytest.fixture(scope="module", params=sorted(GAMES))
def rendered(request, tmp_path_factory):
    players, variant, rounds, seed = GAMES[request.param]
    events = random_game(random.Random(seed), players, variant, rounds=rounds)
    folder = render_game(events, footage_root() / request.param, seed=seed, fps=FPS,
                         hold_s=HOLD_S, hand_s=HAND_S)
    work = tmp_path_factory.mktemp(request.param)
    source = work / "source.jsonl"
    write_record(source, events)
    setup = work / "setup.json"
    setup.write_text(json.dumps(event_to_json(events[0])))
    return {"events": events, "frames": folder, "source": source, "setup": setup, "work": work}


def run_companion(frames: Path, g: dict, out: Path, data: Path, **popen) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "companion", "run", "--source", str(frames),
           "--setup", str(g["setup"]), "--zones", str(g["frames"] / "zones.json"),
           "--record", str(out), "--no-web", "--exit-at-end", "--data-dir", str(data)]
    env = {**os.environ, "TIGHTROPE_MOCK_GPIO": "1"}
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **popen)


def replay(path: Path) -> dict:
    out = subprocess.run([sys.executable, "-m", "companion", "replay", str(path), "--json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def assert_same_game(out: Path, source: Path) -> None:
    got, want = replay(out), replay(source)
    for r, (mine, theirs) in enumerate(zip(got["rounds"], want["rounds"], strict=False)):
        for t, (a, b) in enumerate(zip(mine["tricks"], theirs["tricks"], strict=False)):
            assert a == b, f"round {r + 1} trick {t + 1} differs"
    assert got == want


def test_run_on_rendered_footage_scores_every_trick(rendered):
    out = rendered["work"] / "out.jsonl"
    proc = run_companion(rendered["frames"], rendered, out, rendered["work"] / "data")
    stdout, stderr = proc.communicate(timeout=900)
    assert proc.returncode == 0, stderr
    assert_same_game(out, rendered["source"])


def _start_frame_of_event(events: list, index: int, truth: list[dict]) -> int:
    """The first frame of the table action that shows events[index] (a hand coming in)."""
    actions = table_actions(events)
    done = table_actions(events[:index])  # the actions before that event
    assert len(truth) == len(actions)
    n_hand = max(2, round(HAND_S * FPS))
    return truth[len(done)]["frame"] - n_hand


def test_kill_mid_game_and_restart_on_the_rest(rendered, tmp_path):
    if rendered["events"][0].n != 3:
        pytest.skip("one kill test is enough: it runs on the 3-player game")
    events, frames = rendered["events"], rendered["frames"]
    out, data = tmp_path / "out.jsonl", tmp_path / "data"
    proc = run_companion(frames, rendered, out, data)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and len(out.read_text().splitlines()) > len(events) // 2:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the companion ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.communicate()

    with Store(data / "tightrope.db") as store:
        game_id = store.unfinished_game()
        committed = len(store.events(game_id))
    assert 1 < committed < len(events)
    truth = [json.loads(line) for line in (frames / "truth.jsonl").read_text().splitlines()]
    start = _start_frame_of_event(events, committed, truth)
    rest = tmp_path / "rest"
    rest.mkdir()
    for path in sorted(frames.glob("frame_*.jpg"))[start:]:
        (rest / path.name).symlink_to(path)

    again = run_companion(rest, rendered, out, data)
    _, stderr = again.communicate(timeout=900)
    assert again.returncode == 0, stderr
    assert_same_game(out, rendered["source"])
