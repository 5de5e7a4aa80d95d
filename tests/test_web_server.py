"""The real server (waitress, web.server) against hostile clients: a huge body is refused
before it is read, idle sockets do not keep new clients out, and a live view whose phone went
away frees its slot at once."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.hub import Hub
from companion.referee import Referee
from companion.store import Store
from web.app import create_app
from web.auth import PinStore
from web.server import make_server


class Served:
    def __init__(self, root: Path, threads: int = 16) -> None:
        self.store = Store(root / "tightrope.db")
        self.referee = Referee(self.store, Hub())
        app = create_app(self.referee, self.store, photo_dir=root / "photos",
                         pin_store=PinStore(root / "host-pin"), heartbeat=60.0)
        self.context = app.extensions["tightrope"]
        self.server = make_server(app, "127.0.0.1", 0, threads=threads)
        self.port = self.server.port
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def get(self, path: str, timeout: float = 5.0) -> int:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request("GET", path)
            return conn.getresponse().status
        finally:
            conn.close()

    def close(self) -> None:
        self.server.close()
        self.thread.join(timeout=5)
        self.store.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    s = Served(tmp_path)
    yield s
    s.close()


def test_a_huge_body_is_refused_before_it_is_read(served: Served) -> None:
    sock = socket.create_connection(("127.0.0.1", served.port), timeout=5)
    sock.sendall(b"POST /api/note HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                 b"\r\nContent-Length: 200000000\r\n\r\n" + b"x" * 1000)
    began = time.monotonic()
    answer = sock.recv(200)  # the other 199,999,000 bytes are never sent
    sock.close()
    assert answer.startswith(b"HTTP/1.1 413") and time.monotonic() - began < 2


def test_idle_connections_do_not_keep_new_clients_out(served: Served) -> None:
    idle = [socket.create_connection(("127.0.0.1", served.port), timeout=5) for _ in range(200)]
    try:
        time.sleep(0.3)
        began = time.monotonic()
        assert served.get("/api/view", timeout=3) == 200
        assert time.monotonic() - began < 1.0
    finally:
        for sock in idle:
            sock.close()


def test_a_closed_live_view_frees_its_slot_within_seconds(served: Served) -> None:
    slots = served.context.sse_slots
    free = slots._value
    sock = socket.create_connection(("127.0.0.1", served.port), timeout=5)
    sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert b"200 OK" in sock.recv(200)
    assert slots._value == free - 1
    sock.close()  # the phone went away; the next heartbeat is a minute off
    deadline = time.monotonic() + 3
    while slots._value != free and time.monotonic() < deadline:
        time.sleep(0.05)
    assert slots._value == free
    assert served.get("/api/view") == 200
