"""The zones file: one polygon per seat (clockwise = game-record seat order) and the scoring row,
and optionally named places (the solo game's pyramid spots and its deck).

Format (docs/config.md): ``{"seats": [[[x, y], ...], ...], "scoring": [[x, y], ...]}`` in frame
pixels, and optionally ``"places": {"NAME": [[x, y], ...], ...}``: a file without places reads
as before.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

Zone = int | str | None


class ZonesError(ValueError):
    """A zones file or dict that is not valid."""


def _polygon(raw: object, what: str) -> np.ndarray:
    try:
        poly = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ZonesError(f"{what}: not a list of [x, y] points") from exc
    if poly.ndim != 2 or poly.shape[1] != 2 or poly.shape[0] < 3:
        raise ZonesError(f"{what}: a polygon needs at least 3 [x, y] points")
    if not np.all(np.isfinite(poly)):
        raise ZonesError(f"{what}: coordinates must be finite numbers")
    if abs(cv2.contourArea(poly.astype(np.float32))) < 1.0:
        raise ZonesError(f"{what}: polygon has no area")
    return poly.astype(np.float32)


@dataclass(frozen=True)
class Zones:
    seats: tuple[np.ndarray, ...]
    scoring: np.ndarray
    places: tuple[tuple[str, np.ndarray], ...] = ()  # (name, polygon): a place of a game's own

    @classmethod
    def from_dict(cls, data: object) -> Zones:
        if not isinstance(data, dict):
            raise ZonesError("zones: expected a JSON object with 'seats' and 'scoring'")
        extra = set(data) - {"seats", "scoring", "places"}
        if extra:
            raise ZonesError(f"zones: unknown key(s) {sorted(extra)}")
        seats = data.get("seats")
        if not isinstance(seats, list) or not 1 <= len(seats) <= 8:
            raise ZonesError("zones: 'seats' must be a list of 1..8 polygons")
        if "scoring" not in data:
            raise ZonesError("zones: 'scoring' polygon is missing")
        polys = tuple(_polygon(p, f"zones: seat {i}") for i, p in enumerate(seats))
        return cls(seats=polys, scoring=_polygon(data["scoring"], "zones: scoring"),
                   places=_places(data.get("places", {})))

    def to_dict(self) -> dict:
        out: dict = {
            "seats": [[[float(x), float(y)] for x, y in p] for p in self.seats],
            "scoring": [[float(x), float(y)] for x, y in self.scoring],
        }
        if self.places:
            out["places"] = {name: [[float(x), float(y)] for x, y in p]
                             for name, p in self.places}
        return out

    def zone_of(self, point: tuple[float, float]) -> Zone:
        """Seat index, "scoring", a place's name or None. The scoring row wins where polygons
        overlap, then a place (it lies within a seat's sector), then a seat."""
        pt = (float(point[0]), float(point[1]))
        if cv2.pointPolygonTest(self.scoring, pt, False) >= 0:
            return "scoring"
        for name, poly in self.places:
            if cv2.pointPolygonTest(poly, pt, False) >= 0:
                return name
        for i, poly in enumerate(self.seats):
            if cv2.pointPolygonTest(poly, pt, False) >= 0:
                return i
        return None

    @property
    def n_seats(self) -> int:
        return len(self.seats)


def _places(raw: object) -> tuple[tuple[str, np.ndarray], ...]:
    """The optional named places: a name (not the row's) and its polygon each; a place's name
    is text, so "3" names a place, never seat 3."""
    if not isinstance(raw, dict):
        raise ZonesError("zones: 'places' must be an object of name: polygon")
    out = []
    for name, poly in raw.items():
        if not name or name == "scoring":
            raise ZonesError(f"zones: {name!r} cannot name a place (it is the row's name)")
        out.append((name, _polygon(poly, f"zones: place {name}")))
    return tuple(out)


def load_zones(path: str | Path) -> Zones:
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ZonesError(f"zones file {p}: cannot read ({exc.strerror or exc})") from exc
    except json.JSONDecodeError as exc:
        raise ZonesError(f"zones file {p}: not valid JSON (line {exc.lineno})") from exc
    return Zones.from_dict(data)


def save_zones(zones: Zones, path: str | Path) -> None:
    Path(path).write_text(json.dumps(zones.to_dict()) + "\n", encoding="utf-8")


def as_zones(zones: Zones | dict | str | Path | None) -> Zones | None:
    """Accept a Zones, a zones dict, a path to a zones file, or None."""
    if zones is None or isinstance(zones, Zones):
        return zones
    if isinstance(zones, dict):
        return Zones.from_dict(zones)
    return load_zones(zones)
