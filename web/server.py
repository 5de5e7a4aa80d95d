"""The production WSGI server: waitress, one process, a pool of threads.

Why waitress fits: pure Python (no build on a Pi), already a dependency, and since 3.0 its
`send_bytes` default is 1, so each chunk a streaming response yields is written to the socket
at once (no buffering of the small SSE messages). Each live SSE connection holds one worker
thread, so the pool is sized for the phones plus headroom for pages and writes; the app itself
caps live streams below the thread count (HTTP 503 + the browser retries) so pages stay fast
even when too many streams arrive. Measured: bench/bench_web.py, docs/PERFORMANCE.md ("Web").

Limits against a hostile client: a body over the app's MAX_BODY is refused from its
Content-Length, before it is read; idle connections cost no thread and are closed after
IDLE_S; up to CONNECTIONS sockets are open at once (poll(), not select(), so more than 1024
descriptors work); and the server reads from a connection while its request runs, so a live
view whose phone went away ends within a second (waitress.client_disconnected).
Measured: bench/bench_hostile.py.
"""

from __future__ import annotations

import resource
import threading
from typing import Any

from flask import Flask
from waitress.server import create_server

from .app import MAX_BODY, SSE_HEADROOM, stop_streams

DEFAULT_THREADS = 80
CONNECTIONS = 1000  # open sockets at once; an idle one costs a few KB and no thread
IDLE_S = 20  # an idle keep-alive connection is closed after this (a live stream is never idle)
MAX_HEADERS = 16 * 1024


class WebServer:
    """A waitress server that can be stopped from another thread (tests, service shutdown)."""

    def __init__(self, app: Flask, host: str = "0.0.0.0", port: int = 8000,
                 threads: int = DEFAULT_THREADS) -> None:
        self.app = app
        context = app.extensions.get("tightrope")
        if context is not None and context.max_streams > threads - SSE_HEADROOM:
            context.max_streams = max(1, threads - SSE_HEADROOM)
            context.sse_slots = threading.BoundedSemaphore(context.max_streams)
        _enough_descriptors(CONNECTIONS + 100)
        self._server: Any = create_server(
            app, host=host, port=port, threads=threads,
            connection_limit=CONNECTIONS,
            channel_timeout=IDLE_S,
            cleanup_interval=5,
            asyncore_use_poll=True,
            channel_request_lookahead=1,
            max_request_body_size=MAX_BODY,
            max_request_header_size=MAX_HEADERS,
            ident="tightrope-companion",
            clear_untrusted_proxy_headers=True,
        )

    @property
    def port(self) -> int:
        return int(self._server.effective_port)

    def run(self) -> None:
        self._server.run()

    def close(self) -> None:
        """Stop streams, stop the worker threads, close every socket: run() returns."""
        stop_streams(self.app)
        server = self._server
        server.task_dispatcher.shutdown(timeout=3)
        server.close()
        from waitress import wasyncore

        wasyncore.close_all(server._map)


def _enough_descriptors(wanted: int) -> None:
    """Raise the soft limit on open files towards `wanted` (systemd's default soft limit is
    1024; its hard limit is far higher)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def make_server(app: Flask, host: str = "0.0.0.0", port: int = 8000,
                threads: int = DEFAULT_THREADS) -> WebServer:
    """A server bound to host:port (port 0 = any free port); call run() in a thread."""
    return WebServer(app, host, port, threads)


def serve(app: Flask, host: str = "0.0.0.0", port: int = 8000,
          threads: int = DEFAULT_THREADS) -> None:
    """Serve until interrupted."""
    server = make_server(app, host, port, threads)
    try:
        server.run()
    finally:
        server.close()
