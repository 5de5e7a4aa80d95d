"""The whole companion on rendered footage of a game: latency, loop speed, memory.

Run: .venv/bin/python -m bench.bench_service [--players 4] [--seed 7]
(results recorded in docs/PERFORMANCE.md)

1. In one thread, frame by frame as the camera would deliver them: watcher + referee (rules,
   SQLite store with fsync, trick photos). For every trick, the latency from the frame in which
   its last card lies complete on the table (the simulator's truth) to the frame in which the
   companion scored it; and the loop's time per frame (frames a second it could keep up with).
2. The real service (`tightrope-companion run`, web on, mock GPIO) on the same footage at
   twice real time: its resident memory (VmRSS), sampled every 0.2 s.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402

from companion.commands import Flush, NewGame, Seen  # noqa: E402
from companion.footage import render_game  # noqa: E402
from companion.games.tightrope.events import event_to_json  # noqa: E402
from companion.games.tightrope.randgame import random_game  # noqa: E402
from companion.games.tightrope.rules import Game, Variant  # noqa: E402
from companion.games.tightrope.views import replay_json  # noqa: E402
from companion.hub import Hub  # noqa: E402
from companion.keep import TrickPhotos  # noqa: E402
from companion.referee import Referee  # noqa: E402
from companion.service import limit_malloc  # noqa: E402
from companion.store import Store  # noqa: E402
from vision.read import Reader  # noqa: E402
from vision.watch import TableWatcher  # noqa: E402
from vision.zones import load_zones  # noqa: E402

FPS = 10.0


def _scored(game: Game) -> int:
    return sum(len(r.tricks) for r in game.rounds) + len(game.tricks_this_round)


def _trick_ready_frames(truth: list[dict]) -> list[int]:
    """Per trick, the frame in which its last action (a card laid, or a late scoring card) was
    complete: the action just before each trick is cleared from the table."""
    ready = []
    for i, action in enumerate(truth):
        if action["action"] == "clear_trick":
            ready.append(truth[i - 1]["frame"])
    return ready


def loop_latency(events: list, footage: Path, work: Path) -> dict:
    cv2.setNumThreads(1)
    limit_malloc()  # as the service does (companion.service)
    frames = sorted(footage.glob("frame_*.jpg"))
    truth = [json.loads(line) for line in (footage / "truth.jsonl").read_text().splitlines()]
    store = Store(work / "bench.db")
    referee = Referee(store, Hub())
    referee.subscribe(TrickPhotos(work / "photos", store))
    referee.call(NewGame(events[0]))
    watcher = TableWatcher(load_zones(footage / "zones.json"), Reader.zero_shot(), fps=FPS)
    scored_at: list[int] = []
    busy: list[float] = []
    for i, path in enumerate(frames):
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        t0 = time.perf_counter()
        changes = watcher.feed(frame)
        referee.put(Seen(tuple(changes), i / FPS, frame if changes else None, watcher.moving))
        referee.drain()
        busy.append(time.perf_counter() - t0)
        game = referee.game
        while game is not None and len(scored_at) < _scored(game):
            scored_at.append(i)
    referee.call(Flush())
    right = replay_json(referee.game) == replay_json(Game.replay(events))
    store.close()
    ready = _trick_ready_frames(truth)
    lag = [s - r for s, r in zip(scored_at, ready, strict=False)]
    ms = sorted(1000 * b for b in busy)
    return {
        "frames": len(frames),
        "tricks_scored": len(scored_at),
        "tricks_in_game": len(ready),
        "scoresheet_equals_replay": right,
        "latency_frames_median": statistics.median(lag) if lag else None,
        "latency_frames_max": max(lag) if lag else None,
        "latency_s_median": round(statistics.median(lag) / FPS, 2) if lag else None,
        "loop_ms_median": round(ms[len(ms) // 2], 2),
        "loop_ms_p90": round(ms[int(0.9 * len(ms))], 2),
        "loop_ms_max": round(ms[-1], 2),
        "loop_fps_sustainable": round(len(ms) / (sum(ms) / 1000), 1),
        "open_questions_at_end": len(referee.conflicts),
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def service_memory(events: list, footage: Path, work: Path, speed: float = 2.0) -> dict:
    setup = work / "setup.json"
    setup.write_text(json.dumps(event_to_json(events[0])))
    cmd = [sys.executable, "-m", "companion", "run", "--source", str(footage),
           "--setup", str(setup), "--zones", str(footage / "zones.json"),
           "--record", str(work / "service.jsonl"), "--data-dir", str(work / "service"),
           "--port", str(_free_port()), "--exit-at-end", "--speed", str(speed)]
    env = {**os.environ, "TIGHTROPE_MOCK_GPIO": "1"}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    samples = []
    began = time.monotonic()
    while proc.poll() is None:
        rss = _rss_mb(proc.pid)
        if rss is not None:
            samples.append(rss)
        time.sleep(0.2)
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise RuntimeError(f"the service failed ({proc.returncode}): {stderr[-500:]}")
    return {"wall_s": round(time.monotonic() - began, 1), "speed": speed,
            "rss_mb_median": round(statistics.median(samples), 1),
            "rss_mb_peak": round(max(samples), 1)}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=2, help="rounds of the game (default 2)")
    ap.add_argument("--no-service", action="store_true", help="skip the memory run")
    args = ap.parse_args(argv if argv is not None else [])
    events = random_game(random.Random(args.seed), args.players, Variant(), rounds=args.rounds)
    footage = render_game(events, seed=args.seed)
    result: dict = {"players": args.players, "events": len(events) - 1}
    with tempfile.TemporaryDirectory(prefix="bench-service-") as tmp:
        result["loop"] = loop_latency(events, footage, Path(tmp))
        if not args.no_service:
            result["service"] = service_memory(events, footage, Path(tmp))
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
