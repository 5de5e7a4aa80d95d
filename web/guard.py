"""Who may write, and what a write may say: the CSRF (Origin) check, the host PIN, the request
id that makes a retried write safe, and input validation that turns bad input into one clear
message."""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import json
import math
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from flask import Response, current_app, g, request, session

from .auth import PinStore
from .hosts import HostNames

MAX_DEPTH = 16  # JSON nesting: the deepest body (zones) needs 4
REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,100}")


class BadInput(ValueError):
    """Input a person or a page sent that cannot be used (HTTP 400)."""


class Forbidden(ValueError):
    """No PIN, wrong PIN, or a cross-site request (HTTP 403)."""


class NotFound(ValueError):
    """No such game, photo or file (HTTP 404)."""


class Refused(ValueError):
    """The referee (the rules) refused the change (HTTP 409)."""


class Unavailable(ValueError):
    """The change was not applied and may be sent again (HTTP 503: the referee did not take it
    in time, or the game could not be stored)."""

    retry_after = 2


class Locked(Forbidden):
    """Too many wrong PINs from this client (HTTP 403 with Retry-After)."""

    def __init__(self, seconds: float) -> None:
        self.retry_after = max(1, math.ceil(seconds))
        super().__init__(f"too many wrong PINs: wait {self.retry_after} s")


def ctx() -> Any:
    return current_app.extensions["tightrope"]


def pins() -> PinStore:
    return ctx().pins


def client() -> str:
    """Who is asking, for the PIN lock-out and the stream cap: the remote address; for IPv6 its
    /64 network (one device may take any number of addresses in it)."""
    address = request.remote_addr or ""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        if not ip.is_loopback:
            return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return address


def check_origin() -> None:
    """Refuse a state-changing request that a page of another site could have sent.

    The Host must be one of this Pi's own names (HostNames), and the page's Origin (old
    browsers: the Referer) must be exactly this scheme, host and port; without either, refuse.
    """
    host = request.host
    own = f"{request.scheme}://{host}".lower()
    names: HostNames = ctx().host_names
    if not names.allowed(host):
        raise Forbidden(f"request refused: {host} is not a name of this companion "
                        "(add it to web.allowed_hosts in the config)")
    origin = request.headers.get("Origin")
    if origin is not None:
        if origin.lower() != own:
            raise Forbidden(f"cross-site request refused (Origin {origin} is not {own})"[:200])
        return
    referer = request.headers.get("Referer")
    if referer is None:
        raise Forbidden(f"request refused: no Origin header (send Origin: {own})")
    parts = urlsplit(referer)
    if f"{parts.scheme}://{parts.netloc}".lower() != own:
        raise Forbidden("cross-site request refused (Referer is another site)")


def is_host() -> bool:
    """The request carries the host PIN (X-Host-Pin header) or a logged-in session."""
    store = pins()
    if session.get("pin_epoch") == store.epoch() and store.sessions.valid(session.get("sid")):
        return True
    header = request.headers.get("X-Host-Pin")
    return header is not None and store.check(header, client())


def _refuse_if_locked(store: PinStore) -> None:
    seconds = store.locked_for(client())
    if seconds > 0:
        raise Locked(seconds)


def login(pin: object) -> None:
    store = pins()
    if not store.is_set():
        raise Forbidden("no host PIN is set yet: set one on the Setup page")
    _refuse_if_locked(store)
    if not store.check(pin, client()):
        _refuse_if_locked(store)  # this guess was the one that locked it
        raise Forbidden("wrong PIN")
    logout()
    session["sid"] = store.sessions.open()
    session["pin_epoch"] = store.epoch()
    session.permanent = True


def logout() -> None:
    """End this browser's session on the server too: a copy of its cookie stops working."""
    pins().sessions.close(session.get("sid"))
    session.clear()


def host_only(view: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for writes: Origin check, then the host PIN, then the request id."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        check_origin()
        if not is_host():
            store = pins()
            if not store.is_set():
                raise Forbidden("no host PIN is set yet: set one on the Setup page")
            _refuse_if_locked(store)
            raise Forbidden("this needs the host PIN")
        replies: Replies = ctx().replies
        return replies.once(request_id(), _fingerprint(), lambda: _answer(view, args, kwargs))

    return wrapped


# --- request ids: a write sent again is answered, not applied again ---------------------------


def request_id() -> str | None:
    """The write's id: the X-Request-Id header or the body's "request_id" (both: the same)."""
    header = request.headers.get("X-Request-Id")
    field_ = body().get("request_id") if request.is_json else None
    if header is not None and field_ is not None and header != field_:
        raise BadInput("X-Request-Id and request_id differ")
    rid = header if header is not None else field_
    if rid is not None and (not isinstance(rid, str) or not REQUEST_ID.fullmatch(rid)):
        raise BadInput("a request id is 1 to 100 letters, digits or . _ : -")
    return rid


def _fingerprint() -> str:
    what = f"{request.method} {request.path}\n".encode() + request.get_data(cache=True)
    return hashlib.sha256(what).hexdigest()


def _answer(view: Callable[..., Any], args: Any, kwargs: Any) -> Response:
    """The view's response, or the one its error handler gives (so it can be kept)."""
    app = current_app
    try:
        return app.make_response(view(*args, **kwargs))
    except Exception as err:  # noqa: BLE001 - our errors become their 4xx answers; others re-raise
        return app.make_response(app.handle_user_exception(err))


@dataclass
class _Reply:
    fingerprint: str
    at: float
    done: threading.Event = field(default_factory=threading.Event)
    kept: tuple[int, bytes, str | None] | None = None  # status, body, mimetype


class Replies:
    """The answers to recent writes by request id. A write sent again with the same id (a
    retry after a lost answer, a double tap) waits for the first one and gets its answer; only
    a 5xx answer (nothing was applied) lets the same id run again."""

    def __init__(self, keep: int = 512, keep_s: float = 600.0) -> None:
        self._lock = threading.Lock()
        self._replies: OrderedDict[str, _Reply] = OrderedDict()
        self._keep, self._keep_s = keep, keep_s

    def once(self, rid: str | None, fingerprint: str, run: Callable[[], Response]) -> Response:
        if rid is None:
            return run()
        while True:
            with self._lock:
                self._forget_old()
                reply = self._replies.get(rid)
                if reply is None:
                    reply = self._replies[rid] = _Reply(fingerprint, time.monotonic())
                    break
            if reply.fingerprint != fingerprint:
                raise BadInput(f"request id {rid} was already used for another write")
            reply.done.wait()
            if reply.kept is not None:
                status, data, mimetype = reply.kept
                response = Response(data, status, mimetype=mimetype)
                response.headers["X-Request-Replayed"] = "true"
                return response
        try:
            response = run()
            if response.status_code < 500:
                reply.kept = (response.status_code, response.get_data(), response.mimetype)
            return response
        finally:
            if reply.kept is None:
                with self._lock:
                    if self._replies.get(rid) is reply:
                        del self._replies[rid]
            reply.done.set()

    def _forget_old(self) -> None:
        cutoff = time.monotonic() - self._keep_s
        while self._replies:
            oldest = next(iter(self._replies.values()))
            if oldest.at >= cutoff and len(self._replies) < self._keep:
                break
            if not oldest.done.is_set():
                break  # still running: its duplicates wait for it
            self._replies.popitem(last=False)


# --- validation -------------------------------------------------------------------------------


def body() -> dict[str, Any]:
    """The request's JSON object, parsed once per request by this one parser for every route:
    a size limit (MAX_CONTENT_LENGTH, HTTP 413), a nesting limit, no NaN or Infinity."""
    if "json_body" in g:
        return g.json_body
    if not request.is_json:
        raise BadInput("send JSON (Content-Type: application/json)")
    try:
        value = json.loads(request.get_data(cache=True), parse_constant=_no_constant)
    except RecursionError:
        value = None
        depth_ok = False
    except ValueError:
        raise BadInput("the body is not valid JSON") from None
    else:
        depth_ok = _depth(value) <= MAX_DEPTH
    if not depth_ok:
        raise BadInput(f"the JSON is nested deeper than {MAX_DEPTH} levels")
    if not isinstance(value, dict):
        raise BadInput("the body must be a JSON object")
    g.json_body = value
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _depth(value: Any) -> int:
    """How deeply lists and objects nest (iterative: no recursion on hostile input)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if level <= MAX_DEPTH:
                todo.extend((v, level + 1) for v in (item.values() if isinstance(item, dict)
                                                     else item))
    return deepest


def json_body(allowed: set[str]) -> dict[str, Any]:
    """The request's JSON object, with no keys outside `allowed` (and the request id)."""
    body_ = body()
    unknown = sorted(set(body_) - allowed - {"request_id"})
    if unknown:
        raise BadInput(f"unknown field {unknown[0]!r}"[:120])
    return body_


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
