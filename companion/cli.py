"""`tightrope-companion` and `python -m companion`: the command line (DESIGN.md interfaces)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from .gamelog import fold_record
from .record import RecordError, read_record
from .rules import Game
from .views import replay_json


def _fail(message: str) -> int:
    print(f"tightrope-companion: {message}", file=sys.stderr)
    return 2


def scoresheet_text(game: Game) -> str:
    """A plain scoresheet: rounds x players, struck scores in brackets, totals, winners."""
    names = game.setup.players
    width = max(6, *(len(n) for n in names))
    lines = ["round  " + " ".join(f"{n:>{width}}" for n in names)]
    for rnd in game.rounds:
        struck = {(seat, target) for r in game.rounds for seat, target in r.struck}
        cells = []
        for seat, score in enumerate(rnd.scores):
            text = f"[{score}]" if (seat, rnd.index) in struck else str(score)
            cells.append(f"{text:>{width}}")
        lines.append(f"{rnd.index + 1:>5}  " + " ".join(cells))
    lines.append("total  " + " ".join(f"{t:>{width}}" for t in game.totals()))
    if game.game_over:
        lines.append("winner: " + ", ".join(names[s] for s in game.winners()))
    else:
        lines.append(f"(in play: round {game.round_index + 1}, trick {game.trick_index + 1})")
    return "\n".join(lines)


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        game = fold_record(read_record(args.record)).game
    except RecordError as err:
        return _fail(f"{args.record}: {err}")
    if args.json:
        print(json.dumps(replay_json(game)))
    else:
        print(scoresheet_text(game))
    return 0


def _vision(name: str) -> Callable[..., int]:
    """Vision is imported only when a vision command runs (it pulls in OpenCV)."""
    from vision import cli as vision_cli

    return getattr(vision_cli, name)


def cmd_recognize(args: argparse.Namespace) -> int:
    return _vision("recognize_main")(args.images, args.deck, args.json)


def cmd_teach(args: argparse.Namespace) -> int:
    return _vision("teach_main")(args.folder, args.out)


def cmd_eval(args: argparse.Namespace) -> int:
    return _vision("eval_main")(args.rest)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tightrope-companion",
        description="The Tightrope table companion: camera, rules, LEDs and a web scoresheet.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("replay", help="score a game record (JSON Lines)")
    p.add_argument("record", help="the game record, RECORD.jsonl")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("recognize", help="read the cards in frames")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--deck", help="a deck file from `teach` (default: the zero-shot reader)")
    p.add_argument("--json", action="store_true", help="one JSON object a line")
    p.set_defaults(func=cmd_recognize)

    p = sub.add_parser("teach", help="learn a deck from one photo per card")
    p.add_argument("folder")
    p.add_argument("--out", required=True, help="the deck file to write")
    p.set_defaults(func=cmd_teach)

    p = sub.add_parser("eval", help="measure the card reader on a rendered labelled set")
    p.add_argument("rest", nargs=argparse.REMAINDER, help="options of the evaluation")
    p.set_defaults(func=cmd_eval)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
