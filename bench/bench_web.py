"""The live web view under load: event -> update latency on loopback, and no lost events.

A real referee (loop thread) plays a random 4-player game event by event (each event published
to the hub, as at the table) to the real server (web.server, waitress). Measured:

1. `--clients` raw SSE clients (default 50) held at once; a fifth of them drop their connection
   mid-game and reconnect with Last-Event-ID. Each counts the ids it got: lost = ids it never
   saw. Latency = time the client parsed a view - the view's publish time (same clock).
2. One headless Chromium (Debian's, via Playwright) on the table page: publish time -> the page
   has drawn that view (a MutationObserver stamps each drawn view id), with the 50 clients on.

Run: .venv/bin/python -m bench.bench_web [--clients 50] [--events 150] [--no-browser]
Results are recorded in docs/PERFORMANCE.md ("Web").
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from companion.commands import ManualEvent, NewGame
from companion.games.tightrope.randgame import random_game
from companion.games.tightrope.rules import Variant
from companion.hub import Hub
from companion.referee import Referee
from companion.store import Store
from web.app import create_app
from web.auth import PinStore
from web.server import make_server


class Client(threading.Thread):
    """One SSE reader; optionally drops once after `drop_after` views and reconnects."""

    def __init__(self, port: int, drop_after: int | None = None) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.drop_after = drop_after
        self.seen: dict[int, float] = {}  # view id -> latency (s)
        self.reconnects = 0
        self.refused = 0
        self.stop = threading.Event()
        self.ready = threading.Event()

    def run(self) -> None:
        last: int | None = None
        while not self.stop.is_set():
            last = self._session(last)

    def _session(self, last: int | None) -> int | None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Last-Event-ID": str(last)} if last is not None else {}
        conn.request("GET", "/events", headers=headers)
        response = conn.getresponse()
        self.ready.set()
        if response.status != 200:  # 503 over the stream cap: retry later, as the page does
            self.refused += 1
            conn.close()
            time.sleep(1.0)
            return last
        view_id = None
        try:
            for raw in response:
                line = raw.decode().rstrip("\n")
                if line.startswith("id: "):
                    view_id = int(line[4:])
                elif line.startswith("data: ") and view_id is not None:
                    view = json.loads(line[6:])
                    self.seen.setdefault(view_id, time.time() - view["time"])
                    last = view_id
                    if self.drop_after is not None and len(self.seen) == self.drop_after:
                        self.drop_after = None
                        self.reconnects += 1
                        break  # drop the connection mid-game, come back with Last-Event-ID
                if self.stop.is_set():
                    break
        except (OSError, http.client.HTTPException):
            time.sleep(0.2)
        finally:
            conn.close()
        return last


def browser_watch(url: str) -> tuple[Any, Any, Any] | None:
    """A Chromium page on the table that stamps Date.now() for each drawn view id."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    executable = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(executable).exists():
        return None
    p = sync_playwright().start()
    browser = p.chromium.launch(executable_path=executable, args=[
        "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"])
    page = browser.new_page()
    page.goto(url)
    page.wait_for_selector("#conn[data-state=live]")
    page.evaluate("""() => {
        window.__drawn = {};
        new MutationObserver(() => {
            const id = document.body.dataset.viewId;
            if (id && !(id in window.__drawn)) window.__drawn[id] = Date.now();
        }).observe(document.body, {attributes: true, attributeFilter: ["data-view-id"]});
    }""")
    return p, browser, page


def percentiles(values: list[float]) -> dict[str, float]:
    values = sorted(values)
    pick = lambda q: values[min(len(values) - 1, int(q * len(values)))]  # noqa: E731
    return {"p50_ms": round(1000 * statistics.median(values), 2),
            "p95_ms": round(1000 * pick(0.95), 2), "max_ms": round(1000 * values[-1], 2)}


def main(clients: int = 50, n_events: int = 150, interval: float = 0.05,
         browser: bool = True) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="bench-web-"))
    store = Store(root / "t.db")
    hub = Hub(keep=1024)
    referee = Referee(store, hub)
    pins = PinStore(root / "pin")
    app = create_app(referee, store, photo_dir=root / "photos", pin_store=pins)
    server = make_server(app, "127.0.0.1", 0)
    threading.Thread(target=server.run, daemon=True).start()
    referee.start()
    events = random_game(random.Random(7), n=4, variant=Variant())
    referee.call(NewGame(events[0]))

    readers = [Client(server.port, drop_after=(10 + i if i % 5 == 0 else None))
               for i in range(clients)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.ready.wait(10)
    watch = browser_watch(f"http://127.0.0.1:{server.port}/") if browser else None
    time.sleep(0.5)

    first_id = hub.latest()[0] + 1
    for event in events[1:n_events + 1]:
        referee.call(ManualEvent(event))
        time.sleep(interval)
    time.sleep(1.5)
    published = {i: view["time"] for i, view in hub.since(first_id - 1)}
    wanted = set(published)

    latencies = [lat for r in readers for i, lat in r.seen.items() if i in wanted]
    lost = sum(len(wanted - set(r.seen)) for r in readers)
    result: dict[str, Any] = {
        "clients": clients, "views_published": len(wanted),
        "views_delivered": len(latencies), "lost": lost,
        "reconnected_clients": sum(r.reconnects for r in readers),
        "refused_503": sum(r.refused for r in readers),
        "clients_with_all_views": sum(wanted <= set(r.seen) for r in readers),
        "sse": percentiles(latencies),
    }
    if watch is not None:
        p, chromium, page = watch
        drawn = {int(k): v / 1000 for k, v in page.evaluate("window.__drawn").items()}
        browser_lat = [drawn[i] - published[i] for i in published if i in drawn]
        result["browser"] = {"views_drawn": len(browser_lat), **percentiles(browser_lat)}
        chromium.close()
        p.stop()
    for reader in readers:
        reader.stop.set()
    server.close()
    referee.stop()
    store.close()
    shutil.rmtree(root, ignore_errors=True)
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--events", type=int, default=150)
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between events")
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    print(json.dumps(main(args.clients, args.events, args.interval, not args.no_browser),
                     indent=2))
