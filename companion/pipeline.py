"""The camera thread: frames → table watcher → the referee's queue.

It never touches the game: it only puts `Seen` and `CameraStatus` messages on the queue.
A lost camera is reopened with back-off while the status LED shows red and the web page a
banner; manual entry on the web page keeps working meanwhile. Without a watcher (no seat zones
drawn yet) it only keeps the newest frame, for the zones page; a watcher handed to it later
(`watcher = ...`) takes the next frame.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from vision.sources import Backoff, CameraLost, FrameSource, SourceError

from .commands import CameraStatus, Seen


class Pipeline:
    def __init__(
        self,
        source: FrameSource,
        watcher: Any,
        put: Callable[[Any], None],
        *,
        realtime: bool = True,
        speed: float = 1.0,
        retry_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] | None = None,
        frame_reach: tuple[float, float] | None = None,
    ) -> None:
        self.source = source
        self.watcher = watcher
        self.put = put
        self.realtime = realtime
        self.speed = speed
        self.backoff = Backoff(retry_s)
        self._outage = False  # the camera was lost and is not back yet (said once)
        self.clock = clock
        self.frames = 0
        self.latest: Any = None  # the newest frame, for the web's camera snapshot
        self.error: str | None = None
        self.ended = threading.Event()
        self._stop = threading.Event()
        self._sleep = sleep or self._stop.wait
        self._thread: threading.Thread | None = None
        self.busy_s = 0.0  # time spent in the watcher, for the frame-rate figures
        self.failures = 0
        self.frame_reach = frame_reach  # (x, y) the zones reach: a frame must be that large

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="camera", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        self.source.close()

    def wait(self, timeout: float | None = None) -> bool:
        return self.ended.wait(timeout)

    def _open(self) -> bool:
        try:
            self.source.open()
        except CameraLost as err:
            self._lost(err)
            return False
        self.backoff.reset()
        if self.source.live:
            self.put(CameraStatus(True, "camera on"))
            if self._outage:
                _note("the camera is back")
        self._outage = False
        return True

    def _lost(self, err: CameraLost) -> None:
        """Told to the referee at every try; said on the terminal once per outage."""
        self.put(CameraStatus(False, f"camera lost: {err}; retrying"))
        if not self._outage:
            _note(f"camera lost: {err}; retrying with back-off (enter cards on the scoresheet "
                  "meanwhile)")
        self._outage = True
        self._sleep(self.backoff.next())

    def run(self) -> None:
        try:
            self._run()
        except SourceError as err:
            self.error = str(err)
            self.put(CameraStatus(False, str(err)))
        finally:
            self.ended.set()

    def _run(self) -> None:
        opened = False
        start = self.clock()
        while not self._stop.is_set():
            if not opened:
                opened = self._open()
                continue
            try:
                frame = self.source.read()
            except CameraLost as err:
                self.source.close()
                opened = False
                self._lost(err)
                continue
            if frame is None:
                return
            self._check_size(frame)
            t = self.clock() - start if self.source.live else self.frames / self.source.fps
            watcher = self.watcher
            self.latest = frame
            self.frames += 1
            if watcher is not None:
                began = time.perf_counter()
                try:
                    changes, moving = watcher.feed(frame), watcher.moving
                except Exception:  # one bad frame must not stop the camera: report, skip it
                    self._report_failure()
                    changes, moving = [], frozenset()
                self.busy_s += time.perf_counter() - began
                self.put(Seen(tuple(changes), t, frame if changes else None, moving))
            if self.realtime and not self.source.live:
                due = start + self.frames / (self.source.fps * self.speed)
                wait = due - self.clock()
                if wait > 0:
                    self._sleep(wait)

    @property
    def where(self) -> str:
        """The source in words, for messages: a file, a folder, a camera."""
        return str(getattr(self.source, "where", "the camera"))

    def _check_size(self, frame: Any) -> None:
        """Frames smaller than the zones cannot be the table the zones were drawn on (a wrong
        --source or --zones, or a damaged frame): one line, and the source ends."""
        if self.frame_reach is None:
            return
        height, width = frame.shape[:2]
        reach_x, reach_y = self.frame_reach
        if width < reach_x or height < reach_y:
            raise SourceError(f"{self.where}: a frame of {width}x{height} pixels is smaller than "
                              f"the zones, which reach {reach_x:.0f}x{reach_y:.0f}")

    def _report_failure(self) -> None:
        self.failures += 1
        if self.failures == 1 or self.failures % 100 == 0:
            print(f"tightrope-companion: the card watcher failed on frame {self.frames} "
                  f"({self.failures} so far):\n{traceback.format_exc()}", file=sys.stderr)

    def snapshot_jpeg(self) -> bytes | None:
        """The newest frame as JPEG (zone set-up and the teach wizard on the web page)."""
        frame = self.latest
        if frame is None:
            return None
        import cv2

        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
        return data.tobytes() if ok else None


def _note(message: str) -> None:
    print(f"tightrope-companion: {message}", file=sys.stderr, flush=True)
