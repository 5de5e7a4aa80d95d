"""Seat LEDs and the status LED, driven through gpiozero from an LedView.

Blinks and pulses are computed, not delegated to gpiozero's blink()/pulse() threads:
`tick(now)` sets every duty cycle for clock time `now`, so tests assert exact pin values
at chosen instants without sleeping, and a flash ends by itself at its `until` time. With
animate=True one small thread calls tick() at tick_hz while anything blinks or pulses and
sleeps otherwise. The thread only renders: state still changes in the referee alone.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from gpiozero import PWMLED, RGBLED

from .pins import HardwareError, PinMap, choose_pin_factory
from .view import (
    COLOURS,
    OFF,
    PATTERNS_JSON,
    LedView,
    Light,
    SeatLight,
    blank_view,
    view_from_snapshot,
)

Duty = tuple[float, ...]
Device = Any  # RGBLED, or (red PWMLED, blue PWMLED) in pair mode


class Indicators:
    """One LED per seat (RGB, or a red and a blue LED in pair mode) and an RGB status LED."""

    def __init__(self, n_seats: int, pin_map: PinMap | None = None, pin_factory: Any = None,
                 mode: str | None = None, *, animate: bool = True, tick_hz: float = 50.0,
                 clock: Callable[[], float] = time.monotonic,
                 on_change: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.pin_map = pin_map or PinMap()
        self.mode = mode or self.pin_map.mode
        if self.mode not in ("rgb", "pair"):
            raise HardwareError(f"indicators: mode {self.mode!r} is not 'rgb' or 'pair'")
        if not 1 <= n_seats <= len(self.pin_map.seats):
            raise HardwareError(f"indicators: {n_seats} seats, but the pin map wires "
                                f"{len(self.pin_map.seats)}")
        if not 1 <= tick_hz <= 1000:
            raise HardwareError(f"indicators: tick_hz {tick_hz} is outside 1..1000")
        self.n_seats = n_seats
        self._factory = choose_pin_factory() if pin_factory is None else pin_factory
        self._clock = clock
        self._period = 1.0 / tick_hz
        self._on_change = on_change
        self._lock = threading.RLock()
        self._seats: list[Device] = []
        self._status: Any = None
        self._open_devices()
        self._view: LedView | None = None
        self._written: dict[int, Duty] = {}          # device index -> last duties written
        self._active: tuple[Light, ...] = ()        # lights on show at the last tick
        self._last_tick = 0.0
        self._closed = False
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        if animate:
            self._thread = threading.Thread(target=self._animate, name="leds", daemon=True)
            self._thread.start()

    # -- devices -------------------------------------------------------------------------
    def _open_devices(self) -> None:
        pm = self.pin_map
        try:
            for seat in range(self.n_seats):
                pins = pm.seat_pins(seat, self.mode)
                self._seats.append(self._open(f"seat {seat}", pins))
            self._status = self._open("status", pm.status, rgb=True)
        except HardwareError:
            self._close_devices()
            raise

    def _open(self, what: str, pins: tuple[int, ...], rgb: bool | None = None) -> Device:
        rgb = self.mode == "rgb" if rgb is None else rgb
        kw = {"active_high": self.pin_map.active_high, "pin_factory": self._factory}
        try:
            if rgb:
                return RGBLED(*pins, **kw)
            red = PWMLED(pins[0], **kw)
            try:
                return (red, PWMLED(pins[1], **kw))
            except Exception:
                red.close()
                raise
        except Exception as exc:  # gpiozero, lgpio ("can not open gpiochip"), permissions
            gpios = "/".join(f"GPIO{p}" for p in pins)
            raise HardwareError(f"cannot open the {what} LED on {gpios}: {exc}") from exc

    def _close_devices(self) -> None:
        for dev in [*self._seats, self._status]:
            for part in dev if isinstance(dev, tuple) else (dev,):
                if part is not None:
                    part.close()
        self._seats, self._status = [], None

    # -- rendering -----------------------------------------------------------------------
    def update(self, snapshot: Mapping[str, Any] | None, status: str,
               trick_scored_at: float | None = None, now: float | None = None) -> LedView:
        """Show a state snapshot (None: no game) with the referee's status; returns the view.

        Times are on this object's clock (time.monotonic() by default, as the referee's
        trick_scored_at is). A game with more players than wired seats (Attacke seats six) lights
        the wired ones; the others have no light.
        """
        now = self._clock() if now is None else now
        if snapshot is None:
            view = blank_view(self.n_seats, status, now)
        else:
            view = view_from_snapshot(snapshot, status, now, trick_scored_at)
            if len(view.seats) > self.n_seats:
                view = replace(view, seats=view.seats[:self.n_seats])
        self.show(view)
        return view

    def show(self, view: LedView) -> None:
        """Render a new view now (and keep animating it until the next one).

        A game with fewer players than wired seats leaves the extra seat LEDs dark.
        """
        if len(view.seats) > self.n_seats:
            raise HardwareError(f"indicators: the game has {len(view.seats)} seats, LEDs are "
                                f"wired for {self.n_seats}")
        with self._lock:
            if self._closed:
                raise HardwareError("indicators: already closed")
            self._view = view
        self.tick(view.now, publish=False)
        self._wake.set()
        self._publish()

    def tick(self, now: float, publish: bool = True) -> None:
        """Set every LED's duty cycle for clock time `now`."""
        with self._lock:
            if self._closed or self._view is None:
                return
            view, self._last_tick = self._view, now
            lights = tuple(s.active(now) for s in view.seats) + (view.status,)
            for i, dev in enumerate(self._seats):
                light = lights[i] if i < len(view.seats) else OFF
                self._write(i, dev, self._seat_duty(light, now))
            self._write(-1, self._status, _quantize(view.status.output(now)))
            changed, self._active = lights != self._active, lights
        if changed and publish:
            self._publish()  # a flash ended: the panel's picture changed

    def _seat_duty(self, light: Light, now: float) -> Duty:
        r, g, b = _quantize(light.output(now))
        return (r, g, b) if self.mode == "rgb" else (r, b)

    def _write(self, key: int, dev: Device, duty: Duty) -> None:
        if self._written.get(key) == duty:
            return
        if isinstance(dev, tuple):
            for led, value in zip(dev, duty, strict=True):
                led.value = value
        else:
            dev.value = duty
        self._written[key] = duty

    def animating(self, now: float) -> bool:
        """True while some light blinks, pulses or has a flash still to end after `now`."""
        view = self._view
        if view is None:
            return False
        lights = [view.status, *(s.active(now) for s in view.seats)]
        return any(light.pattern != "steady" or light.until is not None for light in lights)

    def _animate(self) -> None:
        timeout: float | None = None
        while True:
            self._wake.wait(timeout)
            self._wake.clear()
            if self._closed:
                return
            now = self._clock()
            self.tick(now)  # tick before deciding to sleep: a flash that just ended is drawn
            timeout = self._period if self.animating(now) else None

    # -- the web's virtual LED panel -----------------------------------------------------
    def _publish(self) -> None:
        if self._on_change is not None:
            self._on_change(self.panel())

    def panel(self) -> dict[str, Any]:
        """JSON-able picture of every LED: colour, peak level, pattern, and duty at last tick."""
        with self._lock:
            view = self._view
            now = self._last_tick
            shown = view.seats if view else ()
            seats = [self._seat_entry(i, shown[i] if i < len(shown) else None, now)
                     for i in range(self.n_seats)]
            status_light = view.status if view else OFF
            status = _light_entry(status_light, now, self._written.get(-1, (0.0, 0.0, 0.0)))
            status["state"] = view.status_name if view else None
            return {"mode": self.mode, "seats": seats, "status": status,
                    "patterns": PATTERNS_JSON}

    def _seat_entry(self, i: int, seat: SeatLight | None, now: float) -> dict[str, Any]:
        duty = self._written.get(i, (0.0,) * (3 if self.mode == "rgb" else 2))
        light = seat.active(now) if seat else OFF
        entry = _light_entry(light, now, duty)
        entry.update(seat=i, balance=seat.balance if seat else 0,
                     role=(seat.flash_role if seat and light is seat.flash else
                           seat.role if seat else "off"))
        return entry

    # -- life cycle ----------------------------------------------------------------------
    def close(self) -> None:
        """Stop animating, switch the LEDs off and release every pin (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        with self._lock:
            self._close_devices()

    def __enter__(self) -> Indicators:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _quantize(duty: tuple[float, float, float]) -> tuple[float, float, float]:
    """Round to 1/1000: PWM cannot show finer steps, and equal values skip the pin write."""
    r, g, b = (round(min(max(v, 0.0), 1.0), 3) for v in duty)
    return (r, g, b)


def _light_entry(light: Light, now: float, duty: Duty) -> dict[str, Any]:
    return {
        "colour": light.colour,
        "rgb": list(COLOURS[light.colour]),
        "level": light.level,
        "pattern": light.pattern,
        "phase_s": round(now - light.since, 3),
        "remaining_s": None if light.until is None else round(max(light.until - now, 0.0), 3),
        "value": list(duty),
    }
