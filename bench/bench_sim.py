"""Table simulator speed: single frames, a 2,000-card labelled set, and game footage.

Run: .venv/bin/python -m bench.bench_sim [--threads 1]   (results recorded in docs/simulator.md
and docs/PERFORMANCE.md). One OpenCV thread by default: the number for "one core".
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from vision.sim import Conditions, random_scene, render_frame
from vision.sim.__main__ import demo_actions
from vision.sim.footage import render_footage
from vision.sim.labelled import load_labelled_set, make_labelled_set


def frame_ms(cond: Conditions, size: tuple[int, int], n_cards: int = 8, reps: int = 8) -> float:
    """Median ms per render_frame call (a fresh seed each call: no light/texture reuse)."""
    rng = np.random.default_rng(0)
    scale = size[0] / 1280
    times = []
    for i in range(reps + 1):
        placements = random_scene(rng, n_cards, size, width_range=(70 * scale, 160 * scale))
        t0 = time.perf_counter()
        render_frame(placements, cond, size, seed=i)
        if i:  # the first call fills the texture cache
            times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def labelled(n_frames: int, tmp: Path) -> dict:
    t0 = time.perf_counter()
    out = make_labelled_set(tmp / "set", n_frames, seed=0)
    dt = time.perf_counter() - t0
    cards = sum(len(r["cards"]) for r in load_labelled_set(out))
    return {"frames": n_frames, "cards": cards, "seconds": round(dt, 1),
            "cards_per_s": round(cards / dt, 1)}


def footage(tmp: Path) -> dict:
    actions = demo_actions(3, 3, seed=0)
    t0 = time.perf_counter()
    out = render_footage(actions, 3, tmp / "foot", seed=0)
    dt = time.perf_counter() - t0
    n = len(list(out.glob("frame_*.jpg")))
    return {"actions": len(actions), "frames": n, "seconds": round(dt, 1),
            "ms_per_frame": round(1000 * dt / n, 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--frames", type=int, default=270, help="labelled-set frames (~7.5 cards)")
    a = ap.parse_args()
    cv2.setNumThreads(a.threads)
    busy = Conditions(table="cloth_green", tilt_deg=12, light_gradient=0.5, glare=2, shadow=True,
                      noise=4, motion_blur=5, jpeg_quality=60, hands=2)
    result = {
        "threads": a.threads,
        "frame_ms_clean_1280x720": round(frame_ms(Conditions(noise=2), (1280, 720)), 1),
        "frame_ms_everything_1280x720": round(frame_ms(busy, (1280, 720)), 1),
        "frame_ms_clean_2304x1296": round(frame_ms(Conditions(noise=2), (2304, 1296)), 1),
    }
    tmp = Path(tempfile.mkdtemp(prefix="bench_sim_"))
    try:
        result["labelled_set"] = labelled(a.frames, tmp)
        result["footage_3_seats_3_tricks"] = footage(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
