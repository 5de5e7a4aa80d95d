"""Whole games through the real pipeline: tricks scored right and wrong, questions asked.

Run: .venv/bin/python -m bench.bench_games [--seeds 1-20] [--weak | --both] [--design unseen
[--zero-shot] [--deck-seed N] [--table NAME]] (results in docs/PERFORMANCE.md).

Each seed is a demo game (`demo --seed S`: 3, 4 or 5 players, both variants mixed), its footage
rendered as the demo renders it (cached), played frame by frame through the table watcher and
the referee, with a person who answers every question from the game's record
(companion.games.tightrope.person). `--weak` reads with a deliberately weakened reader: it
abstains on 10 % of reads, on another 10 % its top choice is wrong and unsure, and on 2 % it
names, sure, a card it read before (a card already played). Every question is checked to
offer the true card.
`--design unseen` prints the deck in a design of the test split (fonts, layouts never trained
on) on a table never trained on, taught from rendered photos first (`--zero-shot`: read as it
comes, nothing taught). `--deck-seed` draws another such design (99 unless said) and `--table`
lays it on another table (dark wood unless said).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.evaluate import WeakenedReader, run_footage
from companion.footage import render_game
from companion.games.tightrope.randgame import random_game
from companion.games.tightrope.rules import Game, Variant


def demo_game(seed: int) -> tuple[int, Variant]:
    """Players and variant of the sweep's seed: every count and variant comes up."""
    players = (3, 4, 5)[seed % 3]
    return players, Variant(tactical=seed % 4 in (2, 3), simultaneous=seed % 2 == 1)


def play(frames: Path, events: list, reader: Any, fps: float = 10.0) -> dict:
    """One game's footage through a watcher and a referee of their own."""
    from vision.sources import FolderSource
    from vision.watch import TableWatcher
    from vision.zones import load_zones

    watcher = TableWatcher(load_zones(frames / "zones.json"), reader, fps=fps)
    result = run_footage(FolderSource(frames, fps), watcher, Game.replay(events))
    return {**result.to_json(), "not_scored": result.missing}


def main(seeds: list[int], readers: list[str], design: str, unseen: Unseen | None = None) -> dict:
    """Each seed's game rendered once and played with each of `readers` ("plain", "weak")."""
    from vision.read import Reader

    cv2.setNumThreads(1)
    edition, reader = None, Reader.zero_shot()
    unseen = unseen or Unseen()
    if design == "unseen":
        edition = _unseen_design(unseen.deck_seed)
        if not unseen.zero_shot:
            reader = _taught(edition, unseen.folder)
    results: dict[str, dict] = {name: {} for name in readers}
    for seed in seeds:
        players, variant = demo_game(seed)
        events = random_game(random.Random(seed), players, variant)
        began = time.perf_counter()
        if edition is None:
            frames = render_game(events, seed=seed)
        else:
            frames = _render_unseen(events, seed, edition, unseen)
        rendered = time.perf_counter() - began
        for name in readers:
            use = WeakenedReader(reader, seed) if name == "weak" else reader
            r = play(frames, events, use)
            r.update(players=players, tactical=variant.tactical,
                     simultaneous=variant.simultaneous, render_s=round(rendered, 1))
            results[name][seed] = r
            print(f"bench_games: {name} seed {seed}: {json.dumps(r)}", file=sys.stderr,
                  flush=True)
    return {name: {"games": games, "summary": _summary(games)}
            for name, games in results.items()}


def _summary(games: dict) -> dict:
    tricks = sum(r["tricks"] for r in games.values())
    summary = {k: sum(r[k] for r in games.values()) for k in
               ("tricks", "right", "wrong", "not_scored", "questions",
                "questions_offering_the_truth", "frames")}
    summary["questions_per_50_tricks"] = round(50 * summary["questions"] / max(1, tricks), 2)
    return summary


@dataclass(frozen=True)
class Unseen:
    """Which unseen design, on which table, read how (`--design unseen`)."""

    deck_seed: int = 99
    table: str = "wood_dark"
    zero_shot: bool = False

    @property
    def folder(self) -> Path:
        """Where its photos, deck and footage are kept (the first design's as it always was)."""
        default = (self.deck_seed, self.table) == (Unseen.deck_seed, Unseen.table)
        return Path("var/bench-games") / ("" if default else f"d{self.deck_seed}-{self.table}")


def _unseen_design(deck_seed: int) -> Any:
    """A deck design of the test split: fonts and layouts never trained on."""
    from vision.sim.designs import random_design

    return random_design(np.random.default_rng(deck_seed), "test")


def _taught(design: Any, folder: Path) -> Any:
    """The reader of a deck taught from rendered photos of `design`."""
    from vision.deck import TIGHTROPE
    from vision.evaluate import teach_photos
    from vision.read import Reader
    from vision.teach import teach, up_to_date

    deck = folder / "unseen" / "deck.npz"
    if not up_to_date(deck, TIGHTROPE):
        teach(teach_photos(deck.parent / "teach", design), deck)
    return Reader.from_deck(deck)


def _render_unseen(events: list, seed: int, design: Any, unseen: Unseen) -> Path:
    from companion.footage import table_actions
    from vision.sim.footage import render_footage
    from vision.sim.scene import Conditions

    cond = Conditions(table=unseen.table, light_gradient=0.35, noise=2.0, glare=1, shadow=True)
    out = unseen.folder / f"unseen-{seed}"
    return render_footage(table_actions(events), events[0].n, out, seed=seed, cond=cond,
                          hold_s=0.8, hand_s=0.8, style=design)


def _seeds(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", default="1-20")
    ap.add_argument("--weak", action="store_true", help="the weakened reader only")
    ap.add_argument("--both", action="store_true",
                    help="each game played twice, with the reader and the weakened one")
    ap.add_argument("--design", choices=("own", "unseen"), default="own")
    ap.add_argument("--zero-shot", action="store_true",
                    help="with --design unseen: read the deck untaught")
    ap.add_argument("--deck-seed", type=int, default=Unseen.deck_seed,
                    help="with --design unseen: which design of the test split")
    ap.add_argument("--table", default=Unseen.table, help="with --design unseen: the table")
    ap.add_argument("--out", default="var/bench-games.json")
    a = ap.parse_args()
    names = ["plain", "weak"] if a.both else ["weak"] if a.weak else ["plain"]
    res = main(_seeds(a.seeds), names, a.design, Unseen(a.deck_seed, a.table, a.zero_shot))
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1))
    print(json.dumps({name: r["summary"] for name, r in res.items()}, indent=1))
