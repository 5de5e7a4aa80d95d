"""The whole companion put together: store, referee, LEDs, buttons, camera pipeline and web.

Used by `run` (the real thing) and `demo` (simulated footage). Threads: the referee's loop
(the only one that changes state), the camera pipeline, the LED animation, gpiozero's button
threads and the web server's request threads — all but the referee only enqueue or render.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import socket
import sqlite3
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.memory import TableMemory
from vision.sources import SourceError

from .commands import ButtonPress, CameraStatus, Flush, NewGame, SetupNeeds
from .config import Config
from .games import DEFAULT, game_named
from .games.base import RuleError
from .hub import Hub
from .keep import CorrectionCrops, RecordMirror, Remembered, TrickPhotos
from .lessons import Lessons
from .record import RecordError, iter_lines
from .referee import Referee
from .store import Store

M_ARENA_MAX = -8  # glibc's mallopt parameters (malloc.h): how many heaps threads share,
M_MMAP_THRESHOLD = -3  # and the size from which a block is mapped alone (returned when freed)
FRAME_SIZED = 1 << 20  # a frame (2.7 MB at 1280x720) and less than half of one


class StartError(ValueError):
    """Something given on the command line or in the config cannot be used."""


@dataclass
class Options:
    config: Config
    source: str | None = None
    setup: Path | None = None
    game: str = DEFAULT           # the game --setup starts (its name in companion.games)
    zones: Path | None = None
    deck: Path | None = None
    record: Path | None = None
    web: bool = True
    port: int | None = None
    host: str | None = None
    exit_at_end: bool = False
    fps: float | None = None
    realtime: bool = True
    speed: float = 1.0
    camera: bool = True


def check_port(host: str, port: int) -> None:
    """StartError, in one line, if the web server could not listen on host:port."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            raise StartError(f"port {port} on {host} is busy (is a companion or a demo already "
                             f"running?): stop it, or give --port") from None


def read_setup(path: Path, game: str = DEFAULT) -> Any:
    """The game_started event of a setup file, for `game`."""
    spec = game_named(game)
    try:
        event = spec.parse_event(json.loads(path.read_text(encoding="utf-8")))
    except OSError as err:
        raise StartError(f"cannot read {path}: {err.strerror}") from None
    except (ValueError, RecordError) as err:
        raise StartError(f"{path}: {err}") from None
    try:
        spec.log([event])  # only a game's start begins a game
    except RuleError:
        raise StartError(f"{path}: a setup file holds one game_started event") from None
    return event


class SystemdNotifier:
    """sd_notify without a dependency: READY=1 once, WATCHDOG=1 from the referee's loop."""

    def __init__(self) -> None:
        address = os.environ.get("NOTIFY_SOCKET", "")
        self.address = "\0" + address[1:] if address.startswith("@") else address
        self.interval = int(os.environ.get("WATCHDOG_USEC", "0")) / 2e6
        self._last = 0.0

    def send(self, message: str) -> None:
        if not self.address:
            return
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(self.address)
            sock.sendall(message.encode())

    def tick(self) -> None:
        now = time.monotonic()
        if self.interval and now - self._last >= self.interval:
            self._last = now
            self.send("WATCHDOG=1")


def data_folder(path: Path) -> Path:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise StartError(f"the data folder {path} is a file, not a folder") from None
    except OSError as err:
        raise StartError(f"cannot make the data folder {path}: {err.strerror}") from None
    return path


def writable_record(path: Path | None) -> Path | None:
    """--record, checked before anything starts: a folder or a file we may not write is one
    line now, not a traceback at the first event."""
    if path is None:
        return None
    if path.is_dir():
        raise StartError(f"--record {path} is a folder; give a file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StartError(f"cannot make the folder of --record {path}: {err.strerror}") from None
    if not os.access(path if path.exists() else path.parent, os.W_OK):
        raise StartError(f"cannot write --record {path}: permission denied")
    return path


def limit_malloc() -> None:
    """Keep glibc's malloc (Raspberry Pi OS, most Linux) from holding freed frames: two heaps at
    most, and each block of FRAME_SIZED or more mapped alone, so that a frame freed goes back to
    the system. Each thread that allocates frames (camera, watcher, web) gets a heap of its own,
    which keeps what it freed: two heaps took the whole service from 147 to 141.5 MB (median;
    bench_service) at no cost a frame. Later, with more of a frame's reads, it grew again to
    150 MB median, 156 MB peak, slowly all game long (glibc raises its mapping threshold to the
    largest block freed, and frames then come from the heaps); mapping them alone: 143 / 148.5 MB
    for 1.5 ms more a loop turn (each frame's pages mapped afresh). Call it before any thread
    starts; where the C library is not glibc it does nothing."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(M_ARENA_MAX, 2)
        libc.mallopt(M_MMAP_THRESHOLD, FRAME_SIZED)


class Companion:
    def __init__(self, options: Options) -> None:
        limit_malloc()
        self.options = options
        cfg = options.config
        data_folder(cfg.data_dir)
        setup = read_setup(options.setup, options.game) if options.setup is not None else None
        record = writable_record(options.record)
        self.store = Store(cfg.db_path)
        self.pin_store = self._pin_store() if options.web else None
        self.hub = Hub()
        self.indicators = self._indicators()
        try:
            self.referee = Referee(self.store, self.hub, indicators=self.indicators)
        except (sqlite3.Error, ValueError) as err:
            raise StartError(f"the database {cfg.db_path} holds a game that cannot be read "
                             f"({err})") from None
        self.record = RecordMirror(record, self.store) if record else None
        self.memory = TableMemory()  # the cards named tonight: every reader made shares it
        for listener in (self.record, TrickPhotos(cfg.photo_dir, self.store),
                         CorrectionCrops(cfg.corrections_dir), Remembered(self._reading)):
            if listener is not None:
                self.referee.subscribe(listener)
        self.lessons = Lessons(cfg.corrections_dir, options.deck or cfg.deck_path,
                               cfg.data_dir / "deck.npz", self.deck_taught)
        self.buttons = self._buttons()
        game = setup or (self.referee.game.setup if self.referee.game else None)
        self._players = len(game.players) if game else None
        self.pipeline = self._pipeline() if options.camera else None
        self.notifier = SystemdNotifier()
        self.referee.on_idle = self.notifier.tick
        self._server: Any = None
        if setup is not None:
            self._start_or_resume(setup)
        elif self.record is not None and self.referee.game_id is not None:
            self._keep_record_aside_unless_it_agrees()
            self.record.rewrite(self.referee.game_id)

    # -- parts ------------------------------------------------------------------------------

    def _indicators(self) -> Any:
        from hardware.indicators import Indicators
        from hardware.pins import PinMap

        pin_map = PinMap.from_dict(self.options.config.pins)
        return Indicators(len(pin_map.seats), pin_map)

    def _pin_store(self) -> Any:
        from web.auth import PinStore

        cfg = self.options.config
        return PinStore(cfg.data_dir / "host-pin", preset_hash=cfg.pin_hash or None)

    def _buttons(self) -> Any:
        from hardware.buttons import Buttons
        from hardware.pins import PinMap

        pin_map = PinMap.from_dict(self.options.config.pins)
        return Buttons(self.referee.put, pin_map, make=ButtonPress)

    def _pipeline(self) -> Any:
        """The camera pipeline; it watches the table once the seat zones are drawn."""
        from vision.sources import open_source

        from .pipeline import Pipeline

        opts, cfg = self.options, self.options.config
        source = open_source(opts.source, cfg.camera, opts.fps)
        self._fps = source.fps
        watcher = self._watcher()
        return Pipeline(source, watcher, self.referee.put, realtime=opts.realtime,
                        speed=opts.speed, retry_s=cfg.camera.retry_s,
                        frame_reach=zones_reach(watcher))

    @property
    def zones_path(self) -> Path:
        return self.options.zones or self.options.config.zones_path

    def _zones(self) -> Any:
        """The zones file, refused in one line naming it when it is damaged or does not fit
        the game (a seat zone for each player)."""
        from vision.zones import load_zones

        path, players = self.zones_path, self._players
        try:
            zones = load_zones(path)
        except ValueError as err:
            message = str(err)
            raise StartError(message if str(path) in message else f"{path}: {message}") from None
        if players is not None and zones.n_seats != players:
            raise StartError(f"{path} has {zones.n_seats} seat zones but the game has {players} "
                             "players: draw the zones again (Setup) or give the right --zones")
        return zones

    def _watcher(self) -> Any:
        """The table watcher, or None while no seat zones are drawn (the page asks for them)."""
        from vision.watch import TableWatcher

        if not self.zones_path.is_file():
            self.referee.put(SetupNeeds(("zones",), "no seat zones yet: draw them on the Setup "
                                        "page (Setup, then Seat zones)"))
            return None
        zones = self._zones()
        self.referee.put(SetupNeeds())
        return TableWatcher(zones, self._reader(), fps=self._fps)

    def _reader(self) -> Any:
        """The deck's reader: --deck, paths.deck, or the deck taught on the web page; else the
        zero-shot reader of the game's cards."""
        from vision.read import Reader

        path = self.options.deck or self.options.config.deck_path
        return self._remembering(Reader.from_deck(path) if path.is_file() else
                                 self._zero_shot())

    def _remembering(self, reader: Any) -> Any:
        """The reader, sharing the night's memory of the cards named (vision.memory)."""
        reader.memory = self.memory
        return reader

    def _reading(self) -> Any:
        """The reader the camera reads with now (None: no camera or no zones yet)."""
        watcher = self.pipeline.watcher if self.pipeline is not None else None
        return watcher.reader if watcher is not None else None

    def _zero_shot(self) -> Any:
        """The bundled reader of the game's cards (StartError where none knows them)."""
        from vision.read import ModelError, Reader

        try:
            return Reader.zero_shot(tuple(game_named(self.options.game).deck))
        except ModelError as err:
            raise StartError(str(err)) from err

    def cards_in_view(self) -> list[dict]:
        """The cards in the camera's newest frame, read (for the zones page: the host checks
        the layout by laying cards). [] without a camera or a frame."""
        from vision.recognize import as_json as card_json
        from vision.recognize import look_at

        pipeline = self.pipeline
        frame = pipeline.latest if pipeline is not None else None
        if pipeline is None or frame is None:
            return []
        watcher = pipeline.watcher
        reader = watcher.reader if watcher is not None else self._reader()
        return [card_json(s) for s in look_at(frame, reader)]

    def zones_saved(self) -> None:
        """The web page saved the seat zones: the pipeline watches with them from the next
        frame (no restart). Zones that do not fit the game are said on the page."""
        if self.pipeline is None:
            return
        try:
            watcher = self._watcher()
        except StartError as err:
            self.referee.put(SetupNeeds(("zones",), str(err)))
            return
        self.pipeline.frame_reach = zones_reach(watcher)
        self.pipeline.watcher = watcher

    def deck_taught(self, path: Path | None) -> None:
        """A deck was taught (the web page, or the table's corrections learned or forgotten):
        read with it from now (None: the zero-shot reader)."""
        from vision.read import Reader

        watcher = self.pipeline.watcher if self.pipeline is not None else None
        if watcher is not None:
            watcher.reader = self._remembering(Reader.from_deck(path) if path is not None
                                               else self._zero_shot())

    def _start_or_resume(self, setup: Any) -> None:
        """A restart with the setup of the unfinished game continues it: the database holds
        it, whatever --record holds (a missing record is written again, a damaged one kept
        aside). Another setup starts a new game (the unfinished one stays in the history)."""
        game, name = self.referee.game, self.options.game
        if game is None or game.setup != setup or self.referee.spec.name != name:
            self.referee.call(NewGame(setup, name))
            return
        self._keep_record_aside_unless_it_agrees()
        if self.record is not None:
            self.record.rewrite(self.referee.game_id)

    def _keep_record_aside_unless_it_agrees(self) -> None:
        """--record should hold a beginning of the unfinished game (a kill may have cut its
        last line short of the store's last event). One that does not is not overwritten:
        it is renamed to RECORD.damaged, and the record is written again from the database."""
        path, game_id = self.options.record, self.referee.game_id
        if path is None or game_id is None:
            return
        events = _record_events(path)
        if events == []:
            _note(f"{path} was missing or empty: written again from the database "
                  f"(game {game_id})")
        elif events is None or self.store.events(game_id)[: len(events)] != events:
            aside = path.with_name(path.name + ".damaged")
            os.replace(path, aside)
            _note(f"{path} does not hold game {game_id} in progress: kept as {aside}; "
                  "written again from the database")

    # -- running ------------------------------------------------------------------------------

    def start(self) -> None:
        if self.options.web:
            check_port(self.options.host or self.options.config.host,
                       self.options.port or self.options.config.port)
        self.referee.start()
        if self.pipeline is not None:
            self.lessons.learn()
        if self.options.web:
            self._start_web()
        if self.pipeline is not None:
            self.pipeline.start()
        self.notifier.send("READY=1")

    def _start_web(self) -> None:
        from web.app import create_app
        from web.server import make_server

        cfg = self.options.config
        assert self.pin_store is not None  # made with the web
        app = create_app(self.referee, self.store, photo_dir=cfg.photo_dir,
                         pin_store=self.pin_store, camera=self.pipeline,
                         teach_dir=cfg.data_dir / "teach", allowed_hosts=cfg.allowed_hosts,
                         zones_path=self.zones_path, on_zones_saved=self.zones_saved,
                         on_deck_taught=self.deck_taught, cards_in_view=self.cards_in_view,
                         lessons=self.lessons, teach=_teach,
                         join_urls=lambda: self.urls)
        host = self.options.host or cfg.host
        port = self.options.port or cfg.port
        self._server = make_server(app, host, port)
        threading.Thread(target=self._server.run, name="web", daemon=True).start()

    @property
    def urls(self) -> list[str]:
        """Where phones open the scoresheet, best first (web.addresses.phone_urls)."""
        from web.addresses import phone_urls

        cfg = self.options.config
        return phone_urls(self.options.host or cfg.host, self.options.port or cfg.port)

    @property
    def url(self) -> str:
        return self.urls[0]

    def wait(self) -> None:
        """Until the footage ends (with --exit-at-end) or forever (Ctrl-C / SIGTERM stop it).
        A source that cannot be read is a SourceError with --exit-at-end; without it, the
        end of the source is told (stderr, the view) and the scoresheet goes on serving."""
        pipeline = self.pipeline
        if pipeline is not None:
            while not pipeline.wait(0.5):
                pass
            if pipeline.error and self.options.exit_at_end:
                raise SourceError(pipeline.error)
            if self.options.exit_at_end:
                self.referee.call(Flush(), timeout=30)
                return
            source = self.options.source or self.options.config.camera.source
            ended = pipeline.error or f"the source {source} ended"
            _note(f"{ended}; the scoresheet stays on (Ctrl-C to stop)")
            if not pipeline.error:
                self.referee.put(CameraStatus(False, f"{ended}: enter cards by hand"))
        if self.options.exit_at_end:
            return
        while True:
            time.sleep(3600)

    def stop(self) -> None:
        if self.pipeline is not None:
            self.pipeline.stop()
        if self._server is not None:
            self._server.close()
        self.referee.stop()
        self.buttons.close()
        self.indicators.close()
        self.hub.close()
        self.store.close()


def zones_reach(watcher: Any) -> tuple[float, float] | None:
    """How far right and down the watcher's zones reach: a frame must be that large."""
    if watcher is None or watcher.zones is None:
        return None
    corners = [*watcher.zones.seats, watcher.zones.scoring]
    return (max(float(p[:, 0].max()) for p in corners),
            max(float(p[:, 1].max()) for p in corners))


def _record_events(path: Path) -> list[Any] | None:
    """The events of a record file ([] if missing), or None when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
        whole = text[: text.rfind("\n") + 1]  # a line cut by a kill does not count
        return [event for _, event in iter_lines(whole.splitlines())]
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError, RecordError):
        return None


def _note(message: str) -> None:
    print(f"tightrope-companion: {message}", file=sys.stderr, flush=True)


def _teach(folder: str, deck: str) -> int:
    """`teach FOLDER --out DECK` for the web's Setup page (vision is loaded only then)."""
    from vision.cli import teach_main

    return teach_main(folder, deck)
