"""Table surfaces made from noise: wood grain, cloth weave, dark matte board.

Textures are float32 BGR in 0..255, generated from a seed and cached (a session plays on one table).
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

TABLES = ("wood_light", "wood_dark", "cloth_green", "cloth_grey", "dark_matte")

# (dark, light) BGR ends of each surface's colour map
_PALETTES: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    "wood_light": ((70, 118, 168), (135, 185, 225)),
    "wood_dark": ((22, 38, 62), (48, 78, 112)),
    "cloth_green": ((28, 78, 22), (55, 120, 45)),
    "cloth_grey": ((92, 94, 96), (132, 134, 134)),
    "dark_matte": ((26, 26, 28), (44, 43, 46)),
}


def smooth_noise(rng: np.random.Generator, w: int, h: int, cell_x: float, cell_y: float
                 ) -> np.ndarray:
    """Value noise in 0..1 with feature sizes about cell_x by cell_y px (cubic upsampling)."""
    gw, gh = max(2, int(w / cell_x) + 2), max(2, int(h / cell_y) + 2)
    small = rng.random((gh, gw), dtype=np.float32)
    big = cv2.resize(small, (int(gw * cell_x), int(gh * cell_y)), interpolation=cv2.INTER_CUBIC)
    return np.clip(big[:h, :w], 0.0, 1.0)


def _colour_map(t: np.ndarray, table: str) -> np.ndarray:
    dark, light = (np.array(c, np.float32) for c in _PALETTES[table])
    return cv2.merge([d + t.astype(np.float32) * (lt - d) for d, lt in zip(dark, light,
                                                                           strict=True)])


def _wood(rng: np.random.Generator, w: int, h: int, table: str) -> np.ndarray:
    """Planks along x: growth rings bent by low-frequency noise, fine streaks, dark seams."""
    plank_h = int(rng.integers(h // 5, h // 3)) if h > 200 else h
    ys = np.arange(h, dtype=np.float32)[:, None]
    plank = (ys // plank_h).astype(np.int32)
    bend = smooth_noise(rng, w, h, 260, 90) * 14.0 + plank * 3.7
    rings = 0.5 + 0.5 * np.sin((ys / rng.uniform(9, 16) + bend) * 2 * np.pi)
    rings = rings ** 3  # thin dark latewood lines on a lighter ground
    streaks = smooth_noise(rng, w, h, 120, 1.6)
    blotch = smooth_noise(rng, w, h, 300, 160)
    t = 0.62 - 0.28 * rings + 0.18 * (streaks - 0.5) + 0.25 * (blotch - 0.5)
    t += (plank % 3 - 1).astype(np.float32) * 0.06  # each plank a slightly different tone
    img = _colour_map(np.clip(t, 0, 1), table)
    seam = (ys % plank_h) < 2
    img[np.broadcast_to(seam, (h, w))] *= 0.55
    return img


def _cloth(rng: np.random.Generator, w: int, h: int, table: str) -> np.ndarray:
    """Felt or woven cloth: a fine weave, fibre noise and soft mottling."""
    xs = np.arange(w, dtype=np.float32)[None, :]
    ys = np.arange(h, dtype=np.float32)[:, None]
    period = rng.uniform(2.6, 3.6)
    weave = np.sin(xs * 2 * np.pi / period) * np.sin(ys * 2 * np.pi / period)
    fibres = rng.random((h, w), dtype=np.float32)
    fibres = cv2.GaussianBlur(fibres, (0, 0), 0.7)
    mottle = smooth_noise(rng, w, h, 140, 140)
    t = 0.55 + 0.08 * weave + 0.35 * (fibres - 0.5) + 0.3 * (mottle - 0.5)
    return _colour_map(np.clip(t, 0, 1), table)


def _matte(rng: np.random.Generator, w: int, h: int, table: str) -> np.ndarray:
    grain = rng.random((h, w), dtype=np.float32)
    mottle = smooth_noise(rng, w, h, 200, 200)
    t = 0.5 + 0.25 * (grain - 0.5) + 0.4 * (mottle - 0.5)
    return _colour_map(np.clip(t, 0, 1), table)


@functools.lru_cache(maxsize=24)
def _texture_cached(table: str, w: int, h: int, variant: int) -> np.ndarray:
    rng = np.random.default_rng([hash_table(table), w, h, variant])
    if table.startswith("wood"):
        img = _wood(rng, w, h, table)
    elif table.startswith("cloth"):
        img = _cloth(rng, w, h, table)
    else:
        img = _matte(rng, w, h, table)
    img = np.clip(img + 0.5, 0, 255).astype(np.uint8)  # 8-bit: a quarter of the cache memory
    img.setflags(write=False)
    return img


def hash_table(table: str) -> int:
    """A stable (process-independent) integer for a table name."""
    return sum((i + 1) * ord(c) for i, c in enumerate(table))


def table_texture(table: str, w: int, h: int, variant: int = 0) -> np.ndarray:
    """The table surface, float32 BGR h x w x 3 (a fresh copy); `variant` picks one of its looks."""
    if table not in _PALETTES:
        raise ValueError(f"unknown table {table!r}; choose one of {', '.join(TABLES)}")
    # generated in 320-px buckets and cropped, so nearby sizes (tilt margins) share the cache
    bw, bh = -(-w // 320) * 320, -(-h // 320) * 320
    return _texture_cached(table, bw, bh, variant % 3)[:h, :w].astype(np.float32)
