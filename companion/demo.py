"""`tightrope-companion demo`: a whole simulated game through the real pipeline.

A random legal game is drawn, its table footage rendered by the simulator (cached: the last few
games are kept), and the footage played to the companion as if it came from the camera, with mock
GPIO and the web scoresheet on this machine only (127.0.0.1, unless --host says otherwise). Each
trick is printed as it is scored. Should the camera be unsure, a person who knows the game's record
answers the question after a moment (as a player would on the web page; --no-person leaves it to
you). At the end the companion's scoresheet is compared with the replay of the game.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from .footage import footage_folder, is_rendered, render_game, trim_cache
from .games.tightrope.events import event_to_json
from .games.tightrope.log import fold_record
from .games.tightrope.randgame import random_game
from .games.tightrope.rules import Game, Trick, Variant
from .games.tightrope.views import replay_json
from .keep import Applied, Notice
from .record import read_record
from .service import check_port

PERSON_WAIT_S = 2.0  # the demo's person answers a question after this long (time to look)


def run_demo(args: argparse.Namespace, config: Any, make_options: Callable,
             interrupt: Callable[..., None]) -> int:
    from vision.teach import progress_bar

    from .service import Companion

    args.host = getattr(args, "host", None) or "127.0.0.1"
    if not args.no_web:  # before minutes of rendering, not after
        check_port(args.host, args.port or config.port)
    variant = Variant(args.tactical, args.simultaneous)
    events = random_game(random.Random(args.seed), args.players, variant, rounds=args.rounds)
    game = Game.replay(events)
    print(f"demo: {args.players} players ({', '.join(game.setup.players)}), "
          f"{len(game.rounds)} rounds, {len(events) - 1} events", flush=True)
    cached = is_rendered(footage_folder(events, seed=args.seed))
    if not cached:
        print("demo: rendering the table footage (once: it is cached)", flush=True)
    bar = progress_bar()
    footage = render_game(events, seed=args.seed,
                          progress=None if cached else lambda i, n: bar("render", i, n))
    kept, size = trim_cache()
    print(f"demo: footage {'from the cache' if cached else 'ready'} in {footage} (the cache "
          f"keeps the last {kept} games, {size / 1e6:.0f} MB)", flush=True)

    temporary = not args.data_dir
    if temporary:  # a fresh store each demo: the demo never mixes with real games
        config = replace(config, data_dir=Path(tempfile.mkdtemp(prefix="tightrope-demo-")))
    code = 1
    try:
        code = _play(args, config, make_options, events, game, footage, Companion, interrupt)
    finally:
        if temporary and code == 0:
            shutil.rmtree(config.data_dir, ignore_errors=True)
        elif temporary:
            print(f"demo: kept {config.data_dir} to look into", file=sys.stderr)
    return code


def _play(args: argparse.Namespace, config: Any, make_options: Callable, events: list,
          game: Game, footage: Path, companion_type: Any, interrupt: Callable) -> int:
    setup_path = config.data_dir / "demo-setup.json"
    setup_path.parent.mkdir(parents=True, exist_ok=True)
    setup_path.write_text(json.dumps(event_to_json(events[0])))
    record = config.data_dir / "demo-record.jsonl"
    args.source, args.setup, args.zones, args.record = (
        str(footage), str(setup_path), str(footage / "zones.json"), str(record))
    args.deck = None
    options = replace(make_options(args, config), exit_at_end=True)
    companion = companion_type(options)
    companion.referee.subscribe(_trick_printer(game))
    person = None if args.no_person else _Person(companion.referee, game)
    signal.signal(signal.SIGTERM, interrupt)
    code = 0
    try:
        companion.start()
        if person is not None:
            person.start()
        if options.web:
            print(f"demo: the scoresheet is on {companion.url}", flush=True)
        companion.wait()  # until the footage ends and every frame was handled
        code = _report(record, game, person.asked if person else 0)
        if not args.exit_at_end and options.web:
            print("demo: still serving the scoresheet; Ctrl-C to stop", flush=True)
            while True:
                time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        if person is not None:
            person.stop()
        companion.stop()
    return code


def _trick_printer(game: Game) -> Callable[[Notice], None]:
    names = game.setup.players

    def show(notice: Notice) -> None:
        if isinstance(notice, Applied) and isinstance(notice.moment, Trick):
            t = notice.moment
            cards = ", ".join(f"{names[p.seat]} {p.card}" for p in t.plays)
            print(f"demo: round {t.round + 1} trick {t.index + 1}: {cards}; "
                  f"{names[t.high]} takes {t.blue} blue, {names[t.low]} {t.red} red",
                  flush=True)

    return show


class _Person(threading.Thread):
    """Answers the companion's questions from the game's record, as a player would."""

    def __init__(self, referee: Any, true: Game) -> None:
        super().__init__(name="demo-person", daemon=True)
        self.referee, self.true = referee, true
        self.asked = 0
        self._stop = threading.Event()

    def run(self) -> None:
        from .commands import CommandError, Resolve
        from .games.tightrope.person import answer

        hub = self.referee.hub
        while not self._stop.wait(0.25):
            view = hub.latest()[1] or {}
            conflict = view.get("conflict")
            if conflict is None or view.get("state") is None:
                continue
            if self._stop.wait(PERSON_WAIT_S):
                return
            view = hub.latest()[1] or {}
            if view.get("conflict") != conflict:
                continue  # withdrawn or changed meanwhile: look again
            choice = answer(conflict, view["state"], self.true)
            label = next((c["label"] for c in conflict["choices"] if c["id"] == choice), choice)
            print(f"demo: question: {conflict['message']} -> {label}", flush=True)
            try:
                self.referee.call(Resolve(conflict["id"], choice))
                self.asked += 1
            except CommandError:
                pass  # answered or withdrawn in the meantime

    def stop(self) -> None:
        self._stop.set()


def _report(record: Path, game: Game, asked: int) -> int:
    got = replay_json(fold_record(read_record(record)).game)
    questions = f"; {asked} question{'s' if asked != 1 else ''} answered" if asked else ""
    if got == replay_json(game):
        print("demo: the companion's scoresheet equals the replay of the game's record "
              f"({len(got['rounds'])} rounds{questions})", flush=True)
        return 0
    done = sum(len(r["tricks"]) for r in got["rounds"])
    print(f"demo: the companion scored {done} tricks, and they differ from the game's record "
          f"(see {record}){questions}", file=sys.stderr)
    return 1
