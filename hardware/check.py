"""Check the soldering: light every LED colour in turn, then echo button presses.

    python -m hardware [--config FILE] [--seats N] [--mode rgb|pair] [--step S] [--buttons S]

Each step prints which GPIO and header pin should be lit, so a dark LED points at one
solder joint. Off the Pi it runs on mock pins (nothing to see, but the sequence is checked).
"""

from __future__ import annotations

import argparse
import queue
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from .buttons import Buttons
from .indicators import Indicators
from .pins import PHYSICAL, HardwareError, PinMap, choose_pin_factory, load_pin_map
from .view import OFF, LedView, Light, SeatLight, balance_level


def _where(pin: int) -> str:
    return f"GPIO{pin} (physical pin {PHYSICAL[pin]})"


def _seat_only(n: int, seat: int, light: Light) -> LedView:
    seats = tuple(SeatLight(i, 0, "check", light if i == seat else OFF) for i in range(n))
    return LedView(seats, OFF, "check", time.monotonic())


def led_steps(pm: PinMap, n: int, mode: str) -> list[tuple[str, LedView]]:
    """(what should light, view) for every LED colour, the status LED and a brightness ramp."""
    steps = []
    colours = ("red", "green", "blue") if mode == "rgb" else ("red", "blue")
    for seat in range(n):
        for colour, pin in zip(colours, pm.seat_pins(seat, mode), strict=True):
            steps.append((f"seat {seat} {colour}: {_where(pin)}",
                          _seat_only(n, seat, Light(colour, 1.0))))
    dark = _seat_only(n, -1, OFF).seats
    for colour, pin in zip(("red", "green", "blue"), pm.status, strict=True):
        steps.append((f"status {colour}: {_where(pin)}",
                      LedView(dark, Light(colour, 1.0), "check", time.monotonic())))
    for sticks in (1, 3, 6, 12):
        steps.append((f"seat 0 blue at {sticks} stick(s): duty {balance_level(sticks):.0%}",
                      _seat_only(n, 0, Light("blue", balance_level(sticks)))))
    return steps


def run(args: argparse.Namespace, out: TextIO, sleep: Callable[[float], None] = time.sleep,
        factory: Any = None) -> int:
    """The check itself; `sleep` runs once per lit step (tests inspect the pins there)."""
    pm = load_pin_map(args.config)
    n = args.seats or len(pm.seats)
    if n > len(pm.seats):
        raise HardwareError(f"--seats {n}: the pin map wires only {len(pm.seats)} seats")
    mode = args.mode or pm.mode
    factory = choose_pin_factory() if factory is None else factory
    print(f"pins: {'mock (not a Raspberry Pi)' if factory else 'real GPIO'}, {n} seats, "
          f"{mode} mode, active_high={pm.active_high}", file=out)
    for note in pm.bus_notes():
        print(f"note: {note}", file=out)
    with Indicators(n, pm, factory, mode, animate=False) as leds:
        for what, view in led_steps(pm, n, mode):
            print(f"lit: {what}", file=out, flush=True)
            leds.show(view)
            sleep(args.step)
    if args.buttons > 0:
        presses: queue.Queue = queue.Queue()
        print(f"press OK ({_where(pm.ok)}) or hold undo ({_where(pm.undo)}) for 2 s; "
              f"listening {args.buttons:g} s", file=out, flush=True)
        with Buttons(presses.put, pm, factory):
            end = time.monotonic() + args.buttons
            while (left := end - time.monotonic()) > 0:
                try:
                    print(f"button: {presses.get(timeout=left).button}", file=out, flush=True)
                except queue.Empty:
                    break
    print("done", file=out)
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m hardware", description=__doc__.split("\n")[0])
    p.add_argument("--config", help="TOML config with a [pins] table (default: built-in)")
    p.add_argument("--seats", type=int, choices=(3, 4, 5), help="seats wired (default: all)")
    p.add_argument("--mode", choices=("rgb", "pair"), help="override [pins] mode")
    p.add_argument("--step", type=float, default=1.5, help="seconds per LED (default 1.5)")
    p.add_argument("--buttons", type=float, default=20.0,
                   help="seconds to listen for buttons (default 20, 0 = skip)")
    return p


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    args = parser().parse_args(argv)
    try:
        return run(args, out)
    except HardwareError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
