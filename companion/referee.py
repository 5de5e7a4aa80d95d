"""The referee: the one owner of the game state.

Everything that wants a change (camera observations, buttons, web requests) puts a message on
the referee's queue; one loop takes them one at a time, asks the rules (GameLog) whether the
change is legal, appends what is accepted to the store, and publishes the new view to the hub
(which the web page and the LEDs follow).
"""

from __future__ import annotations

import os
import queue
import sqlite3
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .commands import (
    AddNote,
    ButtonPress,
    Call,
    CameraStatus,
    CommandError,
    Correct,
    Finish,
    Flush,
    ManualEvent,
    NewGame,
    Resolve,
    Seen,
    StorageFailed,
)
from .gamelog import GameLog
from .hub import Hub
from .interpreter import SCORING_SETTLE_S, TableInterpreter
from .record import Correction, RecordEvent, Undo, dumps, header_line
from .rules import Game, RuleError, Trick
from .store import Store, now_iso
from .views import snapshot

# What a full or failing disk raises: the referee refuses the change and keeps going.
STORAGE_ERRORS = (sqlite3.Error, OSError)


@dataclass
class Conflict:
    """Something a person must decide; nothing is scored until then."""

    id: int
    message: str
    choices: list[tuple[str, str]]  # (choice id, label); the first is what OK means
    actions: dict[str, Callable[[], None]] = field(default_factory=dict, repr=False)
    moot: Callable[[], bool] | None = field(default=None, repr=False)  # the game answered it

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "message": self.message,
                "choices": [{"id": c, "label": label} for c, label in self.choices]}


class Referee:
    def __init__(
        self,
        store: Store,
        hub: Hub | None = None,
        *,
        record_path: str | Path | None = None,
        photo_dir: str | Path | None = None,
        indicators: Any = None,
        on_view: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.store = store
        self.hub = hub or Hub()
        self.record_path = Path(record_path) if record_path else None
        self.photo_dir = Path(photo_dir) if photo_dir else None
        self.indicators = indicators  # hardware.Indicators: the LEDs render every view
        self.on_view = on_view
        self.on_idle: Callable[[], None] | None = None  # called each loop turn (watchdog)
        self.queue: queue.Queue[Any] = queue.Queue()
        self.game_id: int | None = None
        self.log: GameLog | None = None
        self.conflicts: list[Conflict] = []
        self.camera_ok: bool | None = None  # None: no camera in use
        self.message = ""
        self.storage_error = ""  # why the last write could not be stored ("" once one is)
        self._record_stale = False  # a --record write failed: rewrite it whole at the next
        self.interpreter = TableInterpreter(self)
        self.last_frame: Any = None
        self.trick_scored_at: float | None = None  # monotonic time of the last scored trick
        self._conflict_ids = 0
        self._published: dict[str, Any] | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.resume()

    # -- entry points for other threads ---------------------------------------------------------

    def put(self, message: Any) -> None:
        self.queue.put(message)

    def call(self, command: Any, timeout: float = 5.0) -> Any:
        """Send a command and wait for its outcome; raises CommandError if refused."""
        pending = Call(command)
        self.queue.put(pending)
        if self._thread is None:  # no loop running (tests, tools): serve the queue here
            self.drain()
        return pending.wait(timeout)

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="referee", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    # -- the loop -----------------------------------------------------------------------------

    def run(self) -> None:
        while not self._stop.is_set():
            self.step(timeout=1.0)
            if self.on_idle is not None:
                self.on_idle()

    def drain(self) -> None:
        while self.step(timeout=0):
            pass

    def step(self, timeout: float | None = 1.0) -> bool:
        """Handle one message; False when the queue stayed empty."""
        try:
            message = self.queue.get(timeout=timeout) if timeout else self.queue.get_nowait()
        except queue.Empty:
            return False
        if message is None:
            return True
        if isinstance(message, Call):
            if not message.take():
                return True  # its caller gave up before it began: it is never applied
            try:
                message.reply(self.handle(message.command))
            except Exception as err:  # noqa: BLE001 - the loop must outlive any one message
                message.reply(error=self._refusal(err))
        else:
            try:
                self.handle(message)
            except Exception as err:  # noqa: BLE001
                self.message = str(self._refusal(err))
        self._withdraw_moot()
        self.publish()
        return True

    def _refusal(self, err: Exception) -> CommandError:
        """The one line a failed message answers; a storage error is also shown on the view."""
        if isinstance(err, CommandError):
            return err
        if isinstance(err, RuleError | ValueError):
            return CommandError(str(err))
        if isinstance(err, STORAGE_ERRORS):
            self.storage_error = f"the game cannot be saved: {err}"
            return StorageFailed(f"not saved ({err}); nothing was changed: free some space "
                                 "and try again")
        traceback.print_exc()
        return CommandError(f"the referee failed ({type(err).__name__}: {err}); see the log")

    def handle(self, command: Any) -> Any:
        match command:
            case Seen(changes=changes, t=t, frame=frame):
                if frame is not None:
                    self.last_frame = frame
                return self.interpreter.on_changes(changes, t)
            case CameraStatus(ok=ok, detail=detail):
                self.camera_ok = ok
                self.message = detail
                return None
            case NewGame(setup=setup):
                return self._new_game(setup)
            case ManualEvent(event=event):
                return self._apply(event)
            case Correct(correction=correction):
                return self._apply(correction)
            case AddNote(note=note):
                return self._apply(note)
            case Resolve(conflict_id=cid, choice=choice):
                return self._resolve(cid, choice)
            case ButtonPress(button="ok"):
                if self.conflict is not None:
                    return self._resolve(self.conflict.id, self.conflict.choices[0][0])
                return None
            case ButtonPress(button="undo"):
                return self._apply(Undo(at=now_iso(), why="undo button"))
            case Finish():
                return self._finish()
            case Flush():
                return self.interpreter.settle(self.interpreter.now + SCORING_SETTLE_S)
        raise CommandError(f"unknown command {type(command).__name__}")

    # -- game changes -----------------------------------------------------------------------------

    def resume(self) -> None:
        """Pick up the unfinished game from the store exactly where it stopped."""
        game_id = self.store.unfinished_game()
        if game_id is not None:
            self.game_id, self.log = game_id, self.store.load(game_id)
        self.publish()

    def _new_game(self, setup) -> int:
        game_id = self.store.new_game(setup)  # first: if it fails, the old game stays in play
        if self.game_id is not None:
            self.store.finish(self.game_id)
        self.game_id, self.storage_error = game_id, ""
        self.log = GameLog(setup)
        self.conflicts = []
        self.interpreter = TableInterpreter(self)
        self.rewrite_record()
        self.message = "new game: " + ", ".join(setup.players)
        return self.game_id

    def _apply(self, event: RecordEvent) -> Trick | None:
        """Rules first, then the durable log: a refused event changes nothing anywhere."""
        if self.log is None or self.game_id is None:
            raise CommandError("no game in play: start one first")
        if self.log.changes_nothing(event):
            return None  # a card corrected to itself: nothing to keep in the record
        before = self.log.effective
        trick = self.log.apply(event)
        try:
            self.store.append(self.game_id, event)
        except STORAGE_ERRORS:
            self.log = GameLog.from_events(before)  # nothing is applied that is not stored
            raise
        self.storage_error = ""
        self._mirror(event)
        if trick is not None:
            self.trick_scored_at = time.monotonic()
        elif isinstance(event, Correction):  # nothing was just scored: no flash to show
            self.trick_scored_at = None
        try:  # the event is stored: what follows failing only says so
            if trick is not None:
                self._keep_photo(trick)
            if self.log.game.game_over:
                self.store.finish(self.game_id)
        except STORAGE_ERRORS as err:
            self.storage_error = f"the game is saved, but not its photo or end: {err}"
        self.message = ""
        return trick

    def _mirror(self, event: RecordEvent) -> None:
        """Add a stored event to --record. The store holds it already, so a failing record
        only says so; the whole record is rewritten at the next event."""
        if self.record_path is None:
            return
        try:
            if self._record_stale:
                self.rewrite_record()
            else:
                with self.record_path.open("a", encoding="utf-8") as handle:
                    handle.write(dumps(event) + "\n")
        except OSError as err:
            self._record_stale = True
            self.storage_error = (f"the game is saved, but the record {self.record_path} "
                                  f"cannot be written: {err.strerror}")

    def rewrite_record(self) -> None:
        """Write the whole record of the game in play to --record (also after a restart):
        a temporary file beside it, synced, then renamed over it, so a kill leaves the old
        record or the new one, never half of one."""
        if self.record_path is None or self.game_id is None:
            return
        lines = [header_line(), *(dumps(e) for e in self.store.events(self.game_id))]
        path = self.record_path
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        try:
            with tmp.open("w", encoding="utf-8") as handle:
                handle.write("\n".join(lines) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except OSError:
            tmp.unlink(missing_ok=True)
            raise
        self._record_stale = False

    @property
    def game(self) -> Game | None:
        return self.log.game if self.log else None

    def apply_event(self, event: RecordEvent) -> Trick | None:
        return self._apply(event)

    def _keep_photo(self, trick: Trick) -> None:
        """Every scored trick keeps a photo of the table (evidence for disputes)."""
        if self.photo_dir is None or self.last_frame is None or self.game_id is None:
            return
        import cv2  # only a referee with a camera needs OpenCV

        relative = Path(str(self.game_id)) / f"r{trick.round + 1}-t{trick.index + 1}.jpg"
        path = self.photo_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if cv2.imwrite(str(path), self.last_frame, [cv2.IMWRITE_JPEG_QUALITY, 85]):
            self.store.add_photo(self.game_id, trick.round, trick.index, relative.as_posix())

    def _finish(self) -> None:
        if self.game_id is None:
            raise CommandError("no game in play")
        self.store.finish(self.game_id)
        self.game_id, self.log, self.conflicts = None, None, []

    # -- conflicts ------------------------------------------------------------------------------

    def ask(self, message: str, choices: list[tuple[str, str, Callable[[], None]]],
            moot: Callable[[], bool] | None = None) -> None:
        """Queue a question for a person: status amber, web banner, OK button = first choice.
        `moot` says when the question no longer needs an answer (the camera saw the card
        clearly after all, or the game moved on): it is then withdrawn."""
        self._conflict_ids += 1
        self.conflicts.append(Conflict(
            self._conflict_ids, message, [(c, label) for c, label, _ in choices],
            {c: action for c, _, action in choices}, moot,
        ))

    def _withdraw_moot(self) -> None:
        self.conflicts = [c for c in self.conflicts if c.moot is None or not c.moot()]

    raise_conflict = ask

    @property
    def conflict(self) -> Conflict | None:
        """The question shown now (the oldest one waiting)."""
        return self.conflicts[0] if self.conflicts else None

    def _resolve(self, conflict_id: int, choice: str) -> None:
        conflict = self.conflict
        if conflict is None or conflict.id != conflict_id:
            raise CommandError("that question was already answered")
        if choice not in conflict.actions:
            raise CommandError(f"{choice!r} is not one of the choices")
        self.conflicts.pop(0)
        conflict.actions[choice]()
        self.interpreter.settle()

    # -- the view ---------------------------------------------------------------------------------

    @property
    def status(self) -> str:
        if self.storage_error:
            return "storage_error"
        if self.camera_ok is False:
            return "camera_lost"
        if self.conflict is not None:
            return "attention"
        return "watching" if self.log is not None else "idle"

    def view(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "state": snapshot(self.log.game) if self.log else None,
            "status": self.status,
            "conflict": self.conflict.to_json() if self.conflict else None,
            "waiting": len(self.conflicts),
            "message": self.storage_error or self.message,
        }

    def publish(self) -> None:
        """Publish the view if it changed (ten frames a second arrive; most change nothing)."""
        view = self.view()
        if view == self._published:
            return
        self._published = view
        extra: dict[str, Any] = {"time": time.time()}
        if self.indicators is not None:
            self.indicators.update(view["state"], view["status"], self.trick_scored_at)
            extra["leds"] = self.indicators.panel()
        self.hub.publish({**view, **extra})
        if self.on_view is not None:
            self.on_view(view)
