"""Skin-toned hands and forearms reaching over the table, with their soft shadow.

A hand is a forearm (capsule, often in a sleeve), an elliptic palm, four fingers and a thumb,
shaded like a cylinder (darker towards its outline) and lit by the same lamp as the table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.sim.textures import smooth_noise

BGR = tuple[int, int, int]
SKINS: tuple[BGR, ...] = (
    (155, 180, 228), (128, 158, 212), (100, 132, 185), (72, 100, 150), (48, 68, 108),
)
SLEEVES: tuple[BGR, ...] = (
    (60, 40, 30), (40, 40, 140), (150, 150, 150), (30, 30, 30), (120, 80, 40), (200, 205, 210),
)
_SHIFT = 2  # sub-pixel bits for cv2 drawing


@dataclass(frozen=True)
class HandPose:
    """A hand reaching from `entry` (often outside the frame) so its fingertips are at `tip`."""

    entry: tuple[float, float]
    tip: tuple[float, float]
    palm_px: float = 130.0          # palm width in flat-table px (about 1.4 card widths)
    skin: BGR = SKINS[1]
    sleeve: BGR | None = SLEEVES[0]
    right: bool = True              # thumb side
    curl: float = 0.2               # 0 = fingers straight, 1 = fist (shorter from above)
    blur: tuple[float, float] = (0.0, 0.0)  # motion during the exposure (px): a moving hand smears


def random_hand(rng: np.random.Generator, size: tuple[int, int],
                target: tuple[float, float] | None = None, palm_px: float | None = None
                ) -> HandPose:
    """A hand entering from a random frame edge towards `target` (random point if None)."""
    w, h = size
    if target is None:
        target = (float(rng.uniform(0.15, 0.85) * w), float(rng.uniform(0.15, 0.85) * h))
    edge = int(rng.integers(4))
    along = float(rng.uniform(0.1, 0.9))
    entry = [(along * w, -60.0), (w + 60.0, along * h), (along * w, h + 60.0),
             (-60.0, along * h)][edge]
    return HandPose(
        entry=entry,
        tip=(float(target[0]), float(target[1])),
        palm_px=float(palm_px if palm_px is not None else rng.uniform(110, 170)),
        skin=SKINS[int(rng.integers(len(SKINS)))],
        sleeve=None if rng.random() < 0.3 else SLEEVES[int(rng.integers(len(SLEEVES)))],
        right=bool(rng.random() < 0.5),
        curl=float(rng.uniform(0.0, 0.6)),
    )


def _capsule(mask: np.ndarray, a: np.ndarray, b: np.ndarray, width: float) -> None:
    p, q = (tuple(int(round(v * (1 << _SHIFT))) for v in pt) for pt in (a, b))
    cv2.line(mask, p, q, 255, max(1, int(round(width))), cv2.LINE_AA, _SHIFT)


def _hand_masks(pose: HandPose, shape: tuple[int, int], origin: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """(skin, sleeve) uint8 masks of shape `shape` whose top-left is `origin` (pose px)."""
    skin = np.zeros(shape, np.uint8)
    sleeve = np.zeros(shape, np.uint8)
    e, t = np.array(pose.entry) - origin, np.array(pose.tip) - origin
    d = (t - e) / max(1e-6, float(np.linalg.norm(t - e)))
    n = np.array([-d[1], d[0]]) * (1 if pose.right else -1)
    pw = pose.palm_px
    finger = 0.85 * pw * (1.0 - 0.45 * pose.curl)
    palm_len = 0.95 * pw
    wrist = t - d * (palm_len + finger)
    _capsule(skin, e - d * pw, wrist, 0.72 * pw)  # forearm
    pc = wrist + d * palm_len * 0.5
    ang = math.degrees(math.atan2(d[1], d[0]))
    centre = tuple(int(round(v * (1 << _SHIFT))) for v in pc)
    axes = (int(palm_len * 0.55 * (1 << _SHIFT)), int(pw * 0.5 * (1 << _SHIFT)))
    cv2.ellipse(skin, centre, axes, ang, 0, 360, 255, -1, cv2.LINE_AA, _SHIFT)
    base = wrist + d * palm_len * 0.92
    for off, length in zip((-0.33, -0.11, 0.11, 0.33), (0.72, 0.95, 1.0, 0.85), strict=True):
        root = base + n * off * pw
        direction = d + n * off * 0.25
        direction /= np.linalg.norm(direction)
        _capsule(skin, root, root + direction * finger * length, 0.2 * pw)
    thumb_root = wrist + d * palm_len * 0.3 - n * 0.42 * pw
    thumb_dir = (d - n * 0.9) / np.linalg.norm(d - n * 0.9)
    _capsule(skin, thumb_root, thumb_root + thumb_dir * 0.62 * pw, 0.24 * pw)
    if pose.sleeve is not None:
        _capsule(sleeve, e - d * pw, wrist - d * 0.35 * pw, 0.9 * pw)
    return skin, sleeve


def _line_kernel(dx: float, dy: float) -> np.ndarray:
    """Normalised line kernel of a straight motion (dx, dy) px."""
    n = int(np.ceil(max(abs(dx), abs(dy)))) | 1
    kern = np.zeros((n + 2, n + 2), np.float32)
    c = (n + 1) / 2
    p, q = ((c - dx / 2, c - dy / 2), (c + dx / 2, c + dy / 2))
    cv2.line(kern, tuple(int(round(v * 4)) for v in p), tuple(int(round(v * 4)) for v in q), 1.0,
             1, cv2.LINE_AA, 2)
    return kern / max(1e-6, float(kern.sum()))


def _roi(pose: HandPose, size: tuple[int, int], pad: float) -> tuple[int, int, int, int] | None:
    w, h = size
    pts = np.array([pose.entry, pose.tip])
    x0, y0 = np.floor(pts.min(axis=0) - pad).astype(int)
    x1, y1 = np.ceil(pts.max(axis=0) + pad).astype(int)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    return None if x1 <= x0 or y1 <= y0 else (x0, y0, x1, y1)


def draw_hand(img: np.ndarray, pose: HandPose, rng: np.random.Generator,
              shadow_offset: tuple[float, float] = (16.0, 22.0)
              ) -> tuple[np.ndarray, tuple[int, int]] | None:
    """Draw the hand's shadow, then the hand, into float32 `img` in place.

    Returns (alpha mask of the hand in 0..1 for the ROI, ROI top-left (x, y)), or None when the
    hand lies entirely outside the image.
    """
    h, w = img.shape[:2]
    pad = (pose.palm_px * 1.2 + max(abs(v) for v in shadow_offset) + 30
           + float(np.hypot(*pose.blur)))
    roi = _roi(pose, (w, h), pad)
    if roi is None:
        return None
    x0, y0, x1, y1 = roi
    rw, rh = x1 - x0, y1 - y0
    # hands are smooth: model them at half resolution, then upsample (4x less work)
    k = 0.5
    sw, sh = max(2, int(rw * k)), max(2, int(rh * k))
    small = replace(pose, entry=tuple(np.subtract(pose.entry, (x0, y0)) * k),
                    tip=tuple(np.subtract(pose.tip, (x0, y0)) * k), palm_px=pose.palm_px * k)
    skin, sleeve = _hand_masks(small, (sh, sw), np.zeros(2))
    body = np.maximum(skin, sleeve)
    if not body.any():
        return None
    # the hand hovers a few cm up: its shadow is offset and very soft
    m = np.array([[1, 0, shadow_offset[0] * k], [0, 1, shadow_offset[1] * k]], np.float32)
    shadow = cv2.warpAffine(body, m, (sw, sh)).astype(np.float32) * (0.45 / 255.0)
    shadow = cv2.GaussianBlur(shadow, (0, 0), small.palm_px * 0.09)
    # cylinder-like shading: bright along the middle of each limb, darker at the outline
    dist = cv2.distanceTransform((body > 127).astype(np.uint8), cv2.DIST_L2, 3)
    shade = 0.62 + 0.38 * np.sqrt(np.clip(dist / (0.16 * small.palm_px), 0.0, 1.0))
    shade *= 0.95 + 0.1 * smooth_noise(rng, sw, sh, 12, 12)
    sl = sleeve.astype(np.float32) / 255.0
    skin_c, sleeve_c = np.array(pose.skin, np.float32), np.array(pose.sleeve or pose.skin,
                                                                   np.float32)
    colour = cv2.merge([(skin_c[c] + (sleeve_c[c] - skin_c[c]) * sl) * shade for c in range(3)])
    a = body.astype(np.float32) / 255.0
    if np.hypot(*pose.blur) * k > 1.0:  # smear alpha and premultiplied colour along the motion
        kern = _line_kernel(pose.blur[0] * k, pose.blur[1] * k)
        premult = cv2.filter2D(colour * a[..., None], -1, kern)
        a = cv2.filter2D(a, -1, kern)
        colour = premult / np.maximum(a, 1e-3)[..., None]
        shadow = cv2.filter2D(shadow, -1, kern)
    up = (rw, rh)
    shadow = cv2.resize(shadow, up, interpolation=cv2.INTER_LINEAR)
    a = cv2.resize(a, up, interpolation=cv2.INTER_LINEAR)
    colour = cv2.resize(colour, up, interpolation=cv2.INTER_LINEAR)
    view = img[y0:y1, x0:x1]
    keep = cv2.merge([(1.0 - shadow) * (1.0 - a)] * 3)
    view *= keep
    view += colour * cv2.merge([a] * 3)
    return a, (x0, y0)
