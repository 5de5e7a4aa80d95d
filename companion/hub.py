"""Publishing the table view to many readers (SSE clients, the LED driver, tests).

The referee is the only writer: it publishes a new view after every change. Each publication
gets the next id; a reader that reconnects with `Last-Event-ID` gets every view it missed that
is still in the ring buffer, or else the newest one (a view is a whole state, so the newest
one is enough to catch up).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from typing import Any

View = dict[str, Any]


class Hub:
    def __init__(self, keep: int = 256) -> None:
        self._cond = threading.Condition()
        self._views: deque[tuple[int, View]] = deque(maxlen=keep)
        self._last_id = 0
        self._closed = False

    def publish(self, view: View) -> int:
        with self._cond:
            self._last_id += 1
            self._views.append((self._last_id, view))
            self._cond.notify_all()
            return self._last_id

    def latest(self) -> tuple[int, View | None]:
        with self._cond:
            return self._views[-1] if self._views else (0, None)

    def since(self, last_id: int) -> list[tuple[int, View]]:
        """Views published after `last_id` (or just the newest, if those are gone)."""
        with self._cond:
            if not self._views or last_id >= self._last_id:
                return []
            missed = [(i, v) for i, v in self._views if i > last_id]
            if missed and missed[0][0] == last_id + 1:
                return missed
            return [self._views[-1]]

    def wait(self, last_id: int, timeout: float) -> list[tuple[int, View]]:
        """Block until something newer than `last_id` is published (or timeout/close)."""
        with self._cond:
            self._cond.wait_for(lambda: self._last_id > last_id or self._closed, timeout)
        return self.since(last_id)

    def follow(
        self, last_id: int = 0, heartbeat: float = 15.0
    ) -> Iterator[tuple[int, View] | None]:
        """Yield every view after `last_id` as it comes; None as a keep-alive tick."""
        while not self._closed:
            batch = self.wait(last_id, heartbeat)
            if not batch:
                yield None
                continue
            for item in batch:
                last_id = item[0]
                yield item

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed
