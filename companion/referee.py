"""The referee: the one owner of the game state.

Everything that wants a change (camera observations, buttons, web requests) puts a message on the
referee's queue; one loop takes them one at a time. Camera sightings and people's answers go to
the interpreter, a pure decider: what it decides to apply is checked by the rules (the game's log),
appended to the store, then told to the subscribers (the record file, trick photos, kept crops:
companion.keep); what it asks becomes a conflict. Each change publishes a new view to the hub,
which the web page, the LEDs and the watchdog follow.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, replace
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
    SetupNeeds,
    StorageFailed,
)
from .games import DEFAULT, GameSpec, game_named
from .games.base import (
    AnswerError,
    Apply,
    Ask,
    Interpreter,
    Log,
    Moment,
    Question,
    RuleError,
    Undo,
    Withdraw,
)
from .hub import Hub
from .keep import Applied, Learned, Listener, Started
from .store import Store, now_iso

MAX_STEPS = 200  # events one decision pass may apply (a whole trick caught up is ~10)
CROP_QUALITY = 90  # JPEG quality of the cards' crops: a question's photo, a named card's lesson
# What a full or failing disk raises: the referee refuses the change and keeps going.
STORAGE_ERRORS = (sqlite3.Error, OSError)


@dataclass
class Conflict:
    """Something a person must decide; nothing is scored until then."""

    id: int
    question: Question
    image: bytes | None = None  # JPEG of the card's crop, where the question is about a card

    @property
    def key(self) -> str:
        return self.question.key

    @property
    def ok(self) -> str | None:
        """The choice the table's OK button confirms (None: answer on the phone)."""
        return self.question.ok

    def to_json(self) -> dict[str, Any]:
        q = self.question
        return {"id": self.id, "key": q.key, "message": q.message,
                "choices": [{"id": c.id, "label": c.label} for c in q.choices],
                "ok": q.ok, "seat": q.seat, "round": q.round, "trick": q.trick,
                "any_card": q.any_card,
                "image": f"/api/conflicts/{self.id}.jpg" if self.image else None}


class Referee:
    def __init__(
        self,
        store: Store,
        hub: Hub | None = None,
        *,
        on_view: Callable[[dict[str, Any]], None] | None = None,
        indicators: Any = None,
    ) -> None:
        self.store = store
        self.hub = hub or Hub()
        self.indicators = indicators  # hardware.Indicators: the LEDs render every view
        self.on_view = on_view
        self.on_idle: Callable[[], None] | None = None  # called each loop turn (watchdog)
        self.listeners: list[Listener] = []
        self.queue: queue.Queue[Any] = queue.Queue()
        self.game_id: int | None = None
        self.spec: GameSpec = game_named(DEFAULT)  # the game in play, or the last one
        self.log: Log | None = None
        self.conflicts: list[Conflict] = []
        self.camera_ok: bool | None = None  # None: no camera in use
        self.setup_needs: tuple[str, ...] = ()  # what set-up is missing ("zones", ...)
        self.message = ""
        self.storage_error = ""  # why the last write could not be stored ("" once one is)
        self.interpreter = self._interpreter()
        self.last_frame: Any = None
        self.last_t = 0.0
        self.trick_scored_at: float | None = None  # monotonic time of the last scored trick
        self._crops: dict[int, bytes] = {}  # track -> the card's context crop (JPEG)
        self._sure: dict[int, str] = {}  # track -> the card the camera read it as, surely
        self._conflict_ids = 0
        self._published: dict[str, Any] | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.resume()

    def subscribe(self, listener: Listener) -> None:
        """`listener` hears of every accepted event (Applied) and every named card (Learned)."""
        self.listeners.append(listener)

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
            case Seen(changes=changes, t=t, frame=frame, moving=moving):
                return self._seen(changes, t, frame, moving)
            case CameraStatus(ok=ok, detail=detail):
                self.camera_ok = ok
                self.message = detail
                return None
            case SetupNeeds(needs=needs, detail=detail):
                self.setup_needs = needs
                self.message = detail
                return None
            case NewGame(setup=setup, game=game):
                return self._new_game(setup, game)
            case ManualEvent(event=event):
                return self._by_hand(event)
            case Correct(correction=correction):
                return self._correct(correction)
            case AddNote(note=note):
                return self._apply(note)
            case Resolve(conflict_id=cid, choice=choice):
                return self._resolve(cid, choice)
            case ButtonPress(button="ok"):
                return self._ok_button()
            case ButtonPress(button="undo"):
                return self._correct(Undo(at=now_iso(), why="undo button"))
            case Finish():
                return self._finish()
            case Flush():
                return self._decide(self.last_t + self.interpreter.still_s + 0.01)
        raise CommandError(f"unknown command {type(command).__name__}")

    # -- what the camera saw ----------------------------------------------------------------------

    def _seen(self, changes: tuple[Any, ...], t: float, frame: Any,
              moving: frozenset[Any]) -> list[Moment]:
        self.last_t = t
        if frame is not None:
            self.last_frame = frame
            self._keep_crops(changes, frame)
        if changes or moving:
            self.interpreter.seen(changes, t, moving)
        return self._decide(t)

    def _keep_crops(self, changes: tuple[Any, ...], frame: Any) -> None:
        """The crop of each card that appeared: shown with a question about it, and kept when a
        person names it. Held as a JPEG (about 10 kB; the BGR crop is 166 kB, and 256 of them
        made a third of the service's memory)."""
        import cv2

        from vision.teach import context_crop

        for change in changes:
            if change.kind == "appeared":
                ok, data = cv2.imencode(".jpg", context_crop(frame, change.observation.quad),
                                        [cv2.IMWRITE_JPEG_QUALITY, CROP_QUALITY])
                if ok:
                    self._crops[change.observation.track] = data.tobytes()
                label = change.observation.reading.label  # None where unsure
                if label is not None:
                    self._sure[change.observation.track] = label
                else:  # read again, unsure now
                    self._sure.pop(change.observation.track, None)
        if len(self._crops) > 256:  # only cards of the last few tricks can still be asked about
            for track in sorted(self._crops)[:-128]:
                del self._crops[track]
                self._sure.pop(track, None)

    def _decide(self, t: float) -> list[Moment]:
        """Let the interpreter decide, apply what it decided, until nothing more follows."""
        moments: list[Moment] = []
        for _ in range(MAX_STEPS):
            applied = False
            for decision in self.interpreter.decide(self.game, t):
                match decision:
                    case Apply():
                        moment = self._apply_decision(decision)
                        applied = True  # applied or refused: the next pass follows from it
                        if moment is not None:
                            moments.append(moment)
                    case Ask(question=q):
                        self._ask(q)
                    case Withdraw(key=key):
                        self.conflicts = [c for c in self.conflicts if c.key != key]
            if not applied:
                break
        return moments

    def _apply_decision(self, decision: Apply) -> Moment | None:
        """Apply what the interpreter decided: the moment (a trick) it completed, or None; the
        interpreter hears whether the rules took it (if not, it asks)."""
        event = decision.event
        if getattr(event, "at", None) == "":  # a correction the person's answer made: stamp it
            event = replace(event, at=now_iso())
        try:
            trick = self._apply(event, self.last_frame)
        except RuleError as err:
            self.interpreter.refused(decision, err.detail)
            return None
        self.interpreter.applied(decision)
        if decision.learn is not None and decision.track is not None:
            self._learned(decision.track, decision.learn)
        return trick

    def _learned(self, track: int, label: str) -> None:
        data = self._crops.get(track)
        if data is not None and self.game_id is not None:
            import cv2
            import numpy as np

            crop = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            self._tell(Learned(self.game_id, label, crop, self._sure.get(track)))

    # -- game changes -----------------------------------------------------------------------------

    def resume(self) -> None:
        """Pick up the unfinished game from the store exactly where it stopped."""
        game_id = self.store.unfinished_game()
        if game_id is not None:
            self.spec = self.store.game_of(game_id)
            self.game_id, self.log = game_id, self.store.load(game_id)
            self.interpreter = self._interpreter()
        self.publish()

    def _interpreter(self, spec: GameSpec | None = None) -> Interpreter:
        """A new interpreter for the game (in play, or `spec`); a game the table cannot
        referee is a CommandError."""
        spec = spec or self.spec
        if spec.interpreter is None:
            raise CommandError(f"{spec.title} cannot be refereed at the table yet")
        return spec.interpreter()

    def _new_game(self, setup: Any, game: str) -> int:
        spec = game_named(game)
        interpreter = self._interpreter(spec)  # before anything is stored
        log = spec.log([setup])  # the rules check the set-up before anything is stored
        game_id = self.store.new_game(setup, game=spec.name)  # if it fails, the old game stays
        if self.game_id is not None:
            self.store.finish(self.game_id)
        self.game_id, self.storage_error = game_id, ""
        self.spec, self.log, self.interpreter = spec, log, interpreter
        self.conflicts = []
        self.message = "new game: " + ", ".join(setup.players)
        self._tell(Started(self.game_id))
        return self.game_id

    def _apply(self, event: Any, frame: Any = None) -> Moment | None:
        """Rules first, then the durable log, then the subscribers: a refused event changes
        nothing anywhere. `frame`: what the camera saw (a trick scored from it keeps it as its
        photo; a trick entered by hand has none)."""
        if self.log is None or self.game_id is None:
            raise CommandError("no game in play: start one first")
        if self.log.changes_nothing(event):
            return None  # a card corrected to itself: nothing to keep in the record
        before = self.log.effective
        trick = self.log.apply(event)
        try:
            self.store.append(self.game_id, event)
        except STORAGE_ERRORS:
            self.log = self.spec.log(before)  # nothing is applied that is not stored
            raise
        self.storage_error = ""
        if trick is not None:
            self.trick_scored_at = time.monotonic()
        try:  # the event is stored: what follows failing only says so
            if self.log.game.game_over:
                self.store.finish(self.game_id)
        except STORAGE_ERRORS as err:
            self.storage_error = f"the game is saved, but not its end: {err}"
        self.message = ""
        self._tell(Applied(self.game_id, event, trick, frame if trick else None))
        return trick

    def _tell(self, notice: Any) -> None:
        """Tell the subscribers; the game is stored already, so one failing only says so."""
        for listener in self.listeners:
            try:
                listener(notice)
            except STORAGE_ERRORS as err:
                self.storage_error = f"the game is saved, but: {err}"

    def _by_hand(self, event: Any) -> Moment | None:
        """A reveal or play entered by a person: the camera's cards that show it are tied to it."""
        trick = self._apply(event)
        self._decide(self.last_t)
        return trick

    def _correct(self, correction: Any) -> Moment | None:
        """An undo or a game's own correction (a play or a reveal replaced)."""
        trick = self._apply(correction)
        self.trick_scored_at = None  # nothing was just scored: no flash to show
        game = self.game
        if game is not None and isinstance(correction, Undo):
            self.interpreter.undone(game)
        elif game is not None:
            kept = self.interpreter.corrected(correction, game)
            if kept is not None and kept.track is not None and kept.learn is not None:
                self._learned(kept.track, kept.learn)
        self._decide(self.last_t)
        return trick

    @property
    def game(self) -> Any:
        """The game in play (the game's own type), or None."""
        return self.log.game if self.log else None

    def _finish(self) -> None:
        if self.game_id is None:
            raise CommandError("no game in play")
        self.store.finish(self.game_id)
        self.game_id, self.log, self.conflicts = None, None, []
        self.interpreter = self._interpreter()

    # -- conflicts ------------------------------------------------------------------------------

    def _ask(self, question: Question) -> None:
        """Show a question (a new one, or a new version of one already shown)."""
        image = self._crops.get(question.track) if question.track is not None else None
        for c in self.conflicts:
            if c.key == question.key:  # the same question, said better: it keeps its id
                c.question, c.image = question, image or c.image
                return
        self._conflict_ids += 1
        self.conflicts.append(Conflict(self._conflict_ids, question, image))

    @property
    def conflict(self) -> Conflict | None:
        """The question shown now (the oldest one waiting)."""
        return self.conflicts[0] if self.conflicts else None

    def conflict_image(self, conflict_id: int) -> bytes | None:
        return next((c.image for c in self.conflicts if c.id == conflict_id), None)

    def _resolve(self, conflict_id: int, choice: str) -> None:
        conflict = next((c for c in self.conflicts if c.id == conflict_id), None)
        if conflict is None or self.game is None:
            raise CommandError("that question was already answered")
        try:
            self.interpreter.answer(conflict.key, choice, self.game, self.last_t)
        except AnswerError as err:
            raise CommandError(str(err)) from err
        self.conflicts = [c for c in self.conflicts if c.id != conflict_id]
        self._decide(self.last_t)

    def _ok_button(self) -> Moment | None:
        """Confirm the open question's one sure proposal; with none open, the game's own move
        (an Attacke pass), which the undo button takes back."""
        conflict = self.conflict
        if conflict is None:
            event = self.spec.ok_event(self.game) if self.game is not None else None
            return self._by_hand(event) if event is not None else None
        if conflict.ok is None:
            self.message = "answer the question on a phone: the OK button cannot"
            return None
        self._resolve(conflict.id, conflict.ok)
        return None

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
            "game": self.spec.name,
            "state": self.spec.snapshot(self.log.game, self.interpreter.laid_out(self.log.game))
            if self.log else None,
            "status": self.status,
            "conflict": self.conflict.to_json() if self.conflict else None,
            "waiting": len(self.conflicts),
            "message": self.storage_error or self.message,
            "setup": list(self.setup_needs),
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
