"""LEDs and buttons through gpiozero (mock PWM pins off the Pi). Renders state; no rules."""

from .buttons import ButtonPress, Buttons
from .indicators import Indicators
from .pins import (
    HardwareError,
    PinConfigError,
    PinMap,
    choose_pin_factory,
    load_pin_map,
)
from .view import LedView, Light, SeatLight, SnapshotError, blank_view, view_from_snapshot

__all__ = [
    "ButtonPress", "Buttons", "HardwareError", "Indicators", "LedView", "Light", "PinConfigError",
    "PinMap", "SeatLight", "SnapshotError", "blank_view", "choose_pin_factory", "load_pin_map",
    "view_from_snapshot",
]
