"""Find the cards in a frame: a small learned detector that needs no empty table.

The frame is shrunk to 384 px wide and the network (vision/models/detector.onnx, trained by
`python -m vision.train` on many designs and tables) says, every 4 px, how likely a card's centre
lies there and, if so, the card's oriented box. Peaks are cards: touching cards, piles and a zero
lying across half of a value card still have centres apart. It works on one photo as well as on
live frames, on white and checked cloth as on wood, and finds a card cut by the frame's edge
(its box runs past the edge). The detector does not read cards: `vision.read` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import Box, shrink
from vision.network import Network, bundled, normalise

INPUT_WIDTH = 384
MAX_CARDS = 64


class FrameError(ValueError):
    """A frame that is not an image we can look at."""


def check_frame(frame: object) -> np.ndarray:
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
        shape = getattr(frame, "shape", None)
        raise FrameError(f"frame must be an HxWx3 BGR image, got {shape}")
    if frame.shape[0] < 32 or frame.shape[1] < 32:
        raise FrameError(f"frame too small: {frame.shape[1]}x{frame.shape[0]}")
    if frame.dtype != np.uint8:
        raise FrameError(f"frame must be uint8, got {frame.dtype}")
    return frame


@dataclass(frozen=True)
class Detection:
    box: Box          # frame px
    score: float      # the centre's peak, 0..1
    # the boxes the cells beside the peak give, likelier first: two cards overlapping smear into
    # one peak between them, whose own box may lie across both while a cell beside fits one
    beside: tuple[Box, ...] = ()
    # a card-sized window of a box larger than a card, read surely (recognize.look_within), not a
    # box of the detector's: the cards of a fan lie under one another's windows, and are cards
    window: bool = False

    @property
    def quad(self) -> np.ndarray:
        return self.box.quad()


def peaks(heat: np.ndarray, threshold: float) -> list[tuple[int, int]]:
    """The grid cells (y, x) of the peaks of the `heat` map at `threshold` or more, likelier
    first."""
    found = (heat >= threshold) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    ys, xs = np.nonzero(found)
    order = np.argsort(-heat[ys, xs])[:MAX_CARDS]
    return [(int(ys[i]), int(xs[i])) for i in order]


def box_at(maps: np.ndarray, y: int, x: int, scale: float = 1.0) -> Box:
    """The box that cell (y, x) of one (7, H, W) output gives: offset x/y, log w, log h,
    cos 2a, sin 2a (frame px = input px * `scale`)."""
    stride = 4.0 * scale
    ox, oy = 1.0 / (1.0 + np.exp(-maps[1:3, y, x]))
    w, h = np.exp(maps[3:5, y, x]) * stride
    angle = (math.atan2(float(maps[6, y, x]), float(maps[5, y, x])) / 2) % math.pi
    return Box((x + float(ox)) * stride, (y + float(oy)) * stride, float(w), float(h), angle)


def decode(maps: np.ndarray, threshold: float, scale: float = 1.0, rows: int | None = None
           ) -> list[tuple[Box, float]]:
    """Boxes (frame px = input px * `scale`) and scores of the peaks above `threshold` in one
    (7, H, W) output: heat, offset x/y, log w, log h, cos 2a, sin 2a. `rows`: grid rows that
    show the frame (the rest is padding)."""
    heat = _heat(maps, rows)
    return [(box_at(maps, y, x, scale), float(heat[y, x])) for y, x in peaks(heat, threshold)]


def beside(maps: np.ndarray, heat: np.ndarray, y: int, x: int, threshold: float,
           scale: float = 1.0) -> tuple[Box, ...]:
    """The boxes of the cells around peak (y, x) whose `heat` reaches `threshold`, likelier
    first."""
    cells = [(float(heat[j, i]), j, i) for j in range(max(0, y - 1), min(heat.shape[0], y + 2))
             for i in range(max(0, x - 1), min(heat.shape[1], x + 2))
             if (j, i) != (y, x) and heat[j, i] >= threshold]
    return tuple(box_at(maps, j, i, scale) for _, j, i in sorted(cells, reverse=True))


def _heat(maps: np.ndarray, rows: int | None) -> np.ndarray:
    """How likely a card's centre lies in each cell; none in the padding below `rows`."""
    heat = 1.0 / (1.0 + np.exp(-maps[0]))
    if rows is not None:
        heat[rows:] = 0.0
    return heat


class Detector:
    """Frames in, oriented card boxes out (`find`)."""

    def __init__(self, network: Network | None = None, threshold: float | None = None) -> None:
        self.network = network or bundled("detector")
        meta = self.network.meta
        self.threshold = float(threshold if threshold is not None else meta["threshold"])
        self.mean, self.std = float(meta["mean"]), float(meta["std"])

    def find(self, frame: np.ndarray) -> list[Detection]:
        """Every card in the frame, surest first."""
        frame = check_frame(frame)
        h, w = frame.shape[:2]
        scale = w / INPUT_WIDTH
        small_h = max(1, round(h / scale))
        small = shrink(frame, (INPUT_WIDTH, small_h))
        pad_h = -(-small_h // 32) * 32
        padded = np.zeros((pad_h, INPUT_WIDTH, 3), np.uint8)
        padded[:small_h] = small
        maps = self.network.run(normalise(padded[None], self.mean, self.std))[0][0]
        heat = _heat(maps, rows=-(-small_h // 4))
        return [Detection(box_at(maps, y, x, scale), float(heat[y, x]),
                          beside(maps, heat, y, x, self.threshold, scale))
                for y, x in peaks(heat, self.threshold)]
