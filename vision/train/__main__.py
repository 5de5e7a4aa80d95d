"""`python -m vision.train`: render the data, train both networks, export them into vision/models.

Needs the `train` extra (`pip install -e '.[train]'`) and the fonts and photographs of
`python -m vision.train.setup`. On this project's 2-core development machine (no GPU) it takes
about 3 hours: rendering 2 x 45 min, the reader 60 min, the detector 40 min (docs/training.md).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path

from vision.network import MODEL_DIR
from vision.train.data import SetSpec, build

EVERY_DECK = ("tightrope", "attacke", "solo")
SETS = {
    "reader-train": SetSpec("reader", "train", 22000, 1),
    "reader-calib": SetSpec("reader", "calib", 2000, 2),
    "detector-train": SetSpec("detector", "train", 24000, 3),
    "detector-calib": SetSpec("detector", "calib", 1000, 4),
    # every game's deck, mostly fanned as Attacke and solo games lay them
    "detector-games": SetSpec("detector", "train", 8000, 5, EVERY_DECK),
    "detector-games-calib": SetSpec("detector", "calib", 500, 6, EVERY_DECK),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train", description=__doc__)
    ap.add_argument("--data", default="var/train-data", help="where the rendered sets go")
    ap.add_argument("--work", default="var/models", help="where the trained networks go")
    ap.add_argument("--install", action="store_true",
                    help="copy the trained networks into vision/models (the bundled ones)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="render this fraction of each set (0.05: a quick trial run)")
    ap.add_argument("--reader-epochs", type=int, default=8, help="0: keep the reader as it is")
    ap.add_argument("--detector-epochs", type=int, default=12)
    ap.add_argument("--workers", type=int, default=2, help="rendering processes")
    ap.add_argument("--detector-from", type=Path, default=None, metavar="PT",
                    help="fine-tune the detector from these weights (a detector.pt) at a tenth "
                         "of the learning rate, instead of training it from scratch")
    args = ap.parse_args(argv)
    from vision.train import detector, reader

    data, work = Path(args.data), Path(args.work)
    began = time.time()
    for name, spec in SETS.items():
        build(replace(spec, scenes=max(1, int(spec.scenes * args.scale))), data / name,
              args.workers)
        print(f"train: {name} rendered ({time.time() - began:.0f} s)", file=sys.stderr)
    if args.reader_epochs:
        reader.train(data / "reader-train", data / "reader-calib", work, args.reader_epochs)
    detector.train([data / "detector-train", data / "detector-games"], data / "detector-calib",
                   work, args.detector_epochs, start=args.detector_from,
                   lr=3e-4 if args.detector_from else 3e-3)
    print(f"train: done in {time.time() - began:.0f} s; networks in {work}", file=sys.stderr)
    if args.install:
        reader_files = ("reader.onnx", "reader.json", "reader-head.npz")
        for name in (*(reader_files if args.reader_epochs else ()), "detector.onnx",
                     "detector.json"):
            shutil.copy(work / name, MODEL_DIR / name)
        print(f"train: installed into {MODEL_DIR}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
