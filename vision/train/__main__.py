"""`python -m vision.train`: render the data, train the networks, export them into vision/models.

The networks: the reader (Tightrope's cards), the games reader (Attacke's cards and playing
cards, fine-tuned from the reader's weights) and the detector (cards of every deck).

Needs the `train` extra (`pip install -e '.[train]'`) and the fonts and photographs of
`python -m vision.train.setup`. On this project's 2-core development machine (no GPU) it takes
about 5 hours: rendering about 1 h 40 min, the reader 90 min, the games reader 15 min, the
detector 40 min (docs/training.md).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path

from vision.network import MODEL_DIR
from vision.read import GAMES_NETWORK
from vision.sim.faces import DECKS
from vision.train.data import SetSpec, build

EVERY_DECK = ("tightrope", "attacke", "solo")
OTHER_DECKS = ("attacke", "solo")
SETS = {
    "reader-train": SetSpec("reader", "train", 22000, 1),
    "reader-train-2": SetSpec("reader", "train", 22000, 9),  # twice the designs: 44,000 decks
    # half as many crops of no card as of cards: boxes half on a card among them (_reject_boxes)
    "reader-halves": SetSpec("reader", "train", 8000, 10, no_cards=0.5),
    "reader-calib": SetSpec("reader", "calib", 2000, 2),
    "detector-train": SetSpec("detector", "train", 24000, 3),
    "detector-calib": SetSpec("detector", "calib", 1000, 4),
    # every game's deck, mostly fanned as Attacke and solo games lay them
    "detector-games": SetSpec("detector", "train", 8000, 5, EVERY_DECK),
    "detector-games-calib": SetSpec("detector", "calib", 500, 6, EVERY_DECK),
    # the other games' cards, for the reader that reads them (`reader-games`)
    "reader-games": SetSpec("reader", "train", 9000, 7, OTHER_DECKS),
    "reader-games-calib": SetSpec("reader", "calib", 1500, 8, OTHER_DECKS),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train", description=__doc__)
    ap.add_argument("--data", default="var/train-data", help="where the rendered sets go")
    ap.add_argument("--work", default="var/models", help="where the trained networks go")
    ap.add_argument("--install", action="store_true",
                    help="copy the trained networks into vision/models (the bundled ones)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="render this fraction of each set (0.05: a quick trial run)")
    ap.add_argument("--reader-epochs", type=int, default=5, help="0: keep the reader as it is")
    ap.add_argument("--games-reader-epochs", type=int, default=6,
                    help="epochs of the reader of other games' cards, fine-tuned from the "
                         "reader's weights (0: keep it as it is)")
    ap.add_argument("--detector-epochs", type=int, default=12, help="0: keep the detector")
    ap.add_argument("--workers", type=int, default=2, help="rendering processes")
    ap.add_argument("--reader-from", type=Path, default=None, metavar="PT|ONNX",
                    help="fine-tune the reader from these weights (a reader.pt, or a reader's "
                         "ONNX export such as the shipped vision/models/reader.onnx) over all "
                         "three of its sets at half the learning rate, instead of "
                         "training it from scratch")
    ap.add_argument("--detector-from", type=Path, default=None, metavar="PT|ONNX",
                    help="fine-tune the detector from these weights (a detector.pt, or a "
                         "detector's ONNX export such as the shipped vision/models/detector.onnx) "
                         "at a tenth of the learning rate, instead of training it from scratch")
    args = ap.parse_args(argv)
    from vision.train import detector, reader
    from vision.train.exported import detector_start_weights, start_weights

    data, work = Path(args.data), Path(args.work)
    began = time.time()
    for name in needed(args):
        spec = SETS[name]
        build(replace(spec, scenes=max(1, int(spec.scenes * args.scale))), data / name,
              args.workers)
        print(f"train: {name} rendered ({time.time() - began:.0f} s)", file=sys.stderr)
    if args.reader_epochs and args.reader_from:
        reader.train([data / "reader-train", data / "reader-train-2", data / "reader-halves"],
                     data / "reader-calib", work, args.reader_epochs,
                     start=start_weights(args.reader_from, data / "reader-train", work),
                     lr=1e-3)
    elif args.reader_epochs:
        reader.train([data / "reader-train", data / "reader-train-2"], data / "reader-calib",
                     work, args.reader_epochs)
        # then an epoch over every set at a quarter of the rate, with the crops half on a card
        # (as shipped on 27 Nov: docs/training.md)
        reader.train([data / "reader-train", data / "reader-train-2", data / "reader-halves"],
                     data / "reader-calib", work, 1, start=work / "reader.pt", lr=5e-4)
    if args.games_reader_epochs:
        reader.train(data / "reader-games", data / "reader-games-calib", work,
                     args.games_reader_epochs, name=GAMES_NETWORK, start=work / "reader.pt",
                     lr=1e-3, recolour=DECKS["solo"])
    if args.detector_epochs:
        detector.train([data / "detector-train", data / "detector-games"],
                       data / "detector-calib", work, args.detector_epochs,
                       start=args.detector_from and detector_start_weights(
                           args.detector_from, data / "detector-train", work),
                       lr=3e-4 if args.detector_from else 3e-3)
    print(f"train: done in {time.time() - began:.0f} s; networks in {work}", file=sys.stderr)
    if args.install:
        def reader_files(name: str) -> tuple[str, ...]:
            return (f"{name}.onnx", f"{name}.json", f"{name}-head.npz")

        for name in (*(reader_files("reader") if args.reader_epochs else ()),
                     *(reader_files(GAMES_NETWORK) if args.games_reader_epochs else ()),
                     *(("detector.onnx", "detector.json") if args.detector_epochs else ())):
            shutil.copy(work / name, MODEL_DIR / name)
        print(f"train: installed into {MODEL_DIR}", file=sys.stderr)
    return 0


def needed(args: argparse.Namespace) -> list[str]:
    """The sets the trainings asked for draw on (each network's training and calibration
    sets; the games reader starts from the reader's weights, not from its sets)."""
    names = []
    if args.reader_epochs:
        names += ["reader-train", "reader-train-2", "reader-halves", "reader-calib"]
    if args.games_reader_epochs:
        names += ["reader-games", "reader-games-calib"]
    if args.detector_epochs:
        names += ["detector-train", "detector-calib", "detector-games", "detector-games-calib"]
    return names


if __name__ == "__main__":
    raise SystemExit(main())
