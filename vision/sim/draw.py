"""Drawing shared by every deck the simulator prints: colours, text in real typefaces, borders.

Faces are CARD_W x CARD_H BGR (`vision.cards`); sizes given as fractions are of the card's width or
height as each function says. Text comes from TrueType files (`vision.sim.fonts`) through Pillow,
drawn large and shrunk so that it is cleanly anti-aliased at any size.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import cv2
import numpy as np

from vision.cards import CARD_H, CARD_W

BGR = tuple[int, int, int]
WHITE: BGR = (250, 250, 250)
BORDERS = ("none", "line", "band", "rounded", "double")


# --- colours ---------------------------------------------------------------------------------


def hsv(h: float, s: float, v: float) -> BGR:
    """BGR of a hue (OpenCV's 0..180), saturation and value (0..1)."""
    px = np.array([[[int(h) % 180, int(s * 255), int(v * 255)]]], np.uint8)
    b, g, r = cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0]
    return int(b), int(g), int(r)


def random_stock(rng: np.random.Generator) -> BGR:
    """Card stock: white, cream, ivory, grey, and now and then a pale tint (a pink edition)."""
    kind = rng.random()
    if kind < 0.45:
        return hsv(rng.uniform(15, 30), rng.uniform(0.03, 0.2), rng.uniform(0.85, 0.99))  # cream
    if kind < 0.8:
        level = rng.uniform(0.86, 1.0)
        return hsv(0, 0, level)
    return hsv(rng.uniform(0, 180), rng.uniform(0.08, 0.3), rng.uniform(0.82, 0.97))


def random_dark_ink(rng: np.random.Generator) -> BGR:
    """Near-black ink of any hue."""
    return hsv(rng.uniform(0, 180), rng.uniform(0.0, 0.6), rng.uniform(0.05, 0.3))


def random_vivid(rng: np.random.Generator) -> BGR:
    """A strong colour of any hue, for pictures and borders."""
    return hsv(rng.uniform(0, 180), rng.uniform(0.45, 1.0), rng.uniform(0.35, 0.85))


def mix(a: BGR, b: BGR, t: float) -> BGR:
    """`a` moved the fraction `t` towards `b`."""
    return tuple(int(round(x + (y - x) * t)) for x, y in zip(a, b, strict=True))  # type: ignore


# --- glyphs ----------------------------------------------------------------------------------

_RENDER_PX = 160  # glyphs are drawn this big and shrunk (clean anti-aliasing at any size)


@functools.lru_cache(maxsize=256)
def _pil_font(path: str):  # noqa: ANN202 - a PIL font object
    from PIL import ImageFont

    return ImageFont.truetype(path, _RENDER_PX)


@functools.lru_cache(maxsize=4096)
def _text_alpha(path: str, text: str) -> np.ndarray:
    """Tight float32 alpha mask of `text` at the render size (read-only)."""
    from PIL import Image, ImageDraw

    font = _pil_font(path)
    pad = _RENDER_PX // 2
    left, top, right, bottom = font.getbbox(text)
    w, h = int(right - left + 2 * pad), int(bottom - top + 2 * pad)
    im = Image.new("L", (max(w, 8), max(h, 8)), 0)
    ImageDraw.Draw(im).text((pad - left, pad - top), text, font=font, fill=255)
    a = np.asarray(im, np.float32) / 255.0
    ys, xs = np.nonzero(a > 0.05)
    if len(ys) == 0:
        a = np.zeros((4, 4), np.float32)
    else:
        a = a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    a.setflags(write=False)
    return a


def glyph(path: str, text: str, height: float, mark: str = "none",
          max_width: float | None = None) -> np.ndarray:
    """Alpha mask (float32 0..1) of `text`, its ink `height` px tall, with a 6/9 mark:
    "underline" (a bar under it) or "dot" (a dot after its foot)."""
    a = _text_alpha(path, text)
    h0, w0 = a.shape
    if mark != "none":
        bar = max(4, int(0.09 * h0))
        gap = max(3, int(0.1 * h0))
        if mark == "underline":
            canvas = np.zeros((h0 + gap + bar, w0), np.float32)
            canvas[:h0] = a
            inset = w0 // 8
            canvas[h0 + gap:, inset:w0 - inset] = 1.0
        else:
            r = max(3, int(0.07 * h0))
            canvas = np.zeros((h0, w0 + gap + 2 * r), np.float32)
            canvas[:, :w0] = a
            cv2.circle(canvas, (w0 + gap + r, h0 - r), r, 1.0, -1, cv2.LINE_AA)
        a = canvas
    return _scaled(a, height / h0, max_width)


def fit(alpha: np.ndarray, height: float, max_width: float | None = None) -> np.ndarray:
    """An alpha mask scaled to `height` px, narrower if it would pass `max_width`."""
    return _scaled(alpha, height / alpha.shape[0], max_width)


def _scaled(alpha: np.ndarray, k: float, max_width: float | None) -> np.ndarray:
    if max_width is not None and alpha.shape[1] * k > max_width:
        k = max_width / alpha.shape[1]
    out_h, out_w = max(1, round(alpha.shape[0] * k)), max(1, round(alpha.shape[1] * k))
    return cv2.resize(alpha, (out_w, out_h), interpolation=cv2.INTER_AREA)


def stamp(img: np.ndarray, alpha: np.ndarray, cx: float, cy: float, colour: BGR) -> None:
    """Blend `colour` through `alpha` centred at (cx, cy), clipped to the image, in place."""
    h, w = alpha.shape
    x0, y0 = int(round(cx - w / 2)), int(round(cy - h / 2))
    ax0, ay0 = max(0, -x0), max(0, -y0)
    x0c, y0c = max(0, x0), max(0, y0)
    x1c, y1c = min(img.shape[1], x0 + w), min(img.shape[0], y0 + h)
    if x1c <= x0c or y1c <= y0c:
        return
    a = alpha[ay0:ay0 + (y1c - y0c), ax0:ax0 + (x1c - x0c), None]
    roi = img[y0c:y1c, x0c:x1c].astype(np.float32)
    img[y0c:y1c, x0c:x1c] = np.clip(roi * (1 - a) + np.float32(colour) * a + 0.5, 0,
                                     255).astype(np.uint8)


# --- card furniture --------------------------------------------------------------------------


def blank(colour: BGR) -> np.ndarray:
    """A new face of one colour."""
    img = np.empty((CARD_H, CARD_W, 3), np.uint8)
    img[:] = colour
    return img


def border(img: np.ndarray, kind: str, colour: BGR, width: float) -> None:
    """A card border of one of BORDERS' kinds, `width` a fraction of the card width."""
    bw = max(1, int(round(width * CARD_W)))
    c, aa = colour, cv2.LINE_AA
    if kind == "line":
        m = bw + 3
        cv2.rectangle(img, (m, m), (CARD_W - 1 - m, CARD_H - 1 - m), c, max(1, bw // 3), aa)
    elif kind == "band":
        cv2.rectangle(img, (0, 0), (CARD_W - 1, CARD_H - 1), c, 2 * bw, aa)
    elif kind == "rounded":
        m, r = bw + 2, 14
        rounded_rect(img, (m, m, CARD_W - 1 - m, CARD_H - 1 - m), r, c, max(2, bw // 2))
    elif kind == "double":
        for m in (bw, bw + max(3, bw // 2) + 2):
            cv2.rectangle(img, (m, m), (CARD_W - 1 - m, CARD_H - 1 - m), c, 1, aa)


def rounded_rect(img: np.ndarray, box: tuple[int, int, int, int], r: int, colour: BGR,
                 thickness: int) -> None:
    """A box with round corners of radius `r`, outlined or (thickness < 0) filled."""
    x0, y0, x1, y1 = box
    aa = cv2.LINE_AA
    if thickness < 0:
        cv2.rectangle(img, (x0 + r, y0), (x1 - r, y1), colour, -1, aa)
        cv2.rectangle(img, (x0, y0 + r), (x1, y1 - r), colour, -1, aa)
        for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x0 + r, y1 - r), (x1 - r, y1 - r)):
            cv2.circle(img, (cx, cy), r, colour, -1, aa)
        return
    for (ax, ay), (bx, by) in (((x0 + r, y0), (x1 - r, y0)), ((x0 + r, y1), (x1 - r, y1)),
                               ((x0, y0 + r), (x0, y1 - r)), ((x1, y0 + r), (x1, y1 - r))):
        cv2.line(img, (ax, ay), (bx, by), colour, thickness, aa)
    for (cx, cy), start in (((x0 + r, y0 + r), 180), ((x1 - r, y0 + r), 270),
                            ((x1 - r, y1 - r), 0), ((x0 + r, y1 - r), 90)):
        cv2.ellipse(img, (cx, cy), (r, r), 0, start, start + 90, colour, thickness, aa)


def stamp_both_ways(img: np.ndarray, alpha: np.ndarray, cx: float, cy: float,
                    colour: BGR | Callable[[BGR], BGR]) -> None:
    """`alpha` upright at (cx, cy) and turned round at the point opposite, as a card's indices
    are printed: whichever way up the card lies, one of them reads upright. `colour` may be a
    function of the ground under each (the two ends of a card may differ)."""
    turned = np.ascontiguousarray(alpha[::-1, ::-1])
    for a, x, y in ((alpha, cx, cy), (turned, CARD_W - cx, CARD_H - cy)):
        stamp(img, a, x, y, colour(ground_at(img, x, y)) if callable(colour) else colour)


def ground_at(img: np.ndarray, x: float, y: float) -> BGR:
    """The face's colour at (x, y), clipped to the face."""
    b, g, r = img[min(max(0, int(y)), img.shape[0] - 1), min(max(0, int(x)), img.shape[1] - 1)]
    return int(b), int(g), int(r)


def luma(colour: BGR) -> float:
    b, g, r = colour
    return 0.114 * b + 0.587 * g + 0.299 * r


def legible_on(ground: BGR, light: BGR, dark: BGR) -> BGR:
    """Of a light and a dark ink, the one that reads on `ground` (dark ink on yellow, white on
    blue)."""
    return dark if luma(ground) > 150 else light


# --- card backs ------------------------------------------------------------------------------

BACKS = ("lattice", "dots", "stripes", "rings")  # the last is held out of training


def card_back(kind: str, colour: BGR, ground: BGR) -> np.ndarray:
    """A card back: a white margin round a field of `colour` with a pattern in a lighter shade,
    the same turned round (backs are)."""
    field = blank(colour)
    shade, aa = mix(colour, ground, 0.45), cv2.LINE_AA
    if kind == "lattice":
        for x in range(-CARD_H, CARD_W + CARD_H, 16):
            cv2.line(field, (x, 0), (x + CARD_H, CARD_H), shade, 2, aa)
            cv2.line(field, (x, CARD_H), (x + CARD_H, 0), shade, 2, aa)
    elif kind == "dots":
        for y in range(6, CARD_H, 14):
            for x in range(6 + 7 * (y // 14 % 2), CARD_W, 14):
                cv2.circle(field, (x, y), 3, shade, -1, aa)
    elif kind == "stripes":
        for x in range(-CARD_H, CARD_W + CARD_H, 10):
            cv2.line(field, (x, 0), (x + CARD_H // 2, CARD_H), shade, 3, aa)
    else:  # rings round the middle
        for r in range(8, CARD_H, 14):
            cv2.ellipse(field, (CARD_W // 2, CARD_H // 2), (r, int(r * 1.3)), 0, 0, 360, shade,
                        3, aa)
    m = int(0.07 * CARD_W)
    inside = np.zeros((CARD_H, CARD_W), np.float32)
    rounded_rect(inside, (m, m, CARD_W - 1 - m, CARD_H - 1 - m), 10, (1, 1, 1), -1)
    a = inside[..., None]
    return (blank(ground) * (1 - a) + field * a + 0.5).astype(np.uint8)
