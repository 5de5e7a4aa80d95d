"""Vision benchmark: reading accuracy, frame times, and Tesseract as the baseline.

Run: .venv/bin/python -m bench.bench_vision [--frames 300]  (results in docs/PERFORMANCE.md)

1. Accuracy on a rendered labelled set (vision.sim.labelled: eleven hard conditions, default
   edition), through the `recognize` path (no learned table): zero-shot, then taught from rendered
   photos of the deck; plus zero-shot on frames printed in random other editions.
2. Time per 1280x720 frame with 10 cards, one thread: the watcher seeing 10 new cards at once
   (detect + read all), a hand moving elsewhere (detect, no re-read), and a still frame.
3. Tesseract (Debian's tesseract-ocr CLI, digits only, --psm 7) on the same warped crops of
   number cards, given the upright central numeral (its best case), beside our reader.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.cards import CardId  # noqa: E402
from vision.cli import (  # noqa: E402
    KEYS,
    evaluate_frame,
    load_set,
    match_quads,
    taught_deck,
    truth_of,
)
from vision.detect import find_cards, warp  # noqa: E402
from vision.read import WARP_SIZE, Reader  # noqa: E402
from vision.sim.scene import Conditions, random_scene, render_frame  # noqa: E402
from vision.watch import TableWatcher  # noqa: E402


def _set_args(frames: int, seed: int, editions: bool) -> argparse.Namespace:
    return argparse.Namespace(set_dir=None, frames=frames, seed=seed, conditions="all",
                              editions=editions)


def accuracy(rows: list[dict], reader: Reader) -> dict:
    table: dict[str, dict] = {}
    for row in rows:
        frame = cv2.imread(row["path"], cv2.IMREAD_COLOR)
        counts = evaluate_frame(frame, truth_of(row), reader)
        total = table.setdefault(row["condition"], dict.fromkeys(KEYS, 0))
        for k, v in counts.items():
            total[k] += v
    table["TOTAL"] = {k: sum(r[k] for r in table.values()) for k in KEYS}
    for r in table.values():
        r["right_pct"] = round(100.0 * r["correct"] / max(r["cards"], 1), 2)
        r["wrong_pct"] = round(100.0 * r["wrong"] / max(r["cards"], 1), 2)
    return table


def _scene(rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray, list]:
    tables = ["wood_light", "wood_dark", "cloth_green", "cloth_grey", "dark_matte"]
    cond = Conditions(table=tables[k % 5], light_gradient=0.4, noise=2.0)
    w0 = float(rng.uniform(75, 110))
    placements = random_scene(rng, 10, width_range=(0.97 * w0, 1.03 * w0))
    empty, _ = render_frame([], cond, seed=k)
    return empty, cond, placements


def timing(reader: Reader, n: int = 20) -> dict:
    """Median/p90 ms per 1280x720 frame with 10 cards, one thread: wall clock, and the CPU time
    of this process (what the frame costs; the wall clock also counts waiting for a shared core).
    Per scene: the frame where 10 cards appear at once, the still frames after it until all 10
    are committed (the watcher reads the new cards there), frames where nothing changed once
    they are committed, and a frame with motion away from the cards.
    """
    cv2.setNumThreads(1)
    rng = np.random.default_rng(7)
    keys = ("ten_new_cards", "settling", "still_frame", "motion_elsewhere")
    laps: dict[str, list[tuple[float, float]]] = {k: [] for k in keys}
    committed = []

    def lap(key: str, w: TableWatcher, frame: np.ndarray) -> None:
        t0, c0 = time.perf_counter(), time.process_time()
        w.feed(frame)
        laps[key].append((time.perf_counter() - t0, time.process_time() - c0))

    for k in range(n):
        empty, cond, placements = _scene(rng, k)
        frames = [render_frame(placements, cond, seed=k, noise_seed=j)[0] for j in range(12)]
        w = TableWatcher(None, reader, background=empty)
        w.feed(empty)
        lap("ten_new_cards", w, frames[0])
        for f in frames[1:7]:  # only sensor noise changes: cards read, then committed
            lap("settling", w, f)
        committed.append(len(w.cards()))
        for f in frames[7:11]:
            lap("still_frame", w, f)
        busy = frames[11].copy()  # a hand-sized change away from the cards
        cv2.circle(busy, (40, 40), 30, (90, 130, 190), -1)
        lap("motion_elsewhere", w, busy)
    out: dict = {}
    for key, xs in laps.items():
        wall, cpu = np.array(xs).T * 1000.0
        out[key] = {"median_ms": round(float(np.median(wall)), 2),
                    "p90_ms": round(float(np.percentile(wall, 90)), 2),
                    "max_ms": round(float(wall.max()), 2),
                    "cpu_median_ms": round(float(np.median(cpu)), 2), "n": len(xs)}
    out["cards_committed_per_scene"] = committed
    out["load_average"] = [round(v, 2) for v in os.getloadavg()]
    return out


def _numeral_band(crop: np.ndarray) -> np.ndarray:
    """The big numeral of an upright number-card crop, grey, enlarged (Tesseract's best case)."""
    h, w = crop.shape[:2]
    band = crop[int(0.36 * h) : int(0.82 * h), int(0.06 * w) : int(0.94 * w)]
    grey = cv2.cvtColor(band, cv2.COLOR_BGR2GRAY)
    return cv2.resize(grey, None, fx=2.0, fy=2.0, interpolation=cv2.INTER_CUBIC)


def tesseract(rows: list[dict], reader: Reader, limit: int) -> dict:
    """Tesseract and our reader on the same warped crops of number cards."""
    exe = shutil.which("tesseract")
    if exe is None:
        return {"skipped": "tesseract not installed (apt-get install tesseract-ocr)"}
    crops: list[tuple[CardId, np.ndarray, np.ndarray]] = []
    for row in rows:
        frame = cv2.imread(row["path"], cv2.IMREAD_COLOR)
        truth = [t for t in truth_of(row) if t.visible_fraction > 0.95 and t.card.kind == "number"
                 and not t.covered_by_hand]
        quads = find_cards(frame)
        for i, j in match_quads(quads, truth).items():
            ours = warp(frame, quads[i], WARP_SIZE)  # full-size crop, like the training crops
            upright = warp(frame, truth[j].corners, (200, 308))  # truth corners: face TL first
            crops.append((truth[j].card, ours, upright))
        if len(crops) >= limit:
            break
    crops = crops[:limit]
    ours_ok, tess_ok, t_tess = 0, 0, 0.0
    t0 = time.perf_counter()
    readings = reader.read_batch([c for _, c, _ in crops])
    t_ours = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        for (card, _, upright), r in zip(crops, readings, strict=True):
            ours_ok += r.card == card
            path = Path(tmp) / "crop.png"
            cv2.imwrite(str(path), _numeral_band(upright))
            t1 = time.perf_counter()
            out = subprocess.run([exe, str(path), "stdout", "--psm", "7", "-c",
                                  "tessedit_char_whitelist=0123456789"],
                                 capture_output=True, text=True, check=False)
            t_tess += time.perf_counter() - t1
            digits = "".join(ch for ch in out.stdout if ch.isdigit())
            tess_ok += digits == str(card.value)
    n = max(len(crops), 1)
    version = subprocess.run([exe, "--version"], capture_output=True, text=True,
                             check=False).stdout.splitlines()[:1]
    return {"crops": len(crops), "tesseract_version": version[0] if version else "?",
            "tesseract_right_pct": round(100.0 * tess_ok / n, 2),
            "tesseract_ms_per_crop": round(1000.0 * t_tess / n, 2),
            "ours_right_pct": round(100.0 * ours_ok / n, 2),
            "ours_ms_per_crop": round(1000.0 * t_ours / n, 3)}


def footage(reader: Reader, out_dir: Path = Path("var/vision-eval/footage")) -> dict:
    """A scripted round on rendered game footage (hands laying and taking cards): the watcher's
    committed events against the script, how late they come, and ms per frame."""
    from vision.sim.footage import ClearRound, ClearTrick, Place, Reveal, render_footage

    def n(v: int) -> CardId:
        return CardId("number", v)

    def sc(v: int, colour: str | None = None) -> CardId:
        return CardId("scoring", v, colour)

    actions = [Reveal(sc(4)), Place(0, n(17)), Place(1, n(6)), Place(2, n(9)), Place(3, n(33)),
               ClearTrick(), Reveal(sc(0, "blue")), Reveal(sc(3)), Place(2, n(38)),
               Place(3, n(50)), Place(0, n(1)), Place(1, n(26)), ClearTrick(),
               Reveal(sc(0, "red")), Reveal(sc(7)), Place(3, n(11)), Place(0, n(44)),
               Place(1, n(19)), Place(2, n(16)), ClearTrick(), ClearRound()]
    out = render_footage(actions, 4, out_dir, seed=4)
    zones = json.loads((out / "zones.json").read_text())
    truth = [json.loads(x) for x in (out / "truth.jsonl").read_text().splitlines()]
    w = TableWatcher(zones, reader)
    got, times = [], []
    for k, path in enumerate(sorted(out.glob("frame_*.jpg"))):
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        t0 = time.process_time()
        changes = w.feed(frame)
        times.append(time.process_time() - t0)
        got += [(k, c.kind, c.observation.reading.card.label if c.observation.reading.card
                 else "unknown", c.observation.zone) for c in changes]
    want = []
    lying: dict[str, object] = {}
    for t, a in zip(truth, actions, strict=True):
        if isinstance(a, Reveal | Place):
            zone = "scoring" if isinstance(a, Reveal) else a.seat
            want.append((t["frame"], "appeared", a.card.label, zone))
            lying[a.card.label] = zone
        else:
            row = isinstance(a, ClearRound)
            for label, zone in list(lying.items()):
                if (zone == "scoring") == row:
                    want.append((t["frame"], "removed", label, zone))
                    del lying[label]
    # a removal may come before the action's end: the card is gone while the hand still leaves
    matched = [g for g in got if any(g[1:] == x[1:] and -10 <= g[0] - x[0] <= 10 for x in want)]
    lag = [g[0] - next(x[0] for x in want if x[1:] == g[1:]) for g in matched]
    ms = np.array(times) * 1000.0
    return {"frames": len(times), "events_expected": len(want), "events_reported": len(got),
            "events_right": len(matched), "median_lag_frames": float(np.median(lag or [0])),
            "cpu_ms_median": round(float(np.median(ms)), 2),
            "cpu_ms_p90": round(float(np.percentile(ms, 90)), 2), "stats": w.stats}


def main(frames: int = 300, seed: int = 2026, editions_frames: int = 100,
         tesseract_crops: int = 300) -> dict:
    cv2.setNumThreads(1)
    t0 = time.perf_counter()
    zero = Reader.zero_shot()
    rows = load_set(_set_args(frames, seed, False))
    result: dict = {"frames": len(rows)}
    result["zero_shot"] = accuracy(rows, zero)
    result["taught"] = accuracy(rows, Reader.from_deck(taught_deck()))
    other = load_set(_set_args(editions_frames, seed + 1, True))
    result["zero_shot_random_editions"] = accuracy(other, zero)
    result["timing"] = timing(zero)
    result["footage"] = footage(zero)
    result["tesseract_baseline"] = tesseract(rows, zero, tesseract_crops)
    result["seconds"] = round(time.perf_counter() - t0, 1)
    return result


def _markdown(res: dict) -> str:
    lines = []
    for name in ("zero_shot", "taught", "zero_shot_random_editions"):
        lines += [f"\n{name} ({'random editions' if 'editions' in name else 'default edition'})",
                  "| condition | cards | correct | wrong | abstained | missed | right % |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for cond, r in res[name].items():
            lines.append(f"| {cond} | {r['cards']} | {r['correct']} | {r['wrong']} | "
                         f"{r['abstained']} | {r['missed']} | {r['right_pct']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="vision benchmark")
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--editions-frames", type=int, default=100)
    ap.add_argument("--tesseract-crops", type=int, default=300)
    a = ap.parse_args()
    res = main(a.frames, editions_frames=a.editions_frames, tesseract_crops=a.tesseract_crops)
    print(json.dumps(res, indent=1))
    print(_markdown(res), file=sys.stderr)
