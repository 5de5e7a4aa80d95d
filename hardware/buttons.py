"""The two table buttons: OK (confirm / next) and undo (hold about 2 s).

Callbacks run on gpiozero's threads (or, with mock pins, in whoever drives the pin), so they
only hand a ButtonPress to `put` (e.g. the referee queue's put): state changes in the
referee's loop alone. Wiring: each button between its GPIO and GND, internal pull-up.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpiozero import Button

from .pins import HardwareError, PinMap, choose_pin_factory

BUTTONS = ("ok", "undo")


@dataclass(frozen=True)
class ButtonPress:
    """A message for the referee: "ok" was pressed, or "undo" was held for hold_s."""

    button: str

    def __post_init__(self) -> None:
        if self.button not in BUTTONS:
            raise HardwareError(f"button {self.button!r} is not one of {', '.join(BUTTONS)}")


class Buttons:
    """OK enqueues ButtonPress("ok") per debounced press; undo enqueues ButtonPress("undo")
    once per hold of at least hold_s (a short undo press enqueues nothing).

    `make` builds the message from "ok"/"undo": pass the referee's own message class
    (e.g. companion.commands.ButtonPress) so its queue needs no translation.
    """

    def __init__(self, put: Callable[[object], None], pin_map: PinMap | None = None,
                 pin_factory: Any = None, hold_s: float = 2.0, bounce_s: float = 0.05,
                 clock: Callable[[], float] = time.monotonic,
                 make: Callable[[str], object] = ButtonPress) -> None:
        if hold_s <= 0 or bounce_s < 0:
            raise HardwareError(f"buttons: hold_s must be > 0 and bounce_s >= 0 "
                                f"(got {hold_s}, {bounce_s})")
        pm = pin_map or PinMap()
        factory = choose_pin_factory() if pin_factory is None else pin_factory
        self._put = put
        self._make = make
        self._bounce_s = bounce_s
        self._clock = clock
        self._lock = threading.Lock()
        self._released_at = -float("inf")   # OK: last release, for the debounce lock-out
        self._ok = self._open("OK", pm.ok, factory, 1.0)
        try:
            self._undo = self._open("undo", pm.undo, factory, hold_s)
        except HardwareError:
            self._ok.close()
            raise
        # gpiozero's own bounce_time is left off: MockPin ignores it, so the software
        # lock-out below is what debounces, identically on mock and real pins.
        self._ok.when_pressed = self._ok_pressed
        self._ok.when_released = self._ok_released
        self._undo.when_held = self._undo_held

    @staticmethod
    def _open(what: str, pin: int, factory: Any, hold_s: float) -> Button:
        try:
            return Button(pin, pull_up=True, hold_time=hold_s, pin_factory=factory)
        except Exception as exc:  # gpiozero, lgpio ("can not open gpiochip"), permissions
            raise HardwareError(f"cannot open the {what} button on GPIO{pin}: {exc}") from exc

    def _ok_pressed(self) -> None:
        # A press counts only after the contact has been open for bounce_s: this drops
        # both the chatter of a press and the bounce that follows a release.
        with self._lock:
            quiet = self._clock() - self._released_at >= self._bounce_s
        if quiet:
            self._put(self._make("ok"))

    def _ok_released(self) -> None:
        with self._lock:
            self._released_at = self._clock()

    def _undo_held(self) -> None:
        self._put(self._make("undo"))

    def close(self) -> None:
        """Release both pins (idempotent)."""
        self._ok.close()
        self._undo.close()

    def __enter__(self) -> Buttons:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
