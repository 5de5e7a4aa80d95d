"""The host PIN: who may change the game from a phone.

Reading is open on the LAN; every write needs the host PIN. The PIN is never stored: only a
salted scrypt hash, in a file of the data dir (mode 0600) or preset from the config
(`web.pin_hash`, made with `python -m web.auth`). A correct PIN is remembered in memory as an
HMAC under a per-process key, so a phone that sends the PIN with every request does not pay
for scrypt each time (a Pi Zero takes ~0.3 s per hash). Wrong guesses lock checks for a while.
"""

from __future__ import annotations

import getpass
import hashlib
import hmac
import os
import secrets
import sys
import threading
import time
from pathlib import Path

SCHEME = "scrypt"
N, R, P = 2**14, 8, 1  # 16 MiB of memory per hash: fine on a Pi Zero 2 W (512 MB)
PIN_MIN, PIN_MAX = 4, 12
MAX_FAILURES = 5  # consecutive wrong PINs before checks lock
LOCK_S = 30.0


class PinError(ValueError):
    """A PIN that cannot be set or a hash that cannot be read; one line for a person."""


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


class PinStore:
    """The hashed host PIN in `path` (or preset), with a lock-out after wrong guesses."""

    def __init__(self, path: str | Path, preset_hash: str | None = None,
                 clock=time.monotonic) -> None:
        self.path = Path(path)
        self._preset = preset_hash or None
        if self._preset:
            verify_hash("0000", self._preset)  # a malformed preset fails now, not at a phone
        self._clock = clock
        self._lock = threading.RLock()
        self._key = secrets.token_bytes(32)
        self._good: set[bytes] = set()
        self._failures = 0
        self._locked_until = 0.0

    def _stored(self) -> str | None:
        if self._preset:
            return self._preset
        try:
            text = self.path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as err:
            raise PinError(f"cannot read the PIN file {self.path}: {err}") from None
        return text or None

    def is_set(self) -> bool:
        return self._stored() is not None

    def set_pin(self, pin: str) -> None:
        """Store a new PIN (callers check the old one or that none is set)."""
        if self._preset:
            raise PinError("the PIN is preset in the config file (web.pin_hash); change it there")
        text = hash_pin(pin)
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

    def locked_for(self) -> float:
        """Seconds until PIN checks are accepted again (0 when not locked)."""
        return max(0.0, self._locked_until - self._clock())

    def check(self, pin: object) -> bool:
        """True for the right PIN. False for a wrong one, no PIN set, or while locked."""
        stored = self._stored()
        if stored is None or not isinstance(pin, str) or self.locked_for() > 0:
            return False
        mark = hmac.new(self._key, f"{stored}\0{pin}".encode(), hashlib.sha256).digest()
        with self._lock:
            if mark in self._good:
                self._failures = 0
                return True
        ok = len(pin) <= PIN_MAX and verify_hash(pin, stored)
        with self._lock:
            if ok:
                self._good.add(mark)
                self._failures = 0
            else:
                self._failures += 1
                if self._failures >= MAX_FAILURES:
                    self._locked_until = self._clock() + LOCK_S
                    self._failures = 0
        return ok

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
