"""Table surfaces: wood, cloth (white, cream, coloured), felt, gingham, tartan, stripes, glass,
printed cloth (shapes, floral) and photographs.

A game night's table is whatever the host owns, so the detector is trained on many surfaces, and
the ones that are hardest for it are the ones a card barely stands out from: a white or cream
tablecloth under white or cream cards, a checked cloth whose squares are card-sized edges. Pattern
sizes are drawn relative to the card's width (`card_px`): a gingham square is 10-60 % of a card.

`table_texture(name, w, h, variant)` draws a named surface (the names of `TABLES`; `variant` picks
its colours and pattern); `random_table` draws any surface of a split for training. Floral prints
and the photographs of the test split are never trained on (`HELD_OUT_TABLES`, `photos`).
Textures are float32 BGR in 0..255.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import cv2
import numpy as np

TABLES = ("wood_light", "wood_dark", "cloth_green", "cloth_grey", "dark_matte", "cloth_white",
          "cloth_cream", "checked", "plaid", "striped", "printed", "felt", "glass", "floral",
          "photo", "photo_unseen")
HELD_OUT_TABLES = ("floral", "photo_unseen")  # never trained on: the unseen-table figures
PHOTO_DIRS = (Path("/usr/share/backgrounds"), Path("/usr/share/wallpapers"),
              Path("/usr/share/mypaint/backgrounds"))
DEFAULT_CARD_FRACTION = 0.062  # card width / frame width when a caller does not say

# (dark, light) BGR ends of the original five surfaces' colour maps
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
    cell_x, cell_y = max(1.0, cell_x), max(1.0, cell_y)
    gw, gh = max(2, int(w / cell_x) + 2), max(2, int(h / cell_y) + 2)
    small = rng.random((gh, gw), dtype=np.float32)
    big = cv2.resize(small, (int(gw * cell_x), int(gh * cell_y)), interpolation=cv2.INTER_CUBIC)
    return np.clip(big[:h, :w], 0.0, 1.0)


def _colour_map(t: np.ndarray, dark: tuple, light: tuple) -> np.ndarray:
    d, lt = np.array(dark, np.float32), np.array(light, np.float32)
    return cv2.merge([d[i] + t.astype(np.float32) * (lt[i] - d[i]) for i in range(3)])


def _fibres(rng: np.random.Generator, w: int, h: int, amount: float) -> np.ndarray:
    f = cv2.GaussianBlur(rng.random((h, w), dtype=np.float32), (0, 0), 0.7)
    return 1.0 + amount * (f - 0.5)


# --- surfaces --------------------------------------------------------------------------------


def _wood(rng: np.random.Generator, w: int, h: int, dark: tuple, light: tuple,
          card_px: float) -> np.ndarray:
    """Planks: growth rings bent by low-frequency noise, fine streaks, dark seams."""
    along_y = rng.random() < 0.3
    if along_y:
        w, h = h, w
    plank_h = max(8, int(card_px * rng.uniform(1.2, 3.5)))
    ys = np.arange(h, dtype=np.float32)[:, None]
    plank = (ys // plank_h).astype(np.int32)
    bend = smooth_noise(rng, w, h, card_px * 3.2, card_px * 1.1) * 14.0 + plank * 3.7
    rings = (0.5 + 0.5 * np.sin((ys / (card_px * rng.uniform(0.11, 0.2)) + bend) * 2 * np.pi)
             ) ** 3
    streaks = smooth_noise(rng, w, h, card_px * 1.5, 1.6)
    blotch = smooth_noise(rng, w, h, card_px * 3.7, card_px * 2)
    t = 0.62 - 0.28 * rings + 0.18 * (streaks - 0.5) + 0.25 * (blotch - 0.5)
    t += (plank % 3 - 1).astype(np.float32) * 0.06
    img = _colour_map(np.clip(t, 0, 1), dark, light)
    seam = (ys % plank_h) < max(1, int(card_px / 40))
    img[np.broadcast_to(seam, (h, w))] *= 0.55
    return np.ascontiguousarray(img.transpose(1, 0, 2)) if along_y else img


def _cloth(rng: np.random.Generator, w: int, h: int, colour: tuple, card_px: float,
           folds: float = 0.0) -> np.ndarray:
    """Woven cloth or felt of one colour: fibres, soft mottling and (tablecloths) folds."""
    base = np.array(colour, np.float32)
    mottle = smooth_noise(rng, w, h, card_px * 1.8, card_px * 1.8)
    shade = _fibres(rng, w, h, 0.12) * (1.0 + 0.12 * (mottle - 0.5))
    if folds > 0:  # creases of a tablecloth: long soft ridges in one direction
        ang = rng.uniform(0, np.pi)
        xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        u = xs * np.cos(ang) + ys * np.sin(ang)
        wave = smooth_noise(rng, w, h, card_px * 6, card_px * 6) * 6.0
        ridge = np.sin(u / (card_px * rng.uniform(1.5, 5)) + wave)
        shade *= 1.0 + folds * 0.08 * ridge
    return base[None, None, :] * shade[..., None]


def _checked(rng: np.random.Generator, w: int, h: int, card_px: float) -> np.ndarray:
    """Gingham: two colours woven in bands; where bands cross the colour is darkest."""
    light = np.array(_pale(rng), np.float32)
    dark = np.array(_cloth_colour(rng, saturated=True), np.float32)
    period = card_px * rng.uniform(0.15, 0.6)
    ang = rng.uniform(-0.3, 0.3) + (np.pi / 4 if rng.random() < 0.1 else 0.0)
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    u = xs * np.cos(ang) + ys * np.sin(ang)
    v = -xs * np.sin(ang) + ys * np.cos(ang)
    wob = smooth_noise(rng, w, h, card_px * 4, card_px * 4) * period * 0.3
    a = ((np.floor((u + wob) / period) % 2) == 0).astype(np.float32)
    b = ((np.floor((v + wob) / period) % 2) == 0).astype(np.float32)
    soft = max(0.6, period / 25)
    a, b = cv2.GaussianBlur(a, (0, 0), soft), cv2.GaussianBlur(b, (0, 0), soft)
    mix = (a + b) / 2  # 0 light, 0.5 one band, 1 both bands
    img = light + mix[..., None] * (dark - light)
    return img * _fibres(rng, w, h, 0.1)[..., None]


def _striped(rng: np.random.Generator, w: int, h: int, card_px: float) -> np.ndarray:
    colours = [np.array(_cloth_colour(rng, saturated=rng.random() < 0.6), np.float32)
               for _ in range(int(rng.integers(2, 4)))]
    widths = [card_px * rng.uniform(0.08, 0.6) for _ in colours]
    ang = rng.uniform(0, np.pi)
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    u = (xs * np.cos(ang) + ys * np.sin(ang)) % sum(widths)
    img = np.empty((h, w, 3), np.float32)
    edge = 0.0
    for colour, width in zip(colours, widths, strict=True):
        img[(u >= edge) & (u < edge + width)] = colour
        edge += width
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    return img * _fibres(rng, w, h, 0.1)[..., None]


def _floral(rng: np.random.Generator, w: int, h: int, card_px: float) -> np.ndarray:
    """A printed tablecloth: flowers and leaves on a ground colour."""
    img = np.empty((h, w, 3), np.float32)
    img[:] = _pale(rng) if rng.random() < 0.6 else _cloth_colour(rng, saturated=True)
    size = card_px * rng.uniform(0.2, 0.8)
    n = int(w * h / (size * size) * rng.uniform(0.3, 1.0))
    petal, centre, leaf = _vivid(rng), _vivid(rng), _leaf(rng)
    for _ in range(n):
        x, y = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        r = size * rng.uniform(0.6, 1.2)
        for _ in range(2):  # two leaves
            ang = rng.uniform(0, 360)
            c = (int(x + r * 0.9 * np.cos(np.radians(ang))),
                 int(y + r * 0.9 * np.sin(np.radians(ang))))
            cv2.ellipse(img, c, (int(r * 0.5), int(r * 0.2)), ang, 0, 360, leaf, -1, cv2.LINE_AA)
        petals = int(rng.integers(4, 8))
        for k in range(petals):
            ang = 360 * k / petals
            c = (int(x + r * 0.45 * np.cos(np.radians(ang))),
                 int(y + r * 0.45 * np.sin(np.radians(ang))))
            cv2.ellipse(img, c, (int(r * 0.42), int(r * 0.22)), ang, 0, 360, petal, -1,
                        cv2.LINE_AA)
        cv2.circle(img, (int(x), int(y)), max(1, int(r * 0.2)), centre, -1, cv2.LINE_AA)
    return img * _fibres(rng, w, h, 0.08)[..., None]


def _plaid(rng: np.random.Generator, w: int, h: int, card_px: float) -> np.ndarray:
    """Tartan: bands of three to five colours and widths, the same set across and down, each
    crossing a mix of the two."""
    colours = [np.array(_cloth_colour(rng, saturated=rng.random() < 0.7), np.float32)
               for _ in range(int(rng.integers(3, 6)))]
    widths = np.array([card_px * rng.uniform(0.04, 0.5) for _ in colours])
    edges = np.concatenate([[0.0], np.cumsum(widths)])
    ang = rng.uniform(-0.3, 0.3)
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    palette = np.stack(colours)

    def bands(t: np.ndarray) -> np.ndarray:
        return palette[np.clip(np.searchsorted(edges, t % edges[-1], side="right") - 1, 0,
                               len(colours) - 1)]

    u = xs * np.cos(ang) + ys * np.sin(ang)
    v = -xs * np.sin(ang) + ys * np.cos(ang)
    img = cv2.GaussianBlur((bands(u) + bands(v)) / 2, (0, 0), 0.8)
    return img * _fibres(rng, w, h, 0.12)[..., None]


PRINTED_MAX = 2500  # shapes a print draws at most (a fine print on a large frame: the time)
_MOTIFS = ("dot", "ring", "square", "triangle", "star", "blob", "dash", "diamond")


def _printed(rng: np.random.Generator, w: int, h: int, card_px: float) -> np.ndarray:
    """A printed tablecloth of shapes (dots, rings, squares, triangles, stars, blobs, dashes,
    diamonds) in one to three colours on a ground, scattered or in a repeat: busy prints that
    are not the floral one the unseen-table figures keep back."""
    img = np.empty((h, w, 3), np.float32)
    img[:] = _pale(rng) if rng.random() < 0.6 else _cloth_colour(rng, saturated=True)
    motifs = [str(m) for m in rng.choice(_MOTIFS, int(rng.integers(1, 4)), replace=False)]
    colours = [_vivid(rng) if rng.random() < 0.7 else _cloth_colour(rng, saturated=False)
               for _ in range(int(rng.integers(1, 4)))]
    size = card_px * rng.uniform(0.12, 0.7)
    n = min(PRINTED_MAX, int(w * h / (size * size) * rng.uniform(0.15, 0.9)))
    if rng.random() < 0.4:  # a repeat: a jittered grid
        step = max(size * rng.uniform(1.3, 2.5), float(np.sqrt(w * h / PRINTED_MAX)))
        gx, gy = np.meshgrid(np.arange(0, w + step, step), np.arange(0, h + step, step))
        centres = np.stack([gx.ravel(), gy.ravel()], 1) + rng.normal(0, 0.1 * step,
                                                                     (gx.size, 2))
    else:
        centres = rng.uniform(0, 1, (n, 2)) * (w, h)
    for x, y in centres:
        _motif(img, rng, str(rng.choice(motifs)), float(x), float(y),
               size * rng.uniform(0.6, 1.2), colours[int(rng.integers(len(colours)))])
    return img * _fibres(rng, w, h, 0.08)[..., None]


def _motif(img: np.ndarray, rng: np.random.Generator, kind: str, x: float, y: float, r: float,
           colour: tuple[float, float, float]) -> None:
    c, ang = (int(x), int(y)), float(rng.uniform(0, 2 * np.pi))
    ri = max(1, int(r / 2))
    if kind == "dot":
        cv2.circle(img, c, ri, colour, -1, cv2.LINE_AA)
    elif kind == "ring":
        cv2.circle(img, c, ri, colour, max(1, ri // 3), cv2.LINE_AA)
    elif kind == "dash":
        d = np.array([np.cos(ang), np.sin(ang)]) * r / 2
        cv2.line(img, (int(x - d[0]), int(y - d[1])), (int(x + d[0]), int(y + d[1])), colour,
                 max(1, ri // 3), cv2.LINE_AA)
    elif kind == "blob":
        cv2.ellipse(img, c, (ri, max(1, int(ri * rng.uniform(0.3, 0.9)))), np.degrees(ang), 0,
                    360, colour, -1, cv2.LINE_AA)
    else:
        corners = {"square": 4, "diamond": 4, "triangle": 3, "star": 10}[kind]
        k = np.arange(corners)
        radius = np.where(k % 2 == 1, 0.45, 1.0) * r / 2 if kind == "star" else \
            np.full(corners, r / 2) * np.where(k % 2 == 1, 0.6, 1.0) ** (kind == "diamond")
        t = ang + 2 * np.pi * k / corners
        pts = np.stack([x + radius * np.cos(t), y + radius * np.sin(t)], 1)
        cv2.fillPoly(img, [np.round(pts).astype(np.int32)], colour, cv2.LINE_AA)


def _glass(rng: np.random.Generator, w: int, h: int, card_px: float) -> np.ndarray:
    """A glass or lacquered top: nearly flat colour, long soft reflections."""
    base = np.array(_cloth_colour(rng, saturated=False), np.float32) * rng.uniform(0.3, 1.0)
    refl = smooth_noise(rng, w, h, card_px * 8, card_px * 2)
    img = base[None, None, :] * (0.85 + 0.3 * refl[..., None])
    return img + 40.0 * (smooth_noise(rng, w, h, card_px * 5, card_px * 5)[..., None] ** 6)


def _matte(rng: np.random.Generator, w: int, h: int, dark: tuple, light: tuple,
           card_px: float) -> np.ndarray:
    grain = rng.random((h, w), dtype=np.float32)
    mottle = smooth_noise(rng, w, h, card_px * 2.5, card_px * 2.5)
    t = 0.5 + 0.25 * (grain - 0.5) + 0.4 * (mottle - 0.5)
    return _colour_map(np.clip(t, 0, 1), dark, light)


def _photo(rng: np.random.Generator, w: int, h: int, split: str, card_px: float
           ) -> np.ndarray | None:
    """A crop of a photograph (wood, stone, paper, meadows...) as the table."""
    files = photos(split)
    if not files:
        return None
    img = _load_photo(str(files[int(rng.integers(len(files)))]))
    if img is None:
        return None
    ph, pw = img.shape[:2]
    scale = max(w / pw, h / ph) * rng.uniform(1.0, 2.5)
    crop_w, crop_h = min(pw, int(w / scale) + 1), min(ph, int(h / scale) + 1)
    x0, y0 = int(rng.integers(0, pw - crop_w + 1)), int(rng.integers(0, ph - crop_h + 1))
    out = cv2.resize(img[y0:y0 + crop_h, x0:x0 + crop_w], (w, h), interpolation=cv2.INTER_AREA
                     if crop_w > w else cv2.INTER_LINEAR).astype(np.float32)
    if rng.random() < 0.5:
        out = out[:, ::-1]
    return np.ascontiguousarray(out) * rng.uniform(0.7, 1.05)


# --- colours ---------------------------------------------------------------------------------


def _hsv(h: float, s: float, v: float) -> tuple[float, float, float]:
    sat, val = int(np.clip(s, 0, 1) * 255), int(np.clip(v, 0, 1) * 255)
    px = np.array([[[int(h) % 180, sat, val]]], np.uint8)
    b, g, r = cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0]
    return float(b), float(g), float(r)


def _pale(rng: np.random.Generator) -> tuple[float, float, float]:
    """White, off-white, cream or a pale tint: what a card barely stands out from."""
    return _hsv(rng.uniform(0, 180), rng.uniform(0.0, 0.18), rng.uniform(0.82, 0.99))


def _cloth_colour(rng: np.random.Generator, saturated: bool) -> tuple[float, float, float]:
    if saturated:
        return _hsv(rng.uniform(0, 180), rng.uniform(0.4, 0.95), rng.uniform(0.25, 0.8))
    return _hsv(rng.uniform(0, 180), rng.uniform(0.0, 0.5), rng.uniform(0.15, 0.9))


def _vivid(rng: np.random.Generator) -> tuple[float, float, float]:
    return _hsv(rng.uniform(0, 180), rng.uniform(0.5, 1.0), rng.uniform(0.5, 0.95))


def _leaf(rng: np.random.Generator) -> tuple[float, float, float]:
    return _hsv(rng.uniform(35, 80), rng.uniform(0.4, 0.9), rng.uniform(0.3, 0.7))


# --- photographs -----------------------------------------------------------------------------


def _photo_split(path: Path) -> str:
    h = int(hashlib.sha1(("tightrope-photos:" + path.name).encode()).hexdigest()[:8], 16) % 100
    return "test" if h < 25 else "train"


@functools.cache
def photos(split: str) -> tuple[Path, ...]:
    """Photographs installed by Debian's backgrounds packages, for the split (train or test)."""
    found: list[Path] = []
    for d in PHOTO_DIRS:
        if d.is_dir():
            found += [p for p in d.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png",
                                                                       ".webp")]
    return tuple(p for p in sorted(found) if _photo_split(p) == ("test" if split == "test"
                                                                  else "train"))


@functools.lru_cache(maxsize=16)
def _load_photo(path: str) -> np.ndarray | None:
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        return None
    scale = 1200 / max(img.shape[:2])
    if scale < 1:  # a wallpaper is 4K: more than any table crop needs
        img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    img.setflags(write=False)
    return img


# --- named and random tables -------------------------------------------------------------------


def draw_table(kind: str, w: int, h: int, rng: np.random.Generator, card_px: float,
               split: str = "train") -> np.ndarray:
    """A surface of one kind with its colours and pattern drawn from `rng`."""
    if kind in ("wood_light", "wood_dark", "cloth_green", "cloth_grey", "dark_matte"):
        dark, light = _PALETTES[kind]
        if kind.startswith("wood"):
            return _wood(rng, w, h, dark, light, card_px)
        if kind.startswith("cloth"):
            colour = tuple((d + lt) / 2 for d, lt in zip(dark, light, strict=True))
            return _cloth(rng, w, h, colour, card_px)
        return _matte(rng, w, h, dark, light, card_px)
    if kind == "wood":
        light = _hsv(rng.uniform(5, 22), rng.uniform(0.3, 0.75), rng.uniform(0.3, 0.95))
        dark = tuple(c * rng.uniform(0.45, 0.7) for c in light)
        return _wood(rng, w, h, dark, light, card_px)
    if kind in ("cloth_white", "cloth_cream"):
        colour = (_hsv(0, 0, rng.uniform(0.85, 1.0)) if kind == "cloth_white"
                  else _hsv(rng.uniform(15, 30), rng.uniform(0.05, 0.25), rng.uniform(0.82, 0.98)))
        return _cloth(rng, w, h, colour, card_px, folds=rng.uniform(0.2, 1.0))
    if kind == "cloth":
        return _cloth(rng, w, h, _cloth_colour(rng, rng.random() < 0.5), card_px,
                      folds=rng.uniform(0, 1))
    if kind == "felt":
        return _cloth(rng, w, h, _cloth_colour(rng, saturated=True), card_px)
    if kind == "checked":
        return _checked(rng, w, h, card_px)
    if kind == "plaid":
        return _plaid(rng, w, h, card_px)
    if kind == "striped":
        return _striped(rng, w, h, card_px)
    if kind == "printed":
        return _printed(rng, w, h, card_px)
    if kind == "floral":
        return _floral(rng, w, h, card_px)
    if kind == "glass":
        return _glass(rng, w, h, card_px)
    if kind in ("photo", "photo_unseen"):
        img = _photo(rng, w, h, "test" if kind == "photo_unseen" else split, card_px)
        if img is not None:
            return img
        return _cloth(rng, w, h, _cloth_colour(rng, False), card_px)  # no photos installed
    raise ValueError(f"unknown table {kind!r}; choose one of {', '.join(TABLES)}")


# kinds a training table is drawn from, and how often (white and cream cloth, checked, busy
# prints and photos are over-represented: they are where detection is hard)
_TRAIN_KINDS = {"wood": 0.15, "cloth": 0.09, "cloth_white": 0.11, "cloth_cream": 0.07,
                "felt": 0.08, "checked": 0.11, "plaid": 0.05, "striped": 0.05, "printed": 0.1,
                "glass": 0.04, "dark_matte": 0.03, "photo": 0.14}
# the test split's draw, as it was before tartans and shape prints were trained on
_TEST_KINDS = {"wood": 0.17, "cloth": 0.1, "cloth_white": 0.12, "cloth_cream": 0.08,
               "felt": 0.09, "checked": 0.14, "striped": 0.06, "glass": 0.05, "dark_matte": 0.03,
               "photo": 0.16, "floral": 0.15}


def random_table(rng: np.random.Generator, w: int, h: int, card_px: float,
                 split: str = "train") -> np.ndarray:
    """Any surface of the split: training never sees floral prints or the test photographs."""
    kinds = _TEST_KINDS if split == "test" else _TRAIN_KINDS
    names = list(kinds)
    p = np.array([kinds[k] for k in names])
    kind = names[int(rng.choice(len(names), p=p / p.sum()))]
    return draw_table(kind, w, h, rng, card_px, split)


@functools.lru_cache(maxsize=24)
def _texture_cached(table: str, w: int, h: int, variant: int) -> np.ndarray:
    rng = np.random.default_rng([hash_table(table), w, h, variant])
    split = "test" if table in HELD_OUT_TABLES else "train"
    img = draw_table(table, w, h, rng, DEFAULT_CARD_FRACTION * w, split)
    img = np.clip(img + 0.5, 0, 255).astype(np.uint8)  # 8-bit: a quarter of the cache memory
    img.setflags(write=False)
    return img


def hash_table(table: str) -> int:
    """A stable (process-independent) integer for a table name."""
    return sum((i + 1) * ord(c) for i, c in enumerate(table))


def table_texture(table: str, w: int, h: int, variant: int = 0) -> np.ndarray:
    """The table surface, float32 BGR h x w x 3 (a fresh copy); `variant` picks one of its looks."""
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}; choose one of {', '.join(TABLES)}")
    # generated in 320-px buckets and cropped, so nearby sizes (tilt margins) share the cache
    bw, bh = -(-w // 320) * 320, -(-h // 320) * 320
    return _texture_cached(table, bw, bh, variant % 3)[:h, :w].astype(np.float32)
