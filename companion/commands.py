"""Messages for the referee's queue. Every thread that wants something changed (camera,
buttons, web requests) sends one of these; only the referee's loop acts on them."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from .games import DEFAULT
from .games.base import Note


class CommandError(ValueError):
    """A command the referee refused; the message is one line for a person."""


@dataclass(frozen=True)
class NewGame:
    """Start a game of `game` (a name of companion.games.GAMES) with its game_started event."""

    setup: Any
    game: str = DEFAULT


@dataclass(frozen=True)
class ManualEvent:
    """A game event entered by a person (the camera is lost or unsure): in Tightrope a scoring
    card or a play."""

    event: Any


@dataclass(frozen=True)
class Correct:
    """An undo, or a game's own correction (Tightrope: replace a play or a scoring card)."""

    correction: Any


@dataclass(frozen=True)
class AddNote:
    note: Note


@dataclass(frozen=True)
class Resolve:
    """A person's answer to the conflict shown: one of its choices' ids."""

    conflict_id: int
    choice: str


@dataclass(frozen=True)
class ButtonPress:
    button: str  # "ok" or "undo"


@dataclass(frozen=True)
class Finish:
    """End the game early (abandon it); it stays in the history."""


@dataclass(frozen=True)
class Seen:
    """From the camera thread: the watcher's changes at frame time `t` (seconds), the frame
    itself (for the photo of a trick), and the zones a hand moved over in it. Sent for every
    frame, so time passes for the referee."""

    changes: tuple[Any, ...]
    t: float
    frame: Any = None
    moving: frozenset[Any] = frozenset()


@dataclass(frozen=True)
class CameraStatus:
    ok: bool
    detail: str = ""


@dataclass(frozen=True)
class SetupNeeds:
    """What the companion still needs before it can watch the table ("zones", ...): the web
    page leads the host there."""

    needs: tuple[str, ...] = ()
    detail: str = ""


@dataclass(frozen=True)
class Flush:
    """Answered once every message before it was handled; settles what the camera saw."""


class StorageFailed(CommandError):
    """The change could not be stored (a full or failing disk); nothing was applied."""


class CommandTimeout(CommandError):
    """The referee did not start the command in time; it was withdrawn and never runs."""


@dataclass
class Call:
    """A command with a reply slot, for callers that wait for the outcome (web requests).

    A call is applied and answered, or withdrawn and never applied: a caller that gives up
    before the referee took the call withdraws it (the loop skips it), and one that gives up
    after the referee took it waits for the outcome instead of reporting a failure."""

    command: Any
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: str | CommandError | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _taken: bool = False
    _withdrawn: bool = False

    def take(self) -> bool:
        """The referee's loop claims the call before handling it; False: it was withdrawn."""
        with self._lock:
            if self._withdrawn:
                return False
            self._taken = True
            return True

    def reply(self, result: Any = None, error: str | CommandError | None = None) -> None:
        self.result, self.error = result, error
        self.done.set()

    def wait(self, timeout: float) -> Any:
        if not self.done.wait(timeout):
            with self._lock:
                if not self._taken:
                    self._withdrawn = True
                    raise CommandTimeout("the referee did not answer in time; "
                                         "nothing was changed, try again")
            self.done.wait()  # being handled now: its outcome is moments away
        if isinstance(self.error, CommandError):
            raise self.error
        if self.error is not None:
            raise CommandError(self.error)
        return self.result
