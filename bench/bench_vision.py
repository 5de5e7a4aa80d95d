"""Vision benchmark: reading accuracy on designs the models never saw, beside the ones they were
trained on and the simulator's own deck, and the time a frame costs.

Run: .venv/bin/python -m bench.bench_vision [--frames 300] [--models DIR]
(results in docs/PERFORMANCE.md; rendering the sets needs the fonts of vision.train.setup).

1. Accuracy through the `recognize` path (one photo, no empty table) on three rendered sets of
   the same hard conditions (vision.sim.labelled.UNSEEN_CONDITIONS):
   - unseen: six designs in typefaces of the test split, each with at least one layout family
     held out of training, on tables that include floral prints and photographs never trained
     on (the headline);
   - trained: six designs in typefaces and layouts of the training split (in distribution);
   - own: the simulator's own stroke-font deck.
   Each zero-shot, and taught (a deck per design from rendered photos of it).
2. Time, one thread (OpenCV and onnxruntime): the detector on a 1280x720 frame, one card read
   (both looks), a still frame, a frame with 10 new cards, and `recognize` on a whole frame;
   with the Pi 5 arithmetic (this machine is about 3.5 times a Pi 5's core).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

PI5 = 3.5  # this machine's core is about 3.5 times a Pi 5's (docs/PERFORMANCE.md)


def use_models(folder: Path) -> None:
    """Read with the networks in `folder` (a training run's output) instead of the bundled."""
    import vision.network as network
    import vision.read as read

    network.MODEL_DIR = read.MODEL_DIR = folder
    network.bundled.cache_clear()
    read._zero_shot_head.cache_clear()


def accuracy(designs: str, frames: int, seed: int) -> dict:
    from vision.cli import load_set, taught_readers
    from vision.evaluate import as_json, evaluate
    from vision.read import Reader

    args = argparse.Namespace(set_dir=None, frames=frames, seed=seed, conditions="all",
                              designs=designs, design_count=6, editions=False, deck=None,
                              taught=False, json=True)
    rows, editions, folder = load_set(args)
    zero = Reader.zero_shot()
    out = {"zero_shot": as_json(evaluate(rows, lambda e: zero), "zero-shot")}
    readers = taught_readers(editions or [], folder)
    out["taught"] = as_json(evaluate(rows, lambda e: readers[e % len(readers)]), "taught")
    return out


def timing(n: int = 30) -> dict:
    from vision.detect import Detector
    from vision.geometry import rectify
    from vision.read import Reader
    from vision.recognize import look_at
    from vision.sim.scene import Conditions, random_scene, render_frame
    from vision.watch import TableWatcher

    rng = np.random.default_rng(7)
    detector, reader = Detector(), Reader.zero_shot()
    frames = [render_frame(random_scene(rng, 10, (1280, 720), width_range=(80, 110)),
                           Conditions(table="wood_light", noise=2.0), seed=k)[0]
              for k in range(4)]

    def median_ms(fn, reps: int = n) -> float:
        fn()
        out = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
        return round(1000.0 * float(np.median(out)), 2)

    found = detector.find(frames[0])
    crops = [rectify(frames[0], d.quad) for d in found]
    res = {"detector_ms": median_ms(lambda: detector.find(frames[0])),
           "read_one_card_ms": median_ms(lambda: reader.read(crops[:1])),
           "read_ten_cards_ms": median_ms(lambda: reader.read(crops[:10])),
           "recognize_frame_ms": median_ms(lambda: look_at(frames[0], reader, detector), 10)}
    # the watcher: a still frame, and a frame where ten new cards appear at once
    watcher = TableWatcher(None, reader, detector=detector)
    for _ in range(12):
        watcher.feed(frames[1])
    res["still_frame_ms"] = median_ms(lambda: watcher.feed(frames[1]))

    def ten_new() -> None:
        w = TableWatcher(None, reader, detector=detector, max_reads=10)
        w.feed(frames[2])  # the first frame: everything is new and read
    res["ten_new_cards_ms"] = median_ms(ten_new, 10)
    # what a card costs from lying still to committed: need frames plus the confirm read
    res["pi5"] = {k: round(v * PI5, 1) for k, v in res.items() if k.endswith("_ms")}
    return res


def _table(name: str, res: dict) -> str:
    lines = [f"\n{name}", "| condition | cards | right | wrong | abstained | missed | phantom"
             " | right % |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for cond, r in [*res["conditions"].items(), ("ALL", res["total"])]:
        pct = 100.0 * r["correct"] / max(1, r["cards"])
        lines.append(f"| {cond} | {r['cards']} | {r['correct']} | {r['wrong']} | "
                     f"{r['abstained']} | {r['missed']} | {r['spurious']} | {pct:.2f} |")
    return "\n".join(lines)


def main(frames: int = 300, seed: int = 2026) -> dict:
    cv2.setNumThreads(1)
    began = time.perf_counter()
    result: dict = {}
    for designs, set_seed in (("unseen", seed), ("train", seed + 1), ("own", seed + 2)):
        result[designs] = accuracy(designs, frames, set_seed)
        print(f"bench_vision: {designs} done ({time.perf_counter() - began:.0f} s)",
              file=sys.stderr, flush=True)
    result["timing"] = timing()
    result["seconds"] = round(time.perf_counter() - began, 1)
    return result


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="vision benchmark")
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--models", help="read with the networks in this folder")
    ap.add_argument("--out", default="var/bench-vision.json")
    a = ap.parse_args()
    if a.models:
        use_models(Path(a.models))
    res = main(a.frames, a.seed)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1))
    for designs in ("unseen", "train", "own"):
        for mode in ("zero_shot", "taught"):
            print(_table(f"{designs}, {mode}", res[designs][mode]))
    print(json.dumps(res["timing"], indent=1))
