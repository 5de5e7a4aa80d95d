"""The companion's configuration: one TOML file with documented defaults (docs/config.md).

Every key is optional; a missing file section means the defaults. A bad value is a
ConfigError naming the key, before anything starts.
"""

from __future__ import annotations

import ipaddress
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vision.sources import CameraConfig

SERVICE_DATA_DIR = Path("/var/lib/tightrope")


def default_data_dir() -> Path:
    """$TIGHTROPE_DATA_DIR, else the service's /var/lib/tightrope where we may write there,
    else the user's own data folder."""
    if os.environ.get("TIGHTROPE_DATA_DIR"):
        return Path(os.environ["TIGHTROPE_DATA_DIR"])
    if os.access(SERVICE_DATA_DIR, os.W_OK) or os.access(SERVICE_DATA_DIR.parent, os.W_OK):
        return SERVICE_DATA_DIR
    home = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(home) / "tightrope-companion"


class ConfigError(ValueError):
    pass


@dataclass(frozen=True)
class Config:
    data_dir: Path = field(default_factory=default_data_dir)
    zones: Path | None = None  # default: <data_dir>/zones.json
    deck: Path | None = None  # a taught deck file; none = the zero-shot reader
    host: str = "0.0.0.0"
    port: int = 8000
    pin_hash: str = ""  # the host PIN, hashed (web/auth.py); empty = set at first start
    allowed_hosts: tuple[str, ...] = ()  # names of the Pi beyond its own (docs/config.md)
    pins: dict[str, Any] = field(default_factory=dict)  # [pins] section (docs/wiring.md)
    camera: CameraConfig = CameraConfig()

    @property
    def zones_path(self) -> Path:
        return self.zones or self.data_dir / "zones.json"

    @property
    def deck_path(self) -> Path:
        """The deck the reader uses: the configured one, else the one taught on the web page."""
        return self.deck or self.data_dir / "deck.npz"

    @property
    def corrections_dir(self) -> Path:
        """The crops of the cards people named at the table (they join the deck)."""
        return self.data_dir / "corrections"

    @property
    def db_path(self) -> Path:
        return self.data_dir / "tightrope.db"

    @property
    def photo_dir(self) -> Path:
        return self.data_dir / "photos"


_TYPES = {int: "a whole number", float: "a number", str: "text", bool: "true or false",
          list: "a list"}


def _take(section: dict[str, Any], key: str, kind: type, default: Any, where: str) -> Any:
    if key not in section:
        return default
    value = section.pop(key)
    ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value, ok = float(value), True
    if not ok:
        raise ConfigError(f"{where}.{key} must be {_TYPES[kind]}, not {value!r}")
    return value


def _section(data: dict[str, Any], name: str) -> dict[str, Any]:
    value = data.pop(name, {})
    if not isinstance(value, dict):
        raise ConfigError(f"[{name}] must be a table")
    return dict(value)


def _no_leftovers(section: dict[str, Any], where: str) -> None:
    if section:
        raise ConfigError(f"unknown setting {where}.{sorted(section)[0]}")


def parse_config(data: dict[str, Any]) -> Config:
    data = dict(data)
    paths, web, cam = (_section(data, n) for n in ("paths", "web", "camera"))
    pins = _section(data, "pins")
    _no_leftovers(data, "config")
    d = Config()
    data_dir = Path(_take(paths, "data_dir", str, str(d.data_dir), "paths"))
    zones = _take(paths, "zones", str, "", "paths")
    deck = _take(paths, "deck", str, "", "paths")
    _no_leftovers(paths, "paths")
    camera = CameraConfig(**{
        key: _take(cam, key, type(default), default, "camera")
        for key, default in CameraConfig().__dict__.items()
    })
    _no_leftovers(cam, "camera")
    if camera.fps <= 0 or camera.width <= 0 or camera.height <= 0:
        raise ConfigError("camera.fps, camera.width and camera.height must be positive")
    config = Config(
        data_dir=data_dir,
        zones=Path(zones) if zones else None,
        deck=Path(deck) if deck else None,
        host=_take(web, "host", str, d.host, "web"),
        port=_take(web, "port", int, d.port, "web"),
        pin_hash=_take(web, "pin_hash", str, d.pin_hash, "web"),
        allowed_hosts=_host_names(_take(web, "allowed_hosts", list, [], "web")),
        pins=pins,
        camera=camera,
    )
    _no_leftovers(web, "web")
    if not 0 < config.port < 65536:
        raise ConfigError(f"web.port {config.port} is not a TCP port")
    return config


_HOST_NAME = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,251}[A-Za-z0-9_])?")


def _host_names(names: list[Any]) -> tuple[str, ...]:
    """web.allowed_hosts: names or addresses of the Pi (no scheme, no port)."""
    for name in names:
        if not isinstance(name, str) or not (_HOST_NAME.fullmatch(name) or _address(name)):
            raise ConfigError(f"web.allowed_hosts: {name!r} is not a host name or address "
                              "(no scheme, no port)")
    return tuple(names)


def _address(text: str) -> bool:
    try:
        ipaddress.ip_address(text.removeprefix("[").removesuffix("]"))
    except ValueError:
        return False
    return True


def load_config(path: str | Path | None) -> Config:
    """The config in `path` (None: the defaults); every error is one line naming the file."""
    if path is None:
        return Config()
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as err:
        raise ConfigError(f"cannot read the config {path}: {err.strerror}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path} is not valid TOML: {err}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text") from None
    try:
        return parse_config(data)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None
