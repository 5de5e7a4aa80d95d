"""The Host header: well-formed before anything reads it, and one of this Pi's own names before
a write is taken (a DNS-rebinding page reaches the Pi under a name of its own; the name in its
Origin then matches the Host, but the name is not the Pi's)."""

from __future__ import annotations

import ipaddress
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"  # at most 63 characters
_HOST = re.compile(rf"(?:{_LABEL}(?:\.{_LABEL})*\.?|\[[0-9A-Fa-f:.]{{2,45}}\])(?::[0-9]{{1,5}})?")
MAX_HOST = 260  # 253 for the name, a port
FIXED = {"localhost", "127.0.0.1", "::1"}
REFRESH_S = 5.0  # a name not known is looked up again at most this often (DHCP may change it)


def well_formed(host: str) -> bool:
    return len(host) <= MAX_HOST and _HOST.fullmatch(host) is not None


class HostCheck:
    """WSGI middleware: a request whose Host header is not a host name or address (a label
    over 63 characters, spaces, other characters) is answered 400 before Flask parses it."""

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        host = environ.get("HTTP_HOST")
        if host is None or well_formed(host):
            return self.app(environ, start_response)
        body = json.dumps({"error": "the Host header is not a host name"}).encode()
        start_response("400 Bad Request", [("Content-Type", "application/json"),
                                           ("Content-Length", str(len(body)))])
        return [body]


def name_of(host: str) -> str:
    """The name or address of a Host header, without its port, lower case."""
    if host.startswith("["):
        return host[1:host.find("]")].lower()
    return host.rsplit(":", 1)[0].rstrip(".").lower()


class HostNames:
    """This Pi's names: localhost, its hostname (and hostname.local), every address of its
    network interfaces, and the names given in the config (web.allowed_hosts)."""

    def __init__(self, extra: Iterable[str] = (), clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self.extra = {h.strip("[]").rstrip(".").lower() for h in extra}
        self._clock = clock
        self._lock = threading.Lock()
        self._own: set[str] = set()
        self._looked = -REFRESH_S

    def allowed(self, host: str) -> bool:
        name = name_of(host)
        if name in FIXED or name in self.extra or _loopback(name):
            return True
        with self._lock:
            if name not in self._own and self._clock() - self._looked >= REFRESH_S:
                self._own, self._looked = own_names(), self._clock()
            return name in self._own


def _loopback(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def own_names() -> set[str]:
    hostname = socket.gethostname().lower()
    return {hostname, f"{hostname}.local", *interface_addresses()}


def interface_addresses(proc: Path = Path("/proc/net")) -> set[str]:
    """Every local IPv4 address (the kernel's routing trie) and IPv6 address (if_inet6)."""
    found: set[str] = set()
    try:
        last = ""
        for line in (proc / "fib_trie").read_text().splitlines():
            text = line.strip()
            if text.startswith(("|--", "+--")):
                last = text[3:].split()[0]
            elif text.startswith("/32 host LOCAL") and last:
                found.add(last)
    except OSError:
        pass
    try:
        for line in (proc / "if_inet6").read_text().splitlines():
            raw = line.split()[0]
            found.add(str(ipaddress.IPv6Address(bytes.fromhex(raw))))
    except (OSError, ValueError, IndexError):
        pass
    return found
