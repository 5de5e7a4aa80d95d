"""`tightrope-companion demo`: a whole simulated game through the real pipeline.

A random legal game is drawn, its table footage rendered by the simulator (cached), and the
footage played to the companion as if it came from the camera — with mock GPIO and the web
scoresheet. At the end the companion's scoresheet is compared with the replay of the game.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from .footage import render_game
from .gamelog import fold_record
from .randgame import random_game
from .record import event_to_json, read_record
from .rules import Game, Variant
from .views import replay_json


def run_demo(args: argparse.Namespace, config: Any, make_options: Callable) -> int:
    from .cli import _interrupt
    from .service import Companion

    variant = Variant(args.tactical, args.simultaneous)
    events = random_game(random.Random(args.seed), args.players, variant, rounds=args.rounds)
    game = Game.replay(events)
    print(f"demo: {args.players} players ({', '.join(game.setup.players)}), "
          f"{len(game.rounds)} rounds, {len(events) - 1} events; rendering the table footage "
          "(cached after the first time)...", flush=True)
    began = time.monotonic()
    footage = render_game(events, seed=args.seed)
    print(f"demo: footage ready in {footage} ({time.monotonic() - began:.0f} s)", flush=True)

    if not args.data_dir:  # a fresh store each demo: the demo never mixes with real games
        config = replace(config, data_dir=Path(tempfile.mkdtemp(prefix="tightrope-demo-")))
    setup_path = config.data_dir / "demo-setup.json"
    setup_path.parent.mkdir(parents=True, exist_ok=True)
    setup_path.write_text(json.dumps(event_to_json(events[0])))
    record = config.data_dir / "demo-record.jsonl"
    args.source, args.setup, args.zones, args.record = (
        str(footage), str(setup_path), str(footage / "zones.json"), str(record))
    args.deck = None
    options = replace(make_options(args, config), exit_at_end=True)
    companion = Companion(options)
    signal.signal(signal.SIGTERM, _interrupt)
    code = 0
    try:
        companion.start()
        if options.web:
            print(f"demo: the scoresheet is on {companion.url}", flush=True)
        companion.wait()  # until the footage ends and every frame was handled
        code = _report(record, game)
        if not args.exit_at_end and options.web:
            print("demo: still serving the scoresheet; Ctrl-C to stop", flush=True)
            while True:
                time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        companion.stop()
    return code


def _report(record: Path, game: Game) -> int:
    got = replay_json(fold_record(read_record(record)).game)
    if got == replay_json(game):
        print("demo: the companion's scoresheet equals the replay of the game's record "
              f"({len(got['rounds'])} rounds)", flush=True)
        return 0
    done = sum(len(r["tricks"]) for r in got["rounds"])
    print(f"demo: the companion scored {done} tricks, and they differ from the game's record "
          f"(see {record})", file=sys.stderr)
    return 1
