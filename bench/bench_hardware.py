"""LED and button costs on gpiozero's mock pins: view building, a tick, the animator's CPU,
OK press and undo hold latency.

Run: .venv/bin/python -m bench.bench_hardware  (results recorded in docs/wiring.md)
Mock pins cost less than real ones (lgpio talks to the kernel on every duty change), so the
tick numbers are the Python side only; the animator's duty only changes ~15 pins 50 times a
second, which lgpio handles easily on a Pi.
"""

from __future__ import annotations

import json
import queue
import statistics
import time

from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.buttons import Buttons
from hardware.indicators import Indicators
from hardware.pins import PinMap
from hardware.view import view_from_snapshot

BUSY = {  # worst case: all five seats animate (flash, flash, three pulsing), status blinks
    "balances": [7, -7, 3, -2, 0], "to_play": [2, 3, 4], "game_over": False, "winners": [],
    "last_trick": {"high": 0, "low": 1, "blue": 7, "red": 7},
}


def per_call_us(fn, n: int) -> float:
    t0 = time.perf_counter()
    for i in range(n):
        fn(i)
    return 1e6 * (time.perf_counter() - t0) / n


def bench_view(n: int = 20_000) -> float:
    return per_call_us(lambda i: view_from_snapshot(BUSY, "attention", 100.0 + i * 1e-4, 99.0), n)


def bench_tick(factory: MockFactory, n: int = 5_000) -> float:
    with Indicators(5, PinMap(), factory, animate=False) as ind:
        ind.update(BUSY, "attention", trick_scored_at=0.0, now=0.0)
        return per_call_us(lambda i: ind.tick(i * 0.02 % 2.9), n)


def bench_animator_cpu(factory: MockFactory, seconds: float = 3.0) -> float:
    """Process CPU share while the animator redraws the busy view at 50 Hz."""
    with Indicators(5, PinMap(), factory, tick_hz=50) as ind:
        ind.update(BUSY, "attention", trick_scored_at=time.monotonic() + 1e6)  # flash forever
        cpu0, wall0 = time.process_time(), time.perf_counter()
        time.sleep(seconds)
        return 100 * (time.process_time() - cpu0) / (time.perf_counter() - wall0)


def bench_buttons(factory: MockFactory, holds: int = 5, hold_s: float = 0.2) -> dict[str, float]:
    q: queue.Queue = queue.Queue()
    pm = PinMap()
    ok, undo = factory.pin(pm.ok), factory.pin(pm.undo)
    with Buttons(q.put, pm, factory, hold_s=hold_s, bounce_s=0.0):
        press = []
        for _ in range(200):
            t0 = time.perf_counter()
            ok.drive_low()
            q.get_nowait()
            press.append(time.perf_counter() - t0)
            ok.drive_high()
        late = []
        for _ in range(holds):
            t0 = time.perf_counter()
            undo.drive_low()
            q.get(timeout=5)
            late.append(time.perf_counter() - t0 - hold_s)
            undo.drive_high()
            time.sleep(0.05)
    return {"ok_press_to_queue_us": round(1e6 * statistics.median(press), 1),
            "undo_hold_late_ms_median": round(1e3 * statistics.median(late), 1),
            "undo_hold_late_ms_max": round(1e3 * max(late), 1)}


def main() -> dict[str, float]:
    factory = MockFactory(pin_class=MockPWMPin)
    result = {
        "view_from_snapshot_us": round(bench_view(), 1),
        "tick_5_seats_busy_us": round(bench_tick(factory), 1),
        "animator_cpu_percent_at_50hz": round(bench_animator_cpu(factory), 2),
        **bench_buttons(factory),
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
