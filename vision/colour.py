"""A card crop's colours: a hue histogram of its coloured pixels.

A foreign deck's head reads them beside the network's embedding (vision.read), which tells blue
from red but hardly purple from green from yellow; and two cards whose photos print alike in grey
(a deck's red zero and its blue one, turned round) differ in them (vision.compare).
"""

from __future__ import annotations

import cv2
import numpy as np

HUE_BINS = 12        # colour features: a hue histogram of the crop's coloured pixels
COLOURED = (60, 50)  # ... pixels at least this saturated and this bright (OpenCV HSV, 0..255)
COLOUR_WEIGHT = 6.0  # ... scaled to weigh against the 128-d embedding (norm about 13)


def colour_features(crops: np.ndarray) -> np.ndarray:
    """(n, HUE_BINS + 1): the square root of each hue's share of the crop's pixels (coloured
    pixels only, weighted by saturation; soft bins round the hue circle) and of the coloured
    share, times COLOUR_WEIGHT. The same for a crop turned round."""
    hsv = np.stack([cv2.cvtColor(c, cv2.COLOR_BGR2HSV_FULL) for c in crops]).astype(np.float32)
    h, sat, val = hsv[..., 0] * (HUE_BINS / 256.0), hsv[..., 1], hsv[..., 2]
    weight = np.where((sat >= COLOURED[0]) & (val >= COLOURED[1]), sat / 255.0, 0.0)
    lo = np.floor(h - 0.5)
    frac = h - 0.5 - lo
    n, pixels = len(crops), float(h.shape[1] * h.shape[2])
    hist = np.zeros((n, HUE_BINS), np.float32)
    rows = np.repeat(np.arange(n), h.shape[1] * h.shape[2])
    for b, share in ((lo, 1.0 - frac), (lo + 1, frac)):
        np.add.at(hist, (rows, (b.astype(np.int64) % HUE_BINS).ravel()),
                  (weight * share).ravel())
    out = np.concatenate([hist, hist.sum(axis=1, keepdims=True)], axis=1) / pixels
    return (COLOUR_WEIGHT * np.sqrt(out)).astype(np.float32)
