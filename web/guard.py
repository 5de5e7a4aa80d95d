"""Who may write, and what a write may say: the CSRF (Origin) check, the host PIN, and input
validation that turns bad input into one clear message."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from flask import current_app, request, session

from .auth import PinStore


class BadInput(ValueError):
    """Input a person or a page sent that cannot be used (HTTP 400)."""


class Forbidden(ValueError):
    """No PIN, wrong PIN, or a cross-site request (HTTP 403)."""


class NotFound(ValueError):
    """No such game, photo or file (HTTP 404)."""


class Refused(ValueError):
    """The referee (the rules) refused the change (HTTP 409)."""


def pins() -> PinStore:
    return current_app.extensions["tightrope"].pins


def check_origin() -> None:
    """Refuse a state-changing request that a page of another site could have sent.

    Browsers always send Origin on a POST; its host:port must be the Host this request went to.
    Without Origin, a Referer of this host will do (old browsers); without either, refuse.
    """
    host = request.host
    origin = request.headers.get("Origin")
    if origin is not None:
        if origin == "null" or urlsplit(origin).netloc != host:
            raise Forbidden(f"cross-site request refused (Origin {origin} is not {host})")
        return
    referer = request.headers.get("Referer")
    if referer is None:
        raise Forbidden("request refused: no Origin header (send Origin: http://" + host + ")")
    if urlsplit(referer).netloc != host:
        raise Forbidden("cross-site request refused (Referer is another site)")


def is_host() -> bool:
    """The request carries the host PIN (X-Host-Pin header) or a logged-in session."""
    store = pins()
    if session.get("host") and session.get("pin_epoch") == store.epoch():
        return True
    header = request.headers.get("X-Host-Pin")
    return header is not None and store.check(header)


def login(pin: object) -> None:
    store = pins()
    if not store.is_set():
        raise Forbidden("no host PIN is set yet: set one on the Setup page")
    if store.locked_for() > 0:
        raise Forbidden(f"too many wrong PINs: wait {math.ceil(store.locked_for())} s")
    if not store.check(pin):
        raise Forbidden("wrong PIN")
    session["host"] = True
    session["pin_epoch"] = store.epoch()
    session.permanent = True


def host_only(view: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for writes: Origin check, then the host PIN."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        check_origin()
        if not is_host():
            store = pins()
            if not store.is_set():
                raise Forbidden("no host PIN is set yet: set one on the Setup page")
            if store.locked_for() > 0:
                raise Forbidden(f"too many wrong PINs: wait {math.ceil(store.locked_for())} s")
            raise Forbidden("this needs the host PIN")
        return view(*args, **kwargs)

    return wrapped


# --- validation -------------------------------------------------------------------------------


def json_body(allowed: set[str]) -> dict[str, Any]:
    """The request's JSON object, with no keys outside `allowed`."""
    if not request.is_json:
        raise BadInput("send JSON (Content-Type: application/json)")
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise BadInput("the body must be a JSON object")
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise BadInput(f"unknown field {unknown[0]!r}")
    return body


def whole(body: dict[str, Any], key: str, lo: int, hi: int, what: str | None = None) -> int:
    what = what or key
    if key not in body:
        raise BadInput(f"{what} is missing")
    value = body[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(f"{what} must be a whole number, not {value!r}"[:120])
    if not lo <= value <= hi:
        raise BadInput(f"{what} {value} is out of range {lo}..{hi}")
    return value


def text(body: dict[str, Any], key: str, max_len: int, *, required: bool = False) -> str:
    value = body.get(key, "")
    if not isinstance(value, str):
        raise BadInput(f"{key} must be text")
    if required and not value.strip():
        raise BadInput(f"{key} is missing")
    if len(value) > max_len:
        raise BadInput(f"{key} is longer than {max_len} characters")
    if any(ord(c) < 32 and c not in "\t" for c in value):
        raise BadInput(f"{key} holds control characters")
    return value.strip()


def flag(body: dict[str, Any], key: str) -> bool:
    value = body.get(key, False)
    if not isinstance(value, bool):
        raise BadInput(f"{key} must be true or false")
    return value
