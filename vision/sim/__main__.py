"""Command line for the simulator.

  python -m vision.sim preview OUT_DIR [--seed S] [--size WxH]     one frame per hard condition
  python -m vision.sim labelled OUT_DIR [--frames N] [--seed S] [--conditions a,b] [--random-style]
  python -m vision.sim footage OUT_DIR [--seats N] [--tricks T] [--seed S]   a scripted demo round
  python -m vision.sim faces OUT_DIR [--seed S] [--split train|calib|test]    every deck's faces
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.cards import DEFAULT_STYLE, CardId
from vision.sim.faces import DECKS, contact_sheet, printed_deck, random_deck_design
from vision.sim.fonts import SPLITS, FontError, Split
from vision.sim.footage import Action, ClearRound, ClearTrick, Place, Reveal, render_footage
from vision.sim.labelled import HARD_CONDITIONS, condition, make_labelled_set
from vision.sim.scene import Conditions, SimError, random_scene, render_frame


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1280x720, got {text!r}") from None
    return w, h


def preview(out: Path, seed: int, size: tuple[int, int]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for i, name in enumerate(HARD_CONDITIONS):
        rng = np.random.default_rng([seed, i])
        cond, args = condition(name, rng)
        placements = random_scene(rng, int(rng.integers(6, 10)), size, **args)
        img, _ = render_frame(placements, cond, size, seed=seed + i)
        cv2.imwrite(str(out / f"{name}.png"), img)
        print(out / f"{name}.png")


def faces(out: Path, seed: int, split: Split) -> None:
    """A random design of each deck, for a person to look at: all its faces (`<game>.png`), the
    same at the camera's scale, 80 px wide (`<game>-camera.png`), and twelve of them lying on a
    table (`<game>-table.png`)."""
    out.mkdir(parents=True, exist_ok=True)
    for i, game in enumerate(DECKS):
        rng = np.random.default_rng([seed, i])
        design = random_deck_design(game, rng, split)
        placements = random_scene(rng, 12, cards=printed_deck(design), width_range=(76, 86))
        table, _ = render_frame(placements, Conditions(light_gradient=0.3, noise=1.5),
                                seed=seed + i)
        for name, img in ((game, contact_sheet(design)), (f"{game}-table", table),
                          (f"{game}-camera", contact_sheet(design, card_w=80))):
            cv2.imwrite(str(out / f"{name}.png"), img)
            print(out / f"{name}.png")


def demo_actions(n_seats: int, tricks: int, seed: int) -> list[Action]:
    """A plausible (not rule-checked) round: reveals incl. a zero, one card per seat per trick."""
    rng = np.random.default_rng(seed)
    scoring = [CardId("scoring", v) for v in rng.permutation(np.arange(1, 10))]
    numbers = [CardId("number", int(v)) for v in rng.permutation(np.arange(1, 51))]
    actions: list[Action] = []
    for t in range(tricks):
        if t == 1:
            actions.append(Reveal(CardId("scoring", 0, "blue")))
        actions.append(Reveal(scoring[t % 9]))
        for k in range(n_seats):
            actions.append(Place((t + k) % n_seats, numbers.pop()))
        actions.append(ClearTrick())
    actions.append(ClearRound())
    return actions


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.sim", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("preview")
    p.add_argument("out", type=Path)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--size", type=_size, default=(1280, 720))
    p = sub.add_parser("labelled")
    p.add_argument("out", type=Path)
    p.add_argument("--frames", type=int, default=250)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--size", type=_size, default=(1280, 720))
    p.add_argument("--conditions", default=",".join(HARD_CONDITIONS))
    p.add_argument("--random-style", action="store_true", help="unseen card editions")
    p = sub.add_parser("footage")
    p.add_argument("out", type=Path)
    p.add_argument("--seats", type=int, default=3)
    p.add_argument("--tricks", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p = sub.add_parser("faces")
    p.add_argument("out", type=Path)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--split", choices=SPLITS, default="train",
                   help="the fonts' split (test: held-out layouts too)")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "preview":
            preview(a.out, a.seed, a.size)
        elif a.cmd == "faces":
            faces(a.out, a.seed, a.split)
        elif a.cmd == "labelled":
            def bar(i: int, n: int) -> None:
                sys.stderr.write(f"\rrendering {i}/{n}")
                if i == n:
                    sys.stderr.write("\n")

            make_labelled_set(a.out, a.frames, a.seed, a.conditions.split(","), size=a.size,
                              style=None if a.random_style else DEFAULT_STYLE, progress=bar)
            print(a.out / "truth.jsonl")
        else:
            render_footage(demo_actions(a.seats, a.tricks, a.seed), a.seats, a.out, seed=a.seed)
            print(a.out)
    except (SimError, FontError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
