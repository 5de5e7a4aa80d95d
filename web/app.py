"""The web scoresheet: a Flask application factory with one blueprint per part.

`create_app` only reads the referee (its hub, its game) and the store, and sends the referee
commands; it never changes the game itself (the referee is the one state owner).
"""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from .auth import SESSION_S, PinBusy, PinError, PinStore
from .camera_setup import TeachJob
from .guard import BadInput, Forbidden, NotFound, Refused, Replies, Unavailable
from .hosts import HostCheck, HostNames

MAX_BODY = 64 * 1024  # the largest write (a zones file) is a few KB; the server refuses more
SSE_HEADROOM = 8  # server threads kept free for pages and writes while SSE streams hold others
STREAMS_PER_CLIENT = 8  # live streams one address may hold (a phone with a few tabs)


class ClientStreams:
    """Live streams per client address, so one device cannot hold every slot. The Pi itself
    (loopback: a local proxy, tests, benchmarks) is not capped."""

    def __init__(self, most: int = STREAMS_PER_CLIENT) -> None:
        self.most = most
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}

    def open(self, who: str) -> bool:
        with self._lock:
            count = self._open.get(who, 0)
            if count >= self.most and not _loopback(who):
                return False
            self._open[who] = count + 1
            return True

    def close(self, who: str) -> None:
        with self._lock:
            count = self._open.pop(who, 1) - 1
            if count > 0:
                self._open[who] = count


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


@dataclass
class WebContext:
    referee: Any
    store: Any
    photo_dir: Path
    pins: PinStore
    camera: Any = None
    teach_dir: Path | None = None
    zones_path: Path | None = None
    on_zones_saved: Any = None   # () -> None: the companion watches with the new zones
    on_deck_taught: Any = None   # (deck path) -> None: the companion reads with the new deck
    teach: Any = None            # (photo folder, deck path) -> exit code: learn a deck
    cards_in_view: Any = None    # () -> [card JSON]: what the camera sees now (zones page)
    join_urls: Any = None        # () -> [url]: where phones open this page (Setup's QR code)
    lessons: Any = None          # companion.lessons.Lessons: the cards the table taught
    max_streams: int = 64
    heartbeat: float = 15.0
    call_timeout: float = 10.0
    stopping: threading.Event = field(default_factory=threading.Event)
    teach_job: TeachJob = field(default_factory=TeachJob)
    host_names: HostNames = field(default_factory=HostNames)
    replies: Replies = field(default_factory=Replies)
    client_streams: ClientStreams = field(default_factory=ClientStreams)

    def __post_init__(self) -> None:
        self.sse_slots = threading.BoundedSemaphore(self.max_streams)
        from .api import Encoded

        self.encoded = Encoded()


def create_app(referee: Any, store: Any, *, photo_dir: Path, pin_store: PinStore,
               camera: Any = None, teach_dir: Path | None = None, testing: bool = False,
               zones_path: Path | None = None, max_streams: int = 64,
               heartbeat: float = 15.0, on_zones_saved: Any = None,
               on_deck_taught: Any = None, cards_in_view: Any = None,
               allowed_hosts: Iterable[str] = (), join_urls: Any = None,
               lessons: Any = None, teach: Any = None) -> Flask:
    """The web app. `zones_path` defaults to zones.json in the data dir (photo_dir's parent);
    `max_streams` caps live SSE connections (keep it below the server's thread count);
    `allowed_hosts` are names of this Pi beyond its own (web.allowed_hosts)."""
    app = Flask(__name__)
    app.config.update(
        TESTING=testing,
        MAX_CONTENT_LENGTH=MAX_BODY,
        SECRET_KEY=pin_store.secret_key(),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        PERMANENT_SESSION_LIFETIME=timedelta(seconds=SESSION_S),
        JSON_SORT_KEYS=False,
    )
    app.url_map.merge_slashes = False  # "//etc/passwd" must reach the photo guard, not redirect
    app.wsgi_app = HostCheck(app.wsgi_app)  # type: ignore[method-assign]
    photo_dir = Path(photo_dir)
    app.extensions["tightrope"] = WebContext(
        referee, store, photo_dir, pin_store, camera=camera,
        teach_dir=Path(teach_dir) if teach_dir else None,
        zones_path=Path(zones_path) if zones_path else photo_dir.parent / "zones.json",
        on_zones_saved=on_zones_saved, on_deck_taught=on_deck_taught, teach=teach,
        cards_in_view=cards_in_view, join_urls=join_urls, lessons=lessons,
        max_streams=max_streams, heartbeat=heartbeat, host_names=HostNames(allowed_hosts),
    )
    from . import api, camera_setup, pages

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(api.events_bp)
    app.register_blueprint(camera_setup.bp)
    _errors(app)
    app.after_request(_security_headers)
    app.context_processor(lambda: {"pin_missing": _pin_missing(pin_store),
                                   "game_kind": _game_kind(referee)})
    return app


def _game_kind(referee: Any) -> str:
    """The kind of the game in play, or of the last one ("tightrope" when none): the pages name
    its parts (tricks, contests)."""
    spec = getattr(referee, "spec", None)
    return str(getattr(spec, "name", "tightrope"))


def _pin_missing(pin_store: PinStore) -> bool:
    """For the pages' "no PIN yet" note; a PIN file damaged while running must not stop the
    pages being read (writes then say what is wrong with it)."""
    try:
        return not pin_store.is_set()
    except PinError:
        return False


def stop_streams(app: Flask) -> None:
    """End every live SSE stream within a second (server shutdown)."""
    app.extensions["tightrope"].stopping.set()


STATUS = {BadInput: 400, PinError: 400, Forbidden: 403, NotFound: 404, Refused: 409,
          PinBusy: 429, Unavailable: 503}


def _wants_json() -> bool:
    path = request.path
    return (path.startswith("/api/") or path.startswith("/events")
            or request.accept_mimetypes.best == "application/json")


def _error(message: str, status: int, retry_after: int | None = None) -> Any:
    if _wants_json():
        response = jsonify({"error": message})
        response.status_code = status
    else:
        response = Response(render_template("error.html", message=message, status=status),
                            status, mimetype="text/html")
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    return response


def _errors(app: Flask) -> None:
    for kind, status in STATUS.items():
        retry = 1 if kind is PinBusy else None
        app.register_error_handler(kind, lambda err, s=status, r=retry: _error(
            str(err), s, getattr(err, "retry_after", r)))

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(err: RequestEntityTooLarge) -> Any:
        return _error(f"the request body is larger than {MAX_BODY // 1024} KB", 413)

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException) -> Any:
        messages = {404: "no such page", 405: "that method is not allowed here"}
        return _error(messages.get(err.code or 0, err.description or err.name), err.code or 500)


def _security_headers(response: Response) -> Response:
    # Everything is served from here: no CDN, no inline scripts from elsewhere, no framing.
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "frame-ancestors 'none'",
    )
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response
