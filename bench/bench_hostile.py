"""The real service under hostile clients: peak memory during a burst of wrong PINs, and a page
still answered with hundreds of idle connections open.

The service is `tightrope-companion run` in its own process, as on the Pi (referee, mock LEDs,
the vision reader loaded, the web server), on a one-frame recorded source that ends at once,
with a host PIN hashed at the real scrypt cost (16 MiB a hash). Measured from outside:

1. `--guesses` (50) wrong-PIN logins at once, each from its own loopback address (127.0.0.x:
   as many devices), then as many from one address; peak resident memory of the service
   (VmHWM, and VmRSS sampled every 10 ms), the answers, the time the burst took.
2. `--idle` (200) TCP connections opened and left silent, then one normal GET /api/view on a
   new connection: its time; then how long until the server closed the idle ones.

Run: .venv/bin/python -m bench.bench_hostile [--guesses 50] [--idle 200] [--code DIR]
(`--code DIR`: run the service from another checkout, e.g. the code before a change.)
Results are recorded in docs/PERFORMANCE.md ("Web", "Hostile clients").
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PIN = "8642"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def memory(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak) of a process, in KiB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


class Service:
    """`tightrope-companion run` with the web on a free port, from `code` (a checkout)."""

    def __init__(self, code: Path) -> None:
        import cv2
        import numpy as np

        from web.auth import hash_pin  # the real cost: this process does not lower it

        self.root = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
        frames = self.root / "frames"
        frames.mkdir()
        cv2.imwrite(str(frames / "frame_000.png"), np.full((720, 1280, 3), 60, np.uint8))
        zones = {"seats": [[[x, 400], [x + 400, 400], [x + 400, 719], [x, 719]]
                           for x in (0, 420, 840)],
                 "scoring": [[200, 50], [1080, 50], [1080, 350], [200, 350]]}
        (self.root / "zones.json").write_text(json.dumps(zones))
        (self.root / "setup.json").write_text(json.dumps(
            {"type": "game_started", "players": ["Ana", "Ben", "Cy"], "first_dealer": 0}))
        data = self.root / "data"
        data.mkdir()
        (data / "host-pin").write_text(hash_pin(PIN) + "\n")
        self.port = free_port()
        env = {**os.environ, "TIGHTROPE_MOCK_GPIO": "1", "PYTHONPATH": str(code)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "run", "--source", str(frames),
             "--zones", str(self.root / "zones.json"), "--setup", str(self.root / "setup.json"),
             "--data-dir", str(data), "--port", str(self.port)],
            cwd=code, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if self.get("/api/view", timeout=2)[0] == 200:
                    break
            except OSError:
                time.sleep(0.2)
        else:
            raise RuntimeError("the service did not answer within 120 s")
        time.sleep(1.0)  # the source has ended; the service is idle

    def get(self, path: str, timeout: float = 10.0) -> tuple[int, float]:
        began = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            return response.status, time.monotonic() - began
        finally:
            conn.close()

    def login(self, source: str, pin: str) -> int:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60,
                                          source_address=(source, 0))
        host = f"127.0.0.1:{self.port}"
        try:
            conn.request("POST", "/api/login", body=json.dumps({"pin": pin}), headers={
                "Content-Type": "application/json", "Origin": f"http://{host}"})
            response = conn.getresponse()
            response.read()
            return response.status
        except OSError:
            return 0  # no answer
        finally:
            conn.close()

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.root, ignore_errors=True)


def pin_burst(service: Service, guesses: int, sources: list[str]) -> dict[str, Any]:
    """`guesses` wrong PINs at once from `sources` (round robin); memory while they run."""
    pid = service.proc.pid
    before = memory(pid)["VmRSS"]
    peak = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], memory(pid)["VmRSS"])
            time.sleep(0.01)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    start = threading.Barrier(guesses)
    answers: list[int] = []

    def guess(i: int) -> None:
        start.wait()
        answers.append(service.login(sources[i % len(sources)], f"{1000 + i}"))

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(guesses)]
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - began
    done.set()
    sampler.join()
    return {"clients": len(sources), "rss_before_mb": round(before / 1024, 1),
            "rss_peak_sampled_mb": round(peak[0] / 1024, 1),
            "answers": dict(collections.Counter(answers)), "seconds": round(took, 2)}


def idle_connections(service: Service, n: int, wait_close: bool) -> dict[str, Any]:
    idle = [socket.create_connection(("127.0.0.1", service.port), timeout=5) for _ in range(n)]
    time.sleep(0.5)
    try:
        status, took = service.get("/api/view", timeout=10)
    except OSError as err:
        status, took = 0, float("nan")
        print(f"bench_hostile: GET with {n} idle connections: {err}", file=sys.stderr)
    result: dict[str, Any] = {"idle": n, "get_status": status, "get_ms": round(1000 * took, 1)}
    if wait_close:
        began, open_ = time.monotonic(), set(idle)
        while open_ and time.monotonic() - began < 90:
            readable, _, _ = select.select(list(open_), [], [], 1.0)
            for sock in readable:
                if sock.recv(1) == b"":
                    open_.discard(sock)
        result["idle_closed_after_s"] = (round(time.monotonic() - began + 0.5, 1)
                                         if not open_ else None)
    for sock in idle:
        sock.close()
    return result


def main(guesses: int = 50, idle: int = 200, code: Path = ROOT,
         wait_close: bool = True) -> dict[str, Any]:
    service = Service(code)
    try:
        result: dict[str, Any] = {"code": str(code)}
        result["rss_idle_mb"] = round(memory(service.proc.pid)["VmRSS"] / 1024, 1)
        result["wrong_pins_many_clients"] = pin_burst(
            service, guesses, [f"127.0.{i // 250}.{i % 250 + 2}" for i in range(guesses)])
        time.sleep(1.0)
        result["wrong_pins_one_client"] = pin_burst(service, guesses, ["127.0.9.9"])
        result["rss_peak_mb"] = round(memory(service.proc.pid)["VmHWM"] / 1024, 1)
        result["idle_connections"] = idle_connections(service, idle, wait_close)
        status, _ = service.get("/api/view", timeout=10)
        result["alive_after"] = status == 200
        return result
    finally:
        service.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guesses", type=int, default=50)
    parser.add_argument("--idle", type=int, default=200)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout to run")
    parser.add_argument("--no-wait-close", action="store_true",
                        help="do not wait for the server to close the idle connections")
    args = parser.parse_args()
    print(json.dumps(main(args.guesses, args.idle, args.code.resolve(),
                          not args.no_wait_close), indent=2))
