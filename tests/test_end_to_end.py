"""End to end: rendered table footage of whole games through the real pipeline.

- the demo's default game, run as `make demo` runs it (headless): it passes its own check;
- a 5-player tactical and simultaneous game through `tightrope-companion run`;
- a kill -9 in the middle of a game and a restart on the rest of the footage;
- twenty restarts at random frames, hands in view at half of them: nothing is invented;
- a weakened reader, and a person who answers every question through the JSON API.
(A sweep of demo seeds is bench/bench_games.py.)
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import cv2
import pytest

from companion.commands import Flush, NewGame, Seen
from companion.evaluate import answer_all
from companion.footage import render_game, table_actions
from companion.games.tightrope.events import event_to_json
from companion.games.tightrope.randgame import random_game
from companion.games.tightrope.rules import Game, Variant
from companion.record import write_record
from companion.referee import Referee
from companion.store import Store

FPS = 10.0
DEMO = (3, Variant(), None, 1)  # the demo's default game: `demo` with no options
GAMES = {
    # name: (players, variant, rounds, seed)
    "demo-default": DEMO,
    "5p-tactical-simultaneous": (5, Variant(tactical=True, simultaneous=True), 2, 52),
}


def cache() -> Path:
    """The demo's footage cache, shared with `make demo` (the footage is deterministic)."""
    return Path(os.environ.get("TIGHTROPE_TEST_CACHE", Path(__file__).parent.parent /
                               ".test-cache"))


@pytest.fixture(scope="module", params=sorted(GAMES))
def rendered(request, tmp_path_factory):
    players, variant, rounds, seed = GAMES[request.param]
    events = random_game(random.Random(seed), players, variant, rounds=rounds)
    os.environ.setdefault("XDG_CACHE_HOME", str(cache()))
    folder = render_game(events, seed=seed)  # as the demo renders it
    work = tmp_path_factory.mktemp(request.param)
    source = work / "source.jsonl"
    write_record(source, events)
    setup = work / "setup.json"
    setup.write_text(json.dumps(event_to_json(events[0])))
    return {"name": request.param, "events": events, "frames": folder, "source": source,
            "setup": setup, "work": work}


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


def test_the_demo_s_default_game_passes_its_own_check(tmp_path):
    env = {**os.environ, "TIGHTROPE_MOCK_GPIO": "1",
           "XDG_CACHE_HOME": os.environ.get("XDG_CACHE_HOME", str(cache()))}
    done = subprocess.run([sys.executable, "-m", "companion", "demo", "--no-web",
                           "--exit-at-end", "--data-dir", str(tmp_path / "data")],
                          capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "equals the replay of the game's record" in done.stdout
    assert done.stdout.count("demo: round ") == 27  # one line a trick, 3 rounds of 9


def test_run_on_rendered_footage_scores_every_trick(rendered):
    if rendered["name"] == "demo-default":
        pytest.skip("the demo test above plays this game")
    out = rendered["work"] / "out.jsonl"
    proc = run_companion(rendered["frames"], rendered, out, rendered["work"] / "data")
    _, stderr = proc.communicate(timeout=900)
    assert proc.returncode == 0, stderr
    assert_same_game(out, rendered["source"])


def _action_frames(events: list, frames: Path) -> tuple[list[dict], int]:
    truth = [json.loads(line) for line in (frames / "truth.jsonl").read_text().splitlines()]
    assert len(truth) == len(table_actions(events))
    return truth, round(0.8 * FPS)  # the demo's hand_s: the hand is in view this many frames


def test_kill_mid_game_and_restart_on_the_rest(rendered, tmp_path):
    if rendered["name"] != "demo-default":
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
        committed = len(store.events(store.unfinished_game()))
    assert 1 < committed < len(events)
    truth, n_hand = _action_frames(events, frames)
    done = table_actions(events[:committed])  # the actions before the next event
    start = truth[len(done)]["frame"] - n_hand
    rest = tmp_path / "rest"
    rest.mkdir()
    for path in sorted(frames.glob("frame_*.jpg"))[start:]:
        (rest / path.name).symlink_to(path)
    again = run_companion(rest, rendered, out, data)
    _, stderr = again.communicate(timeout=900)
    assert again.returncode == 0, stderr
    assert_same_game(out, rendered["source"])


def test_twenty_restarts_at_random_frames_invent_nothing(rendered, tmp_path):
    """A restart (watchdog, power) may come at any frame, a hand over the table or not: the
    companion comes back from its store and the table as the camera sees it then. Simulated
    in-process: at each kill everything in memory is dropped, the store stays."""
    if rendered["name"] != "demo-default":
        pytest.skip("runs on the demo's game")
    from vision.read import Reader
    from vision.watch import TableWatcher
    from vision.zones import load_zones

    events, frames = rendered["events"], rendered["frames"]
    truth, n_hand = _action_frames(events, frames)
    paths = sorted(frames.glob("frame_*.jpg"))
    rng = random.Random(20)
    with_hand = [f for t in truth for f in range(t["frame"] - n_hand, t["frame"])]
    kills = set(rng.sample(with_hand, 10)) | set(rng.sample(range(len(paths)), 10))
    zones, reader = load_zones(frames / "zones.json"), Reader.zero_shot()
    true_game = Game.replay(events)
    db = tmp_path / "game.db"

    def start() -> tuple[Store, Referee, TableWatcher]:
        store = Store(db)
        referee = Referee(store)
        if referee.game is None:
            referee.handle(NewGame(events[0]))
        return store, referee, TableWatcher(zones, reader, fps=FPS)

    store, referee, watcher = start()
    questions = 0
    for k, path in enumerate(paths):
        if k in kills:  # kill -9: nothing in memory survives; the store does
            store.close()
            store, referee, watcher = start()
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        changes = watcher.feed(frame)
        referee.handle(Seen(tuple(changes), k / FPS, frame if changes else None, watcher.moving))
        questions += answer_all(referee, true_game)[0]
    referee.handle(Flush())
    questions += answer_all(referee, true_game)[0]
    got = store.events(referee.game_id or store.unfinished_game() or 1)
    store.close()
    assert len(kills) == 20
    # nothing invented, all there, every trick as played (a trick's scoring card may be
    # recorded after a play of it, when the restart came while the reveal settled)
    assert sorted(map(repr, got)) == sorted(map(repr, events)), f"{questions} questions"
    assert Game.replay(got).rounds == true_game.rounds


def test_a_weakened_reader_scores_no_trick_wrong_and_every_question_offers_the_truth(rendered):
    if rendered["name"] != "demo-default":
        pytest.skip("runs on the demo's game")
    from companion.evaluate import WeakenedReader, run_footage
    from vision.read import Reader
    from vision.sources import FolderSource
    from vision.watch import TableWatcher
    from vision.zones import load_zones

    frames = rendered["frames"]
    weak = WeakenedReader(Reader.zero_shot(), seed=3)
    watcher = TableWatcher(load_zones(frames / "zones.json"), weak, fps=FPS)
    result = run_footage(FolderSource(frames, FPS), watcher, Game.replay(rendered["events"]))
    assert result.wrong == 0 and result.missing == 0 and result.right == result.tricks
    assert result.questions > 0 and result.offered == result.questions


def test_a_person_answers_every_question_through_the_json_api(rendered, tmp_path):
    """The person at the table as a test outside the project plays it: reading GET /api/view
    and answering with POST /api/resolve (host PIN, same origin), from the true record."""
    if rendered["name"] != "demo-default":
        pytest.skip("runs on the demo's game")
    from companion.evaluate import WeakenedReader, all_tricks, same_trick
    from companion.games.tightrope.person import answer
    from companion.hub import Hub
    from vision.read import Reader
    from vision.sources import FolderSource
    from vision.watch import TableWatcher
    from vision.zones import load_zones
    from web.app import create_app
    from web.auth import PinStore

    frames, true = rendered["frames"], Game.replay(rendered["events"])
    store = Store(tmp_path / "tightrope.db")
    referee = Referee(store, Hub())
    pins = PinStore(tmp_path / "host-pin")
    pins.set_pin("2468")
    client = create_app(referee, store, photo_dir=tmp_path / "photos", pin_store=pins,
                        testing=True).test_client()
    host = {"Origin": "http://localhost", "X-Host-Pin": "2468"}
    referee.handle(NewGame(true.setup))
    weak = WeakenedReader(Reader.zero_shot(), seed=5)  # questions come up
    watcher = TableWatcher(load_zones(frames / "zones.json"), weak, fps=FPS)
    source, asked, offered = FolderSource(frames, FPS), 0, 0

    def answer_what_the_page_shows() -> None:
        nonlocal asked, offered
        for _ in range(50):
            view = client.get("/api/view").get_json()["view"]
            conflict = view["conflict"]
            if conflict is None:
                return
            choice = answer(conflict, view["state"], true)
            offered += choice in [c["id"] for c in conflict["choices"]]
            reply = client.post("/api/resolve", json={"conflict_id": conflict["id"],
                                                      "choice": choice}, headers=host)
            assert reply.status_code == 200, reply.get_json()
            asked += 1

    source.open()
    k = 0
    while (frame := source.read()) is not None:
        changes = watcher.feed(frame)
        referee.handle(Seen(tuple(changes), k / FPS, frame if changes else None, watcher.moving))
        referee.publish()  # as the referee's loop does after each message
        answer_what_the_page_shows()
        k += 1
    referee.handle(Flush())
    referee.publish()
    answer_what_the_page_shows()
    got, want = all_tricks(referee.game), all_tricks(true)
    assert len(got) == len(want)
    assert all(same_trick(a, b, simultaneous=False) for a, b in zip(got, want, strict=True))
    assert asked > 0 and offered == asked
