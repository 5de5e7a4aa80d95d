"""`tightrope-companion` and `python -m companion`: the command line (README.md lists it)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .games import DEFAULT, GAMES
from .record import RecordError, read_game_record


def _fail(message: str) -> int:
    print(f"tightrope-companion: {message}", file=sys.stderr)
    return 2


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        record = read_game_record(args.record)
        game = record.game.fold(record.events)
    except RecordError as err:
        return _fail(f"{args.record}: {err}")
    if args.json:
        print(json.dumps(record.game.replay_json(game)))
    else:
        print(record.game.text_sheet(game))
    return 0


def _vision(name: str) -> Callable[..., int]:
    """Vision is imported only when a vision command runs (it pulls in OpenCV)."""
    from vision import cli as vision_cli

    return getattr(vision_cli, name)


def _card_names(game: str) -> tuple[str, ...] | None:
    """The game's card names as vision takes them (None: Tightrope's, vision's own)."""
    from .games import game_named

    return None if game == DEFAULT else tuple(game_named(game).deck)


def cmd_recognize(args: argparse.Namespace) -> int:
    return _vision("recognize_main")(args.images, args.deck, args.json, _card_names(args.game))


def cmd_teach(args: argparse.Namespace) -> int:
    """`teach`: vision knows no game, so another game's card names are passed in from here."""
    return _vision("teach_main")(args.folder, args.out, args.add_corrections, args.deck,
                                 _card_names(args.game))


def cmd_capture(args: argparse.Namespace) -> int:
    """Record the camera's frames into a folder (a game night becomes test data)."""
    from .capture import capture

    try:
        return capture(Path(args.out), _config(args), args.source, args.fps, args.seconds)
    except ValueError as err:
        return _fail(str(err))


def eval_footage(argv: list[str]) -> int:
    """`eval --footage DIR --record GAME.jsonl`: footage through the companion, a person
    answering from the record; the tricks and cards scored against it."""
    from .evaluate import evaluate_footage, result_text

    ap = argparse.ArgumentParser(prog="tightrope-companion eval --footage",
                                 description=eval_footage.__doc__)
    ap.add_argument("--footage", required=True, help="a folder of frames or a video")
    ap.add_argument("--record", required=True, help="the game's (corrected) record")
    ap.add_argument("--zones", help="the zones file (default: DIR/zones.json)")
    ap.add_argument("--deck", help="a deck file from `teach` (default: zero-shot)")
    ap.add_argument("--fps", type=float, help="frames a second of a folder (default 10)")
    ap.add_argument("--weaken", action="store_true",
                    help="read with a reader made worse on purpose (what the referee does then)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        result = evaluate_footage(Path(args.footage), Path(args.record),
                                  Path(args.zones) if args.zones else None,
                                  Path(args.deck) if args.deck else None, args.fps,
                                  args.weaken)
    except (ValueError, OSError) as err:
        return _fail(f"eval: {err}")
    print(json.dumps(result.to_json()) if args.json else result_text(result))
    return 0 if result.wrong == 0 else 1


def join_text(urls: list[str], qr: bool) -> str:
    """What `run` prints for the players: the scoresheet's addresses and, on a terminal, a QR
    code of the first one (phones scan it; the Setup page shows the same code)."""
    from web.addresses import local_only, qr_text

    lines = [f"scoresheet on {urls[0]}"] + [f"          or {url}" for url in urls[1:]]
    if local_only(urls[0]):
        lines.append("(this machine only: --host 0.0.0.0 or web.host serves the phones)")
    elif qr:
        lines.append(qr_text(urls[0]).rstrip("\n"))
    return "\n".join(lines)


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def _companion(options: Any) -> int:
    """Start the companion, wait for the end (or Ctrl-C / SIGTERM), stop cleanly."""
    from .service import Companion

    companion = Companion(options)
    signal.signal(signal.SIGTERM, _interrupt)  # systemd stops us with SIGTERM: stop cleanly
    try:
        companion.start()
        if options.web:
            print(join_text(companion.urls, qr=sys.stdout.isatty()), flush=True)
        companion.wait()
    except KeyboardInterrupt:
        pass
    finally:
        companion.stop()
    return 0


def _options(args: argparse.Namespace, config: Any) -> Any:
    from .service import Options

    no_web = getattr(args, "no_web", False)
    speed = args.speed if args.speed is not None else (0.0 if no_web else 1.0)
    return Options(
        config=config,
        source=getattr(args, "source", None),
        setup=Path(args.setup) if getattr(args, "setup", None) else None,
        game=getattr(args, "game", None) or DEFAULT,
        zones=Path(args.zones) if getattr(args, "zones", None) else None,
        deck=Path(args.deck) if getattr(args, "deck", None) else None,
        record=Path(args.record) if getattr(args, "record", None) else None,
        web=not no_web,
        port=args.port,
        host=getattr(args, "host", None),
        exit_at_end=args.exit_at_end,
        fps=getattr(args, "fps", None),
        realtime=speed > 0,
        speed=speed or 1.0,
    )


def _config(args: argparse.Namespace) -> Any:
    from dataclasses import replace

    from .config import load_config

    config = load_config(args.config)
    if args.data_dir:
        config = replace(config, data_dir=Path(args.data_dir))
    return config


def cmd_run(args: argparse.Namespace) -> int:
    try:
        return _companion(_options(args, _config(args)))
    except ValueError as err:  # every typed error of ours: config, setup, source, pins, zones
        return _fail(str(err))


def cmd_demo(args: argparse.Namespace) -> int:
    from . import demo

    try:
        return demo.run_demo(args, _config(args), _options, _interrupt)
    except ValueError as err:
        return _fail(str(err))


def _add_service_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", help="the TOML config file (docs/config.md)")
    p.add_argument("--data-dir", help="where the database, photos and PIN live")
    p.add_argument("--port", type=int, help="web port (default from the config: 8000)")
    p.add_argument("--no-web", action="store_true", help="no web scoresheet")
    p.add_argument("--exit-at-end", action="store_true", help="stop when the footage ends")
    p.add_argument("--speed", type=float,
                   help="play recorded footage at this speed (0 = as fast as possible; "
                        "default 1, or 0 with --no-web; the solo demo: 1)")


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

    p = sub.add_parser("demo", help="a simulated game through the whole companion")
    p.add_argument("--game", choices=GAMES, default=DEFAULT,
                   help="the game to play: tightrope (the default), attacke or solo")
    p.add_argument("--players", type=int, help="how many (default 3; solo: 1)")
    p.add_argument("--seed", type=int, default=1, help="which random game (and footage)")
    p.add_argument("--rounds", type=int, help="stop after this many rounds (default: all)")
    p.add_argument("--tactical", action="store_true", help="variant: cards 1..9N only")
    p.add_argument("--simultaneous", action="store_true", help="variant: all reveal at once")
    p.add_argument("--concealed", action="store_true",
                   help="Attacke's variant: cards laid face down, worth 1 each")
    p.add_argument("--persevering", action="store_true",
                   help="Attacke's variant for persevering players: five chips to win")
    p.add_argument("--host", help="the address to serve the web page on (default 127.0.0.1: "
                                  "this machine only; 0.0.0.0 for the whole network)")
    p.add_argument("--no-person", action="store_true",
                   help="leave the camera's questions to you (on the web page) instead of a "
                        "person who knows the game's record")
    _add_service_flags(p)
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("run", help="the companion at a real table")
    p.add_argument("--source", help="a folder of frames, a video file, opencv:N or picamera2")
    p.add_argument("--fps", type=float, help="frames a second of a folder source (default 10)")
    p.add_argument("--setup", help="a JSON game_started event: start (or resume) this game")
    p.add_argument("--game", choices=GAMES, default=DEFAULT,
                   help="the game --setup starts (default: tightrope)")
    p.add_argument("--zones", help="the zones file (docs/config.md)")
    p.add_argument("--deck", help="a deck file from `teach` (default: the zero-shot reader)")
    p.add_argument("--record", help="write the game record here as it grows")
    _add_service_flags(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("recognize", help="read the cards in frames")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--deck", help="a deck file from `teach` (default: the zero-shot reader)")
    p.add_argument("--game", choices=GAMES, default=DEFAULT,
                   help="whose cards the zero-shot reader reads without --deck (default "
                        "tightrope)")
    p.add_argument("--json", action="store_true", help="one JSON object a line")
    p.set_defaults(func=cmd_recognize)

    p = sub.add_parser("teach", help="learn a deck from one photo per card")
    p.add_argument("folder", nargs="?", help="the teach folder: number-17.png, scoring-4.png... "
                                             "(another game's: card-<name>.png)")
    p.add_argument("--game", choices=GAMES, default="tightrope",
                   help="whose deck it is (default tightrope); another game's folder holds "
                        "card-<name>.png for each of its cards (docs/teach.md)")
    p.add_argument("--out", required=True, help="the deck file to write")
    p.add_argument("--add-corrections", metavar="DIR",
                   help="add the crops people named at the table (<data dir>/corrections)")
    p.add_argument("--deck", help="with --add-corrections and no folder: the deck to add to "
                                  "(default: the zero-shot reader); alone: the deck to fit again "
                                  "from the examples it keeps (after an update of the reader)")
    p.set_defaults(func=cmd_teach)

    p = sub.add_parser("capture", help="record the camera's frames into a folder")
    p.add_argument("--out", required=True, help="the folder to write frame_000000.jpg... into")
    p.add_argument("--source", help="the camera (default from the config), or opencv:N")
    p.add_argument("--fps", type=float, default=10.0, help="frames a second (default 10)")
    p.add_argument("--seconds", type=float, help="stop after this long (default: Ctrl-C)")
    p.add_argument("--config", help="the TOML config file (docs/config.md)")
    p.add_argument("--data-dir", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_capture)

    # listed for --help only: main() hands `eval ...` to the evaluation as it is
    sub.add_parser("eval", help="measure the card reader: on a rendered labelled set, or on "
                   "footage of a game against its record (--footage DIR --record FILE; "
                   "eval --help: the options)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # FFmpeg's own lines ("moov atom not found") would break our one-line errors, which name
    # the file instead; set before OpenCV loads FFmpeg (OPENCV_FFMPEG_LOGLEVEL=32 shows them).
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")  # a missing webcam: our line, once
    if argv[:1] == ["eval"]:  # its options (and --help) belong to the evaluation
        if "--footage" in argv:
            return eval_footage(argv[1:])
        return _vision("eval_main")(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
