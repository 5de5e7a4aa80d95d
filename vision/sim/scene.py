"""Single labelled frames of the game table as a Pi camera above it would see them.

Pipeline (all float32 BGR): table texture -> for each card (in order, later on top) its soft drop
shadow then its face (warped once, anti-aliased rounded edges) -> hands with their shadows ->
room light (smooth multiplicative field, warm tint) -> large soft shadow -> glare (specular blobs)
-> camera tilt (a homography from a 3-D camera rotation) -> lens softness, motion blur, sensor
noise, uint8, JPEG. Cards are composed in the flat table plane; placements and hands use that
plane's coordinates (frame px before tilt); the truth corners go through the same homography.

Angles: `angle_deg` turns the card counter-clockwise as seen in the image (OpenCV's convention);
0 = upright portrait, 180 = upside down. A placement's card is a Tightrope `CardId`, drawn in the
frame's edition (`style`), or a `Printed` card of any deck, drawn in its own design.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import astuple, dataclass, field, replace

import cv2
import numpy as np

from vision.cards import ALL_CARDS, CARD_H, CARD_W, DEFAULT_STYLE, CardId, Edition
from vision.sim.faces import Printed
from vision.sim.hands import HandPose, draw_hand, random_hand
from vision.sim.textures import TABLES, table_texture

Size = tuple[int, int]
Card = CardId | Printed  # a Tightrope card in the frame's edition, or any deck's printed card
Surface = Callable[[int, int], np.ndarray]  # (w, h) -> float32 BGR table


class SimError(ValueError):
    """Invalid simulator input (unknown table, impossible size, ...)."""


@dataclass
class Conditions:
    """One frame's look. The defaults are an ideal camera over a light wooden table."""

    table: str = "wood_light"   # one of TABLES (wood_light/_dark, cloth_green/_grey, dark_matte)
    tilt_deg: float = 0.0       # camera tilt (perspective), up to ~15
    light_gradient: float = 0.0  # 0..1 uneven room light
    glare: int = 0              # number of glare spots
    shadow: bool = False        # a large soft shadow (a person, the lamp arm) over the table
    noise: float = 0.0          # sensor noise sigma in grey levels
    motion_blur: int = 0        # kernel length px
    jpeg_quality: int | None = None
    hands: int = 0              # skin-toned hands/forearms over the table (may cover cards)
    exposure: float = 1.0       # overall brightness (dim room < 1)
    tilt_dir_deg: float | None = None  # direction of the tilt; None = chosen from the seed
    colour_cast: float = 0.0    # white-balance error, -1 (cold, bluish) .. 1 (warm lamp, orange)
    defocus: float = 0.0        # extra lens blur (Gaussian sigma, px)
    lens: float = 0.0           # radial distortion k1: < 0 barrel (a wide lens), > 0 pincushion
    vignette: float = 0.0       # 0..1 darkening towards the frame's corners

    def __post_init__(self) -> None:
        if self.table not in TABLES:
            raise SimError(f"unknown table {self.table!r}; choose one of {', '.join(TABLES)}")
        if not 0.0 <= self.tilt_deg <= 30.0:
            raise SimError(f"tilt_deg must be within 0..30, got {self.tilt_deg}")
        if not 0.0 <= self.light_gradient <= 1.0:
            raise SimError(f"light_gradient must be within 0..1, got {self.light_gradient}")
        if self.jpeg_quality is not None and not 1 <= self.jpeg_quality <= 100:
            raise SimError(f"jpeg_quality must be within 1..100, got {self.jpeg_quality}")
        if min(self.glare, self.motion_blur, self.hands) < 0 or self.noise < 0:
            raise SimError("glare, motion_blur, hands and noise must not be negative")
        if not 0.05 <= self.exposure <= 2.0:
            raise SimError(f"exposure must be within 0.05..2, got {self.exposure}")
        if not -1.0 <= self.colour_cast <= 1.0:
            raise SimError(f"colour_cast must be within -1..1, got {self.colour_cast}")
        if not (0.0 <= self.defocus <= 10.0 and -0.5 <= self.lens <= 0.5
                and 0.0 <= self.vignette <= 1.0):
            raise SimError("defocus must be within 0..10, lens within -0.5..0.5, vignette 0..1")


@dataclass
class Placement:
    card: Card
    center: tuple[float, float]  # in the flat table plane (frame px before tilt)
    angle_deg: float             # counter-clockwise in the image; 180 = upside down
    width_px: float              # 70..160 typical at 1280x720


@dataclass
class TruthCard:
    card: Card
    corners: np.ndarray          # (4,2) float32 frame px of the face's TL,TR,BR,BL
    center: tuple[float, float]
    visible_fraction: float      # 1.0 = nothing on top of it and inside the frame
    covered_by_hand: bool

    def to_json(self) -> dict:
        return {
            "label": self.card.label,
            "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in self.corners],
            "center": [round(float(self.center[0]), 2), round(float(self.center[1]), 2)],
            "visible_fraction": round(float(self.visible_fraction), 4),
            "covered_by_hand": bool(self.covered_by_hand),
        }


def card_corners(p: Placement) -> np.ndarray:
    """Flat-plane corners TL, TR, BR, BL of a placed card's face, (4,2) float32."""
    w = p.width_px
    h = w * CARD_H / CARD_W
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    t = math.radians(p.angle_deg)
    c, s = math.cos(t), math.sin(t)
    rot = np.array([[c, s], [-s, c]])  # counter-clockwise on screen (y axis points down)
    return (local @ rot.T + np.array(p.center)).astype(np.float32)


# --- geometry of the camera ----------------------------------------------------------------------


def tilt_homography(size: Size, tilt_deg: float, direction_deg: float, hfov_deg: float = 66.0
                    ) -> np.ndarray:
    """Flat table view -> view of a camera rotated by tilt_deg; the frame centre stays put."""
    w, h = size
    f = 0.5 * w / math.tan(math.radians(hfov_deg) / 2)
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    axis = np.array([math.cos(math.radians(direction_deg)), math.sin(math.radians(direction_deg)),
                     0.0]) * math.radians(tilt_deg)
    rot, _ = cv2.Rodrigues(axis)
    hom = k @ rot @ np.linalg.inv(k)
    c = hom @ np.array([w / 2, h / 2, 1.0])
    shift = np.array([[1, 0, w / 2 - c[0] / c[2]], [0, 1, h / 2 - c[1] / c[2]], [0, 0, 1]])
    return shift @ hom


def _project(hom: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float64), hom).reshape(-1, 2)


def _plane(size: Size, cond: Conditions, rng: np.random.Generator
           ) -> tuple[int, np.ndarray]:
    """(margin of the flat canvas around the frame, homography canvas px -> frame px)."""
    w, h = size
    if cond.tilt_deg <= 0:
        return 0, np.eye(3)
    direction = (cond.tilt_dir_deg if cond.tilt_dir_deg is not None
                 else float(rng.uniform(0, 360)))
    hom = tilt_homography(size, cond.tilt_deg, direction)
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    back = _project(np.linalg.inv(hom), frame)
    over = max(0.0, -back.min(), (back[:, 0] - w).max(), (back[:, 1] - h).max())
    margin = int(math.ceil(over)) + 4
    shift = np.array([[1, 0, -margin], [0, 1, -margin], [0, 0, 1]], np.float64)
    return margin, hom @ shift


def flat_to_frame(cond: Conditions, size: Size = (1280, 720), seed: int = 0) -> np.ndarray:
    """The 3x3 homography from flat table px to frame px that render_frame uses for this seed."""
    margin, hom = _plane(_check_size(size), cond, _rngs(seed)["plane"])
    return hom @ np.array([[1, 0, margin], [0, 1, margin], [0, 0, 1]], np.float64)


# --- cards ---------------------------------------------------------------------------------------


def _rounded_mask() -> np.ndarray:
    """Canonical card alpha with rounded corners (radius ~3 mm)."""
    m = np.zeros((CARD_H * 4, CARD_W * 4), np.uint8)
    r = 40
    cv2.rectangle(m, (r, 0), (CARD_W * 4 - 1 - r, CARD_H * 4 - 1), 255, -1)
    cv2.rectangle(m, (0, r), (CARD_W * 4 - 1, CARD_H * 4 - 1 - r), 255, -1)
    for x in (r, CARD_W * 4 - 1 - r):
        for y in (r, CARD_H * 4 - 1 - r):
            cv2.circle(m, (x, y), r, 255, -1, cv2.LINE_AA)
    return cv2.resize(m, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA).astype(np.float32) / 255


_CARD_ALPHA = _rounded_mask()


@dataclass
class _Drawn:
    roi: tuple[int, int, int, int]       # x0, y0, x1, y1 in canvas px
    region: np.ndarray                   # bool mask of the card within roi
    area: int


def _draw_card(img: np.ndarray, ids: np.ndarray, index: int, p: Placement, corners: np.ndarray,
               style: Edition, light_dir: np.ndarray) -> _Drawn | None:
    """Drop shadow + face of one card into the canvas; returns where it landed."""
    h, w = img.shape[:2]
    pad = 10
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + pad
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return None
    # shrink the face first with INTER_AREA (no aliasing), then one affine warp into the ROI
    scale = p.width_px / CARD_W
    fw, fh = max(2, round(CARD_W * scale)), max(2, round(CARD_H * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    printed = p.card.face() if isinstance(p.card, Printed) else style.face(p.card)
    face = cv2.resize(printed, (fw, fh), interpolation=interp)
    alpha = cv2.resize(_CARD_ALPHA, (fw, fh), interpolation=interp)
    src = np.array([[-0.5, -0.5], [fw - 0.5, -0.5], [-0.5, fh - 0.5]], np.float32)
    dst = (corners[[0, 1, 3]] - np.array([x0, y0], np.float32) - 0.5).astype(np.float32)
    m = cv2.getAffineTransform(src, dst)
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpAffine(face, m, size, flags=cv2.INTER_LINEAR).astype(np.float32)
    a = cv2.warpAffine(alpha, m, size, flags=cv2.INTER_LINEAR)
    view = img[y0:y1, x0:x1]
    # a card is thin: a tight, soft shadow on the side away from the lamp
    off = light_dir * max(1.0, p.width_px * 0.02)
    sm = cv2.warpAffine(a, np.array([[1, 0, off[0]], [0, 1, off[1]]], np.float32), size)
    sm = cv2.GaussianBlur(sm, (0, 0), max(1.0, p.width_px * 0.02))
    # paper is never perfectly flat: a faint brightness slope across the card (+-4 %), fixed by
    # the card and where it lies, so a card lying still keeps its look while others come and go
    tilt = np.random.default_rng([_stable_hash(p.card.label), int(p.center[0]) & 0xFFFFFFFF,
                                  int(p.center[1]) & 0xFFFFFFFF]).uniform(-0.04, 0.04, size=2)
    ys, xs = np.ogrid[0:size[1], 0:size[0]]
    cx, cy = corners.mean(axis=0) - np.array([x0, y0], np.float32)
    sheen = 1.0 + (tilt[0] * (xs - cx) + tilt[1] * (ys - cy)) / max(1.0, p.width_px / 2)
    view *= ((1.0 - 0.35 * sm) * (1.0 - a))[..., None]
    view += warped * (a * sheen.astype(np.float32))[..., None]
    region = a > 0.5
    ids[y0:y1, x0:x1][region] = index
    return _Drawn((x0, y0, x1, y1), region, int(region.sum()))


def _stable_hash(text: str) -> int:
    """A process-independent hash (Python's hash() of a str changes between runs)."""
    return int.from_bytes(text.encode()[:16].ljust(16, b"\0"), "little") % (1 << 63)


# --- light ---------------------------------------------------------------------------------------


def _light_field(w: int, h: int, cond: Conditions, rng: np.random.Generator) -> np.ndarray:
    """Smooth multiplicative light (h, w, 3): a lamp off to one side, a ramp, a warm tint."""
    sw, sh = max(4, w // 16), max(4, h // 16)
    ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xs, ys = xs / sw, ys / sh
    g = cond.light_gradient
    lamp = rng.uniform(-0.3, 1.3, size=2)
    theta = rng.uniform(0, 2 * np.pi)
    ramp = (xs - 0.5) * math.cos(theta) + (ys - 0.5) * math.sin(theta)
    fall = np.exp(-((xs - lamp[0]) ** 2 + (ys - lamp[1]) ** 2) / 0.9)
    field_ = 1.0 - g * (0.45 * (ramp + 0.7) + 0.35 * (1.0 - fall))
    field_ = (np.clip(field_, 0.2, 1.2) * cond.exposure).astype(np.float32)
    c = cond.colour_cast
    tint = np.array([1.0 - 0.06 * g - 0.15 * c, 1.0 - 0.02 * c, 1.0 + 0.05 * g + 0.12 * c],
                    np.float32)  # warm lamp, white-balance error (BGR)
    return cv2.resize(cv2.merge([field_ * t for t in tint]), (w, h),
                      interpolation=cv2.INTER_CUBIC)


def _big_shadow(w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """A large soft shadow (someone leaning over, the lamp's arm): a blurred blob, 0..1."""
    m = np.zeros((h // 4, w // 4), np.float32)
    cx, cy = rng.uniform(0, w // 4), rng.uniform(0, h // 4)
    pts = []
    for k in range(9):
        ang = 2 * np.pi * k / 9 + rng.uniform(-0.2, 0.2)
        r = rng.uniform(0.25, 0.5) * min(w, h) / 4
        pts.append((cx + r * 1.6 * math.cos(ang), cy + r * math.sin(ang)))
    cv2.fillPoly(m, [np.array(pts, np.int32)], 1.0)
    m = cv2.GaussianBlur(m, (0, 0), min(w, h) / 40)
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_LINEAR)


def _glare(img: np.ndarray, centres: Sequence[tuple[float, float]], rng: np.random.Generator
           ) -> None:
    """Specular blobs: push towards (over-)white, saturating at the centre."""
    h, w = img.shape[:2]
    for cx, cy in centres:
        sx, sy = rng.uniform(12, 55), rng.uniform(8, 35)
        ang = rng.uniform(0, 180)
        r = int(3 * max(sx, sy))
        x0, y0, x1, y1 = int(cx) - r, int(cy) - r, int(cx) + r + 1, int(cy) + r + 1
        bx0, by0, bx1, by1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if bx1 <= bx0 or by1 <= by0:
            continue
        ys, xs = np.mgrid[by0:by1, bx0:bx1].astype(np.float32)
        dx, dy = xs - cx, ys - cy
        t = math.radians(ang)
        u, v = dx * math.cos(t) + dy * math.sin(t), -dx * math.sin(t) + dy * math.cos(t)
        a = rng.uniform(0.75, 1.25) * np.exp(-0.5 * ((u / sx) ** 2 + (v / sy) ** 2))
        a = np.clip(a, 0, 1)[..., None]
        view = img[by0:by1, bx0:bx1]
        view += (275.0 - view) * a


# --- camera --------------------------------------------------------------------------------------


def _optics(img: np.ndarray, cond: Conditions, rng: np.random.Generator) -> np.ndarray:
    """Lens softness, defocus and motion blur (float in, float out)."""
    img = cv2.GaussianBlur(img, (0, 0), math.hypot(0.6, cond.defocus))
    if cond.motion_blur > 1:
        k = np.zeros((cond.motion_blur, cond.motion_blur), np.float32)
        k[cond.motion_blur // 2, :] = 1.0 / cond.motion_blur
        rot = cv2.getRotationMatrix2D(((cond.motion_blur - 1) / 2, (cond.motion_blur - 1) / 2),
                                      float(rng.uniform(0, 180)), 1.0)
        k = cv2.warpAffine(k, rot, k.shape[::-1])
        img = cv2.filter2D(img, -1, k / max(1e-6, k.sum()))
    return img


_BANK_PAD = 97


@functools.lru_cache(maxsize=3)
def _noise_bank(h: int, w: int) -> np.ndarray:
    """A fixed field of unit Gaussian noise a little larger than the frame."""
    bank = np.random.default_rng(20261122).standard_normal((h + _BANK_PAD, w + _BANK_PAD, 3),
                                                           dtype=np.float32)
    bank.setflags(write=False)
    return bank


def _sensor(img: np.ndarray, cond: Conditions, rng: np.random.Generator) -> np.ndarray:
    """Sensor noise, 8-bit quantisation, JPEG: float (modified in place) -> uint8.

    The noise is a window at a random offset into a fixed noise field: every frame's noise is
    different at each pixel, at a fraction of the cost of drawing 3 million normals per frame.
    """
    if cond.noise > 0:
        h, w = img.shape[:2]
        oy, ox = (int(v) for v in rng.integers(0, _BANK_PAD, size=2))
        n = _noise_bank(h, w)[oy:oy + h, ox:ox + w]
        # read noise plus a little shot noise (brighter pixels are noisier)
        gain = cv2.addWeighted(img, 0.3 * cond.noise / 255.0, img, 0.0, 0.7 * cond.noise)
        img += cv2.multiply(n, gain)
    out = np.clip(img + 0.5, 0, 255).astype(np.uint8)
    if cond.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(cond.jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def _finish(img: np.ndarray, cond: Conditions, rng: np.random.Generator) -> np.ndarray:
    """Everything the camera adds: float -> uint8."""
    return _sensor(_optics(img, cond, rng), cond, rng)


# --- frames --------------------------------------------------------------------------------------


@dataclass
class _Scene:
    """A rendered frame before the camera's own effects (for reuse across still video frames)."""

    image: np.ndarray                       # float32 frame (after tilt)
    truth: list[TruthCard] = field(default_factory=list)


def _check_size(size: Size) -> tuple[int, int]:
    w, h = int(size[0]), int(size[1])
    if not (64 <= w <= 8192 and 64 <= h <= 8192):
        raise SimError(f"frame size must be within 64..8192 px, got {size}")
    return w, h


@dataclass
class _Layer:
    """The flat table with its cards, before hands, light and camera (reusable while still)."""

    image: np.ndarray                # float32 flat canvas (read-only; copy before drawing)
    ids: np.ndarray                  # int16 topmost card index per canvas px, -1 = table
    drawn: list[_Drawn | None]
    flat_corners: list[np.ndarray]
    margin: int
    hom: np.ndarray                  # canvas px -> frame px
    light_dir: np.ndarray            # unit vector the card shadows fall along


def _rngs(seed: int) -> dict[str, np.random.Generator]:
    """Independent generators per stage: the table, lamp and glare of a seed stay the same
    whatever the cards or hands are (a video of one table)."""
    if not isinstance(seed, int | np.integer) or seed < 0:
        raise SimError(f"seed must be a non-negative integer, got {seed!r}")
    names = ("plane", "hands", "light", "glare")
    seqs = np.random.SeedSequence(seed).spawn(len(names))
    return {n: np.random.default_rng(s) for n, s in zip(names, seqs, strict=True)}


def _compose_cards(placements: Sequence[Placement], cond: Conditions, size: Size, seed: int,
                   style: Edition, surface: Surface | None = None) -> _Layer:
    w, h = _check_size(size)
    rng = _rngs(seed)["plane"]
    margin, hom = _plane((w, h), cond, rng)
    cw, ch = w + 2 * margin, h + 2 * margin
    img = (surface(cw, ch).astype(np.float32) if surface is not None
           else table_texture(cond.table, cw, ch, variant=seed))
    if rng.random() < 0.5:  # same table, other half of the pattern
        img = img[::-1, ::-1].copy()
    ids = np.full((ch, cw), -1, np.int16)
    light_dir = rng.normal(size=2)
    light_dir /= max(1e-6, float(np.linalg.norm(light_dir)))
    offset = np.array([margin, margin], np.float32)
    flat_corners = [card_corners(p) for p in placements]
    drawn = [_draw_card(img, ids, i, p, corners + offset, style, light_dir)
             for i, (p, corners) in enumerate(zip(placements, flat_corners, strict=True))]
    img.setflags(write=False)
    return _Layer(img, ids, drawn, flat_corners, margin, hom, light_dir)


@functools.lru_cache(maxsize=4)
def _light_cached(cw: int, ch: int, cond_key: tuple, seed: int) -> np.ndarray:
    cond = Conditions(*cond_key)
    rngs = _rngs(seed)
    light = _light_field(cw, ch, cond, rngs["light"])
    if cond.shadow:
        light *= (1.0 - rngs["light"].uniform(0.35, 0.55) * _big_shadow(cw, ch, rngs["light"])
                  )[..., None]
    light.setflags(write=False)
    return light


def _compose_rest(layer: _Layer, placements: Sequence[Placement], cond: Conditions, size: Size,
                  seed: int, hand_poses: Sequence[HandPose],
                  glare_at: Sequence[tuple[float, float]] | None) -> _Scene:
    w, h = size
    rngs = _rngs(seed)
    margin = layer.margin
    img = layer.image.copy()
    ch, cw = layer.ids.shape
    rng = rngs["hands"]
    poses = list(hand_poses) + [
        random_hand(rng, (w, h), target=_hand_target(rng, placements, (w, h)))
        for _ in range(cond.hands)
    ]
    hand_mask = np.zeros((ch, cw), bool)
    for pose in poses:
        shifted = replace(pose, entry=(pose.entry[0] + margin, pose.entry[1] + margin),
                          tip=(pose.tip[0] + margin, pose.tip[1] + margin))
        res = draw_hand(img, shifted, rng, tuple(layer.light_dir * pose.palm_px * 0.15))
        if res is not None:
            a, (x0, y0) = res
            hand_mask[y0:y0 + a.shape[0], x0:x0 + a.shape[1]] |= a > 0.5
    ids = layer.ids
    if poses:
        ids = ids.copy()
        ids[hand_mask] = -2
    cv2.multiply(img, _light_cached(cw, ch, astuple(cond), seed), dst=img)
    if cond.glare:
        rng = rngs["glare"]
        centres = glare_at if glare_at is not None else [
            _glare_centre(rng, placements, (w, h)) for _ in range(cond.glare)]
        _glare(img, [(x + margin, y + margin) for x, y in centres], rng)
    truth = _truth(placements, layer.flat_corners, layer.drawn, ids, hand_mask, layer.hom,
                   margin, (w, h))
    if margin:
        img = cv2.warpPerspective(img, layer.hom, (w, h), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)
    if cond.lens:
        map_x, map_y = _lens_maps(w, h, round(cond.lens, 3))
        img = cv2.remap(img, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        truth = [replace(t, corners=distort(t.corners, (w, h), cond.lens),
                         center=_point(distort(np.array([t.center], np.float32), (w, h),
                                               cond.lens)[0]))
                 for t in truth]
    if cond.vignette:
        img *= _vignette(w, h, round(cond.vignette, 2))[..., None]
    return _Scene(img, truth)


def distort(pts: np.ndarray, size: Size, k1: float) -> np.ndarray:
    """Where the lens (radial distortion k1, radius in half-diagonals) draws frame points. A
    barrel lens (k1 < 0) sees a wider field: the picture is scaled so its corners stay corners."""
    w, h = size
    c, half = np.array([w / 2, h / 2], np.float32), math.hypot(w, h) / 2
    d = (np.asarray(pts, np.float32).reshape(-1, 2) - c) / half
    r2 = (d ** 2).sum(axis=1, keepdims=True)
    return (c + d * (1 + k1 * r2) * _zoom(k1) * half).astype(np.float32)


def _zoom(k1: float) -> float:
    return 1.0 / (1.0 + min(k1, 0.0))


@functools.lru_cache(maxsize=4)
def _lens_maps(w: int, h: int, k1: float) -> tuple[np.ndarray, np.ndarray]:
    """remap tables of `distort`: for each drawn pixel, the undistorted point it shows (the
    inverse found by fixed-point steps, exact to a hundredth of a pixel for |k1| <= 0.3)."""
    half = math.hypot(w, h) / 2
    xs, ys = np.meshgrid((np.arange(w, dtype=np.float32) - w / 2) / half,
                         (np.arange(h, dtype=np.float32) - h / 2) / half)
    xs, ys = xs / _zoom(k1), ys / _zoom(k1)
    rd2 = xs ** 2 + ys ** 2
    scale = np.ones_like(rd2)
    for _ in range(8):  # r_u = r_d / (1 + k1 r_u^2)
        scale = 1.0 / (1.0 + k1 * rd2 * scale ** 2)
    map_x = (xs * scale * half + w / 2).astype(np.float32)
    map_y = (ys * scale * half + h / 2).astype(np.float32)
    map_x.setflags(write=False)
    map_y.setflags(write=False)
    return map_x, map_y


@functools.lru_cache(maxsize=4)
def _vignette(w: int, h: int, amount: float) -> np.ndarray:
    xs, ys = np.meshgrid(np.linspace(-1, 1, w, dtype=np.float32),
                         np.linspace(-1, 1, h, dtype=np.float32))
    out = 1.0 - amount * 0.5 * (xs ** 2 + ys ** 2) ** 1.5
    out.setflags(write=False)
    return out


def render_scene(placements: Sequence[Placement], cond: Conditions, size: Size = (1280, 720),
                 seed: int = 0, style: Edition = DEFAULT_STYLE,
                 hand_poses: Sequence[HandPose] = (),
                 glare_at: Sequence[tuple[float, float]] | None = None,
                 layer: _Layer | None = None, surface: Surface | None = None) -> _Scene:
    """Everything up to the camera (float image + truth); see render_frame. `layer` reuses the
    cards already composed by `_compose_cards` for the same placements, cond, size and seed."""
    placements = list(placements)
    for p in placements:
        if not isinstance(p.card, CardId | Printed):
            raise SimError(f"placement card must be a CardId or a Printed card, got {p.card!r}")
        if not 4.0 <= p.width_px <= 4000.0:
            raise SimError(f"card width must be within 4..4000 px, got {p.width_px}")
    if layer is None:
        layer = _compose_cards(placements, cond, size, seed, style, surface)
    return _compose_rest(layer, placements, cond, _check_size(size), seed, hand_poses, glare_at)


def render_frame(placements: Sequence[Placement], cond: Conditions, size: Size = (1280, 720),
                 seed: int = 0, style: Edition = DEFAULT_STYLE, *,
                 hand_poses: Sequence[HandPose] = (),
                 glare_at: Sequence[tuple[float, float]] | None = None,
                 noise_seed: int | None = None,
                 surface: Surface | None = None) -> tuple[np.ndarray, list[TruthCard]]:
    """Render one camera frame (BGR uint8, size = (width, height)) and its truth.

    The truth list has one TruthCard per placement, in the same order (cards drawn later lie on
    top). `hand_poses` adds hands at given poses (flat px) to the `cond.hands` random ones;
    `glare_at` fixes the glare spots (flat px) instead of drawing them near random cards;
    `noise_seed` varies only the sensor noise (video of a still scene); `surface` draws the table
    instead of `cond.table` (a training set's random surfaces). Deterministic for a seed.
    """
    scene = render_scene(placements, cond, size, seed, style, hand_poses, glare_at,
                         surface=surface)
    rng = np.random.default_rng(seed if noise_seed is None else [seed, noise_seed])
    return _finish(scene.image, cond, rng), scene.truth  # _optics makes new arrays


def render_table(cond: Conditions, size: Size = (1280, 720), seed: int = 0) -> np.ndarray:
    """The empty table under those conditions (for background learning)."""
    return render_frame([], cond, size, seed)[0]


def _hand_target(rng: np.random.Generator, placements: Sequence[Placement], size: Size
                 ) -> tuple[float, float] | None:
    if placements and rng.random() < 0.7:
        p = placements[int(rng.integers(len(placements)))]
        return (p.center[0] + rng.normal(0, p.width_px * 0.4),
                p.center[1] + rng.normal(0, p.width_px * 0.4))
    return None


def _glare_centre(rng: np.random.Generator, placements: Sequence[Placement], size: Size
                  ) -> tuple[float, float]:
    if placements and rng.random() < 0.7:  # usually right on a card: the hard case
        p = placements[int(rng.integers(len(placements)))]
        return (p.center[0] + rng.normal(0, p.width_px * 0.3),
                p.center[1] + rng.normal(0, p.width_px * 0.3))
    return float(rng.uniform(0, size[0])), float(rng.uniform(0, size[1]))


def _truth(placements: Sequence[Placement], flat_corners: list[np.ndarray],
           drawn: list[_Drawn | None], ids: np.ndarray, hand_mask: np.ndarray, hom: np.ndarray,
           margin: int, size: Size) -> list[TruthCard]:
    w, h = size
    ch, cw = ids.shape
    if margin:  # what part of the flat canvas the tilted camera sees
        back = _project(np.linalg.inv(hom), np.array([[0, 0], [w, 0], [w, h], [0, h]], float))
        seen = np.zeros((ch, cw), np.uint8)
        cv2.fillPoly(seen, [np.round(back).astype(np.int32)], 1)
        in_frame = seen.astype(bool)
    else:
        in_frame = None
    out = []
    for i, (p, corners, d) in enumerate(zip(placements, flat_corners, drawn, strict=True)):
        frame_corners = _project(hom, corners + margin).astype(np.float32)
        centre = _project(hom, np.array([p.center]) + margin)[0]
        visible, by_hand = 0.0, False
        if d is not None and d.area > 0:
            x0, y0, x1, y1 = d.roi
            top = (ids[y0:y1, x0:x1] == i) & d.region
            if in_frame is not None:
                top &= in_frame[y0:y1, x0:x1]
            visible = float(top.sum()) / d.area
            by_hand = bool((hand_mask[y0:y1, x0:x1] & d.region).any())
        # an off-canvas card part was never drawn: count it as not visible
        full_area = p.width_px * p.width_px * CARD_H / CARD_W
        if d is not None and d.area < 0.97 * full_area:
            visible *= d.area / full_area
        out.append(TruthCard(p.card, frame_corners, (float(centre[0]), float(centre[1])),
                             min(1.0, visible), by_hand))
    return out


# --- random scenes -------------------------------------------------------------------------------


def _separated(a: np.ndarray, b: np.ndarray, gap: float = 4.0) -> bool:
    """Separating-axis test for two convex quads (with a small gap)."""
    for quad in (a, b):
        for k in range(4):
            edge = quad[(k + 1) % 4] - quad[k]
            axis = np.array([-edge[1], edge[0]]) / max(1e-9, float(np.linalg.norm(edge)))
            pa, pb = a @ axis, b @ axis
            if pa.max() + gap < pb.min() or pb.max() + gap < pa.min():
                return True
    return False


def random_scene(rng: np.random.Generator, n_cards: int, size: Size = (1280, 720),
                 overlap: float = 0.0, *, width_range: tuple[float, float] = (70.0, 160.0),
                 angle: float | None = None, cards: Sequence[Card] | None = None
                 ) -> list[Placement]:
    """n_cards distinct random cards at random rotations, lying inside the frame.

    `overlap` (0..1) is the share of cards laid partly over an earlier card; the others do not
    touch. `angle` fixes the rotation (with a few degrees of jitter); `cards` the pool to draw from.
    May return fewer cards when the table is too full to fit them apart.
    """
    w, h = _check_size(size)
    pool = list(cards) if cards is not None else list(ALL_CARDS)
    if not 0 <= n_cards <= len(pool):
        raise SimError(f"n_cards must be within 0..{len(pool)}, got {n_cards}")
    if not 0.0 <= overlap <= 1.0:
        raise SimError(f"overlap must be within 0..1, got {overlap}")
    chosen = [pool[i] for i in rng.choice(len(pool), size=n_cards, replace=False)]
    out: list[Placement] = []
    quads: list[np.ndarray] = []
    for card in chosen:
        width = float(rng.uniform(*width_range))
        rot = (float(rng.uniform(0, 360)) if angle is None
               else float(angle + rng.uniform(-6, 6)))
        over = bool(out) and rng.random() < overlap
        for _ in range(200):
            if over:
                base = out[int(rng.integers(len(out)))]
                r = rng.uniform(0.35, 0.7) * (base.width_px + width)
                t = rng.uniform(0, 2 * np.pi)
                centre = (base.center[0] + r * math.cos(t), base.center[1] + r * math.sin(t))
            else:
                centre = (float(rng.uniform(0, w)), float(rng.uniform(0, h)))
            p = Placement(card, centre, rot, width)
            q = card_corners(p)
            inside = q.min() >= 8 and (q[:, 0] <= w - 8).all() and (q[:, 1] <= h - 8).all()
            if inside and (over or all(_separated(q, o) for o in quads)):
                out.append(p)
                quads.append(q)
                break
    return out


def scoring_row_scene(rng: np.random.Generator, size: Size = (1280, 720), *,
                      width_range: tuple[float, float] = (70.0, 130.0)) -> list[Placement]:
    """A scoring row as players lay it: 4..9 value cards side by side (touching or nearly), at
    a small angle or upside down, and one or two zeros lying across half of a value card (a
    blue 0 over its blue half, a red 0 over its red half), drawn on top of it."""
    w, h = _check_size(size)
    width = float(rng.uniform(*width_range))
    height = width * CARD_H / CARD_W
    angle = float(rng.uniform(-10, 10)) + (180.0 if rng.random() < 0.3 else 0.0)
    values = [CardId("scoring", int(v)) for v in rng.permutation(np.arange(1, 10))]
    n = int(rng.integers(4, 10))
    step = width * float(rng.uniform(1.0, 1.15))
    t = math.radians(angle)
    right = np.array([math.cos(t), -math.sin(t)])  # the cards' own x axis on screen
    up = np.array([-math.sin(t), -math.cos(t)])    # their top
    room = np.array([w, h]) / 2 - 1.2 * height - 8  # half the frame, less a card and a zero
    while n > 1 and (np.abs(right) * (n - 1) * step / 2 > room).any():
        n -= 1
    lo = np.minimum(np.abs(right) * (n - 1) * step / 2 + 1.2 * height + 8, np.array([w, h]) / 2)
    centre = np.array([rng.uniform(lo[0], w - lo[0]), rng.uniform(lo[1], h - lo[1])])
    out: list[Placement] = []
    for i, card in enumerate(values[:n]):
        c = centre + (i - (n - 1) / 2) * step * right + rng.normal(0, 0.02 * width, 2)
        out.append(Placement(card, (float(c[0]), float(c[1])),
                             angle + float(rng.normal(0, 2.0)), width))
    zeros = [CardId("scoring", 0, "blue"), CardId("scoring", 0, "red")]
    covered = rng.choice(n, size=min(n, int(rng.integers(1, 3))), replace=False)
    for zero, i in zip(rng.permutation(zeros), covered, strict=False):
        base = np.array(out[int(i)].center)
        sign = 1.0 if zero.colour == "blue" else -1.0
        c = base + sign * up * height / 2 + rng.normal(0, 0.03 * width, 2)
        out.append(Placement(zero, (float(c[0]), float(c[1])),
                             angle + float(rng.normal(0, 3.0)), width))
    return out


def edge_scene(rng: np.random.Generator, size: Size = (1280, 720), *,
               width_range: tuple[float, float] = (70.0, 130.0),
               cards: Sequence[Card] | None = None) -> list[Placement]:
    """A few cards lying apart, and one to three lying across the frame's edge (10-60 % of each
    outside the picture). `cards`: the deck to draw from (at least 23; Tightrope's by default)."""
    w, h = _check_size(size)
    width = float(rng.uniform(*width_range))
    height = width * CARD_H / CARD_W
    deck = list(cards) if cards is not None else list(ALL_CARDS)
    pool = [deck[i] for i in rng.permutation(len(deck))]
    out = random_scene(rng, int(rng.integers(1, 6)), size, 0.0,
                       width_range=(width * 0.97, width * 1.03), cards=pool[:20])
    for i in range(int(rng.integers(1, 4))):
        edge = int(rng.integers(4))
        inside = float(rng.uniform(0.15, 0.5)) * height
        along = float(rng.uniform(0.1, 0.9))
        c = [(along * w, inside), (w - inside, along * h), (along * w, h - inside),
             (inside, along * h)][edge]
        out.append(Placement(pool[20 + i], c, float(rng.uniform(0, 360)), width))
    return out


def pile_scene(rng: np.random.Generator, size: Size = (1280, 720), *,
               width_range: tuple[float, float] = (70.0, 130.0),
               cards: Sequence[Card] | None = None) -> list[Placement]:
    """One or two piles of two to five cards dropped nearly on top of one another (`cards`: the
    deck to draw from, Tightrope's by default)."""
    w, h = _check_size(size)
    width = float(rng.uniform(*width_range))
    deck = list(cards) if cards is not None else list(ALL_CARDS)
    pool = [deck[i] for i in rng.permutation(len(deck))]
    out: list[Placement] = []
    for _ in range(int(rng.integers(1, 3))):
        c0 = np.array([rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h])
        base = float(rng.uniform(0, 360))
        for _ in range(int(rng.integers(2, 6))):
            c = c0 + rng.normal(0, 0.45, 2) * width
            out.append(Placement(pool[len(out)], (float(c[0]), float(c[1])),
                                 base + float(rng.normal(0, 25)), width))
    return out


def _point(p: np.ndarray) -> tuple[float, float]:
    return float(p[0]), float(p[1])
