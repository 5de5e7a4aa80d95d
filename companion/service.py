"""The whole companion put together: store, referee, LEDs, buttons, camera pipeline and web.

Used by `run` (the real thing) and `demo` (simulated footage). Threads: the referee's loop
(the only one that changes state), the camera pipeline, the LED animation, gpiozero's button
threads and the web server's request threads — all but the referee only enqueue or render.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .commands import ButtonPress, Flush, NewGame, SetupNeeds
from .config import Config
from .hub import Hub
from .keep import CorrectionCrops, RecordMirror, TrickPhotos
from .record import RecordError, iter_lines, parse_event
from .referee import Referee
from .rules import GameStarted
from .store import Store


class StartError(ValueError):
    """Something given on the command line or in the config cannot be used."""


@dataclass
class Options:
    config: Config
    source: str | None = None
    setup: Path | None = None
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


def read_setup(path: Path) -> GameStarted:
    try:
        event = parse_event(json.loads(path.read_text(encoding="utf-8")))
    except OSError as err:
        raise StartError(f"cannot read {path}: {err.strerror}") from None
    except (ValueError, RecordError) as err:
        raise StartError(f"{path}: {err}") from None
    if not isinstance(event, GameStarted):
        raise StartError(f"{path}: a setup file holds one game_started event")
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


class Companion:
    def __init__(self, options: Options) -> None:
        self.options = options
        cfg = options.config
        cfg.data_dir.mkdir(parents=True, exist_ok=True)
        self.store = Store(cfg.db_path)
        self.hub = Hub()
        self.indicators = self._indicators()
        self.referee = Referee(self.store, self.hub, indicators=self.indicators)
        self.record = RecordMirror(options.record, self.store) if options.record else None
        for listener in (self.record, TrickPhotos(cfg.photo_dir, self.store),
                         CorrectionCrops(cfg.data_dir / "corrections")):
            if listener is not None:
                self.referee.subscribe(listener)
        self.buttons = self._buttons()
        self.pipeline = self._pipeline() if options.camera else None
        self.notifier = SystemdNotifier()
        self.referee.on_idle = self.notifier.tick
        self._server: Any = None
        if options.setup is not None:
            self._start_or_resume(read_setup(options.setup))
        elif self.record is not None:
            self.record.rewrite(self.referee.game_id)

    # -- parts ------------------------------------------------------------------------------

    def _indicators(self) -> Any:
        from hardware.indicators import Indicators
        from hardware.pins import PinMap

        pin_map = PinMap.from_dict(self.options.config.pins)
        return Indicators(len(pin_map.seats), pin_map)

    def _buttons(self) -> Any:
        from hardware.buttons import Buttons
        from hardware.pins import PinMap

        pin_map = PinMap.from_dict(self.options.config.pins)
        return Buttons(self.referee.put, pin_map, make=ButtonPress)

    def _pipeline(self) -> Any:
        """The camera pipeline; it watches the table once the seat zones are drawn."""
        from .camera import open_source
        from .pipeline import Pipeline

        opts, cfg = self.options, self.options.config
        source = open_source(opts.source, cfg.camera, opts.fps)
        self._fps = source.fps
        return Pipeline(source, self._watcher(), self.referee.put, realtime=opts.realtime,
                        speed=opts.speed, retry_s=cfg.camera.retry_s)

    @property
    def zones_path(self) -> Path:
        return self.options.zones or self.options.config.zones_path

    def _watcher(self) -> Any:
        """The table watcher, or None while no seat zones are drawn (the page asks for them)."""
        from vision.watch import TableWatcher
        from vision.zones import load_zones

        if not self.zones_path.is_file():
            self.referee.put(SetupNeeds(("zones",), "no seat zones yet: draw them on the Setup "
                                        "page (Setup, then Seat zones)"))
            return None
        self.referee.put(SetupNeeds())
        return TableWatcher(load_zones(self.zones_path), self._reader(), fps=self._fps)

    def _reader(self) -> Any:
        """The deck's reader: --deck, paths.deck, or the deck taught on the web page; else the
        zero-shot reader."""
        from vision.read import Reader

        path = self.options.deck or self.options.config.deck_path
        return Reader.from_deck(path) if path.is_file() else Reader.zero_shot()

    def cards_in_view(self) -> list[dict]:
        """The cards in the camera's newest frame, read (for the zones page: the host checks
        the layout by laying cards). [] without a camera or a frame."""
        from vision.recognize import as_json as card_json
        from vision.recognize import look_at

        frame = self.pipeline.latest if self.pipeline is not None else None
        if frame is None:
            return []
        watcher = self.pipeline.watcher
        reader = watcher.reader if watcher is not None else self._reader()
        return [card_json(s) for s in look_at(frame, reader)]

    def zones_saved(self) -> None:
        """The web page saved the seat zones: the pipeline watches with them from the next
        frame (no restart)."""
        if self.pipeline is not None:
            self.pipeline.watcher = self._watcher()

    def deck_taught(self, path: Path) -> None:
        """A deck was taught (the web page, or corrections learned): read with it from now."""
        from vision.read import Reader

        watcher = self.pipeline.watcher if self.pipeline is not None else None
        if watcher is not None:
            watcher.reader = Reader.from_deck(path)

    def _learn_corrections(self) -> None:
        """Crops people named at the table since the deck was made join it (in the background:
        the table is watched with the old deck meanwhile)."""
        cfg = self.options.config
        crops = list(cfg.corrections_dir.rglob("*.png")) if cfg.corrections_dir.is_dir() else []
        deck = self.options.deck or cfg.deck_path
        if not crops or (deck.is_file() and deck.stat().st_mtime
                         >= max(p.stat().st_mtime for p in crops)):
            return

        def work() -> None:
            from vision.teach import TeachError, add_corrections

            out = cfg.data_dir / "deck.npz"
            try:
                add_corrections(cfg.corrections_dir, out, deck if deck.is_file() else None)
            except (TeachError, ValueError) as err:
                print(f"tightrope-companion: the corrections were not learned: {err}",
                      file=sys.stderr)
                return
            self.deck_taught(out)

        threading.Thread(target=work, name="learn", daemon=True).start()

    def _start_or_resume(self, setup: GameStarted) -> None:
        """A restart with the same setup (and, with --record, the record of the game so far)
        continues the unfinished game; anything else starts a new game (an unfinished one
        stays in the history)."""
        game = self.referee.game
        if game is not None and game.setup == setup and self._record_agrees():
            if self.record is not None:
                self.record.rewrite(self.referee.game_id)
            return
        self.referee.call(NewGame(setup))

    def _record_agrees(self) -> bool:
        """--record holds a beginning of the unfinished game (a kill may have cut its last
        line short of the store's last event)."""
        path = self.options.record
        if path is None:
            return True
        try:
            text = path.read_text(encoding="utf-8")
            whole = text[: text.rfind("\n") + 1]  # a line cut by the kill does not count
            events = [event for _, event in iter_lines(whole.splitlines())]
        except (OSError, UnicodeDecodeError, RecordError):
            return False
        stored = self.store.events(self.referee.game_id)  # type: ignore[arg-type]
        return bool(events) and stored[: len(events)] == events

    # -- running ------------------------------------------------------------------------------

    def start(self) -> None:
        if self.options.web:
            check_port(self.options.host or self.options.config.host,
                       self.options.port or self.options.config.port)
        self.referee.start()
        if self.pipeline is not None:
            self._learn_corrections()
        if self.options.web:
            self._start_web()
        if self.pipeline is not None:
            self.pipeline.start()
        self.notifier.send("READY=1")

    def _start_web(self) -> None:
        from web.app import create_app
        from web.auth import PinStore
        from web.server import make_server

        cfg = self.options.config
        pin_store = PinStore(cfg.data_dir / "host-pin", preset_hash=cfg.pin_hash or None)
        app = create_app(self.referee, self.store, photo_dir=cfg.photo_dir, pin_store=pin_store,
                         camera=self.pipeline, teach_dir=cfg.data_dir / "teach",
                         zones_path=self.zones_path, on_zones_saved=self.zones_saved,
                         on_deck_taught=self.deck_taught, cards_in_view=self.cards_in_view)
        host = self.options.host or cfg.host
        port = self.options.port or cfg.port
        self._server = make_server(app, host, port)
        threading.Thread(target=self._server.run, name="web", daemon=True).start()

    @property
    def url(self) -> str:
        port = self.options.port or self.options.config.port
        return f"http://127.0.0.1:{port}/"

    def wait(self) -> None:
        """Until the footage ends (with --exit-at-end) or forever (Ctrl-C / SIGTERM stop it)."""
        while True:
            if self.pipeline is not None and self.pipeline.wait(0.5):
                if self.options.exit_at_end:
                    self.referee.call(Flush(), timeout=30)
                    return
                if self.pipeline.error:
                    print(f"tightrope-companion: {self.pipeline.error}", file=sys.stderr)
                    self.pipeline = None
            elif self.pipeline is None:
                if self.options.exit_at_end:
                    return
                time.sleep(0.5)

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


