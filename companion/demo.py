"""`tightrope-companion demo`: a whole simulated game through the real pipeline.

A random legal game is drawn, its table footage rendered by the simulator (cached: the last few
games are kept), and the footage played to the companion as if it came from the camera, with mock
GPIO and the web scoresheet on this machine only (127.0.0.1, unless --host says otherwise). Each
trick (an Attacke contest) is printed as it is scored. Should the camera be unsure, a person who
knows the game's record answers the question after a moment (as a player would on the web page;
--no-person leaves it to you). At the end the companion's scoresheet is compared with the replay
of the game.

Tightrope is played with the simulator's own deck, read by the bundled reader. An Attacke game's
cards, and a solo game's playing cards, are printed in a deck design of the simulator's, which the
companion is first taught from one rendered photo a card, as a user teaches a real deck
(`teach --game attacke`, `teach --game solo`).
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

from .evaluate_table import Answerer
from .footage import deck_design, footage_folder, is_rendered, render_game, trim_cache
from .games import GameSpec, game_named
from .games.attacke.rules import Contest
from .games.solo.rules import Mission
from .games.tightrope.randgame import random_game
from .games.tightrope.rules import Trick, Variant
from .keep import Applied, Notice
from .record import read_game_record
from .service import check_port

PERSON_WAIT_S = 2.0  # the demo's person answers a question after this long (time to look)
DRAIN_S = 300.0      # after the footage, the person may answer what is still asked this long
PLAYED = {"tightrope": "rounds", "attacke": "contests", "solo": "missions"}  # its unit


def demo_events(args: argparse.Namespace) -> list[Any]:
    """The random game the demo plays; a ValueError in one line for one it cannot play."""
    spec = game_named(args.game)
    players = args.players if args.players is not None else \
        3 if 3 in spec.seats else spec.seats[0]
    if players not in spec.seats:
        span = f"{spec.seats[0]} to {spec.seats[-1]} players" if len(spec.seats) > 1 else \
            f"{spec.seats[0]} player"
        raise ValueError(f"{spec.title} is for {span}, not {players}")
    own = {"tightrope": ("tactical", "simultaneous", "rounds"),
           "attacke": ("concealed", "persevering")}
    other = next((flag for game, flags in own.items() if game != spec.name for flag in flags
                  if getattr(args, flag, None)), None)
    if other is not None:
        raise ValueError(f"--{other} is not a variant of {spec.title}")
    if spec.name == "tightrope":
        variant = Variant(args.tactical, args.simultaneous)
        return random_game(random.Random(args.seed), players, variant, rounds=args.rounds)
    if spec.name == "solo":
        return list(spec.random_game(args.seed, players))
    return list(spec.random_game(args.seed, players, concealed=args.concealed,
                                 persevering=args.persevering))


def run_demo(args: argparse.Namespace, config: Any, make_options: Callable,
             interrupt: Callable[..., None]) -> int:
    from vision.teach import progress_bar

    from .service import Companion

    args.host = getattr(args, "host", None) or "127.0.0.1"
    events = demo_events(args)
    if args.game != "tightrope" and getattr(args, "speed", None) is None:
        # a card of a deck taught from one photo is asked about now and then: footage played
        # faster than the table's pace leaves the person many moves behind (the whole next
        # contest, at full speed), and his answers no longer fit what he sees
        args.speed = 1.0
    if not args.no_web:  # before minutes of rendering, not after
        check_port(args.host, args.port or config.port)
    spec = game_named(args.game)
    true = spec.fold(enumerate(events, start=1))
    what = "" if spec.name == "tightrope" else f"{spec.title}, "
    print(f"demo: {what}{len(true.players)} player{'s' if len(true.players) > 1 else ''} "
          f"({', '.join(true.players)}), "
          f"{true.rounds_played} {PLAYED[spec.name]}, {len(events) - 1} events", flush=True)
    cached = is_rendered(footage_folder(events, seed=args.seed))
    if not cached:
        print("demo: rendering the table footage (once: it is cached)", flush=True)
    bar = progress_bar()
    footage = render_game(events, seed=args.seed,
                          progress=None if cached else lambda i, n: bar("render", i, n))
    kept, size = trim_cache()
    print(f"demo: footage {'from the cache' if cached else 'ready'} in {footage} (the cache "
          f"keeps the last {kept} games, {size / 1e6:.0f} MB)", flush=True)
    deck = None if spec.name == "tightrope" else taught_deck(spec, args.seed, footage)

    temporary = not args.data_dir
    if temporary:  # a fresh store each demo: the demo never mixes with real games
        config = replace(config, data_dir=Path(tempfile.mkdtemp(prefix="tightrope-demo-")))
    code = 1
    try:
        code = _play(args, config, make_options, events, spec, true, footage, deck, Companion,
                     interrupt)
    finally:
        if temporary and code == 0:
            shutil.rmtree(config.data_dir, ignore_errors=True)
        elif temporary:
            print(f"demo: kept {config.data_dir} to look into", file=sys.stderr)
    return code


def taught_deck(spec: GameSpec, seed: int, footage: Path) -> Path:
    """The deck file of the footage's card design, taught (once: kept with the footage) from
    one rendered photo a card, as a user teaches a real deck."""
    from vision.sim.photos import teach_folder
    from vision.teach import progress_bar, teach, up_to_date

    deck = footage / "deck.npz"
    if up_to_date(deck, spec.deck):
        return deck
    print(f"demo: teaching the companion this {spec.title} deck from one photo a card (once)",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="tightrope-teach-") as tmp:
        teach_folder(Path(tmp), deck_design(spec.name, seed))
        teach(tmp, footage / "deck.tmp.npz", progress=progress_bar(), names=spec.deck)
    (footage / "deck.tmp.npz").replace(deck)
    return deck


def _play(args: argparse.Namespace, config: Any, make_options: Callable, events: list,
          spec: GameSpec, true: Any, footage: Path, deck: Path | None, companion_type: Any,
          interrupt: Callable) -> int:
    setup_path = config.data_dir / "demo-setup.json"
    setup_path.parent.mkdir(parents=True, exist_ok=True)
    setup_path.write_text(json.dumps(spec.event_to_json(events[0])))
    record = config.data_dir / "demo-record.jsonl"
    args.source, args.setup, args.zones, args.record = (
        str(footage), str(setup_path), str(footage / "zones.json"), str(record))
    args.deck = str(deck) if deck is not None else None
    options = replace(make_options(args, config), exit_at_end=True)
    companion = companion_type(options)
    companion.referee.subscribe(_printer(true))
    person = None if args.no_person else _Person(companion.referee, _answerer(spec, true))
    signal.signal(signal.SIGTERM, interrupt)
    code = 0
    try:
        companion.start()
        if person is not None:
            person.start()
        if options.web:
            print(f"demo: the scoresheet is on {companion.url}", flush=True)
        companion.wait()  # until the footage ends and every frame was handled
        if person is not None:
            _drain(companion.referee)
        code = _report(record, spec, true, person.asked if person else 0)
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


def _drain(referee: Any, limit_s: float = DRAIN_S) -> None:
    """The footage is over (played faster than a person answers, it may end first): let the
    person answer what is still asked, the table lying still meanwhile."""
    from .commands import Flush

    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        referee.call(Flush())
        if (referee.hub.latest()[1] or {}).get("conflict") is None:
            return
        time.sleep(0.5)


def _printer(true: Any) -> Callable[[Notice], None]:
    """Prints each trick (contest) as the companion scores it."""
    names = true.players

    def show(notice: Notice) -> None:
        if not isinstance(notice, Applied):
            return
        moment = notice.moment
        if isinstance(moment, Trick):
            cards = ", ".join(f"{names[p.seat]} {p.card}" for p in moment.plays)
            print(f"demo: round {moment.round + 1} trick {moment.index + 1}: {cards}; "
                  f"{names[moment.high]} takes {moment.blue} blue, {names[moment.low]} "
                  f"{moment.red} red", flush=True)
        elif isinstance(moment, Contest) and moment.winner is not None:
            colour = moment.colour.value if moment.colour else "no colour"
            chip = "takes the chip" if moment.chip_won else "holds its chip already"
            print(f"demo: contest {moment.index + 1} ({colour}): {names[moment.winner]} wins "
                  f"with {moment.total(moment.winner)} and {chip}", flush=True)
        elif isinstance(moment, Mission):
            how = "succeeds" if moment.success else "fails"
            cards = " ".join(str(c) for c in moment.cards)
            print(f"demo: mission {moment.index + 1} to spot {moment.spot.value} ({cards}) "
                  f"{how} with {moment.scoring.total} of {moment.spot.need}", flush=True)

    return show


def _answerer(spec: GameSpec, true: Any) -> Answerer:
    """A person who knows the game's record answers the table's questions."""
    if spec.name == "attacke":
        from .games.attacke.person import Person

        return Person(true).answer
    if spec.name == "solo":
        from .games.solo.person import Person as SoloPerson

        return SoloPerson(true).answer
    from .games.tightrope.person import answer

    return lambda conflict, state, photo=None: answer(conflict, state, true)  # no photos here


class _Person(threading.Thread):
    """Answers the companion's questions from the game's record, as a player would."""

    def __init__(self, referee: Any, answer: Answerer) -> None:
        super().__init__(name="demo-person", daemon=True)
        self.referee, self.answer = referee, answer
        self.asked = 0
        self._stop = threading.Event()

    def run(self) -> None:
        from .commands import CommandError, Resolve

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
            choice = self.answer(conflict, view["state"])
            label = next((c["label"] for c in conflict["choices"] if c["id"] == choice), choice)
            print(f"demo: question: {conflict['message']} -> {label}", flush=True)
            try:
                self.referee.call(Resolve(conflict["id"], choice))
                self.asked += 1
            except CommandError:
                pass  # answered or withdrawn in the meantime

    def stop(self) -> None:
        self._stop.set()


def _report(record: Path, spec: GameSpec, true: Any, asked: int) -> int:
    got = spec.fold(read_game_record(record).events)
    questions = f"; {asked} question{'s' if asked != 1 else ''} answered" if asked else ""
    if spec.scoring(got) == spec.scoring(true):
        print("demo: the companion's scoresheet equals the replay of the game's record "
              f"({got.rounds_played} {PLAYED[spec.name]}{questions})", flush=True)
        return 0
    print(f"demo: the companion's scoresheet ({got.rounds_played} {PLAYED[spec.name]}) differs "
          f"from the game's record (see {record}){questions}", file=sys.stderr)
    return 1
