"""Card geometry: oriented boxes, quads, and the rectified crop the reader reads.

The detector finds a card as an oriented box (`Box`: centre, short and long side, the long axis's
direction). The reader reads a portrait crop cut along the box (`rectify`), turned so that the box's
end nearer the top of the frame is the crop's top: the card may lie upside down in it, and the
reader says so (its reading's quarter turns). The detector sees the frame shrunk (`shrink`).
Training cuts its crops and shrinks its frames with the same functions.
Corners are always TL, TR, BR, BL of a portrait card.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.cards import CARD_H, CARD_W

ASPECT = CARD_H / CARD_W  # 1.54 (59 x 91 mm)
READ_W, READ_H = 64, 96   # the reader's crop (px): the card's face at 1 px per 0.9 mm


@dataclass(frozen=True)
class Box:
    """An oriented card box in frame px: centre, short side `w`, long side `h`, and `angle`,
    the direction of the long axis in radians, in [0, pi) (image coordinates, y down)."""

    cx: float
    cy: float
    w: float
    h: float
    angle: float

    @property
    def centre(self) -> tuple[float, float]:
        return self.cx, self.cy

    def quad(self) -> np.ndarray:
        """Corners TL, TR, BR, BL of the portrait card the box frames, its top towards the top
        of the frame (for a card lying level: towards the left)."""
        u = np.array([math.cos(self.angle), math.sin(self.angle)])  # along the long axis
        if u[1] > 1e-9 or (abs(u[1]) <= 1e-9 and u[0] > 0):
            u = -u  # point "up" the frame
        v = np.array([-u[1], u[0]])  # the card's right, as seen looking down its top
        c = np.array([self.cx, self.cy])
        top, right = u * self.h / 2, v * self.w / 2
        return np.array([c + top - right, c + top + right, c - top + right, c - top - right],
                        np.float32)

    def scaled(self, s: float) -> Box:
        """The same box in a frame scaled by s."""
        return Box(self.cx * s, self.cy * s, self.w * s, self.h * s, self.angle)

    def halves(self) -> tuple[Box, Box]:
        """A box lying across each half of this card, shaped like a card: how the detector
        boxes half a card printed in two halves (Attacke's) on a table."""
        u = np.array([math.cos(self.angle), math.sin(self.angle)]) * self.h / 4
        return self._pair(u, self.w / ASPECT, self.w)

    def wholes(self) -> tuple[Box, Box]:
        """The two cards (reaching either way) of which this box, lying across, is a half."""
        card_h = self.h * ASPECT
        u = np.array([-math.sin(self.angle), math.cos(self.angle)]) * card_h / 4
        return self._pair(u, self.h, card_h)

    def windows(self, w: float, h: float, step: float, reach: float) -> list[Box]:
        """Card-sized boxes (w x h) over this one, in both its orientations, their centres
        `step` apart and reaching `reach` past its edges: where the cards of a fan or a pile
        boxed as one may lie."""
        out = []
        for angle, along, across in ((self.angle, self.h, self.w),
                                     (self.angle + math.pi / 2, self.w, self.h)):
            u = np.array([math.cos(angle), math.sin(angle)])  # the window's long axis
            v = np.array([-u[1], u[0]])
            for a in _offsets((across - w) / 2 + reach, step):
                for b in _offsets((along - h) / 2 + reach, step):
                    cx, cy = np.array([self.cx, self.cy]) + a * v + b * u
                    out.append(Box(float(cx), float(cy), w, h, angle % math.pi))
        return out

    def ends(self, w: float, h: float) -> list[Box]:
        """Card-sized boxes (w x h, lying as this one) flush with each end of it, along each
        side longer than the card's: where the first and the last card of a row laid half
        over one another, boxed as one, lie."""
        u = np.array([math.cos(self.angle), math.sin(self.angle)])  # the long axis
        out = []
        for axis, side, card in ((u, self.h, h), (np.array([-u[1], u[0]]), self.w, w)):
            for off in ((side - card) / 2, (card - side) / 2) if side > card else ():
                cx, cy = np.array([self.cx, self.cy]) + off * axis
                out.append(Box(float(cx), float(cy), w, h, self.angle))
        return out

    def held_in(self, angle: float) -> Box:
        """The smallest box whose long axis lies at `angle` that holds this one."""
        u = np.array([math.cos(angle), math.sin(angle)])
        corners = self.quad() - np.array([self.cx, self.cy], np.float32)
        along = corners @ u
        across = corners @ np.array([-u[1], u[0]])
        return Box(self.cx, self.cy, float(np.ptp(across)), float(np.ptp(along)), angle % math.pi)

    def _pair(self, u: np.ndarray, w: float, h: float) -> tuple[Box, Box]:
        """Two boxes w x h lying across this one, their centres this one's -u and +u."""
        angle = (self.angle + math.pi / 2) % math.pi
        return (Box(self.cx - float(u[0]), self.cy - float(u[1]), w, h, angle),
                Box(self.cx + float(u[0]), self.cy + float(u[1]), w, h, angle))


def _offsets(half: float, step: float) -> list[float]:
    """Offsets from -half to +half, `step` apart and centred (just 0 where half < step / 2)."""
    n = int(max(0.0, half) * 2 // step)
    return [(k - n / 2) * step for k in range(n + 1)]


def box_of_quad(quad: np.ndarray) -> Box:
    """The oriented box that best fits four corners (any order around the card)."""
    q = order_around(quad)
    sides = [q[(i + 1) % 4] - q[i] for i in range(4)]
    lengths = [float(np.hypot(*s)) for s in sides]
    # the long sides are the pair (0, 2) or (1, 3)
    pair = (0, 2) if lengths[0] + lengths[2] >= lengths[1] + lengths[3] else (1, 3)
    a, b = sides[pair[0]], -sides[pair[1]]  # the two long sides, the same way round
    axis = a + b
    angle = math.atan2(float(axis[1]), float(axis[0])) % math.pi
    long_side = (lengths[pair[0]] + lengths[pair[1]]) / 2
    short = (lengths[(pair[0] + 1) % 4] + lengths[(pair[1] + 1) % 4]) / 2
    c = q.mean(axis=0)
    return Box(float(c[0]), float(c[1]), short, long_side, angle)


def order_around(quad: np.ndarray) -> np.ndarray:
    """The four corners in clockwise order on screen (y down), starting anywhere."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    c = q.mean(axis=0)
    order = np.argsort(np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0]))
    return q[order]


def turned(quad: np.ndarray, quarter_turns: int) -> np.ndarray:
    """The quad's corners relabelled as if the card were turned clockwise by quarter turns
    (2: the card read upside down; its printed top is the crop's bottom)."""
    return np.roll(np.asarray(quad, np.float32), -quarter_turns, axis=0)


def rectify(frame: np.ndarray, quad: np.ndarray, size: tuple[int, int] = (READ_W, READ_H)
            ) -> np.ndarray:
    """The portrait crop of the quad (TL, TR, BR, BL), `size` = (w, h), cut without aliasing:
    a card more than 1.5 times the crop's width is first cut at k >= 2 times the size, so that
    the warp never shrinks, then area-shrunk.
    Outside the frame the crop is black (a card cut by the frame's edge)."""
    w, h = size
    q = np.asarray(quad, np.float32).reshape(4, 2)
    side = max(float(np.hypot(*(q[1] - q[0]))), float(np.hypot(*(q[3] - q[0]))) / ASPECT)
    k = 1 if side <= 1.5 * w else max(2, math.ceil(side / w))
    dst = np.array([[0, 0], [w * k, 0], [w * k, h * k], [0, h * k]], np.float32)
    m = cv2.getPerspectiveTransform(q, dst)
    crop = cv2.warpPerspective(frame, m, (w * k, h * k), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    if k > 1:
        crop = cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA)
    return crop


def iou(q1: np.ndarray, q2: np.ndarray) -> float:
    """Intersection over union of two convex quads."""
    a, b = order_around(q1), order_around(q2)
    inter, _ = cv2.intersectConvexConvex(a, b)
    union = cv2.contourArea(a) + cv2.contourArea(b) - inter
    return float(inter / max(union, 1e-6))


def covered(q: np.ndarray, others: list[np.ndarray], cell: float = 2.0) -> float:
    """The fraction of quad q's area that the union of `others` covers (rasterised at `cell`
    px: a box across two cards of a pile is covered by neither alone)."""
    if not others:
        return 0.0
    x, y, w, h = cv2.boundingRect(np.asarray(q, np.float32))
    size = (max(1, math.ceil(h / cell)), max(1, math.ceil(w / cell)))

    def mask(quad: np.ndarray) -> np.ndarray:
        m = np.zeros(size, np.uint8)
        pts = ((np.asarray(quad, np.float32) - (x, y)) / cell).round().astype(np.int32)
        cv2.fillConvexPoly(m, order_around(pts.astype(np.float32)).astype(np.int32), 1)
        return m

    own = mask(q)
    union = np.zeros(size, np.uint8)
    for other in others:
        union |= mask(other)
    return float((own & union).sum() / max(int(own.sum()), 1))


def card_width(quad: np.ndarray) -> float:
    """The short side of a quad (px): a card's width in the frame."""
    return box_of_quad(quad).w


def shrink(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """`image` averaged down to `size` (width, height), halved exactly first while it is twice
    as large with even sides: OpenCV's area resampling is fast only for whole factors
    (1280x720 to 384x216: 4.4 ms at once, 1.8 ms halved first, 0.45 grey levels apart)."""
    w, h = size
    while image.shape[1] >= 2 * w and image.shape[0] >= 2 * h \
            and image.shape[1] % 2 == 0 and image.shape[0] % 2 == 0:
        image = cv2.resize(image, (image.shape[1] // 2, image.shape[0] // 2),
                           interpolation=cv2.INTER_AREA)
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)
