"""Frame sources: the Pi camera, a USB webcam, a folder of frames or a video file.

Every source gives BGR frames (what OpenCV wants) with a time in seconds. `read()` returns None
when a finite source ends and raises CameraLost when a camera stops answering; the pipeline
then reopens it with back-off.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp"}
VIDEO_SUFFIXES = {".mp4", ".avi", ".mkv", ".mov", ".h264"}


@dataclass(frozen=True)
class CameraConfig:
    """How to open the camera ([camera] of the companion's config file, docs/config.md)."""

    source: str = "picamera2"  # "picamera2", "opencv:0" (USB webcam), or a folder/video path
    width: int = 1280
    height: int = 720
    fps: float = 10.0
    lens_position: float = 1.4  # dioptres (1/metres): 1.4 focuses at about 70 cm
    exposure_us: int = 0  # 0 = automatic; a fixed value stops the image pumping under a lamp
    analogue_gain: float = 0.0  # 0 = automatic
    retry_s: float = 1.0  # first wait before reopening a lost camera (doubles, up to 30 s)


class SourceError(ValueError):
    """A source that cannot be opened at all (bad path, no camera library)."""


class CameraLost(RuntimeError):
    """A camera that was working stopped giving frames."""


class FrameSource(Protocol):
    live: bool  # a camera (pace by the clock) rather than a recording (pace by frame count)
    fps: float

    def open(self) -> None: ...
    def read(self) -> np.ndarray | None: ...
    def close(self) -> None: ...


class FolderSource:
    """Frames from image files in name order, taken as `fps` frames a second."""

    live = False

    def __init__(self, folder: str | Path, fps: float = 10.0) -> None:
        self.folder = Path(folder)
        self.fps = fps
        self._files: list[Path] = []
        self._next = 0
        self._read = 0
        self.where = str(self.folder)

    def open(self) -> None:
        if not self.folder.is_dir():
            raise SourceError(f"{self.folder} is not a folder of frames")
        self._files = sorted(p for p in self.folder.iterdir()
                             if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self._files:
            raise SourceError(f"{self.folder} holds no image files")
        self._next = 0

    def read(self) -> np.ndarray | None:
        import cv2

        while self._next < len(self._files):
            path = self._files[self._next]
            self._next += 1
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if frame is not None:
                self._read += 1
                self.where = str(path)
                return frame
        if not self._read:
            raise SourceError(f"{self.folder}: none of its {len(self._files)} image files "
                              "can be read")
        return None

    def close(self) -> None:
        self._files = []


class OpenCVSource:
    """A video file (finite) or a USB webcam by index (live) through cv2.VideoCapture."""

    def __init__(self, target: str | int, fps: float | None = None,
                 size: tuple[int, int] | None = None) -> None:
        self.target = target
        self.live = isinstance(target, int)
        self.fps = fps or 10.0
        self._want_fps = fps
        self.size = size
        self._cap: Any = None
        self._frames = 0
        self.where = f"camera {target}" if self.live else str(target)

    def open(self) -> None:
        import cv2

        if not self.live and not Path(str(self.target)).is_file():
            raise SourceError(f"{self.target} is not a video file")
        cap = cv2.VideoCapture(self.target)
        if not cap.isOpened():
            if not self.live:  # a file does not come back by waiting
                raise SourceError(f"{self.target} cannot be opened as a video (empty or damaged?)")
            raise CameraLost(f"cannot open {self.where} (is a webcam plugged in?)")
        if self.live and self.size:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        if not self.live and self._want_fps is None:
            self.fps = cap.get(cv2.CAP_PROP_FPS) or 10.0
        self._cap = cap

    def read(self) -> np.ndarray | None:
        if self._cap is None:
            raise CameraLost("camera is not open")
        ok, frame = self._cap.read()
        if ok:
            self._frames += 1
            return frame
        if self.live:
            raise CameraLost(f"camera {self.target} gave no frame")
        if not self._frames:
            raise SourceError(f"{self.target} holds no frame that can be read (empty or damaged?)")
        return None

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class Picamera2Source:
    """The Raspberry Pi camera through picamera2 (on the Pi only; imported when opened)."""

    live = True
    where = "the Pi camera"

    def __init__(self, config: CameraConfig) -> None:
        self.config = config
        self.fps = config.fps
        self._cam: Any = None

    def open(self) -> None:
        try:
            from picamera2 import Picamera2  # apt: python3-picamera2
        except ImportError:
            raise SourceError("picamera2 is not installed (apt install python3-picamera2; "
                              "the venv needs --system-site-packages)") from None
        c = self.config
        try:
            cam = Picamera2()
            # RGB888 is BGR in memory: OpenCV's order, no conversion per frame.
            video = cam.create_video_configuration(
                main={"size": (c.width, c.height), "format": "RGB888"},
                controls={"FrameRate": c.fps},
            )
            cam.configure(video)
            cam.set_controls(_fixed_controls(c))
            cam.start()
        except Exception as err:  # libcamera raises plain RuntimeErrors and OSErrors
            raise CameraLost(f"camera did not start: {err}") from None
        self._cam = cam

    def read(self) -> np.ndarray | None:
        if self._cam is None:
            raise CameraLost("camera is not open")
        try:
            return self._cam.capture_array("main")
        except Exception as err:
            raise CameraLost(f"camera stopped: {err}") from None

    def close(self) -> None:
        if self._cam is not None:
            try:
                self._cam.stop()
                self._cam.close()
            finally:
                self._cam = None


def _fixed_controls(c: CameraConfig) -> dict[str, Any]:
    """Manual focus for a table at a fixed height; fixed exposure if configured."""
    controls: dict[str, Any] = {"AfMode": 0, "LensPosition": c.lens_position}  # 0 = manual
    if c.exposure_us > 0:
        controls["AeEnable"] = False
        controls["ExposureTime"] = c.exposure_us
    if c.analogue_gain > 0:
        controls["AnalogueGain"] = c.analogue_gain
    return controls


def open_source(spec: str | None, camera: CameraConfig, fps: float | None = None) -> FrameSource:
    """A source from a --source value or the config: a folder, a video file, "opencv:N",
    or "picamera2"."""
    spec = spec or camera.source
    rate = fps or camera.fps
    if spec == "picamera2":
        return Picamera2Source(camera)
    if spec.startswith("opencv:"):
        index = spec.split(":", 1)[1]
        if not index.isdigit():
            raise SourceError(f"{spec}: expected opencv:N with a camera index N")
        return OpenCVSource(int(index), fps, (camera.width, camera.height))
    path = Path(spec)
    if path.is_dir():
        return FolderSource(path, rate)
    if path.suffix.lower() in VIDEO_SUFFIXES or path.is_file():
        return OpenCVSource(str(path), fps)
    raise SourceError(f"{spec} is neither a folder of frames, a video file nor a camera")


class Backoff:
    """Waits between attempts to reopen a lost camera: 1 s, 2 s, 4 s ... up to a ceiling."""

    def __init__(self, first: float = 1.0, ceiling: float = 30.0) -> None:
        self.first, self.ceiling = first, ceiling
        self.delay = first

    def next(self) -> float:
        delay = self.delay
        self.delay = min(self.delay * 2, self.ceiling)
        return delay

    def reset(self) -> None:
        self.delay = self.first

