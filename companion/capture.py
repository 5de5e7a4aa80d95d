"""`tightrope-companion capture --out DIR`: record the camera's frames into a folder.

Frames are written as frame_000000.jpg, frame_000001.jpg ... (name order is time order) at the
asked rate, with the zones file in use copied beside them, so that the folder plays back through
`run --source DIR` or is scored against the game's record with `eval --footage DIR --record
GAME.jsonl`. Stop it with Ctrl-C (or `--seconds`). Stop the service first on a Pi: one program at
a time can hold the camera.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path
from typing import Any

from vision.sources import CameraLost, open_source


def capture(out: Path, config: Any, source: str | None, fps: float,
            seconds: float | None) -> int:
    import cv2

    if fps <= 0:
        raise ValueError("--fps must be positive")
    out.mkdir(parents=True, exist_ok=True)
    if any(out.glob("frame_*.jpg")):
        raise ValueError(f"{out} already holds frames: give an empty folder")
    cam = open_source(source, config.camera, fps)
    cam.open()
    if config.zones_path.is_file():
        shutil.copy(config.zones_path, out / "zones.json")
    began = time.monotonic()
    n = 0
    try:
        while seconds is None or time.monotonic() - began < seconds:
            frame = cam.read()
            if frame is None:
                break
            cv2.imwrite(str(out / f"frame_{n:06d}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
            n += 1
            if n % 50 == 0:
                print(f"\rcapture: {n} frames", end="", file=sys.stderr, flush=True)
            if cam.live:
                time.sleep(max(0.0, began + n / fps - time.monotonic()))
    except KeyboardInterrupt:
        pass
    except CameraLost as err:
        print(f"\ncapture: the camera stopped: {err}", file=sys.stderr)
    finally:
        cam.close()
    print(f"\ncapture: {n} frames in {out}", file=sys.stderr)
    return 0
