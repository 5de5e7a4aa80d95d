"""Vision commands wired into `tightrope-companion`: recognize, teach, eval (labelled sets).

Errors are one line on stderr (or, for recognize, one JSON line per unreadable image), never a
traceback. `eval --footage` (a real game night against its record) needs the game and lives in
companion. Vision knows no game: `teach` for another game's deck is given its card names by the
caller (companion.cli passes `game_named(name).deck`); a deck file knows its names after that.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.cards import DEFAULT_STYLE
from vision.detect import Detector, FrameError
from vision.evaluate import as_json, evaluate, table_text, teach_photos
from vision.network import ModelError
from vision.read import Reader
from vision.recognize import as_json as card_json
from vision.recognize import look_at
from vision.teach import TeachError, add_corrections, progress_bar, refit, teach, up_to_date

if TYPE_CHECKING:
    from vision.sim.faces import AnyDesign
    from vision.sim.fonts import Split


def _reader(deck: str | None, names: tuple[str, ...] | None = None) -> Reader:
    """The deck's reader, else the bundled reader of the cards `names` (None: Tightrope's)."""
    if deck:
        return Reader.from_deck(deck)
    return Reader.zero_shot(names) if names is not None else Reader.zero_shot()


def recognize_main(images: list[str], deck: str | None, as_json_lines: bool,
                   names: tuple[str, ...] | None = None) -> int:
    """One line per image: JSON (`--json`) or a short human summary. `names`: another game's
    card names, read zero-shot where no deck is given."""
    try:
        reader, detector = _reader(deck, names), Detector()
    except ModelError as exc:
        print(f"recognize: {exc}", file=sys.stderr)
        return 2
    failed = False
    for path in images:
        frame = cv2.imread(path, cv2.IMREAD_COLOR) if Path(path).is_file() else None
        if frame is None:
            failed = True
            why = "no such file" if not Path(path).exists() else "not a readable image"
            print(json.dumps({"image": path, "error": why}) if as_json_lines
                  else f"{path}: error: {why}", flush=True)
            continue
        try:
            cards = [card_json(s, not reader.tightrope)
                     for s in look_at(frame, reader, detector)]
        except (FrameError, ValueError) as exc:
            failed = True
            print(json.dumps({"image": path, "error": str(exc)}) if as_json_lines
                  else f"{path}: error: {exc}", flush=True)
            continue
        if as_json_lines:
            print(json.dumps({"image": path, "cards": cards}), flush=True)
        else:
            said = [_human(c) for c in cards]
            print(f"{path}: {len(cards)} card(s): {', '.join(said) or '-'}", flush=True)
    return 1 if failed else 0


def _human(card: dict) -> str:
    if "label" in card:  # a deck of another game's cards
        return f"{card['label'] or 'unknown'} ({card['confidence']:.2f})"
    if card["kind"] == "unknown":
        return f"unknown ({card['confidence']:.2f})"
    colour = f" {card['colour']}" if "colour" in card else ""
    return f"{card['kind']} {card['value']}{colour} ({card['confidence']:.2f})"


def teach_main(folder: str | None, out: str, corrections: str | None = None,
               deck: str | None = None, names: tuple[str, ...] | None = None) -> int:
    """Learn a deck from one photo per card (and/or add the table's corrections to a deck; or,
    with a deck alone, fit it again from its examples); a progress bar on stderr. `names`:
    another game's card names (None: Tightrope's)."""
    try:
        if folder is not None:
            stats = teach(folder, out, progress=progress_bar(), names=names)
            if corrections is not None:
                stats = add_corrections(corrections, out, out, progress=progress_bar())
        elif corrections is not None:
            stats = add_corrections(corrections, out, deck, progress=progress_bar(),
                                    names=names)
        elif deck is not None:
            stats = refit(deck, out, progress=progress_bar())
        else:
            print("teach: give a teach folder, --add-corrections DIR, both, or --deck DECK to "
                  "fit a deck again", file=sys.stderr)
            return 2
    except (TeachError, ModelError) as exc:
        print(f"teach: {exc}", file=sys.stderr)
        return 2
    print(f"teach: wrote {out} (check crops: {stats['right']:.1%} read right, "
          f"{stats['wrong']:.2%} confidently wrong, abstain below {stats['threshold']:.2f}"
          + (f"; {stats['corrections']} corrections" if "corrections" in stats else "") + ")",
          file=sys.stderr)
    return 0


# --- eval: rendered labelled sets -----------------------------------------------------------


class EvalError(ValueError):
    """Bad eval arguments."""


DESIGNS = ("own", "editions", "train", "calib", "unseen")
UNSEEN_TABLES = ("wood_light", "wood_dark", "cloth_green", "felt", "cloth_white", "checked",
                 "floral", "photo_unseen")


def add_eval_args(ap: argparse.ArgumentParser) -> None:
    from vision.sim.faces import DECKS

    ap.add_argument("--set", dest="set_dir",
                    help="labelled set folder; rendered there if missing (default "
                         "var/vision-eval/<designs>-<frames>-<seed>)")
    ap.add_argument("--frames", type=int, default=300, help="frames to render (default 300)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--conditions", default="all", help="comma list of the set's conditions")
    ap.add_argument("--designs", choices=DESIGNS, default="own",
                    help="own: the simulator's own deck; editions: a random stroke-font edition "
                         "a frame; train: designs in typefaces and layouts the reader was "
                         "trained on; calib: typefaces it was not trained on but calibrated on "
                         "(where the taught reader's rules may be tuned); unseen: typefaces, "
                         "layouts and tables it never saw (never tuned on)")
    ap.add_argument("--design-count", type=int, default=6,
                    help="designs a train/unseen set cycles through (default 6)")
    ap.add_argument("--editions", action="store_true", help="the same as --designs editions")
    ap.add_argument("--deck", help="read with this deck file instead of zero-shot")
    ap.add_argument("--taught", action="store_true",
                    help="teach each design's deck from rendered photos first (cached)")
    ap.add_argument("--json", action="store_true", help="print the table as one JSON object")
    ap.add_argument("--game", choices=tuple(DECKS), default="tightrope",
                    help="whose deck the set prints (default tightrope); another game's deck "
                         "is printed in --designs train, calib or unseen, without the scoring "
                         "row")


def set_editions(args: argparse.Namespace) -> list[AnyDesign] | None:
    """The editions a set's frames are printed in (None: a random stroke-font one a frame)."""
    from vision.sim.faces import random_deck_design

    game = getattr(args, "game", "tightrope")
    if game != "tightrope":
        if args.designs not in ("train", "calib", "unseen"):
            raise EvalError(f"the {game} deck is printed in --designs train, calib or unseen")
        rng = np.random.default_rng([args.seed, 78])
        split: Split = {"unseen": "test", "calib": "calib"}.get(  # type: ignore[assignment]
            args.designs, "train")
        return [random_deck_design(game, rng, split) for _ in range(max(1, args.design_count))]
    if args.designs == "own":
        return [DEFAULT_STYLE]
    if args.designs == "editions":
        return None
    from vision.sim.designs import random_design

    rng = np.random.default_rng([args.seed, 77])
    splits: dict[str, Split] = {"unseen": "test", "calib": "calib"}
    return [random_design(rng, splits.get(args.designs, "train"))
            for _ in range(max(1, args.design_count))]


def load_set(args: argparse.Namespace) -> tuple[list[dict], list[AnyDesign] | None, Path]:
    """The labelled set's truth rows (rendering the set first when it is not there yet)."""
    from vision.sim.labelled import (
        EVERYDAY_TABLES,
        FOREIGN_CONDITIONS,
        HARD_CONDITIONS,
        UNSEEN_CONDITIONS,
        load_labelled_set,
        make_labelled_set,
    )
    from vision.sim.scene import SimError

    if args.editions:
        args.designs = "editions"
    if args.frames < 1:
        raise EvalError("--frames must be >= 1")
    game = getattr(args, "game", "tightrope")
    default = (FOREIGN_CONDITIONS if game != "tightrope" else UNSEEN_CONDITIONS
               if args.designs in ("train", "calib", "unseen") else HARD_CONDITIONS)
    names = list(default) if args.conditions == "all" else args.conditions.split(",")
    bad = [n for n in names if n not in HARD_CONDITIONS]
    if bad:
        raise EvalError(f"unknown condition {bad[0]!r} (known: {', '.join(HARD_CONDITIONS)})")
    tag = f"{args.designs}-{args.frames}-{args.seed}"
    if game != "tightrope":
        tag = f"{game}-{tag}"
    if args.conditions != "all":
        tag += "-" + "+".join(names)
    folder = Path(args.set_dir or f"var/vision-eval/{tag}")
    editions = set_editions(args)
    tables = UNSEEN_TABLES if args.designs == "unseen" else EVERYDAY_TABLES
    try:  # returns at once when the folder holds this very set (a digest), else renders it
        make_labelled_set(folder, args.frames, seed=args.seed, conditions=names, style=editions,
                          tables=tables,
                          progress=lambda i, n: progress_bar()(f"render {folder}", i, n))
        return load_labelled_set(folder), editions, folder
    except SimError as exc:
        raise EvalError(str(exc)) from exc


def taught_readers(editions: list[AnyDesign], folder: Path) -> list[Reader]:
    """A reader taught each edition's deck from rendered photos (decks cached in the set)."""
    from vision.sim.faces import DECKS, game_of

    readers = []
    for i, edition in enumerate(editions):
        deck = folder / f"deck-{i}.npz"
        names = DECKS[game_of(edition)]
        if not up_to_date(deck, names):
            teach(teach_photos(folder / f"teach-{i}", edition), deck, progress=progress_bar(),
                  names=names)
        readers.append(Reader.from_deck(deck))
    return readers


def run_eval(args: argparse.Namespace) -> int:
    from vision.sim.faces import DECKS

    rows, editions, folder = load_set(args)
    if args.taught:
        if editions is None:
            raise EvalError("--taught needs one deck per design: not with --designs editions")
        readers = taught_readers(editions, folder)
        label = f"taught ({len(readers)} decks from rendered photos)"
    else:
        game = getattr(args, "game", "tightrope")
        reader = _reader(args.deck, None if game == "tightrope" else DECKS[game])
        readers = [reader]
        label = "deck " + args.deck if args.deck else "zero-shot"
    result = evaluate(rows, lambda e: readers[e % len(readers)],
                      progress=lambda i, n: progress_bar()("eval", i, n) if i % 10 == 0
                      or i == n else None)
    label += f"; designs {args.designs}"
    if getattr(args, "game", "tightrope") != "tightrope":
        label += f"; {args.game} deck"
    print(json.dumps(as_json(result, label)) if args.json else table_text(result, label))
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
    except (EvalError, ModelError, TeachError, ValueError) as exc:
        print(f"eval: {exc}", file=sys.stderr)
        return 2
