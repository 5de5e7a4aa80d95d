"""Pin map (which BCM GPIO drives which LED or reads which button) and pin-factory choice.

The defaults avoid I2C (GPIO2/3), the UART console (GPIO14/15) and the HAT ID EEPROM
(GPIO0/1). Twenty pins do not fit in the 17 free of every bus, so the status LED uses
three SPI0 pins (GPIO9/10/11): leave SPI disabled (the Raspberry Pi OS default).
docs/wiring.md has the physical wiring table.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: BCM numbers of the user GPIOs on the 40-pin header (GPIO0/1 are the HAT ID EEPROM).
HEADER_GPIOS = frozenset(range(2, 28))
RESERVED_GPIOS = {0: "ID_SD (HAT EEPROM)", 1: "ID_SC (HAT EEPROM)"}
#: Pins that work as plain GPIO but belong to a bus someone may enable (why we avoid them).
BUS_GPIOS = {
    2: "I2C1 SDA, fixed 1.8 kOhm pull-up", 3: "I2C1 SCL, fixed 1.8 kOhm pull-up",
    14: "UART TXD (serial console)", 15: "UART RXD (serial console)",
    7: "SPI0 CE1", 8: "SPI0 CE0", 9: "SPI0 MISO", 10: "SPI0 MOSI", 11: "SPI0 SCLK",
}
#: BCM -> physical header pin (J8), for messages and docs.
PHYSICAL = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18,
    10: 19, 9: 21, 25: 22, 11: 23, 8: 24, 7: 26, 5: 29, 6: 31, 12: 32, 13: 33, 19: 35,
    16: 36, 26: 37, 20: 38, 21: 40, 0: 27, 1: 28,
}

DEFAULT_SEATS: tuple[tuple[int, ...], ...] = (
    (17, 27, 22),  # seat 0: physical 11, 13, 15
    (23, 24, 25),  # seat 1: physical 16, 18, 22
    (5, 6, 13),    # seat 2: physical 29, 31, 33
    (12, 16, 20),  # seat 3: physical 32, 36, 38
    (19, 26, 21),  # seat 4: physical 35, 37, 40
)
MODES = ("rgb", "pair")
MOCK_ENV = "TIGHTROPE_MOCK_GPIO"
MODEL_PATH = Path("/proc/device-tree/model")


class HardwareError(ValueError):
    """A light or button cannot be set up or driven (one clear line, no traceback)."""


class PinConfigError(HardwareError):
    """The [pins] configuration is unusable (unknown key, bad or duplicate pin)."""


def parse_pin(value: object, where: str) -> int:
    """Accept 17, "17", "GPIO17" or "BCM17"; return the BCM number or raise PinConfigError."""
    if isinstance(value, bool):
        raise PinConfigError(f"pins.{where}: {value!r} is not a pin number")
    if isinstance(value, str):
        text = value.strip().upper().removeprefix("GPIO").removeprefix("BCM")
        if not text.isdigit():
            raise PinConfigError(f"pins.{where}: {value!r} is not a BCM pin (use 17 or 'GPIO17')")
        value = int(text)
    if not isinstance(value, int):
        raise PinConfigError(f"pins.{where}: {value!r} is not a pin number")
    if value in RESERVED_GPIOS:
        raise PinConfigError(f"pins.{where}: GPIO{value} is reserved ({RESERVED_GPIOS[value]})")
    if value not in HEADER_GPIOS:
        raise PinConfigError(f"pins.{where}: GPIO{value} is not on the 40-pin header (BCM 2..27)")
    return value


@dataclass(frozen=True)
class PinMap:
    """BCM pins of every device. seats[i] is (red, green, blue) or, in pair mode, (red, blue)."""

    seats: tuple[tuple[int, ...], ...] = DEFAULT_SEATS
    status: tuple[int, int, int] = (10, 9, 11)
    ok: int = 4
    undo: int = 18
    mode: str = "rgb"
    active_high: bool = True
    _labels: dict[int, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Normalise ("GPIO17" -> 17, lists -> tuples) and validate; every error is one line.
        if self.mode not in MODES:
            raise PinConfigError(f"pins.mode: {self.mode!r} is not one of {', '.join(MODES)}")
        if not isinstance(self.active_high, bool):
            raise PinConfigError("pins.active_high: must be true or false")
        seats = _seat_table(self.seats, self.mode)
        status = _pin_list(self.status, "status")
        if len(status) != 3:
            raise PinConfigError(f"pins.status: needs 3 pins (red, green, blue), got {len(status)}")
        ok, undo = parse_pin(self.ok, "ok"), parse_pin(self.undo, "undo")
        named = [(f"seats[{i}][{j}]", p)
                 for i, seat in enumerate(seats) for j, p in enumerate(seat)]
        named += [(f"status[{j}]", p) for j, p in enumerate(status)] + [("ok", ok), ("undo", undo)]
        for name, value in (("seats", seats), ("status", status), ("ok", ok), ("undo", undo),
                            ("_labels", _unique(named))):
            object.__setattr__(self, name, value)

    @classmethod
    def from_dict(cls, section: Mapping[str, Any] | None) -> PinMap:
        """Build from the TOML [pins] table; missing keys keep their defaults."""
        section = dict(section or {})
        known = {"seats", "status", "ok", "undo", "mode", "active_high"}
        unknown = sorted(set(section) - known)
        if unknown:
            raise PinConfigError(
                f"pins: unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})")
        return cls(**section)

    def seat_pins(self, seat: int, mode: str | None = None) -> tuple[int, ...]:
        """Pins of one seat: (red, green, blue) in rgb mode, (red, blue) in pair mode."""
        mode = mode or self.mode
        pins = self.seats[seat]
        if mode == "rgb":
            if len(pins) != 3:
                raise PinConfigError(f"pins.seats[{seat}]: rgb mode needs 3 pins, got {len(pins)}")
            return pins
        return (pins[0], pins[-1])

    def label(self, pin: int) -> str:
        """Which config entry a pin belongs to ("seats[2][0]", "ok", ...)."""
        return self._labels.get(pin, f"GPIO{pin}")

    def bus_notes(self) -> list[str]:
        """One line per configured pin that sits on a bus which must stay disabled."""
        return [f"GPIO{pin} ({self._labels[pin]}) is {BUS_GPIOS[pin]}: keep that bus disabled"
                for pin in sorted(self._labels) if pin in BUS_GPIOS]


def _as_list(value: object, where: str) -> list[object]:
    if not isinstance(value, list | tuple):
        raise PinConfigError(f"pins.{where}: expected a list, got {value!r}")
    return list(value)


def _pin_list(value: object, where: str) -> tuple[int, ...]:
    return tuple(parse_pin(p, f"{where}[{j}]") for j, p in enumerate(_as_list(value, where)))


def _seat_table(value: object, mode: str) -> tuple[tuple[int, ...], ...]:
    seats = tuple(_pin_list(s, f"seats[{i}]") for i, s in enumerate(_as_list(value, "seats")))
    if not 3 <= len(seats) <= 5:
        raise PinConfigError(f"pins.seats: need 3 to 5 seats, got {len(seats)}")
    widths = (3,) if mode == "rgb" else (2, 3)
    for i, seat in enumerate(seats):
        if len(seat) not in widths:
            want = " or ".join(str(w) for w in widths)
            raise PinConfigError(f"pins.seats[{i}]: {mode} mode needs {want} pins, got {len(seat)}")
    return seats


def _unique(named: list[tuple[str, int]]) -> dict[int, str]:
    """pin -> config entry, refusing a pin named twice."""
    labels: dict[int, str] = {}
    for where, pin in named:
        if pin in labels:
            raise PinConfigError(f"pins: GPIO{pin} is used twice ({labels[pin]} and {where})")
        labels[pin] = where
    return labels


def load_pin_map(path: str | Path | None) -> PinMap:
    """Read the [pins] table of a TOML config file (no file or no table: the defaults)."""
    if path is None:
        return PinMap()
    try:
        with open(path, "rb") as fh:
            config = tomllib.load(fh)
    except OSError as exc:
        raise PinConfigError(f"{path}: cannot read config ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise PinConfigError(f"{path}: invalid TOML ({exc})") from None
    section = config.get("pins", {})
    if not isinstance(section, dict):
        raise PinConfigError(f"{path}: [pins] must be a table")
    return PinMap.from_dict(section)


def is_raspberry_pi(model_path: Path = MODEL_PATH) -> bool:
    """True when the device tree says this is a Raspberry Pi."""
    try:
        return model_path.read_bytes().startswith(b"Raspberry Pi")
    except OSError:
        return False


_shared_mock: Any = None
KEEP_STATES = 512  # mock pins log every change: a pulsing LED adds 50 a second, forever


def mock_factory() -> Any:
    """The process-wide mock factory, so LEDs, buttons and the web panel share mock pins.

    Its pins are MockPWMPin with a bounded change log, so a long demo does not grow memory.
    """
    global _shared_mock
    if _shared_mock is None:
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        class BoundedMockPWMPin(MockPWMPin):
            def _change_state(self, value: Any) -> bool:
                changed = super()._change_state(value)
                if len(self.states) > 2 * KEEP_STATES:
                    del self.states[:-KEEP_STATES]
                return changed

        _shared_mock = MockFactory(pin_class=BoundedMockPWMPin)
    return _shared_mock


def choose_pin_factory(env: Mapping[str, str] | None = None,
                       model_path: Path = MODEL_PATH) -> Any:
    """Mock PWM pins off the Pi (or with TIGHTROPE_MOCK_GPIO=1); None = gpiozero's default.

    gpiozero 2's default on a Pi 5 is LGPIOFactory (apt python3-lgpio). TIGHTROPE_MOCK_GPIO=0
    forces the real factory even where no Raspberry Pi model is found.
    """
    flag = (os.environ if env is None else env).get(MOCK_ENV, "").strip().lower()
    if flag in ("1", "true", "yes"):
        return mock_factory()
    if flag in ("0", "false", "no"):
        return None
    return None if is_raspberry_pi(model_path) else mock_factory()
