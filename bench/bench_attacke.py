"""Whole games of Attacke (or, with `--game solo`, of the solo game) through the real watcher and
referee: contests (missions) scored right and wrong, questions asked.

Run: .venv/bin/python -m bench.bench_attacke [--seeds 1-10] [--split test|train] [--game solo]
(results in docs/PERFORMANCE.md).

Each seed is a random game (Attacke: 2 to 6 players, the concealed variant on odd seeds), its
cards printed in a deck design of the simulator (`--split test`: typefaces and layouts kept out
of training, the headline; `train`: the kind the demo plays), on a table of the seed's. The
companion is taught that deck from one rendered photo a card (as a user teaches a real deck),
the footage is played frame by frame through the table watcher and the referee, and a person
who knows the record answers every question (the game's `person` module). Every question is
checked to offer the true answer. `--zero-shot` reads with the bundled games reader instead, nothing
taught.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.evaluate_attacke import play_footage
from companion.evaluate_solo import play_footage as play_solo
from companion.games import game_named

TABLES = ("wood_light", "wood_dark", "cloth_white", "checked", "felt", "floral")


def bench_game(seed: int) -> tuple[int, bool]:
    """Players and variant of the bench's seed: every count comes up, and the concealed one."""
    return (2, 3, 4, 5, 6)[seed % 5], seed % 2 == 1


def render(game: str, seed: int, split: str, root: Path) -> tuple[list[Any], Path]:
    """The seed's game and its footage, in a design of `split`, with the deck taught."""
    from companion.footage import solo_areas, table_actions
    from vision.sim.faces import random_deck_design
    from vision.sim.footage import render_footage
    from vision.sim.photos import teach_folder
    from vision.sim.scene import Conditions
    from vision.teach import teach, up_to_date

    spec = game_named(game)
    if game == "solo":
        players, events = 1, list(spec.random_game(seed, 1))
    else:
        players, concealed = bench_game(seed)
        events = list(spec.random_game(seed, players, concealed=concealed))
    design = random_deck_design(game, np.random.default_rng([seed, 61]), split)
    cond = Conditions(table=TABLES[seed % len(TABLES)], light_gradient=0.35, noise=2.0,
                      glare=1, shadow=True)
    out = root / f"{split}-{seed}"
    render_footage(table_actions(events, design), players, out, seed=seed, cond=cond,
                   hold_s=0.8, hand_s=0.8, areas=solo_areas() if game == "solo" else None)
    deck = out / "deck.npz"
    if not up_to_date(deck, spec.deck):
        with tempfile.TemporaryDirectory() as photos:
            teach_folder(Path(photos), design)
            teach(photos, deck, names=spec.deck)
    return events, out


def main(game: str, seeds: list[int], split: str, root: Path, zero_shot: bool = False
         ) -> dict[str, Any]:
    from vision.read import Reader

    play = play_solo if game == "solo" else play_footage
    unit = "missions" if game == "solo" else "contests"
    cv2.setNumThreads(1)
    games = {}
    for seed in seeds:
        events, frames = render(game, seed, split, root)
        reader = (Reader.zero_shot(game_named(game).deck) if zero_shot else
                  Reader.from_deck(frames / "deck.npz"))
        games[seed] = play(events, frames, reader)
        print(f"bench_attacke: {game} {split} seed {seed}: {json.dumps(games[seed])}",
              file=sys.stderr, flush=True)
    total = {k: sum(g[k] for g in games.values()) for k in
             (unit, "right", "wrong", "not_scored", "questions", "questions_offering_the_truth")}
    return {"games": games, "summary": total}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--game", choices=("attacke", "solo"), default="attacke")
    ap.add_argument("--seeds", default="1-10")
    ap.add_argument("--split", choices=("test", "train"), default="test")
    ap.add_argument("--zero-shot", action="store_true",
                    help="read with the bundled games reader, nothing taught")
    ap.add_argument("--root", default=None, help="default var/bench-GAME")
    ap.add_argument("--out", default=None, help="default var/bench-GAME.json")
    a = ap.parse_args()
    lo, _, hi = a.seeds.partition("-")
    root = Path(a.root or f"var/bench-{a.game}")
    res = main(a.game, list(range(int(lo), int(hi or lo) + 1)), a.split, root, a.zero_shot)
    out = Path(a.out or f"var/bench-{a.game}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1))
    print(json.dumps(res["summary"], indent=1))
