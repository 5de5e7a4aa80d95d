"""Vision commands wired into `tightrope-companion`: recognize, teach, eval (exit codes).

Errors are one line on stderr (or, for recognize, one JSON line per unreadable image), never a
traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from vision.cards import DEFAULT_STYLE, CardId
from vision.read import ModelError, Reader, recognize
from vision.teach import TeachError, progress_bar, teach


def _reader(deck: str | None) -> Reader:
    return Reader.from_deck(deck) if deck else Reader.zero_shot()


def recognize_main(images: list[str], deck: str | None, as_json: bool) -> int:
    """One line per image: JSON (`--json`) or a short human summary."""
    try:
        reader = _reader(deck)
    except ModelError as exc:
        print(f"recognize: {exc}", file=sys.stderr)
        return 2
    failed = False
    for path in images:
        frame = cv2.imread(path, cv2.IMREAD_COLOR) if Path(path).is_file() else None
        if frame is None:
            failed = True
            why = "no such file" if not Path(path).exists() else "not a readable image"
            if as_json:
                print(json.dumps({"image": path, "error": why}), flush=True)
            else:
                print(f"{path}: error: {why}", flush=True)
            continue
        try:
            cards = recognize(frame, reader)
        except ValueError as exc:
            failed = True
            print(json.dumps({"image": path, "error": str(exc)}) if as_json
                  else f"{path}: error: {exc}", flush=True)
            continue
        if as_json:
            print(json.dumps({"image": path, "cards": cards}), flush=True)
        else:
            names = [_human(c) for c in cards]
            print(f"{path}: {len(cards)} card(s): {', '.join(names) or '-'}", flush=True)
    return 1 if failed else 0


def _human(card: dict) -> str:
    if card["kind"] == "unknown":
        return f"unknown ({card['confidence']:.2f})"
    colour = f" {card['colour']}" if "colour" in card else ""
    return f"{card['kind']} {card['value']}{colour} ({card['confidence']:.2f})"


def teach_main(folder: str, out: str) -> int:
    """Learn a deck from one photo per card; progress bar on stderr."""
    try:
        stats = teach(folder, out, progress=progress_bar())
    except (TeachError, ModelError) as exc:
        print(f"\nteach: {exc}", file=sys.stderr)
        return 2
    print(f"teach: wrote {out} (held-out augmented crops: {stats['right']:.1%} read right, "
          f"{stats['wrong']:.2%} confidently wrong, abstain below {stats['threshold']:.2f})",
          file=sys.stderr)
    return 0


def eval_main(argv: list[str]) -> int:
    """Render (or load) a labelled set of frames and print correct/wrong/abstained/missed."""
    ap = argparse.ArgumentParser(prog="tightrope-companion eval", description=eval_main.__doc__)
    add_eval_args(ap)
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        return run_eval(args)
    except (EvalError, ModelError, TeachError) as exc:
        print(f"eval: {exc}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    """`python -m vision.cli recognize|teach|eval ...` (the lead wires the same into the CLI)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(prog="python -m vision.cli")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("recognize")
    r.add_argument("images", nargs="+")
    r.add_argument("--deck")
    r.add_argument("--json", action="store_true")
    t = sub.add_parser("teach")
    t.add_argument("folder")
    t.add_argument("--out", required=True)
    sub.add_parser("eval", add_help=False)
    if argv and argv[0] == "eval":
        return eval_main(argv[1:])
    args = ap.parse_args(argv)
    if args.cmd == "recognize":
        return recognize_main(args.images, args.deck, args.json)
    return teach_main(args.folder, args.out)



# --- eval: a rendered labelled set ------------------------------------------------------------

READABLE_FRACTION = 0.45  # a truth card at least this visible (and not under a hand) must be read
KEYS = ("cards", "correct", "wrong", "abstained", "missed", "spurious")


class EvalError(ValueError):
    """Bad eval arguments."""


class TruthView(NamedTuple):
    card: CardId
    corners: np.ndarray
    center: tuple[float, float]
    visible_fraction: float
    covered_by_hand: bool


def add_eval_args(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--set", dest="set_dir",
                    help="labelled set folder (vision.sim.labelled format); rendered there if "
                         "missing (default var/vision-eval/<frames>-<seed>[-editions])")
    ap.add_argument("--frames", type=int, default=300, help="frames to render (default 300)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--conditions", default="all", help="comma list of the set's conditions")
    ap.add_argument("--editions", action="store_true",
                    help="render every frame in another random card edition (zero-shot test)")
    ap.add_argument("--deck", help="read with this deck file instead of zero-shot")
    ap.add_argument("--taught", action="store_true",
                    help="teach a deck from rendered photos first (cached) and read with it")
    ap.add_argument("--json", action="store_true", help="print the table as one JSON object")


def rendered_teach_folder(folder: Path, seed: int = 3, size: tuple[int, int] = (1280, 720)
                          ) -> Path:
    """One rendered photo per card lying on a light wooden table (what a user would shoot)."""
    from vision.cards import ALL_CARDS
    from vision.sim.scene import Conditions, Placement, render_frame

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for i, card in enumerate(ALL_CARDS):
        path = folder / f"{card.label}.png"
        if path.exists():
            continue
        angle = float(rng.uniform(-25, 25) + (180 if rng.random() < 0.3 else 0))
        k = size[0] / 1280
        pl = [Placement(card, (size[0] / 2, size[1] / 2), angle, float(rng.uniform(260, 330)) * k)]
        frame, _ = render_frame(pl, Conditions(table="wood_light"), size=size, seed=seed + i)
        cv2.imwrite(str(path), frame)
    return folder


def taught_deck(cache: Path = Path("var/vision-cache")) -> Path:
    """A deck taught from rendered photos, built once and cached."""
    deck = cache / "rendered-deck.npz"
    if not deck.exists():
        folder = rendered_teach_folder(cache / "teach-photos")
        teach(folder, deck, progress=progress_bar())
    return deck


def truth_width(truth: list) -> float:
    """The median width (px) of the truth cards of a frame (80 when it has none)."""
    return float(np.median([np.linalg.norm(t.corners[1] - t.corners[0]) for t in truth] or [80]))


def match_quads(quads: list[np.ndarray], truth: list) -> dict[int, int]:
    """Detected quads matched to truth cards: nearest centres within 0.35 of a card width."""
    return _match([q.mean(axis=0) for q in quads], truth, 0.35 * truth_width(truth))


def _match(centers: list, truth: list, tol: float) -> dict[int, int]:
    """Greedy nearest matching detection index -> truth index within tol px."""
    pairs = sorted(
        (float(np.hypot(c[0] - t.center[0], c[1] - t.center[1])), i, j)
        for i, c in enumerate(centers) for j, t in enumerate(truth)
    )
    used_i, used_j, out = set(), set(), {}
    for d, i, j in pairs:
        if d <= tol and i not in used_i and j not in used_j:
            out[i] = j
            used_i.add(i)
            used_j.add(j)
    return out


def evaluate_frame(frame: np.ndarray, truth: list, reader: Reader,
                   background: np.ndarray | None = None) -> dict:
    """Counts for one frame through the `recognize` path: correct / wrong / abstained / missed /
    spurious (a confident read where no card needs reading: not near any card at all)."""
    cards = recognize(frame, reader, background)
    centers = [c["center"] for c in cards]
    h, w = frame.shape[:2]
    readable = [t for t in truth if t.visible_fraction >= READABLE_FRACTION
                and not t.covered_by_hand and _in_view(t.corners, w, h)]
    width = truth_width(truth)
    match = _match(centers, readable, 0.35 * width)
    c = dict.fromkeys(KEYS, 0)
    c["cards"] = len(readable)
    for i, card in enumerate(cards):
        if i not in match:
            if card["kind"] != "unknown" and not _near_hidden(centers[i], truth, width):
                c["spurious"] += 1
            continue
        if card["kind"] == "unknown":
            c["abstained"] += 1
        elif CardId(card["kind"], card["value"], card.get("colour")) == readable[match[i]].card:
            c["correct"] += 1
        else:
            c["wrong"] += 1
    c["missed"] = len(readable) - len(match)
    return c


def _in_view(corners, w: int, h: int) -> bool:
    """The whole card is inside the camera's view (a card half off the picture is not readable;
    a real installation keeps the table in view)."""
    return bool((corners[:, 0] >= 0).all() and (corners[:, 0] < w).all()
                and (corners[:, 1] >= 0).all() and (corners[:, 1] < h).all())


def _near_hidden(center, truth, width: float) -> bool:
    """A detection of a card we do not require (mostly hidden) is not spurious."""
    return any(np.hypot(center[0] - t.center[0], center[1] - t.center[1]) < 0.35 * width
               for t in truth)


def load_set(args: argparse.Namespace) -> list[dict]:
    """The labelled set's truth rows (rendering the set first when it is not there yet)."""
    from vision.sim.labelled import HARD_CONDITIONS, load_labelled_set, make_labelled_set
    from vision.sim.scene import SimError

    if args.frames < 1:
        raise EvalError("--frames must be >= 1")
    names = list(HARD_CONDITIONS) if args.conditions == "all" else args.conditions.split(",")
    bad = [n for n in names if n not in HARD_CONDITIONS]
    if bad:
        raise EvalError(f"unknown condition {bad[0]!r} (known: {', '.join(HARD_CONDITIONS)})")
    tag = f"{args.frames}-{args.seed}" + ("-editions" if args.editions else "")
    if args.conditions != "all":
        tag += "-" + "+".join(names)
    folder = Path(args.set_dir or f"var/vision-eval/{tag}")
    try:  # returns at once when the folder holds this very set (a digest), else renders it
        make_labelled_set(folder, args.frames, seed=args.seed, conditions=names,
                          style=None if args.editions else DEFAULT_STYLE,
                          progress=lambda i, n: progress_bar()(f"render {folder}", i, n))
        return load_labelled_set(folder)
    except SimError as exc:
        raise EvalError(str(exc)) from exc


def truth_of(row: dict) -> list[TruthView]:
    return [TruthView(CardId.from_label(c["label"]), np.asarray(c["corners"], np.float32),
                      tuple(c["center"]), float(c["visible_fraction"]),
                      bool(c["covered_by_hand"])) for c in row["cards"]]


def run_eval(args: argparse.Namespace) -> int:
    import time

    rows = load_set(args)
    if args.taught:
        reader, label = Reader.from_deck(taught_deck()), "taught (deck from rendered photos)"
    else:
        reader, label = _reader(args.deck), ("deck " + args.deck if args.deck else "zero-shot")
    table: dict[str, dict] = {}
    spent = 0.0
    for k, row in enumerate(rows):
        frame = cv2.imread(row["path"], cv2.IMREAD_COLOR)
        if frame is None:
            raise EvalError(f"{row['path']}: cannot read the frame")
        t0 = time.perf_counter()
        counts = evaluate_frame(frame, truth_of(row), reader, None)
        spent += time.perf_counter() - t0
        total = table.setdefault(row["condition"], dict.fromkeys(KEYS, 0))
        for key, v in counts.items():
            total[key] += v
        if k % 10 == 0 or k + 1 == len(rows):
            progress_bar()("eval", k + 1, len(rows))
    _print_table(table, label, 1000.0 * spent / max(len(rows), 1), args.json)
    return 0


def _print_table(rows: dict[str, dict], label: str, ms_per_frame: float, as_json: bool) -> None:
    keys = list(KEYS)
    all_row = {k: sum(r[k] for r in rows.values()) for k in keys}
    if as_json:
        print(json.dumps({"reader": label, "conditions": rows, "total": all_row,
                          "ms_per_frame": round(ms_per_frame, 2)}))
        return
    print(f"reader: {label}; detect+read {ms_per_frame:.1f} ms per frame (no background)")
    print(f"{'condition':<20}" + "".join(f"{k:>10}" for k in keys) + f"{'right %':>9}")
    for name, r in [*rows.items(), ("TOTAL", all_row)]:
        pct = 100.0 * r["correct"] / max(r["cards"], 1)
        print(f"{name:<20}" + "".join(f"{r[k]:>10}" for k in keys) + f"{pct:>9.2f}")


if __name__ == "__main__":
    raise SystemExit(main())
