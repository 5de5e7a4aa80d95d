"""Find card quadrilaterals in a frame and warp them to portrait crops.

No hand-set threshold: the foreground is the colour distance (YCrCb) of each pixel from the
table, thresholded by Otsu, with a floor at a few times the table's own noise (its robust
spread); a region between the floor and Otsu's line that is shaped like a card on its own is
kept too (a pale card in shadow beside saturated scoring cards). The table is the learned
empty-table frame when given (`background`, kept up to date by `absorb`), else an estimate made
from the frame itself (a wide median at very low resolution: cards are small against it).
Blobs that are one card become quads (polygon fit, else min-area rectangle); a squat "card" as
wide as a card is tall is two cards side by side. Blobs of several cards (touching, overlapping
at any angle, a zero lying across half of a value card, a hand over a card) are decomposed:
each right-angled corner of the blob outline, and each L-junction of straight edges inside it
(a card's corner lying on another card), proposes card rectangles; they are taken best outline
first, and once a card is taken, what it covers of the others needs no edge (`_select`); what
the corners leave of a touching row is cut into card-sized cells (`_split_rows`). The usual card
size is the one measured at the cards' edges in earlier frames (the watcher's detector), else
the single cards' size, else a first decomposition's. Of two overlapping cards the
one whose rim shows across the other lies on top (`_lying_over`); the crops of the cards under
it are painted grey there (`warp_card`), so the reader never reads the number lying on top.
Finally every side of every quad is moved onto the card's real edge (`refine_quads`), so the
reader gets crops cut at the card's border.
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import cv2
import numpy as np

from vision.cards import CARD_H, CARD_W

ASPECT = CARD_H / CARD_W  # 1.54 (59 x 91 mm)
WORK_WIDTH = 640  # detection resolution (px): a 70 px card is still 35 px wide


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


def order_quad(quad: np.ndarray) -> np.ndarray:
    """Corners clockwise (image coordinates), first edge a short one, first corner the top-most
    of the two candidates: a portrait warp, up to a 180-degree turn the reader resolves."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    pts = [(float(x), float(y)) for x, y in q]  # plain floats: this runs for every card
    cx, cy = sum(p[0] for p in pts) / 4, sum(p[1] for p in pts) / 4
    pts.sort(key=lambda p: math.atan2(p[1] - cy, p[0] - cx))  # clockwise on screen (y down)

    def dist(a: tuple[float, float], b: tuple[float, float]) -> float:
        return math.hypot(a[0] - b[0], a[1] - b[1])

    if dist(pts[0], pts[1]) + dist(pts[2], pts[3]) > dist(pts[1], pts[2]) + dist(pts[3], pts[0]):
        pts = pts[1:] + pts[:1]
    if pts[2][1] + pts[3][1] < pts[0][1] + pts[1][1]:  # upside down on screen: other end
        pts = pts[2:] + pts[:2]
    return np.array(pts, np.float32)


def warp(frame: np.ndarray, quad: np.ndarray, size: tuple[int, int] = (CARD_W, CARD_H)
         ) -> np.ndarray:
    """Perspective-corrected crop of the quad (its corner order gives the orientation)."""
    w, h = size
    dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    m = cv2.getPerspectiveTransform(np.asarray(quad, np.float32).reshape(4, 2), dst)
    return cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


_WEIGHTS = np.array([[0.6, 2.0, 2.0]], np.float32)  # Y, Cr, Cb: shadows change mostly lightness


COVERED = (128, 128, 128)  # what a crop shows where another card lies over the card


def warp_card(frame: np.ndarray, quad: np.ndarray, size: tuple[int, int],
              covers: list[np.ndarray] = ()) -> np.ndarray:
    """`warp`, and the part of the card under the `covers` quads (same pixels as `quad`)
    painted plain grey: the reader is not shown the number of the card lying on top."""
    crop = warp(frame, quad, size)
    if len(covers):
        w, h = size
        m = cv2.getPerspectiveTransform(np.asarray(quad, np.float32).reshape(4, 2),
                                        np.float32([[0, 0], [w, 0], [w, h], [0, h]]))
        for c in covers:
            pts = cv2.perspectiveTransform(np.asarray(c, np.float32).reshape(1, 4, 2), m)[0]
            cv2.fillConvexPoly(crop, np.rint(pts * 16).astype(np.int32), COVERED, cv2.LINE_8, 4)
    return crop


def crop_cards(small: np.ndarray, scale: float, quads: list[np.ndarray],
               covers: list[list[np.ndarray]] | None = None) -> list[np.ndarray]:
    """Reader-size crops (48x72) of frame-px quads, cut from the work-size frame: at 640 px a
    card is still 35..80 px wide, as many as the reader uses, and the warp is 4x cheaper than at
    full size (measured: the same reads on 2,000 cards). `covers`: per quad, the quads lying
    over it (`warp_card`)."""
    from vision.read import FEAT_H, FEAT_W

    covers = covers or [[] for _ in quads]
    return [warp_card(small, q * scale, (FEAT_W, FEAT_H), [c * scale for c in cs])
            for q, cs in zip(quads, covers, strict=True)]


def _lab(img: np.ndarray) -> np.ndarray:
    """Luma/chroma image (YCrCb: as good as Lab here and far cheaper)."""
    return cv2.cvtColor(img, cv2.COLOR_BGR2YCrCb)


def _distance(lab: np.ndarray, table_lab: np.ndarray) -> np.ndarray:
    """uint8 colour distance from the table (weighted L1 in YCrCb)."""
    y, cr, cb = cv2.split(cv2.absdiff(lab, table_lab))
    # = cv2.transform(diff, _WEIGHTS), saturating the same way, at a seventh of its cost
    return cv2.addWeighted(cv2.add(cr, cb), float(_WEIGHTS[0, 1]), y, float(_WEIGHTS[0, 0]), 0)


def estimate_table(small: np.ndarray) -> np.ndarray:
    """The empty table under the cards, guessed from one frame: a wide median at very low
    resolution, then twice re-estimated from only the pixels that look like that table
    (normalised blur), so dense groups of cards do not leak into it."""
    h, w = small.shape[:2]
    tw, th = 64, max(8, round(64 * h / w))
    tiny = cv2.resize(small, (tw, th), interpolation=cv2.INTER_AREA)
    table = cv2.medianBlur(cv2.medianBlur(tiny, 9), 9)
    tiny_f = tiny.astype(np.float32)
    for _ in range(2):
        d = _distance(_lab(tiny), _lab(table))
        thr, _ = cv2.threshold(d, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        valid = (d <= max(thr * 0.5, 6.0)).astype(np.float32)
        valid = cv2.erode(valid, np.ones((3, 3), np.uint8))
        num = cv2.GaussianBlur(tiny_f * valid[..., None], (0, 0), 5.0)
        den = cv2.GaussianBlur(valid, (0, 0), 5.0)[..., None]
        fill = np.where(den > 0.02, num / np.maximum(den, 1e-6), table.astype(np.float32))
        table = np.clip(fill, 0, 255).astype(np.uint8)
    return cv2.resize(table, (w, h), interpolation=cv2.INTER_LINEAR)


def _median_u8(img: np.ndarray) -> tuple[float, float]:
    """Median and robust spread (MAD) of a uint8 image, from its histogram (fast)."""
    hist = cv2.calcHist([img], [0], None, [256], [0, 256]).ravel()
    cdf = np.cumsum(hist)
    med = float(np.searchsorted(cdf, cdf[-1] / 2))
    dev = np.abs(np.arange(256) - med)
    order = np.argsort(dev, kind="stable")
    mad = float(dev[order][np.searchsorted(np.cumsum(hist[order]), cdf[-1] / 2)])
    return med, mad


def _noise_floor(dist: np.ndarray) -> float:
    """A distance from the table that its own noise (grain, sensor) rarely reaches: the
    median plus six robust spreads of a distance image that is mostly table."""
    med, mad = _median_u8(dist)
    return med + 6.0 * max(mad, 1.0)


def _foreground(dist: np.ndarray) -> np.ndarray:
    """Binary mask (uint8 0/255) of what is not the table, from the (blurred) colour distance:
    foreground above Otsu's line (at least 0.6 of it), floored by the table's noise; plus,
    from below that line down to the noise floor, any region shaped like a card on its own.
    Otsu sits between the table and the most saturated cards, so a pale card in shadow beside
    red and blue scoring cards falls below it; a lower line for everything would join cards
    lying side by side through the soft shadows between them. Opened (3 px) against speckle,
    closed (5 px) against hairline gaps."""
    otsu, _ = cv2.threshold(dist, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    floor = _noise_floor(dist)
    if floor > 2 * otsu and (dist < otsu).any():
        # the table's noise cannot reach far past the line between table and cards: here the
        # cards, hands and arms covered so much of the frame that the median was not the
        # table's (an arm across the table: a floor of 180, the line 73); measured on the table
        # side of the line only. (From just past the line, as on two training frames, the
        # retrained model read more cards of other editions wrongly: left as it was there.)
        floor = _noise_floor(dist[dist < otsu])
    floor = max(floor, 8.0)
    thr = max(0.6 * otsu, floor)
    kernel = np.ones((3, 3), np.uint8)
    _, mask = cv2.threshold(dist, thr, 255, cv2.THRESH_BINARY)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    if thr > floor + 4:
        _, weak = cv2.threshold(dist, floor, 255, cv2.THRESH_BINARY)
        weak = cv2.morphologyEx(weak, cv2.MORPH_OPEN, kernel)
        contours, _ = cv2.findContours(weak, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            if cv2.contourArea(c) > 400 and _card_like(c)[0] and _share(mask, c) < 0.9:
                cv2.drawContours(mask, [c], -1, 255, -1)  # only its ink was above the line
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def _share(mask: np.ndarray, contour: np.ndarray) -> float:
    """The share of the contour's inside that the mask already holds."""
    x, y, w, h = cv2.boundingRect(contour)
    region = np.zeros((h, w), np.uint8)
    cv2.drawContours(region, [contour], -1, 255, -1, offset=(-x, -y))
    inside = region > 0
    return float(np.count_nonzero(mask[y : y + h, x : x + w][inside])) / max(1, inside.sum())


def _rect_quad(rect: tuple) -> np.ndarray:
    return cv2.boxPoints(rect).astype(np.float32)


def _fit_quad(contour: np.ndarray) -> np.ndarray:
    """Four corners of a card-like contour: polygon fit when it finds 4, else min-area rect."""
    peri = cv2.arcLength(contour, True)
    for eps in (0.02, 0.035, 0.05):
        poly = cv2.approxPolyDP(contour, eps * peri, True)
        if len(poly) == 4 and cv2.isContourConvex(poly):
            rect_area = cv2.contourArea(poly)
            if rect_area > 0.8 * cv2.contourArea(cv2.convexHull(contour)):
                return poly.reshape(4, 2).astype(np.float32)
    return _rect_quad(cv2.minAreaRect(contour))


def _card_like(contour: np.ndarray) -> tuple[bool, tuple]:
    rect = cv2.minAreaRect(contour)
    (w, h) = rect[1]
    if min(w, h) < 4:
        return False, rect
    aspect = max(w, h) / min(w, h)
    fill = cv2.contourArea(contour) / (w * h)
    return (1.38 < aspect < 1.72 and fill > 0.88), rect


def _support_map(grey: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Distance (px) to the nearest edge: blob outline or an image edge (a card's edge over
    another card). Canny thresholds follow the image's own grey level statistics."""
    grey = cv2.GaussianBlur(grey, (3, 3), 0)
    med, _ = _median_u8(grey)
    edges = cv2.Canny(grey, max(10.0, 0.4 * med), max(30.0, 0.9 * med))
    outline = cv2.morphologyEx(mask, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    edges = cv2.bitwise_or(edges, outline)
    return cv2.distanceTransform(255 - edges, cv2.DIST_L2, 3)


_GRID = np.stack(np.meshgrid(np.linspace(0.06, 0.94, 8), np.linspace(0.06, 0.94, 12)),
                 axis=-1).reshape(-1, 2)
_PERIM = np.concatenate([
    np.stack([np.linspace(0.1, 0.9, 8), np.zeros(8)], axis=1),
    np.stack([np.ones(12), np.linspace(0.1, 0.9, 12)], axis=1),
    np.stack([np.linspace(0.1, 0.9, 8), np.ones(8)], axis=1),
    np.stack([np.zeros(12), np.linspace(0.1, 0.9, 12)], axis=1),
])


_SIDES = ((0, 8), (8, 20), (20, 28), (28, 40))  # _PERIM's points of each side


def _sample(img: np.ndarray, pts: np.ndarray) -> np.ndarray:
    x = np.clip(np.rint(pts[..., 0]).astype(np.intp), 0, img.shape[1] - 1)
    y = np.clip(np.rint(pts[..., 1]).astype(np.intp), 0, img.shape[0] - 1)
    return img[y, x]


_SNAP = np.arange(-3, 4, dtype=np.float64)  # far-side offsets tried (work px)
_T = np.linspace(0.1, 0.9, 12)


def _snap(h: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Move each hypothesis' two far sides (their length came from a ratio or another card)
    by up to 3 px onto the nearest edge: the box then fits the card it stands for."""
    h = h.copy()
    v, u1, u2 = h[:, None, None, 0:2], h[:, None, None, 2:4], h[:, None, None, 4:6]
    for along, across in ((6, 7), (7, 6)):
        ua, ub = (u1, u2) if along == 6 else (u2, u1)
        length = h[:, along][:, None, None, None] + _SNAP[None, :, None, None]
        pts = v + length * ua + (_T[None, None, :, None] * h[:, across][:, None, None, None]) * ub
        hits = (_sample(dist, pts) < 1.2).mean(axis=2) - 0.01 * np.abs(_SNAP)
        h[:, along] += _SNAP[hits.argmax(axis=1)]
    return h


# where along a side its edge is looked for: each half of the side on its own, so a side that
# came out a little turned is turned back onto the edge
_EDGE_HALVES = (np.linspace(0.12, 0.45, 6), np.linspace(0.55, 0.88, 6))
# offsets along a side's outward normal (work px): blob quads are rather too big (a smoothed
# mask, a far side taken from the usual card size) than too small
_EDGE_D = np.arange(-8.0, 4.5, 0.5)
_EDGE_MIN_STEP = 20.0  # median Sobel response of a real card edge is well above this


def refine_quads(quads: list[np.ndarray], dist: np.ndarray,
                 over: list[tuple[int, ...]] | None = None) -> list[np.ndarray]:
    """Move each side of each quad (work px) onto the card's real edge: the strongest step of
    the colour distance from the table across that side, up to 8 px in or 4 px out, found for
    each half of the side. The foreground mask is smoothed and closed, a polygon fit leans on
    rounded corners, and a side found from the usual card size may reach over a gap into the
    next card; the reader wants a crop cut at the card's edge. A half-side with no clear step
    (an edge over another card, a hand) follows the other half, or keeps its place. A side
    under a card lying over it (`over`: per quad, the indices of those) keeps its place: it has
    no edge of its own there, and the step it would find is the other card's (a zero's white
    half over a value card is nearer the table's colour). All sides of all quads at once
    (numpy): about 0.1 ms a card."""
    if not quads:
        return quads
    f = dist.astype(np.float32)
    gx, gy = cv2.Sobel(f, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(f, cv2.CV_32F, 0, 1, ksize=3)
    q = np.stack([np.asarray(x, np.float64).reshape(4, 2) for x in quads])  # (Q, 4, 2)
    a, b = q, np.roll(q, -1, axis=1)  # side i runs from corner i to corner i+1
    along = b - a
    length = np.maximum(np.hypot(along[..., 0], along[..., 1]), 1e-9)
    n = np.stack([along[..., 1], -along[..., 0]], axis=-1) / length[..., None]
    outward = ((a - q.mean(axis=1, keepdims=True)) * n).sum(axis=-1) >= 0
    n = np.where(outward[..., None], n, -n)
    ts = np.stack(_EDGE_HALVES)  # (2, T)
    on_side = a[:, :, None, None] + ts[None, None, :, :, None] * along[:, :, None, None]
    pts = on_side[:, :, :, None] + _EDGE_D[:, None, None] * n[:, :, None, None, None]
    nx, ny = (n[..., k][:, :, None, None, None] for k in (0, 1))
    # the distance from the table falls going outwards across the card's edge
    score = np.median(-(_sample(gx, pts) * nx + _sample(gy, pts) * ny), axis=-1)  # (Q,4,2,D)
    d = _peak_offsets(score)  # (Q, 4, 2), NaN where no clear edge
    d1, d2 = d[..., 0], d[..., 1]
    one = np.where(np.isnan(d1), d2, d1)  # a half with no edge: the side moves as a whole
    one = np.nan_to_num(one)
    split = np.isnan(d1) | np.isnan(d2) | (np.abs(d1 - d2) > 3.0)  # or two different edges
    d1 = np.where(split, np.where(np.isnan(d1) | np.isnan(d2), one, (d1 + d2) / 2), d1)
    d2 = np.where(split, d1, d2)
    middle = a + 0.5 * along
    for i, tops in enumerate(over or ()):
        for j in tops:
            under = _inside(middle[i], q[j], -2.0)
            d1[i, under] = d2[i, under] = 0.0
    t1, t2 = (float(h.mean()) for h in _EDGE_HALVES)
    p1 = a + t1 * along + d1[..., None] * n
    p2 = a + t2 * along + d2[..., None] * n
    new = _cross_lines(np.roll(p1, 1, axis=1), np.roll(p2, 1, axis=1), p1, p2, q)
    bad = (length < 4).any(axis=1) | (np.abs(new - q).max(axis=(1, 2)) > 10.0)
    return [(qi if b_ else ni).astype(np.float32) for qi, ni, b_ in zip(q, new, bad, strict=True)]


def _peak_offsets(score: np.ndarray) -> np.ndarray:
    """The sub-pixel offset of the strongest step along the last axis; NaN where it is weak."""
    k = score.argmax(axis=-1)
    peak = np.take_along_axis(score, k[..., None], axis=-1)[..., 0]
    lo = np.take_along_axis(score, np.maximum(k - 1, 0)[..., None], axis=-1)[..., 0]
    hi = np.take_along_axis(score, np.minimum(k + 1, score.shape[-1] - 1)[..., None],
                            axis=-1)[..., 0]
    den = lo - 2 * peak + hi
    inner = (k > 0) & (k < score.shape[-1] - 1) & (den < 0)
    frac = np.where(inner, 0.25 * (lo - hi) / np.where(den < 0, den, -1.0), 0.0)
    return np.where(peak >= _EDGE_MIN_STEP, _EDGE_D[k] + frac, np.nan)


def _cross_lines(p1: np.ndarray, p2: np.ndarray, p3: np.ndarray, p4: np.ndarray,
                 fallback: np.ndarray) -> np.ndarray:
    """Crossing of the lines p1-p2 and p3-p4 (arrays of points); `fallback` where parallel."""
    d1, d2 = p2 - p1, p4 - p3
    den = d1[..., 0] * d2[..., 1] - d1[..., 1] * d2[..., 0]
    ok = np.abs(den) > 1e-6
    t = ((p3[..., 0] - p1[..., 0]) * d2[..., 1] - (p3[..., 1] - p1[..., 1]) * d2[..., 0]
         ) / np.where(ok, den, 1.0)
    return np.where(ok[..., None], p1 + t[..., None] * d1, fallback)


def iou(q1: np.ndarray, q2: np.ndarray) -> float:
    """Intersection over union of two convex quads."""
    inter, _ = cv2.intersectConvexConvex(q1, q2)
    union = cv2.contourArea(q1) + cv2.contourArea(q2)
    return float(inter / max(union - inter, 1e-6))


def _line_cross(p1: np.ndarray, p2: np.ndarray, p3: np.ndarray, p4: np.ndarray
                ) -> np.ndarray | None:
    """Intersection of the lines p1-p2 and p3-p4 (None when parallel)."""
    d1, d2 = p2 - p1, p4 - p3
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(den) < 1e-9 * max(1.0, float(np.hypot(*d1) * np.hypot(*d2))):
        return None
    t = ((p3[0] - p1[0]) * d2[1] - (p3[1] - p1[1]) * d2[0]) / den
    return p1 + t * d1


def _sharpen(poly: np.ndarray, short: float) -> np.ndarray:
    """Rounded card corners come out of the polygon fit as a short chamfer edge: replace each
    such edge by the crossing of its two neighbours, giving back the sharp corner."""
    pts = [p for p in poly]
    changed = True
    while changed and len(pts) > 3:
        changed = False
        n = len(pts)
        for i in range(n):
            a, b = pts[i], pts[(i + 1) % n]
            if np.hypot(*(b - a)) >= short:
                continue
            x = _line_cross(pts[i - 1], a, b, pts[(i + 2) % n])
            if x is None or np.hypot(*(x - a)) > 2 * short or np.hypot(*(x - b)) > 2 * short:
                continue
            pts[i] = x
            del pts[(i + 1) % n]
            changed = True
            break
    return np.array(pts)


def _card_corners(poly: np.ndarray) -> np.ndarray:
    """Per vertex of the outline polygon: is it convex and right-angled (75..105 deg)? The
    convex corners of a union of cards are always corners of one of its cards."""
    prev, nxt = np.roll(poly, 1, axis=0) - poly, np.roll(poly, -1, axis=0) - poly
    l1, l2 = np.hypot(*prev.T), np.hypot(*nxt.T)
    cos = (prev * nxt).sum(axis=1) / np.maximum(l1 * l2, 1e-9)
    orient = np.sign(cv2.contourArea(poly.astype(np.float32), oriented=True))
    turn = np.sign(nxt[:, 0] * prev[:, 1] - nxt[:, 1] * prev[:, 0])
    return (np.abs(cos) <= 0.26) & (turn == orient)


def _square(u1: np.ndarray, u2: np.ndarray, turn_first: bool) -> tuple[np.ndarray, np.ndarray]:
    """Two unit directions made square: the first turned to a right angle with the second
    (`turn_first`), else the second with the first."""
    if turn_first:
        u1 = u1 - (u1 @ u2) * u2
        return u1 / np.hypot(*u1), u2
    u2 = u2 - (u2 @ u1) * u1
    return u1, u2 / np.hypot(*u2)


def _corner_hypotheses(poly: np.ndarray, min_w: float, widths: list[float]) -> np.ndarray:
    n = len(poly)
    corner = _card_corners(poly)
    rows = []
    for i in np.flatnonzero(corner):
        v, prev, nxt = poly[i], poly[i - 1], poly[(i + 1) % n]
        e1, e2 = prev - v, nxt - v
        l1, l2 = float(np.hypot(*e1)), float(np.hypot(*e2))
        # a corner with one short edge (a card a little out of line in a touching row) still
        # places a card of the usual size, its direction taken from the long edge
        short_ok = bool(widths) and max(l1, l2) >= 0.3 * widths[0] and min(l1, l2) >= 2.0
        if min(l1, l2) < 0.2 * min_w and not short_ok:
            continue
        u1, u2 = _square(e1 / l1, e2 / l2, l1 < 0.2 * min_w)  # the short edge to the long one
        sizes = {(l1, l1 * ASPECT), (l1, l1 / ASPECT), (l2 * ASPECT, l2), (l2 / ASPECT, l2)}
        # one side at least as long as its visible edge (the other may run on under a
        # collinear neighbour: a zero lying across half of a value card)
        sizes = {(a, b) for a, b in sizes if a >= 0.85 * l1 or b >= 0.85 * l2}
        if widths:  # cards on one table share one size: trust it, keep edge sizes that agree
            w0 = widths[0]
            sizes = {(a, b) for a, b in sizes if 0.8 * w0 < min(a, b) < 1.2 * w0}
            usual = {(w0, w0 * ASPECT), (w0 * ASPECT, w0)}
            # the usual size also where both edges run on past it: cards touching in a row (or
            # a zero below a value card) merge their edges into longer ones
            sizes |= {(a, b) for a, b in usual
                      if a >= 0.85 * l1 or b >= 0.85 * l2 or (l1 > 1.15 * a and l2 > 1.15 * b)}
        rows += [(*v, *u1, *u2, a, b) for a, b in sizes if min(a, b) >= min_w]
    return np.array(rows, np.float64).reshape(-1, 8)


def _decompose(blob: _Blob, min_w: float, widths: list[float],
               left: list[np.ndarray] | None = None, gap: float = 4.0) -> list[np.ndarray]:
    """Cards in a blob of several (any overlap, any angle; blob px): every right-angled corner
    of the blob's outline, and every L-junction of straight edges inside it (the corner of a
    card lying on another card), proposes cards (side lengths from its edges or from the other
    cards' sizes); proposals inside the foreground whose outline lies on edges win (`_select`).
    `left` receives the proposals not taken; `gap`: how far (px) an edge may end short of the
    corner it meets another edge at."""
    c = blob.contour
    peri = cv2.arcLength(c, True)
    poly = cv2.approxPolyDP(c, max(1.5, 0.008 * peri), True).reshape(-1, 2).astype(np.float64)
    poly = _sharpen(poly, max(4.0, 0.4 * min_w))
    if len(poly) < 3:
        return []
    h = np.concatenate([_corner_hypotheses(poly, min_w, widths),
                        _junction_hypotheses(blob.segments, min_w, widths, gap)])
    if not len(h):
        return []
    return _select(_snap(h, blob.dist), blob.mask, blob.dist, blob.segments,
                   widths[0] if widths else None, left)


_LSD = None


def _segments(grey: np.ndarray) -> np.ndarray:
    """Straight edge segments (x1, y1, x2, y2) of a grey image (OpenCV's line segment detector)."""
    global _LSD
    if _LSD is None:
        _LSD = cv2.createLineSegmentDetector()
    lines = _LSD.detect(grey)[0]
    return np.zeros((0, 4)) if lines is None else lines.reshape(-1, 4).astype(np.float64)


def _junction_hypotheses(seg: np.ndarray, min_w: float, widths: list[float], gap: float = 4.0
                         ) -> np.ndarray:
    """Card proposals from L-junctions of edge segments (x1, y1, x2, y2): two straight edges at
    a right angle (within 12 deg) that meet end to end. Inside a pile a card's corner lies on
    another card, not on the blob's outline, but its two edges still show (a step in
    brightness, the rim's shadow)."""
    if not len(seg):
        return np.zeros((0, 8))
    d = seg[:, 2:4] - seg[:, 0:2]
    length = np.hypot(d[:, 0], d[:, 1])
    long = length >= 0.3 * min_w
    seg, d, length = seg[long], d[long], length[long]
    if len(seg) < 2:
        return np.zeros((0, 8))
    u = d / length[:, None]
    i, j = np.triu_indices(len(seg), 1)
    perp = np.abs((u[i] * u[j]).sum(axis=1)) < 0.21
    i, j = i[perp], j[perp]
    # crossing of the two lines, as a position along each segment (0 = its first end)
    p, r, q, s_ = seg[i, 0:2], d[i], seg[j, 0:2], d[j]
    den = r[:, 0] * s_[:, 1] - r[:, 1] * s_[:, 0]
    qp = q - p
    t = (qp[:, 0] * s_[:, 1] - qp[:, 1] * s_[:, 0]) / den
    v = (qp[:, 0] * r[:, 1] - qp[:, 1] * r[:, 0]) / den
    gap_i = np.minimum(np.abs(t), np.abs(t - 1)) * length[i]
    gap_j = np.minimum(np.abs(v), np.abs(v - 1)) * length[j]
    near = (gap_i < gap) & (gap_j < gap)
    i, j, t, v = i[near], j[near], t[near], v[near]
    x = seg[i, 0:2] + t[:, None] * d[i]
    # each edge runs from the corner to its far end
    e1 = np.where((np.abs(t) < np.abs(t - 1))[:, None], seg[i, 2:4], seg[i, 0:2]) - x
    e2 = np.where((np.abs(v) < np.abs(v - 1))[:, None], seg[j, 2:4], seg[j, 0:2]) - x
    rows = []
    for k in range(len(x)):
        rows += _boxes_at(x[k], e1[k], e2[k], min_w, widths)
    return np.array(rows, np.float64).reshape(-1, 8)


def _boxes_at(v: np.ndarray, e1: np.ndarray, e2: np.ndarray, min_w: float,
              widths: list[float]) -> list[tuple]:
    """Card boxes with a corner at v and sides along e1 and e2 (squared to the longer one):
    the side lengths the edges give, and the usual size."""
    l1, l2 = float(np.hypot(*e1)), float(np.hypot(*e2))
    if min(l1, l2) < 1.0:
        return []
    u1, u2 = _square(e1 / l1, e2 / l2, l1 < l2)
    sizes = {(l1, l1 * ASPECT), (l1, l1 / ASPECT), (l2 * ASPECT, l2), (l2 / ASPECT, l2)}
    if widths:  # cards on one table share one size
        w0 = widths[0]
        sizes = {(a, b) for a, b in sizes if 0.87 * w0 < min(a, b) < 1.15 * w0}
        sizes |= {(w0, w0 * ASPECT), (w0 * ASPECT, w0)}
    return [(*v, *u1, *u2, a, b) for a, b in sizes
            if min(a, b) >= min_w and (a >= 0.85 * l1 or b >= 0.85 * l2)]


def _select(h: np.ndarray, mask: np.ndarray, dist: np.ndarray, segments: np.ndarray,
            w0: float | None = None, left: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """The proposals that explain the blob, the card on top first. A proposal must lie in the
    foreground and its outline on edges; once a card is taken, the part of the others it covers
    is explained by it (an edge under a card cannot show), so the cards under it can win next,
    while a copy of a taken card (all under it) cannot; of equals, a box parallel to the taken
    cards it touches wins. A box with a straight edge right through it is two cards, not one
    (`_edge_through`): passed over. `left` receives the proposals in the foreground that were
    neither taken nor passed over (a reader may still find a card among them)."""
    v, u1, u2, a, b = h[:, None, 0:2], h[:, None, 2:4], h[:, None, 4:6], h[:, 6:7], h[:, 7:8]
    inside = v + (_GRID[:, 0] * a)[..., None] * u1 + (_GRID[:, 1] * b)[..., None] * u2
    cover = (_sample(mask, inside) > 0).mean(axis=1)
    alive = cover > 0.9  # only proposals lying in the foreground are looked at further
    area = float(np.count_nonzero(mask))
    h, inside, cover = h[alive], inside[alive], cover[alive]
    v, u1, u2, a, b = h[:, None, 0:2], h[:, None, 2:4], h[:, None, 4:6], h[:, 6:7], h[:, 7:8]
    outline = v + (_PERIM[:, 0] * a)[..., None] * u1 + (_PERIM[:, 1] * b)[..., None] * u2
    on_edge = _sample(dist, outline) < 1.6
    hidden_in = np.zeros(inside.shape[:2], bool)
    hidden_out = np.zeros(outline.shape[:2], bool)
    alive = np.ones(len(h), bool)
    taken: list[int] = []
    centre = h[:, 0:2] + (h[:, 6:7] * h[:, 2:4] + h[:, 7:8] * h[:, 4:6]) / 2
    radius = np.hypot(h[:, 6], h[:, 7]) / 2
    long_axis = np.where((h[:, 6] >= h[:, 7])[:, None], h[:, 2:4], h[:, 4:6])
    aligned = np.zeros(len(h), bool)  # parallel to a taken card it touches
    out: list[np.ndarray] = []
    while alive.any():
        shown = ~hidden_out
        n_shown = shown.sum(axis=1)
        support = (on_edge & shown).sum(axis=1) / np.maximum(n_shown, 1)
        # each side on its shown part: a side all hidden neither helps nor hurts
        sides = np.stack([(on_edge & shown)[:, lo:hi].sum(axis=1)
                          / np.maximum(shown[:, lo:hi].sum(axis=1), 1)
                          + (shown[:, lo:hi].sum(axis=1) < 3) for lo, hi in _SIDES], axis=1)
        score = support + 0.25 * np.minimum(sides.min(axis=1), 1.0)
        ok = alive & (score > 0.5) & (n_shown >= 16) & (hidden_in.mean(axis=1) < 0.6)
        if not ok.any():
            break
        # many proposals explain their part of the blob equally well (the scores saturate):
        # people square a card to the cards beside it, so of equals the one that lies parallel
        # to its neighbours wins (a box across two cards of a row lies across them)
        k = int(np.argmax(np.where(ok, score + 0.5 * cover + 0.02 * aligned, -np.inf)))
        alive[k] = False
        # a blob little bigger than the box holds one card (its bump a glare or a shadow): no
        # second card for an edge to part it from (a scoring card's two numerals line up)
        if area > 1.25 * h[k, 6] * h[k, 7] and _edge_through(h[k], segments, h[taken], w0):
            continue
        taken.append(k)
        out.append(_box_quad(h[k]))
        near = np.flatnonzero(np.hypot(*(centre - centre[k]).T) < radius + radius[k])
        hidden_in[near] |= _in_box(inside[near], h[k])
        hidden_out[near] |= _in_box(outline[near], h[k], margin=1.5)
        aligned[near] |= np.abs(long_axis[near] @ long_axis[k]) > _PARALLEL
    if left is not None:
        left += [_box_quad(row) for row in h[alive]]
    return out


def _box_quad(box: np.ndarray) -> np.ndarray:
    """The corners of a box row (vx, vy, u1x, u1y, u2x, u2y, a, b)."""
    v, e1, e2 = box[0:2], box[6] * box[2:4], box[7] * box[4:6]
    return np.array([v, v + e1, v + e1 + e2, v + e2], np.float32)


_PARALLEL = float(np.cos(np.radians(8)))  # two cards' long axes within 8 deg


def _edge_through(box: np.ndarray, segments: np.ndarray, taken: np.ndarray,
                  w0: float | None = None) -> bool:
    """Does a straight edge run right through the box, as between two cards it would span
    (two touching cards, or halves of them)? One across it, off its middle (a scoring card's
    colour boundary runs across its middle), or one along most of its length; with the usual
    card width `w0` known, also one across most of it about a card width in from an end (the
    next card of a row: where two cards of one colour meet, their edge shows only as far as
    their colour changes). Edges along a taken card's rim are that card's and do not count."""
    if not len(segments):
        return False
    v, u1, u2, a, b = box[0:2], box[2:4], box[4:6], box[6], box[7]
    ends = segments.reshape(-1, 2, 2) - v
    s1, s2 = ends @ u1, ends @ u2  # (S, 2) each: both ends in the box's own axes
    if a < b:  # make s1 run along the long side
        s1, s2, a, b = s2, s1, b, a
    mid = segments.reshape(-1, 2, 2).mean(axis=1)
    for t in taken:
        mid_in = _in_box(mid, t, margin=-2.0)
        s1, s2, mid = s1[~mid_in], s2[~mid_in], mid[~mid_in]
    d1, d2 = np.abs(s1[:, 1] - s1[:, 0]), np.abs(s2[:, 1] - s2[:, 0])
    m1, m2 = s1.mean(axis=1) / a, s2.mean(axis=1) / b
    off_middle = ((m1 > 0.15) & (m1 < 0.42)) | ((m1 > 0.58) & (m1 < 0.85))
    across = (d1 < 0.15 * d2) & (d2 > 0.85 * b) & (m2 > 0.1) & (m2 < 0.9) & off_middle
    if w0 is not None:
        one_card = np.minimum(m1, 1 - m1) * a  # how far in from the nearer end
        across |= ((d1 < 0.15 * d2) & (d2 > 0.6 * b) & (m2 > 0.1) & (m2 < 0.9) & off_middle
                   & (np.abs(one_card - w0) < 0.45 * w0))
    along = ((d2 < 0.15 * d1) & (d1 > 0.6 * a) & (m1 > 0.1) & (m1 < 0.9)
             & (m2 > 0.15) & (m2 < 0.85))
    return bool((across | along).any())


def _in_box(pts: np.ndarray, box: np.ndarray, margin: float = 0.0) -> np.ndarray:
    """Which points lie inside a box row (vx, vy, u1x, u1y, u2x, u2y, a, b), `margin` px in."""
    rel = pts - box[0:2]
    s1, s2 = rel @ box[2:4], rel @ box[4:6]
    return ((s1 > margin) & (s1 < box[6] - margin) & (s2 > margin) & (s2 < box[7] - margin))


class _Blob:
    """A blob's bounding box, made once and looked at twice: its contour and mask there, grey
    image, distances to edges, and (on first use) its straight edge segments. `around`: the
    box `pad` px wider and the mask as it is there (the contour outlines part of the
    foreground only), instead of the contour filled."""

    def __init__(self, c: np.ndarray, mask: np.ndarray, small: np.ndarray, pad: int = 3,
                 around: bool = False) -> None:
        x, y, w, h = cv2.boundingRect(c)
        x0, y0 = max(0, x - pad), max(0, y - pad)
        x1, y1 = min(mask.shape[1], x + w + pad), min(mask.shape[0], y + h + pad)
        self.shift = np.array([[x0, y0]], np.int32)
        self.contour = c - self.shift
        if around:
            self.mask = np.ascontiguousarray(mask[y0:y1, x0:x1])
        else:
            self.mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.drawContours(self.mask, [self.contour], -1, 255, -1)
        self.grey = cv2.cvtColor(small[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
        self.dist = _support_map(self.grey, self.mask)
        self._segments: np.ndarray | None = None

    @property
    def segments(self) -> np.ndarray:
        if self._segments is None:
            self._segments = _segments(self.grey)
        return self._segments


def _decompose_blob(blob: _Blob, min_w: float, widths: list[float], rough: bool = False
                    ) -> tuple[list[np.ndarray], list[tuple[int, ...]], list[np.ndarray]]:
    """The cards of a blob (work px), for each the ones lying over it (indices), and the
    proposals not taken (work px); `rough`: without what lies over what (a first look for the
    card size)."""
    left: list[np.ndarray] = []
    quads = _decompose(blob, min_w, widths, left)
    if widths:
        quads += _split_rows(blob.mask, blob.grey, quads, widths[0])
    if len(quads) > 1 and not rough:
        g = cv2.GaussianBlur(blob.grey, (3, 3), 0).astype(np.float32)
        grad = (cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3))
        over = _lying_over(quads, grad)
    else:
        over = [()] * len(quads)
    shift = blob.shift.astype(np.float32)
    return [q + shift for q in quads], over, [q + shift for q in left]


_RIM = np.linspace(0.0, 1.0, 24, endpoint=False)  # points along each side of a quad


def _rim(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points along the quad's sides and the unit normal of the side each lies on."""
    e = np.roll(q, -1, axis=0) - q
    length = np.maximum(np.hypot(e[:, 0], e[:, 1]), 1e-9)
    n = np.stack([e[:, 1], -e[:, 0]], axis=1) / length[:, None]
    pts = q[:, None] + _RIM[None, :, None] * e[:, None]
    return pts.reshape(-1, 2), np.repeat(n, len(_RIM), axis=0)


def _inside(pts: np.ndarray, q: np.ndarray, margin: float) -> np.ndarray:
    """Which points lie inside the convex quad, at least `margin` px from its sides."""
    a, b = q, np.roll(q, -1, axis=0)
    e = b - a
    cross = (e[None, :, 0] * (pts[:, None, 1] - a[None, :, 1])
             - e[None, :, 1] * (pts[:, None, 0] - a[None, :, 0])) / np.hypot(e[:, 0], e[:, 1])
    return (cross > margin).all(axis=1) | (cross < -margin).all(axis=1)  # either winding


def _lying_over(quads: list[np.ndarray], grad: tuple[np.ndarray, np.ndarray]
                ) -> list[tuple[int, ...]]:
    """For each card of one blob, the cards lying over it (covering 3 % of it at least). Of two
    overlapping cards, the one on top shows its rim where it crosses the other (a step in
    brightness across it), the one below does not (it runs on under the top card); when the
    rims do not tell, the card `_select` took first (the best outline) is on top. Each pair is
    looked at once."""
    q32 = [q.astype(np.float32) for q in quads]
    area = [cv2.contourArea(q) for q in q32]
    over: list[list[int]] = [[] for _ in quads]
    for i, j in itertools.combinations(range(len(quads)), 2):
        shared = cv2.intersectConvexConvex(q32[i], q32[j])[0]
        if shared < 0.03 * min(area[i], area[j]):
            continue
        i_in_j, j_in_i = _rim_step(quads[i], quads[j], grad), _rim_step(quads[j], quads[i], grad)
        unclear = (i_in_j is None or j_in_i is None
                   or max(i_in_j, j_in_i) < 1.3 * min(i_in_j, j_in_i))
        top, under = (i, j) if unclear or i_in_j > j_in_i else (j, i)
        if shared >= 0.03 * area[under]:
            over[under].append(top)
    return [tuple(sorted(o)) for o in over]


def _rim_step(a: np.ndarray, b: np.ndarray, grad: tuple[np.ndarray, np.ndarray]
              ) -> float | None:
    """How sharp a's rim is where it runs inside b: the median brightness step across it
    (None: too little of it inside b)."""
    pts, n = _rim(np.asarray(a, np.float64))
    keep = _inside(pts, np.asarray(b, np.float64), 2.0)
    if keep.sum() < 4:
        return None
    pts, n = pts[keep], n[keep]
    return float(np.median(np.abs(_sample(grad[0], pts) * n[:, 0]
                                  + _sample(grad[1], pts) * n[:, 1]))) + 1e-3


def _split_rows(blob: np.ndarray, grey: np.ndarray, found: list[np.ndarray], w0: float
                ) -> list[np.ndarray]:
    """Cards the corners did not explain in a row of cards touching side by side (the scoring
    row): such a row merges into one long blob whose only corners are the row's own. Turned so
    the row runs across, most columns of the blob are one card tall (a zero lying across half
    of a card sticks out of it): that height gives the card size, and the band of that height
    holding most of the blob, with bare table above and below it, is the row. It is cut into
    card-wide cells at the vertical edges between the cards; cells not already found are
    returned. `w0` (the usual card width) only bounds the size the row may show."""
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours or not found:  # a row's end cards show all their corners: no card, no row
        return []
    (cx, cy), (rw, rh), _ = cv2.minAreaRect(max(contours, key=cv2.contourArea))
    if max(rw, rh) < 1.3 * min(rw, rh):
        return []  # not a row of cards
    # the row runs along the cards' short sides (from the cards found: a zero sticking out
    # would turn the blob's own rectangle)
    sides = [q[1] - q[0] if np.hypot(*(q[1] - q[0])) < np.hypot(*(q[2] - q[1])) else q[2] - q[1]
             for q in found]
    # averaged as doubled angles: a side's direction is only known up to a half turn (sides at
    # 1 and 179 deg are one direction, and their plain mean 90 deg is the other one)
    doubled = [2.0 * math.atan2(v[1], v[0]) for v in sides]
    ang = math.degrees(math.atan2(sum(map(math.sin, doubled)), sum(map(math.cos, doubled))) / 2)
    h, w = blob.shape
    size = int(math.hypot(w, h)) + 2
    rot = cv2.getRotationMatrix2D((cx, cy), ang, 1.0)
    rot[:, 2] += (size / 2 - cx, size / 2 - cy)  # centred in a square that holds any turn
    fg = cv2.warpAffine(blob, rot, (size, size), flags=cv2.INTER_NEAREST) > 0
    heights = fg.sum(axis=0)
    band_h = int(round(float(np.median(heights[heights > 0]))))
    card_w = band_h / ASPECT
    if not 0.5 * w0 < card_w < 2.0 * w0 or band_h < 8:
        return []  # (w0 may come from a first guess, hence the wide bounds)
    rows = np.cumsum(np.concatenate([[0], fg.sum(axis=1)]))
    y0 = int(np.argmax(rows[band_h:] - rows[:-band_h]))
    band = fg[y0 : y0 + band_h]
    full = band.mean(axis=0) > 0.6
    runs = np.flatnonzero(np.diff(np.concatenate([[0], full.astype(np.int8), [0]])))
    if len(runs) < 2:
        return []
    longest = int(np.argmax(runs[1::2] - runs[0::2]))
    x_lo, x_hi = int(runs[2 * longest]), int(runs[2 * longest + 1])
    k = round((x_hi - x_lo) / (1.03 * card_w))
    if k < 2 or not 0.9 < (x_hi - x_lo) / (k * card_w) < 1.25:
        return []
    if band[:, x_lo:x_hi].mean() < 0.8:
        return []  # cards fill their band; a glare spot or a hand does not
    margin = max(3, round(0.15 * band_h))  # cards a little out of line stick out this far
    above = fg[max(0, y0 - margin), x_lo:x_hi]
    below = fg[min(size - 1, y0 + band_h + margin), x_lo:x_hi]
    if above.mean() > 0.5 or below.mean() > 0.5:
        return []  # the band is not the row's full height: table must show above and below
    turned = cv2.warpAffine(grey, rot, (size, size), flags=cv2.INTER_LINEAR)
    edges = np.abs(cv2.Sobel(turned[y0 : y0 + band_h].astype(np.float32), cv2.CV_32F, 1, 0,
                             ksize=3)).sum(axis=0)
    step = (x_hi - x_lo) / k
    cuts = [float(x_lo)]
    for i in range(1, k):  # each cut on the strongest vertical edge near where it should be
        lo, hi = int(x_lo + (i - 0.2) * step), int(x_lo + (i + 0.2) * step) + 1
        cuts.append(float(lo + np.argmax(edges[lo:hi])) + 0.5)
    cuts.append(float(x_hi))
    back = cv2.invertAffineTransform(rot)
    cells = []
    for xa, xb in zip(cuts[:-1], cuts[1:], strict=True):
        box = np.float32([[xa, y0], [xb, y0], [xb, y0 + band_h], [xa, y0 + band_h]])
        q = cv2.transform(box[None], back)[0]
        if all(iou(q, o) < 0.35 for o in found):
            cells.append(q)
    return cells


class MaskCards(NamedTuple):
    """What `quads_from_mask` found (work px)."""

    quads: list[np.ndarray]
    over: list[tuple[int, ...]]  # for each quad, the quads lying over it (indices)
    card_w: float | None  # the card width seen
    guessed: bool  # the width is a guess: no single card showed it
    n_single: int  # how many single cards lead the quads
    others: list[np.ndarray]  # proposals in blobs of several cards that were not taken
    merged: list[np.ndarray]  # the contours of those blobs


def quads_from_mask(mask: np.ndarray, min_card_w: float, small: np.ndarray,
                    card_w: float | None = None) -> MaskCards:
    """Card quads from the foreground mask; `small` is the work-size frame, `card_w` a card
    width known from earlier frames."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    min_area = 0.5 * min_card_w * min_card_w * ASPECT
    candidates, merged = [], []
    for c in contours:
        if cv2.contourArea(c) < min_area:
            continue
        ok, rect = _card_like(c)
        if ok:
            candidates.append((c, min(rect[1]), max(rect[1]) / min(rect[1])))
        else:
            merged.append(c)
    # Two cards side by side fill a box of aspect 1.3..1.47, not far from one card's 1.54:
    # a "single" that squat whose short side is a card's height, not its width, is a pair.
    widths_seen = sorted(w for _, w, _ in candidates)
    ref = card_w or (float(np.median(widths_seen)) if len(widths_seen) >= 3 else None)
    singles, widths = [], []
    for c, w, aspect in candidates:
        if ref and w > 1.35 * ref and aspect < 1.47:
            merged.append(c)
        else:
            singles.append(_fit_quad(c))
            widths.append(w)
    quads = list(singles)
    if widths and card_w is None:  # a width known from earlier frames was measured at the
        card_w = float(np.median(widths))  # cards' edges: the mask is wider by their shadows
    hint = [card_w] if card_w else []
    if len(widths) >= 2 and max(widths) > 1.3 * min(widths):
        hint = []  # cards of several sizes on one picture: no one size to trust
    # no single card shows the usual size (every card touches another, as in the scoring row):
    # learn it from the cards the blob's corners give, then look again with it
    guess = not hint and len(widths) < 2
    views = [_Blob(c, mask, small) for c in merged]
    blobs = [_decompose_blob(b, min_card_w, hint, rough=guess) for b in views]
    guessed = guess and any(b[0] for b in blobs)
    if guessed:
        card_w = card_width([q for b in blobs for q in b[0]])
        blobs = [_decompose_blob(b, min_card_w, [card_w]) for b in views]
    over: list[tuple[int, ...]] = [()] * len(quads)
    for found, found_over, _ in blobs:
        over += [tuple(len(quads) + j for j in js) for js in found_over]
        quads += found
    return MaskCards(quads, over, card_w, guessed, len(singles), [q for b in blobs for q in b[2]],
                     merged)


def proposals_beside(known: list[np.ndarray], mask: np.ndarray, scale: float,
                     small: np.ndarray, min_card_w: float) -> list[np.ndarray]:
    """Card proposals (frame px) in the part of the foreground (`mask`, work px at `scale`) the
    `known` cards (frame px) do not cover. Each piece of it is decomposed as a blob of its own:
    its outline is short and simple once the known cards are cut away, so the corners of the
    cards left in it show (a big pile's outline, simplified to its own length, loses them), and
    two edges may meet at a corner up to 0.3 of a card width beyond their ends (between white
    cards an edge shows in pieces, and the piece at the corner is often missing); the proposals
    are tested against the whole foreground, as they may lie under a known card."""
    if not known:
        return []
    w0 = card_width(known) * scale
    rest = mask.copy()
    for q in known:
        cv2.fillConvexPoly(rest, np.rint(q * scale).astype(np.int32), 0)
    rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))  # slivers at rims
    contours, _ = cv2.findContours(rest, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out: list[np.ndarray] = []
    for c in contours:
        if cv2.contourArea(c) < 0.3 * w0 * w0 * ASPECT:
            continue
        blob = _Blob(c, mask, small, pad=int(w0), around=True)
        left: list[np.ndarray] = []
        taken = _decompose(blob, min_card_w * scale, [w0], left, gap=0.3 * w0)
        out += [order_quad((q + blob.shift.astype(np.float32)) / scale) for q in taken + left]
    return out


def short_side(q: np.ndarray) -> np.floating:
    """The length of a quad's shorter side (of its first two), in the quad's own precision."""
    return min(np.hypot(*(q[1] - q[0])), np.hypot(*(q[2] - q[1])))


def card_width(quads: list[np.ndarray]) -> float:
    """The median short side of the quads."""
    return float(np.median([short_side(q) for q in quads]))


class Detector:
    """Card finder with the empty table learned once (the watcher keeps one of these)."""

    def __init__(self, background: np.ndarray | None = None, min_card_w: float = 50.0) -> None:
        self.min_card_w = min_card_w
        self.card_w: float | None = None  # frame px, learned from single cards
        self._table_lab: np.ndarray | None = None
        self._shape: tuple[int, ...] | None = None
        self._dist: np.ndarray | None = None  # the last mask's colour distance from the table
        self._found: list[np.ndarray] = []  # the last find_in's quads, and what lies over each
        self._covers: list[list[np.ndarray]] = []
        self.size_guessed = False  # the last find_in took the card size from its own boxes
        self._others: tuple[list[np.ndarray], list[np.ndarray], float] = ([], [], 1.0)
        if background is not None:
            self.learn(background)

    def learn(self, background: np.ndarray) -> None:
        background = check_frame(background)
        self._shape = background.shape
        self._table_lab = _lab(self._small(background)[0])

    def absorb(self, small: np.ndarray, scale: float, keep_out: list[np.ndarray]) -> int:
        """Let the learned empty table follow the real one where the table shows now.

        The table learned from a first frame is wrong where a hand lay, and only estimated
        under the cards lying there; light drifts. Pixels of this (still) work-size frame that
        look like the table by the frame's own estimate, and lie in no known card (`keep_out`,
        frame-px quads), replace the learned table. A card is never absorbed: it does not look
        like the table around it. Returns the number of pixels updated."""
        if self._table_lab is None or small.shape[:2] != self._table_lab.shape[:2]:
            return 0
        lab = _lab(small)
        near = _distance(lab, _lab(estimate_table(small)))
        # under the foreground's own noise floor: what would not count as foreground
        table = (near <= _noise_floor(near)).astype(np.uint8)
        for q in keep_out:
            cv2.fillConvexPoly(table, np.rint(q * scale).astype(np.int32), 0)
        table = cv2.erode(table, np.ones((5, 5), np.uint8))  # away from any object's rim
        cv2.copyTo(lab, table, self._table_lab)  # in place (numpy's boolean index: 10x slower)
        return cv2.countNonZero(table)

    @staticmethod
    def work_size(frame: np.ndarray) -> tuple[np.ndarray, float]:
        """The frame at detection resolution and its scale."""
        return Detector._small(frame)

    @staticmethod
    def _small(frame: np.ndarray) -> tuple[np.ndarray, float]:
        h, w = frame.shape[:2]
        s = min(1.0, WORK_WIDTH / w)
        if s >= 1.0:
            return frame, 1.0
        return cv2.resize(frame, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA), s

    def mask(self, frame: np.ndarray, small: tuple[np.ndarray, float] | None = None
             ) -> tuple[np.ndarray, float, np.ndarray]:
        """Foreground mask at work resolution, its scale to the frame, the work-size frame
        (`small`: that frame already made by `work_size`)."""
        frame = check_frame(frame)
        small, s = small if small is not None else self._small(frame)
        lab = _lab(small)
        if self._table_lab is None:
            table_lab = _lab(estimate_table(small))
        elif frame.shape != self._shape:
            raise FrameError(f"frame {frame.shape} does not match the background {self._shape}")
        else:
            table_lab = self._table_lab
        self._dist = cv2.blur(_distance(lab, table_lab), (3, 3))  # find_in refines edges on it
        return _foreground(self._dist), s, small

    def find(self, frame: np.ndarray) -> list[np.ndarray]:
        return self.find_in(*self.mask(frame))

    def find_in(self, mask: np.ndarray, s: float, small: np.ndarray) -> list[np.ndarray]:
        """Quads (frame px) from the output of `mask`."""
        known = self.card_w * s if self.card_w else None
        quads, over, card_w, self.size_guessed, n_single, others, merged = quads_from_mask(
            mask, self.min_card_w * s, small, known)
        if self._dist is not None and self._dist.shape == mask.shape:
            quads = refine_quads(quads, self._dist, over)
            if n_single:
                # kept for frames with no card lying alone (the scoring row by itself): measured
                # at the single cards' edges, as the mask is wider by their shadows (10 % under
                # a learned empty table) and a row cut with too wide a card spans two cards
                card_w = card_width(quads[:n_single])
        if card_w:
            self.card_w = card_w / s  # remembered for frames where every card touches another
        found = [order_quad(q / s) for q in quads]
        self._others = (others, merged, s)
        self._covers = [[found[j] for j in js] for js in over]
        self._found = found
        return found

    @property
    def others(self) -> list[np.ndarray]:
        """The last find_in's card proposals (frame px) in blobs of several cards that it did
        not take, and each such blob's own outline (a card seen at a slant is not rectangle
        enough to count as one card alone); made on request: only `recognize`'s second look
        reads them."""
        quads, merged, s = self._others
        return [order_quad(q / s) for q in [_fit_quad(c) for c in merged] + quads]

    def covers(self, quads: list[np.ndarray]) -> list[list[np.ndarray]]:
        """For each quad the last `find_in` returned, the quads it found lying over it (frame
        px); none for any other quad."""
        index = {id(q): i for i, q in enumerate(self._found)}
        return [self._covers[index[id(q)]] if id(q) in index else [] for q in quads]


def find_cards(frame: np.ndarray, background: np.ndarray | None = None,
               min_card_w: float = 50.0) -> list[np.ndarray]:
    """Card quads, (4,2) float32 frame px, ordered by `order_quad` (portrait, up to 180 deg)."""
    return Detector(background, min_card_w).find(frame)
