"""Camera set-up from a phone: the deck-teach wizard and the zones drawn on a snapshot."""

from __future__ import annotations

import json
import math
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template

from companion.games.base import GameSpec

from .guard import BadInput, NotFound, Refused, host_only, is_host, json_body, text

bp = Blueprint("camera_setup", __name__)

# the teach-folder names (docs/teach.md), in the order the wizard asks for them.
TEACH_CARDS = ([f"number-{n}" for n in range(1, 51)] + [f"scoring-{v}" for v in range(1, 10)]
               + ["scoring-0-blue", "scoring-0-red"])
MAX_COORD = 10_000
MAX_POINTS = 64


def ctx() -> Any:
    return current_app.extensions["tightrope"]


def teach_label(name: str) -> str:
    kind, _, rest = name.partition("-")
    if kind == "number":
        return f"number card {rest}"
    if rest.startswith("0-"):
        return f"the {rest[2:]} 0 scoring card"
    return f"scoring card {rest}"


@dataclass
class TeachJob:
    """The one teach run at a time (it takes minutes on a Pi): its state for the page."""

    running: bool = False
    result: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def to_json(self) -> dict[str, Any]:
        return {"running": self.running, "result": self.result}


def snapshot() -> bytes:
    camera = ctx().camera
    if camera is None:
        raise NotFound("no camera is connected")
    data = camera.snapshot_jpeg()
    if not data:
        raise NotFound("the camera has no frame yet")
    return data


@bp.get("/camera.jpg")
def camera_jpg() -> Response:
    response = Response(snapshot(), mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/api/camera/cards")
def camera_cards() -> Response:
    """The cards the camera sees now, read, in frame px (`recognize --json`'s cards)."""
    see = ctx().cards_in_view
    if see is None or ctx().camera is None:
        raise NotFound("no camera is connected")
    return jsonify({"cards": see()})


# --- the teach wizard ---------------------------------------------------------------------------


def teach_dir() -> Path:
    folder = ctx().teach_dir
    if folder is None:
        raise NotFound("no teach folder is configured")
    return folder


def captured() -> list[str]:
    folder = ctx().teach_dir
    if folder is None or not folder.is_dir():
        return []
    return [name for name in TEACH_CARDS if (folder / f"{name}.png").is_file()]


@bp.get("/setup/teach")
def teach_page() -> str:
    c = ctx()
    return render_template("teach.html", page="setup", cards=TEACH_CARDS,
                           labels=[teach_label(n) for n in TEACH_CARDS], done=captured(),
                           camera=c.camera is not None, teach_dir=c.teach_dir, host=is_host(),
                           job=c.teach_job.to_json())


@bp.get("/api/teach")
def teach_status() -> Response:
    return jsonify({"done": captured(), "total": len(TEACH_CARDS),
                    "job": ctx().teach_job.to_json()})


@bp.post("/api/teach/capture")
@host_only
def teach_capture() -> Response:
    body = json_body({"name"})
    name = text(body, "name", 32, required=True)
    if name not in TEACH_CARDS:
        raise BadInput(f"{name!r} is not a card of the deck (e.g. number-17, scoring-0-red)")
    folder = teach_dir()
    import cv2
    import numpy as np

    image = cv2.imdecode(np.frombuffer(snapshot(), np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise Refused("the camera frame cannot be decoded")
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{name}.tmp.png"
    if not cv2.imwrite(str(tmp), image):
        raise Refused(f"cannot write {folder / name}.png")
    os.replace(tmp, folder / f"{name}.png")
    return jsonify({"ok": True, "name": name, "done": len(captured()),
                    "total": len(TEACH_CARDS)})


@bp.post("/api/teach/run")
@host_only
def teach_run() -> Response:
    json_body(set())
    folder = teach_dir()
    missing = [n for n in TEACH_CARDS if n not in set(captured())]
    if missing:
        raise Refused(f"{len(missing)} card photos are missing, first: {missing[0]}")
    teach_main = ctx().teach
    if teach_main is None:
        raise Refused("this companion cannot learn a deck (it has no card reader)")
    job: TeachJob = ctx().teach_job
    deck = folder.parent / "deck.npz"
    with job.lock:
        if job.running:
            raise Refused("teaching is already running")
        job.running, job.result = True, ""

    taught = ctx().on_deck_taught

    def work() -> None:
        try:
            code = teach_main(str(folder), str(deck))
            if code == 0 and taught is not None:
                taught(deck)
            job.result = ("the deck is learned: the camera reads it from now on"
                          if code == 0 else f"teach failed (exit code {code}); see the log")
        except Exception as err:  # noqa: BLE001 - the page must learn what happened
            job.result = f"teach failed: {err}"
        finally:
            job.running = False

    threading.Thread(target=work, name="teach", daemon=True).start()
    return jsonify({"ok": True, "job": job.to_json()})


# --- what the table taught -----------------------------------------------------------------------


def lessons() -> Any:
    found = ctx().lessons
    if found is None:
        raise NotFound("this companion keeps no corrections (no camera)")
    return found


@bp.get("/api/corrections")
def corrections() -> Response:
    """How many cards people named at the table are kept to join the deck."""
    return jsonify(lessons().summary())


@bp.post("/api/corrections/forget")
@host_only
def forget_corrections() -> Response:
    """Delete the kept crops; a deck that learned them is fitted again without them."""
    json_body(set())
    kept = lessons()
    if kept.busy:
        raise Refused(f"the corrections are {kept.busy} now: try again in a minute")
    kept.forget()
    return jsonify({"ok": True, **kept.summary()})


# --- zones --------------------------------------------------------------------------------------


def polygon(raw: Any, what: str) -> list[list[float]]:
    if not isinstance(raw, list) or not 3 <= len(raw) <= MAX_POINTS:
        raise BadInput(f"{what} needs 3 to {MAX_POINTS} points")
    points = []
    for point in raw:
        if (not isinstance(point, list) or len(point) != 2
                or any(isinstance(v, bool) or not isinstance(v, int | float) for v in point)):
            raise BadInput(f"{what}: each point is [x, y] in pixels")
        x, y = float(point[0]), float(point[1])
        if not (math.isfinite(x) and math.isfinite(y) and 0 <= x <= MAX_COORD
                and 0 <= y <= MAX_COORD):
            raise BadInput(f"{what}: point {point} is outside the frame")
        points.append([round(x, 1), round(y, 1)])
    if abs(_area(points)) < 1.0:
        raise BadInput(f"{what}: the polygon has no area")
    return points


def _count(seats: range) -> str:
    return "1 polygon" if seats == range(1, 2) else f"{seats[0]} to {seats[-1]} polygons"


def _places(raw: object, spec: GameSpec) -> dict[str, list[list[float]]]:
    """Named places: {name: polygon}; a name is short text and not the row's ("scoring"), and
    one of the game's own where the game in play names its places."""
    if not isinstance(raw, dict):
        raise BadInput("places must be an object of name: polygon")
    known = [name for name, _ in spec.places]
    for name in raw:
        if not name.strip() or len(name) > 20 or name == "scoring":
            raise BadInput(f"{name!r} cannot name a place (1 to 20 characters, not 'scoring')")
        if known and name not in known:
            raise BadInput(f"{name!r} is no place of {spec.title}: one of {', '.join(known)}"[:120])
    return {name: polygon(p, f"place {name}") for name, p in raw.items()}


def _saved_places(path: Path) -> dict[str, Any]:
    """The places of the zones file as saved (none where it is missing or unreadable)."""
    try:
        places = json.loads(path.read_text(encoding="utf-8")).get("places", {})
    except (OSError, ValueError, AttributeError):
        return {}
    return places if isinstance(places, dict) else {}


def _area(points: list[list[float]]) -> float:
    return 0.5 * sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2)
                     in zip(points, points[1:] + points[:1], strict=True))


@bp.get("/setup/zones")
def zones_page() -> str:
    c = ctx()
    current = None
    if c.zones_path is not None and c.zones_path.is_file():
        try:
            current = json.loads(c.zones_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            current = None
    game, spec = c.referee.game, c.referee.spec
    seats = list(game.players) if game else []
    return render_template("zones.html", page="setup", camera=c.camera is not None,
                           current=current, seats=seats, seat_choices=list(spec.seats),
                           places=[list(p) for p in spec.places], row=spec.row,
                           game=spec.title, host=is_host(), path=c.zones_path)


@bp.post("/api/zones")
@host_only
def save_zones() -> Response:
    """The seat zones and the scoring row (of as many seats as the game in play seats), and
    the named places of a game that has them (the solo game's spots): without "places", the
    file's own places are kept."""
    body = json_body({"seats", "scoring", "places"})
    seats, allowed = body.get("seats"), ctx().referee.spec.seats
    if not isinstance(seats, list) or len(seats) not in allowed:
        raise BadInput(f"seats must be {_count(allowed)}, in clockwise seat order")
    path: Path | None = ctx().zones_path
    if path is None:
        raise NotFound("no zones file is configured")
    zones: dict[str, Any] = {"seats": [polygon(p, f"seat {i}") for i, p in enumerate(seats)],
                             "scoring": polygon(body.get("scoring"), "scoring row")}
    places = _places(body["places"], ctx().referee.spec) if "places" in body \
        else _saved_places(path)
    if places:
        zones["places"] = places
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(zones), encoding="utf-8")
    os.replace(tmp, path)
    saved = ctx().on_zones_saved
    if saved is not None:
        saved()  # the camera watches with them from the next frame
    return jsonify({"ok": True, "path": str(path), "zones": zones})
