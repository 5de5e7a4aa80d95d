"""Whole games as frame sequences: a script of table actions played out under a camera.

This module knows nothing of the rules. It lays scoring cards into a row through the middle of
the table (a zero lies across half of the next value card), number cards in front of their seat
(far seats' cards upside down), and takes them away again. For the other decks (Attacke's
knights and shields, say) it lays a named card of any design (`Lay`, a `Printed` card) in a
seat's zone, fanned beside that seat's cards already lying there, and takes a seat's cards away
(`ClearSeat`); the game decides when. A table may also have named areas (`Area`: the solo
game's pyramid spots, its informants' row, its deck): a card is laid at a slot of an area
(`LayAt`) or taken away with others of its area (`Take`);
an area with a zone of its own is written to zones.json as a place (the scoring row, where an
area is named "scoring"). Every action is a hand coming in from
the table edge, laying or taking the card (the card appears under the hand), and leaving; then the
table lies still for `hold_s` seconds. A `Pause` is the table lying still a while longer (a
player thinking, or saying "pass").

Output folder: frame_000000.jpg ... (name order = time order), zones.json (docs/config.md format, in
frame px) and truth.jsonl (one line per action but pauses: the frame from which it is complete
and the hand gone, and every card lying on the table then).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.cards import CARD_H, CARD_W, DEFAULT_STYLE, CardId, Edition
from vision.sim.faces import Printed
from vision.sim.hands import SKINS, SLEEVES, HandPose
from vision.sim.scene import (
    Conditions,
    Placement,
    SimError,
    _compose_cards,
    _Layer,
    _optics,
    _sensor,
    card_corners,
    flat_to_frame,
    render_scene,
)

Size = tuple[int, int]
FOOTAGE_VERSION = 2  # bump when the look changes: invalidates cached footage
EXPOSURE_FRACTION = 0.35  # shutter time / frame interval (motion smear of the hands)


@dataclass(frozen=True)
class Reveal:
    """A scoring card laid in the scoring row (a zero lies across half of the next value card)."""

    card: CardId


@dataclass(frozen=True)
class Place:
    """A number card laid in front of that seat (far seats' cards are upside down)."""

    seat: int
    card: CardId


@dataclass(frozen=True)
class ClearTrick:
    """The trick's number cards are taken away."""


@dataclass(frozen=True)
class ClearRound:
    """The scoring row is taken away."""


@dataclass(frozen=True)
class Lay:
    """A card of any deck, printed by its design, laid in front of that seat: fanned beside the
    seat's cards already lying there (far seats' cards upside down)."""

    seat: int
    card: Printed

    def __post_init__(self) -> None:
        if not isinstance(self.card, Printed):
            raise SimError(f"Lay needs a Printed card (a name and its design), got {self.card!r}")


@dataclass(frozen=True)
class ClearSeat:
    """Every card lying in front of that seat is taken away."""

    seat: int


@dataclass(frozen=True)
class Pause:
    """Nothing changes on the table for a while (a player thinks, or says "pass")."""

    seconds: float


@dataclass(frozen=True)
class Area:
    """A named rectangle of the table (fractions of the frame: x0, y0, x1, y1) where cards are
    laid in slots, left to right from its left edge, `step` card widths apart, in lines below
    one another when a line is full. `zone`: written to zones.json as a place of its own (the
    area named "scoring" is the scoring row)."""

    x0: float
    y0: float
    x1: float
    y1: float
    step: float = 1.15
    zone: bool = True


@dataclass(frozen=True)
class LayAt:
    """A card laid in a named area: at `slot`, or beside the area's cards already lying there."""

    area: str
    card: Printed
    slot: int | None = None


@dataclass(frozen=True)
class Take:
    """The cards of an area taken away: those at `slots`, or all of them."""

    area: str
    slots: tuple[int, ...] | None = None


Action = Reveal | Place | ClearTrick | ClearRound | Lay | ClearSeat | Pause | LayAt | Take
Areas = dict[str, Area]

# seat anchors: (edge, position along it), clockwise as seen from above (bottom, left, top, right)
_SEATS: dict[int, list[tuple[str, float]]] = {
    1: [("bottom", 0.5)],
    2: [("bottom", 0.5), ("top", 0.5)],
    3: [("bottom", 0.5), ("top", 0.27), ("top", 0.73)],
    4: [("bottom", 0.5), ("left", 0.5), ("top", 0.5), ("right", 0.5)],
    5: [("bottom", 0.5), ("left", 0.5), ("top", 0.3), ("top", 0.7), ("right", 0.5)],
    6: [("bottom", 0.7), ("bottom", 0.3), ("left", 0.5), ("top", 0.3), ("top", 0.7),
        ("right", 0.5)],
}
_INWARD = {"bottom": (0.0, -1.0), "top": (0.0, 1.0), "left": (1.0, 0.0), "right": (-1.0, 0.0)}
_ROW = (0.14, 0.29, 0.86, 0.71)  # scoring row x0, y0, x1, y1 as fractions of the frame
_SLOTS = 10                       # 9 value cards + room for two zeros in a row
CARD_FRACTION = 0.062             # card width / frame width (about 79 px at 1280)
FAN_STEP = 0.55                   # a laid card lies this many card widths beside the one before
FAN_START = -1.5                  # the first card of a fan, in steps from the seat's spot


@dataclass(frozen=True)
class _Seat:
    anchor: tuple[float, float]   # on the frame edge
    inward: tuple[float, float]
    spot: tuple[float, float]     # centre of the seat's played card
    angle: float                  # card rotation: its top points away from the player


def _seats(n_seats: int, size: Size) -> list[_Seat]:
    if n_seats not in _SEATS:
        raise SimError(f"n_seats must be within 1..6, got {n_seats}")
    w, h = size
    out = []
    for edge, t in _SEATS[n_seats]:
        anchor = {"bottom": (t * w, h), "top": (t * w, 0.0), "left": (0.0, t * h),
                  "right": (w, t * h)}[edge]
        dx, dy = _INWARD[edge]
        depth = 0.15 * h if edge in ("bottom", "top") else 0.075 * w
        spot = (anchor[0] + dx * depth, anchor[1] + dy * depth)
        angle = math.degrees(math.atan2(-dx, -dy)) % 360
        out.append(_Seat(anchor, (dx, dy), spot, angle))
    return out


def _ray_to_frame(c: np.ndarray, ang: float, w: float, h: float) -> np.ndarray:
    d = np.array([math.cos(ang), math.sin(ang)])
    ts = []
    for i, lim in ((0, 0.0), (0, w), (1, 0.0), (1, h)):
        if abs(d[i]) > 1e-12:
            t = (lim - c[i]) / d[i]
            if t > 0:
                ts.append(t)
    return c + d * min(ts)


def _sector(c: np.ndarray, a0: float, a1: float, w: float, h: float) -> list[list[float]]:
    """Polygon: frame centre + the frame boundary between angles a0 < a1 (radians)."""
    pts = [c, _ray_to_frame(c, a0, w, h)]
    corners = [np.array(p, float) for p in ((w, h), (0, h), (0, 0), (w, 0))]
    angs = sorted(((math.atan2(p[1] - c[1], p[0] - c[0]) - a0) % (2 * math.pi), i)
                  for i, p in enumerate(corners))
    pts += [corners[i] for rel, i in angs if rel < a1 - a0]
    pts.append(_ray_to_frame(c, a1, w, h))
    return [[round(float(x), 1), round(float(y), 1)] for x, y in pts]


def table_layout(n_seats: int, size: Size = (1280, 720), areas: Areas | None = None) -> dict:
    """Zones in the flat table plane: {"seats": [poly, ...], "scoring": poly} (docs/config.md).

    Seats are clockwise from the near (bottom) edge; each seat's zone is the sector of the frame
    around its place; the scoring row is a band through the middle (it wins where they overlap).
    """
    w, h = size
    seats = _seats(n_seats, size)
    c = np.array([w / 2, h / 2])
    angs = [math.atan2(s.spot[1] - c[1], s.spot[0] - c[0]) for s in seats]
    polys: list[list[list[float]]] = []
    for i, a in enumerate(angs):
        if n_seats == 1:
            polys.append([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])
            continue
        prev, nxt = angs[i - 1], angs[(i + 1) % n_seats]
        lo = a - ((a - prev) % (2 * math.pi)) / 2
        hi = a + ((nxt - a) % (2 * math.pi)) / 2
        polys.append(_sector(c, lo, hi, w, h))
    areas = areas or {}
    row = areas.get("scoring")
    x0, y0, x1, y1 = (row.x0, row.y0, row.x1, row.y1) if row else _ROW
    out: dict = {"seats": polys, "scoring": _rect(x0, y0, x1, y1, size)}
    places = {name: _rect(ar.x0, ar.y0, ar.x1, ar.y1, size) for name, ar in areas.items()
              if ar.zone and name != "scoring"}
    if places:
        out["places"] = places
    return out


def _rect(x0: float, y0: float, x1: float, y1: float, size: Size) -> list[list[float]]:
    w, h = size
    return [[round(x * w, 1), round(y * h, 1)] for x, y in ((x0, y0), (x1, y0), (x1, y1),
                                                             (x0, y1))]


def _frame_layout(layout: dict, hom: np.ndarray) -> dict:
    """The zones as the (possibly tilted) camera sees them."""
    def tr(poly: list) -> list:
        pts = cv2.perspectiveTransform(np.array(poly, np.float64).reshape(-1, 1, 2), hom)
        return [[round(float(x), 1), round(float(y), 1)] for x, y in pts.reshape(-1, 2)]
    out: dict = {"seats": [tr(p) for p in layout["seats"]], "scoring": tr(layout["scoring"])}
    if "places" in layout:
        out["places"] = {name: tr(p) for name, p in layout["places"].items()}
    return out


# --- the table's state as the actions play out ------------------------------------------


@dataclass
class _Lying:
    placement: Placement
    zone: int | str
    slot: int = 0


class _Table:
    """Where every card lies, in drawing order (later = on top)."""

    def __init__(self, n_seats: int, size: Size, rng: np.random.Generator, card_px: float,
                 areas: Areas | None = None):
        self.size, self.rng, self.card_px = size, rng, card_px
        self.areas = areas or {}
        self.seats = _seats(n_seats, size)
        self.cards: list[_Lying] = []
        self.slot = 0
        self.pending_zero: _Lying | None = None

    def _jitter(self, centre: tuple[float, float], angle: float) -> tuple[tuple[float, float],
                                                                            float]:
        dx, dy = self.rng.normal(0, 0.03 * self.card_px, size=2)
        return (centre[0] + dx, centre[1] + dy), angle + float(self.rng.normal(0, 3.0))

    def slot_centre(self, slot: int) -> tuple[float, float]:
        w, h = self.size
        x0, y0, x1, y1 = _ROW
        step = (x1 - x0) * w / _SLOTS
        return (x0 * w + (slot % _SLOTS + 0.5) * step, (y0 + y1) / 2 * h)

    def apply(self, action: Action) -> tuple[tuple[float, float], int | str | None]:
        """Change the table; returns where the hand reaches and which seat's edge it comes from
        (a seat index, or "row" for the scoring row)."""
        if isinstance(action, Reveal):
            return self._reveal(action.card)
        if isinstance(action, Place):
            return self._place(action)
        if isinstance(action, ClearTrick):
            return self._clear(lambda z: isinstance(z, int))
        if isinstance(action, ClearRound):
            self.slot, self.pending_zero = 0, None
            return self._clear(lambda z: z == "scoring")
        if isinstance(action, Lay):
            return self._lay(action)
        if isinstance(action, ClearSeat):
            self._seat(action.seat)
            target, _ = self._clear(lambda z: z == action.seat)
            return target, action.seat
        if isinstance(action, LayAt | Take):
            return self._at_area(action)
        raise SimError(f"not a table action: {action!r}")

    def _area(self, name: str) -> Area:
        if name not in self.areas:
            raise SimError(f"no area {name!r} on this table")
        return self.areas[name]

    def area_slot(self, name: str, slot: int) -> tuple[float, float]:
        """The centre of a slot of an area: lines of slots from its top left corner."""
        a, (w, h) = self._area(name), self.size
        step = a.step * self.card_px
        per_line = max(1, int(((a.x1 - a.x0) * w - self.card_px) // step) + 1)
        card_h = self.card_px * CARD_H / CARD_W
        line, along = divmod(slot, per_line)
        return (a.x0 * w + self.card_px * 0.6 + along * step,
                a.y0 * h + card_h * (0.6 + 1.1 * line))

    def _at_area(self, action: LayAt | Take) -> tuple[tuple[float, float], int]:
        """Lay or take cards of an area; the hand comes from the near seat (seat 0)."""
        lying = [c for c in self.cards if c.zone == action.area]
        if isinstance(action, Take):
            slots = action.slots
            gone = [c for c in lying if slots is None or c.slot in slots]
            self.cards = [c for c in self.cards if not any(c is g for g in gone)]
            if not gone:  # nothing there: the hand reaches the area all the same
                return self.area_slot(action.area, 0), 0
            return (float(np.mean([c.placement.center[0] for c in gone])),
                    float(np.mean([c.placement.center[1] for c in gone]))), 0
        slot = action.slot if action.slot is not None else \
            max((c.slot + 1 for c in lying), default=0)
        c, a = self._jitter(self.area_slot(action.area, slot), 0.0)
        self.cards.append(_Lying(Placement(action.card, c, a, self.card_px), action.area, slot))
        return c, 0

    def _reveal(self, card: CardId) -> tuple[tuple[float, float], str]:
        if card.kind != "scoring":
            raise SimError(f"Reveal needs a scoring card, got {card.label}")
        half = self.card_px * CARD_H / CARD_W / 2
        if card.value == 0:
            if self.pending_zero is not None:  # two zeros running: the first keeps its own slot
                self.slot += 1
            cx, cy = self.slot_centre(self.slot)
            # a blue 0 lies over the value card's (blue) top half, a red 0 over its bottom half
            centre = (cx, cy - half) if card.colour == "blue" else (cx, cy + half)
            c, a = self._jitter(centre, 0.0)
            lying = _Lying(Placement(card, c, a, self.card_px), "scoring")
            self.cards.append(lying)
            self.pending_zero = lying
            return c, "row"
        c, a = self._jitter(self.slot_centre(self.slot), 0.0)
        lying = _Lying(Placement(card, c, a, self.card_px), "scoring")
        if self.pending_zero is not None:  # slid in under the zero
            self.cards.insert(self.cards.index(self.pending_zero), lying)
        else:
            self.cards.append(lying)
        self.pending_zero = None
        self.slot += 1
        return c, "row"

    def _place(self, action: Place) -> tuple[tuple[float, float], int]:
        if not 0 <= action.seat < len(self.seats):
            raise SimError(f"seat {action.seat} out of range 0..{len(self.seats) - 1}")
        if action.card.kind != "number":
            raise SimError(f"Place needs a number card, got {action.card.label}")
        seat = self.seats[action.seat]
        already = sum(1 for c in self.cards if c.zone == action.seat)
        # a second card from the same seat (a misplay) lies beside the first
        along = (-seat.inward[1], seat.inward[0])
        shift = already * 0.6 * self.card_px
        spot = (seat.spot[0] + along[0] * shift, seat.spot[1] + along[1] * shift)
        c, a = self._jitter(spot, seat.angle)
        self.cards.append(_Lying(Placement(action.card, c, a, self.card_px), action.seat))
        return c, action.seat

    def _seat(self, seat: int) -> _Seat:
        if not 0 <= seat < len(self.seats):
            raise SimError(f"seat {seat} out of range 0..{len(self.seats) - 1}")
        return self.seats[seat]

    def _lay(self, action: Lay) -> tuple[tuple[float, float], int]:
        seat = self._seat(action.seat)
        already = sum(1 for c in self.cards if c.zone == action.seat)
        along = (-seat.inward[1], seat.inward[0])
        shift = (FAN_START + already) * FAN_STEP * self.card_px
        spot = (seat.spot[0] + along[0] * shift, seat.spot[1] + along[1] * shift)
        c, a = self._jitter(spot, seat.angle)
        self.cards.append(_Lying(Placement(action.card, c, a, self.card_px), action.seat))
        return c, action.seat

    def _clear(self, which) -> tuple[tuple[float, float], int | str | None]:
        gone = [c for c in self.cards if which(c.zone)]
        self.cards = [c for c in self.cards if not which(c.zone)]
        if not gone:
            w, h = self.size
            return (w / 2, h / 2), None
        xs = [c.placement.center[0] for c in gone]
        ys = [c.placement.center[1] for c in gone]
        return (float(np.mean(xs)), float(np.mean(ys))), None

    def entry_for(self, origin: int | str | None, target: tuple[float, float]
                  ) -> tuple[float, float]:
        """Where a hand comes from: the seat's edge, or the nearer long edge for the row."""
        w, h = self.size
        out = 1.5 * self.card_px  # the arm starts this far beyond the frame edge
        if isinstance(origin, int):
            s = self.seats[origin]
            return (s.anchor[0] - s.inward[0] * out, s.anchor[1] - s.inward[1] * out)
        y = h + out if self.rng.random() < 0.5 else -out
        return (target[0] + float(self.rng.normal(0, self.card_px)), y)


# --- rendering ---------------------------------------------------------------------------------


def _key(placements: Sequence[Placement]) -> tuple:
    return tuple((p.card.label, p.center, p.angle_deg, p.width_px) for p in placements)


class _Renderer:
    """Renders frames of one table, reusing the composed cards while they lie still."""

    def __init__(self, cond: Conditions, size: Size, seed: int,
                 glare_at: list[tuple[float, float]] | None, style: Edition):
        self.cond, self.size, self.seed, self.glare_at = cond, size, seed, glare_at
        self.style = style
        self.layers: dict[tuple, _Layer] = {}
        self.still: tuple[tuple, np.ndarray] | None = None

    def frame(self, placements: list[Placement], hands: Sequence[HandPose], index: int
              ) -> np.ndarray:
        key = _key(placements)
        rng = np.random.default_rng([self.seed, index])
        if not hands and self.still is not None and self.still[0] == key:
            image = self.still[1]  # the table lies still: only the sensor noise is new
        else:
            layer = self.layers.get(key)
            if layer is None:
                if len(self.layers) >= 2:
                    self.layers.pop(next(iter(self.layers)))
                layer = _compose_cards(placements, self.cond, self.size, self.seed,
                                       self.style)
                self.layers[key] = layer
            scene = render_scene(placements, self.cond, self.size, self.seed, self.style,
                                 hand_poses=hands, glare_at=self.glare_at, layer=layer)
            image = _optics(scene.image, self.cond, np.random.default_rng(self.seed))
            if not hands:
                self.still = (key, image)
        return _sensor(image.copy(), self.cond, rng)


def _action_json(action: Action) -> dict:
    if isinstance(action, Reveal):
        return {"action": "reveal", "card": action.card.label}
    if isinstance(action, Place):
        return {"action": "place", "seat": action.seat, "card": action.card.label}
    if isinstance(action, Lay):
        return {"action": "lay", "seat": action.seat, "card": action.card.label}
    if isinstance(action, ClearSeat):
        return {"action": "clear_seat", "seat": action.seat}
    if isinstance(action, Pause):
        return {"action": "pause", "seconds": action.seconds}
    if isinstance(action, LayAt):
        return {"action": "lay_at", "area": action.area, "slot": action.slot,
                "card": action.card.label}
    if isinstance(action, Take):
        return {"action": "take", "area": action.area,
                "slots": list(action.slots) if action.slots is not None else None}
    return {"action": "clear_trick" if isinstance(action, ClearTrick) else "clear_round"}


def _digest(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:20]


def render_footage(actions: Sequence[Action], n_seats: int, out_dir: str | Path, fps: float = 10,
                   seed: int = 0, cond: Conditions | None = None, size: Size = (1280, 720),
                   hold_s: float = 1.0, hand_s: float = 1.0, *, lead_in_s: float = 1.0,
                   card_px: float | None = None, jpeg_quality: int = 90,
                   style: Edition = DEFAULT_STYLE,
                   progress: Callable[[int, int], None] | None = None,
                   areas: Areas | None = None) -> Path:
    """Write a whole game as frames + zones.json + truth.jsonl into out_dir; returns out_dir.

    Deterministic for a seed; skipped when out_dir already holds footage of the same inputs.
    `cond.hands` is ignored (the actions bring their own hands); `cond.jpeg_quality`, if set,
    replaces `jpeg_quality` for the written frames; `style` prints the deck in another edition.
    At `fps` frames a second: lead_in_s of empty table, then per action hand_s of a hand coming
    in and out (the card appears, or vanishes, under it at mid-time), hold_s of a still table.
    `progress(done, total)` hears of every action drawn (not called for footage already there).
    `areas`: the table's named areas (the scoring row too, where one is named "scoring").
    """
    out = Path(out_dir)
    cond = cond if cond is not None else Conditions(light_gradient=0.35, noise=2.0)
    if fps <= 0 or hold_s < 0 or hand_s <= 0 or lead_in_s < 0:
        raise SimError("fps and hand_s must be positive, hold_s and lead_in_s not negative")
    quality = cond.jpeg_quality or jpeg_quality
    cond = replace(cond, hands=0, jpeg_quality=None)
    parts: tuple = (FOOTAGE_VERSION, [_action_json(a) for a in actions], n_seats, fps, seed,
                    cond, size, hold_s, hand_s, lead_in_s, card_px, quality, style)
    designs = sorted({repr(a.card.design) for a in actions if isinstance(a, Lay | LayAt)})
    if designs:  # cards of other decks: their designs too (Tightrope's digest is as it was)
        parts = (*parts, designs)
    if areas:
        parts = (*parts, sorted(areas.items()))
    digest = _digest(*parts)
    stamp = out / ".footage"
    if stamp.is_file() and stamp.read_text().strip() == digest:
        return out
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("frame_*.jpg"):
        old.unlink()
    w, h = size
    rng = np.random.default_rng([seed, 1])
    table = _Table(n_seats, size, rng, card_px or CARD_FRACTION * w, areas)
    layout = table_layout(n_seats, size, areas)
    hom = flat_to_frame(cond, size, seed)
    (out / "zones.json").write_text(json.dumps(_frame_layout(layout, hom)) + "\n")
    glare_at = [(float(rng.uniform(0.1, 0.9) * w), float(rng.uniform(0.1, 0.9) * h))
                for _ in range(cond.glare)]
    renderer = _Renderer(cond, size, seed, glare_at, style)
    params = [cv2.IMWRITE_JPEG_QUALITY, int(quality)]
    index = 0

    def emit(placements: list[Placement], hands: Sequence[HandPose]) -> None:
        nonlocal index
        img = renderer.frame(placements, hands, index)
        cv2.imwrite(str(out / f"frame_{index:06d}.jpg"), img, params)
        index += 1

    n_hand = max(2, round(hand_s * fps))
    n_hold = round(hold_s * fps)
    for _ in range(round(lead_in_s * fps)):
        emit([], [])
    lines = []
    for done_actions, action in enumerate(actions):
        if progress is not None:
            progress(done_actions, len(actions))
        if isinstance(action, Pause):  # the table as it lies, still
            for _ in range(round(action.seconds * fps)):
                emit([c.placement for c in table.cards], [])
            continue
        before = [c.placement for c in table.cards]
        target, origin = table.apply(action)
        after = [c.placement for c in table.cards]
        entry = table.entry_for(origin, target)
        # the palm lies flat over the card as it lays it down: fingertips reach past the card
        way = np.subtract(target, entry)
        target = tuple(np.add(target, way / max(1e-6, float(np.hypot(*way))) * 1.5
                              * table.card_px))
        hand = HandPose(entry=entry, tip=target, palm_px=1.5 * table.card_px,
                        skin=SKINS[seed % len(SKINS)], sleeve=SLEEVES[seed % len(SLEEVES)],
                        right=bool(rng.random() < 0.8), curl=float(rng.uniform(0.1, 0.5)))
        for j in range(n_hand):
            u = (j + 0.5) / n_hand
            tip = _tip_at(entry, target, u)
            # the shutter is open for about a third of the frame interval: a moving hand smears
            smear = np.subtract(tip, _tip_at(entry, target, u - 1.0 / n_hand)) * EXPOSURE_FRACTION
            emit(after if u >= 0.5 else before,
                 [replace(hand, tip=tip, blur=(float(smear[0]), float(smear[1])))])
        done = index
        for _ in range(max(1, n_hold)):
            emit(after, [])
        lines.append({**_action_json(action), "frame": done,
                      "table": _table_truth(table, hom)})
    with open(out / "truth.jsonl", "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    stamp.write_text(digest + "\n")
    return out


def _tip_at(entry: tuple[float, float], target: tuple[float, float], u: float
            ) -> tuple[float, float]:
    """Fingertips at phase u (0..1) of a reach: in fast, linger at the card, out again."""
    reach = math.sin(math.pi * min(1.0, max(0.0, u))) ** 0.5
    return (entry[0] + (target[0] - entry[0]) * reach, entry[1] + (target[1] - entry[1]) * reach)


def _table_truth(table: _Table, hom: np.ndarray) -> list[dict]:
    rows = []
    for c in table.cards:
        pts = np.vstack([card_corners(c.placement), [c.placement.center]]).astype(np.float64)
        proj = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), hom).reshape(-1, 2)
        quad, centre = proj[:4], proj[4]
        rows.append({"label": c.placement.card.label, "zone": c.zone,
                     "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in quad],
                     "center": [round(float(centre[0]), 2), round(float(centre[1]), 2)]})
    return rows
