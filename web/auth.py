"""The host PIN: who may change the game from a phone.

Reading is open on the LAN; every write needs the host PIN. The PIN is never stored: only a
salted scrypt hash, in a file of the data dir (mode 0600) or preset from the config
(`web.pin_hash`, made with `python -m web.auth`). A correct PIN is remembered in memory as an
HMAC under a per-process key, so a phone that sends the PIN with every request does not pay
for scrypt each time (a Pi Zero takes ~0.3 s per hash).

Guessing is bounded before any hash runs: each client (remote address) may have five wrong
PINs, then its checks lock for 30 s, 60 s, 120 s ... (one client never locks out another), and
at most HASHERS hashes run at once, all on the same few threads (each hash takes 16 MiB, and
the memory a thread used stays with it) which give it back after each hash, so a burst of
guesses cannot exhaust the memory (bench/bench_hostile.py).
"""

from __future__ import annotations

import ctypes
import getpass
import hashlib
import hmac
import json
import os
import secrets
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEME = "scrypt"
N, R, P = 2**14, 8, 1  # 16 MiB of memory per hash: fine on a Pi Zero 2 W (512 MB)
PIN_MIN, PIN_MAX = 4, 12
MAX_FAILURES = 5  # consecutive wrong PINs of one client before its checks lock
LOCK_S = 30.0  # the first lock; each further one doubles, up to LOCK_MAX_S
LOCK_MAX_S = 15 * 60.0
HASHERS = 2  # hashes at once: 32 MiB (the service may use 300 MB: MemoryMax in its unit)
HASH_WAIT_S = 2.0  # how long a check waits for a free hasher before it is refused
MAX_CLIENTS = 4096  # clients whose guesses are remembered (the oldest are forgotten first)
SESSION_S = 7 * 24 * 3600.0  # a login lasts a week, or until logout or a new PIN
MAX_SESSIONS = 64


class PinError(ValueError):
    """A PIN that cannot be set or a hash that cannot be read; one line for a person."""


class PinBusy(ValueError):
    """Too many PIN checks at once (HTTP 429): nothing was checked, try again in a moment."""


def validate_pin(pin: object) -> str:
    if not isinstance(pin, str) or not pin.isascii() or not pin.isdigit():
        raise PinError("the PIN must be digits only")
    if not PIN_MIN <= len(pin) <= PIN_MAX:
        raise PinError(f"the PIN must have {PIN_MIN} to {PIN_MAX} digits")
    return pin


def hash_pin(pin: str, salt: bytes | None = None) -> str:
    """`scrypt$n$r$p$salt$hash` (hex) of a valid PIN."""
    validate_pin(pin)
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(pin.encode(), salt=salt, n=N, r=R, p=P, dklen=32)
    return f"{SCHEME}${N}${R}${P}${salt.hex()}${digest.hex()}"


def verify_hash(pin: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != SCHEME:
            raise ValueError
        expected = bytes.fromhex(digest)
        got = hashlib.scrypt(pin.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r),
                             p=int(p), dklen=len(expected), maxmem=64 * 1024 * 1024)
    except ValueError:
        raise PinError("the stored PIN hash is not a scrypt$n$r$p$salt$hash string") from None
    return hmac.compare_digest(got, expected)


@dataclass
class _Guesses:
    """One client's wrong PINs: counted before the hash runs, so a burst cannot outrun the lock."""

    failures: int = 0  # wrong PINs since the last lock or right PIN
    checking: int = 0  # hashes of this client running now (each may be one more failure)
    locks: int = 0  # locks in a row: each doubles the next
    locked_until: float = 0.0


class PinStore:
    """The hashed host PIN in `path` (or preset), its login sessions, and the lock-out of a
    client after wrong guesses."""

    def __init__(self, path: str | Path, preset_hash: str | None = None,
                 clock=time.monotonic) -> None:
        self.path = Path(path)
        self._preset = preset_hash or None
        if self._preset:
            verify_hash("0000", self._preset)  # a malformed preset fails now, not at a phone
        self._clock = clock
        self._lock = threading.RLock()
        self._checked = threading.Condition(self._lock)  # a client's check has ended
        self._key = secrets.token_bytes(32)
        self._good: set[bytes] = set()
        self._clients: dict[str, _Guesses] = {}
        self._hashers = ThreadPoolExecutor(HASHERS, thread_name_prefix="pin-hash")
        self._hash_slots = threading.BoundedSemaphore(HASHERS)
        self.sessions = Sessions(self.path.with_name(self.path.name + ".sessions"))
        self._stored()  # a damaged PIN file fails now, naming it, not at every write

    def _stored(self) -> str | None:
        if self._preset:
            return self._preset
        try:
            text = self.path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as err:
            raise PinError(f"cannot read the PIN file {self.path}: {err}") from None
        if text and not _well_formed(text):
            raise PinError(f"the PIN file {self.path} is damaged (not a scrypt hash): delete it "
                           "and set a new PIN on the Setup page")
        return text or None

    def is_set(self) -> bool:
        return self._stored() is not None

    def set_pin(self, pin: str) -> None:
        """Store a new PIN (callers check the old one or that none is set); every login ends."""
        if self._preset:
            raise PinError("the PIN is preset in the config file (web.pin_hash); change it there")
        text = self._hashed(hash_pin, pin)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(text + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path)
        with self._lock:
            self._good.clear()
        self.sessions.clear()

    def set_first(self, pin: str) -> None:
        """Set the PIN at first start: only while none is set."""
        with self._lock:  # two phones at first start: only the first one sets it
            if self.is_set():
                raise PinError("a PIN is already set: log in with it to change it")
            self.set_pin(pin)

    def epoch(self) -> str:
        """Changes whenever the PIN changes, so login sessions of an old PIN end with it."""
        stored = self._stored() or ""
        return hashlib.sha256(stored.encode()).hexdigest()[:16]

    def locked_for(self, client: str = "") -> float:
        """Seconds until `client`'s PIN checks are accepted again (0 when not locked)."""
        with self._lock:
            guesses = self._clients.get(client)
            return max(0.0, guesses.locked_until - self._clock()) if guesses else 0.0

    def check(self, pin: object, client: str = "") -> bool:
        """True for the right PIN. False for a wrong one, no PIN set, or while `client` is
        locked. PinBusy when too many checks run at once (nothing was checked)."""
        stored = self._stored()
        if stored is None or not isinstance(pin, str):
            return False
        mark = hmac.new(self._key, f"{stored}\0{pin}".encode(), hashlib.sha256).digest()
        give_up = time.monotonic() + HASH_WAIT_S
        with self._checked:  # check and count together: concurrent guesses cannot slip past
            while True:
                guesses = self._guesses(client)
                if guesses.locked_until > self._clock():
                    return False
                if mark in self._good:
                    self._clients.pop(client, None)
                    return True
                if guesses.failures + guesses.checking < MAX_FAILURES:
                    break
                # this client's checks in flight may lock it (or prove this PIN): wait for them
                if not self._checked.wait(give_up - time.monotonic()):
                    raise PinBusy("too many PIN checks at once: try again in a moment")
            guesses.checking += 1
        ok: bool | None = None
        try:
            ok = len(pin) <= PIN_MAX and self._hashed(verify_hash, pin, stored)
        finally:
            with self._checked:
                guesses.checking -= 1
                if ok:
                    self._good.add(mark)
                    self._clients.pop(client, None)
                elif ok is False:
                    self._failed(guesses)
                self._checked.notify_all()
        return ok

    def _guesses(self, client: str) -> _Guesses:
        guesses = self._clients.pop(client, None) or _Guesses()
        self._clients[client] = guesses  # newest last: the oldest are forgotten first
        if len(self._clients) > MAX_CLIENTS:
            idle = [c for c, g in self._clients.items() if not g.checking]
            for stale in idle[: len(self._clients) - MAX_CLIENTS]:
                del self._clients[stale]
        return guesses

    def _failed(self, guesses: _Guesses) -> None:
        guesses.failures += 1
        if guesses.failures >= MAX_FAILURES:
            guesses.locked_until = self._clock() + min(LOCK_MAX_S, LOCK_S * 2 ** guesses.locks)
            guesses.locks += 1
            guesses.failures = 0

    def _hashed(self, scrypt: Callable[..., Any], *args: Any) -> Any:
        """`scrypt(*args)` on one of the HASHERS threads, or PinBusy when none is free soon."""
        if not self._hash_slots.acquire(timeout=HASH_WAIT_S):
            raise PinBusy("too many PIN checks at once: try again in a moment")
        try:
            return self._hashers.submit(_give_back_after, scrypt, *args).result()
        finally:
            self._hash_slots.release()

    def secret_key(self) -> bytes:
        """The key that signs login sessions, kept next to the PIN so a restart keeps them."""
        key_path = self.path.with_name(self.path.name + ".session-key")
        try:
            key = key_path.read_bytes()
            if len(key) >= 32:
                return key
        except OSError:
            pass
        key = secrets.token_bytes(32)
        try:
            key_path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(key)
        except OSError:
            pass  # read-only data dir: sessions just end at a restart
        return key


def _malloc_trim() -> Callable[[int], object]:
    """glibc's malloc_trim (a no-op elsewhere). glibc keeps memory a thread freed in that
    thread's arena, where other threads' small allocations then fragment it: without giving
    the scrypt buffer back, each hasher came to hold up to twice its 16 MiB."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return lambda pad: 0


_MALLOC_TRIM = _malloc_trim()


def _give_back_after(scrypt: Callable[..., Any], *args: Any) -> Any:
    try:
        return scrypt(*args)
    finally:
        _MALLOC_TRIM(0)


def _well_formed(stored: str) -> bool:
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != SCHEME or not all(p.isdigit() for p in parts[1:4]):
        return False
    try:
        bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
    except ValueError:
        return False
    return bool(parts[5])


class Sessions:
    """Logged-in browsers, in a file beside the PIN (survives a restart). Logout or a new PIN
    ends a session on the server, so a copied session cookie stops working too. The file
    holds only hashes of the session ids."""

    def __init__(self, path: Path, clock=time.time) -> None:
        self.path = path
        self._clock = clock
        self._lock = threading.Lock()
        self._expiry: dict[str, float] = self._load()

    def _load(self) -> dict[str, float]:
        try:
            data = json.loads(self.path.read_text(encoding="ascii"))
            return {str(k): float(v) for k, v in data.items()}
        except (OSError, ValueError, AttributeError, TypeError):
            return {}  # none yet, or damaged: every phone logs in again

    def _save(self) -> None:
        try:
            tmp = self.path.with_name(self.path.name + ".tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                json.dump(self._expiry, handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except OSError:
            pass  # a read-only data dir: sessions then end at a restart

    @staticmethod
    def _digest(sid: str) -> str:
        return hashlib.sha256(sid.encode()).hexdigest()

    def open(self) -> str:
        """A new session id for a browser that just logged in."""
        sid = secrets.token_urlsafe(24)
        now = self._clock()
        with self._lock:
            live = {k: v for k, v in self._expiry.items() if v > now}
            newest = sorted(live.items(), key=lambda kv: kv[1])[-(MAX_SESSIONS - 1):]
            self._expiry = dict(newest)
            self._expiry[self._digest(sid)] = now + SESSION_S
            self._save()
        return sid

    def valid(self, sid: object) -> bool:
        if not isinstance(sid, str):
            return False
        with self._lock:
            return self._expiry.get(self._digest(sid), 0.0) > self._clock()

    def close(self, sid: object) -> None:
        if not isinstance(sid, str):
            return
        with self._lock:
            if self._expiry.pop(self._digest(sid), None) is not None:
                self._save()

    def clear(self) -> None:
        with self._lock:
            self._expiry = {}
            self._save()


def main(argv: list[str] | None = None) -> int:
    """`python -m web.auth`: print the hash of a PIN for the config's web.pin_hash."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-h", "--help"):
        print("usage: python -m web.auth  (reads the PIN from the terminal or stdin)")
        return 0
    pin = getpass.getpass("host PIN: ") if sys.stdin.isatty() else sys.stdin.readline().strip()
    try:
        print(hash_pin(pin))
    except PinError as err:
        print(f"web.auth: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
