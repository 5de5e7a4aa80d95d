"""What the lights say: a pure function from a state snapshot to an LED view.

No gpiozero and no clock reading here. Times are seconds on the caller's clock (the referee
uses time.monotonic()); a view only says which pattern each light runs and since when, and
`light_output()` turns a light into duty cycles for any moment, so the drivers and the web's
virtual panel render the very same thing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

FLASH_S = 3.0          # how long the high/low seats flash after a trick
SATURATE_AT = 12       # |balance| from which a seat is at full brightness
FLOOR = 0.35           # perceived lightness at |balance| = 1: ~10 % duty, visible in a lit room
GAMMA = 2.2            # perceived lightness -> PWM duty (LEDs look brighter than linear)
TURN_LEVEL = 0.6       # peak duty of the white turn pulse (full white glares)
IDLE_LEVEL = 0.08      # dim green: powered, not watching
IN_LEVEL = 0.08        # Attacke: dim steady white, still in the contest (passed: dark)

COLOURS: dict[str, tuple[float, float, float]] = {
    "off": (0.0, 0.0, 0.0),
    "blue": (0.0, 0.0, 1.0),
    "red": (1.0, 0.0, 0.0),
    "white": (1.0, 1.0, 1.0),
    "green": (0.0, 1.0, 0.0),
    "amber": (1.0, 0.3, 0.0),  # green LEDs are brighter: a little green reads as amber
}
STATUSES = ("watching", "attention", "camera_lost", "storage_error", "idle")


@dataclass(frozen=True)
class Pattern:
    """A repeating on/off pattern (`on` = windows within one period), or a smooth pulse."""

    period: float
    on: tuple[tuple[float, float], ...] = ()
    smooth: bool = False

    def envelope(self, t: float) -> float:
        """Brightness factor 0..1 at t seconds after the pattern started."""
        phase = t % self.period
        if self.smooth:  # a breath: cosine in perceived lightness, gamma-corrected
            return (0.5 - 0.5 * math.cos(2 * math.pi * phase / self.period)) ** GAMMA
        return 1.0 if any(a <= phase < b for a, b in self.on) else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"period": self.period, "on": [list(w) for w in self.on], "smooth": self.smooth}


# Blue = slow long blinks, red = fast short triple blinks: different even without colour.
PATTERNS: dict[str, Pattern] = {
    "steady": Pattern(period=1.0, on=((0.0, 1.0),)),
    "flash_high": Pattern(period=1.0, on=((0.0, 0.6),)),
    "flash_low": Pattern(period=1.0, on=((0.0, 0.12), (0.24, 0.36), (0.48, 0.60))),
    "pulse": Pattern(period=2.0, smooth=True),
    "blink": Pattern(period=1.0, on=((0.0, 0.5),)),
    "double_blink": Pattern(period=1.2, on=((0.0, 0.15), (0.3, 0.45))),
}
# The patterns as JSON, made once and never changed: every view the web's hub keeps (256 of
# them) shares this one dict rather than holding a copy (1.5 MB over a game).
PATTERNS_JSON: dict[str, dict[str, Any]] = {name: p.as_dict() for name, p in PATTERNS.items()}


# Solo: one short blink for each informant waiting, then a pause: a count read without colour.
COUNT_MAX = 12         # more informants than this blink twelve times (the phones say how many)
COUNT_ON, COUNT_STEP, COUNT_PAUSE = 0.2, 0.45, 1.2


def count_pattern(n: int) -> Pattern:
    return Pattern(period=n * COUNT_STEP + COUNT_PAUSE,
                   on=tuple((i * COUNT_STEP, i * COUNT_STEP + COUNT_ON) for i in range(n)))


PATTERNS.update({f"count_{n}": count_pattern(n) for n in range(1, COUNT_MAX + 1)})


class SnapshotError(ValueError):
    """The snapshot or status handed to the LED view is malformed."""


@dataclass(frozen=True)
class Light:
    """One light: a colour at a peak duty, run through a pattern that started at `since`."""

    colour: str = "off"
    level: float = 0.0
    pattern: str = "steady"
    since: float = 0.0
    until: float | None = None   # flashes end here; the seat's main light shows again

    def output(self, now: float) -> tuple[float, float, float]:
        """Duty cycles (red, green, blue), each 0..1, at clock time `now`."""
        factor = self.level * PATTERNS[self.pattern].envelope(now - self.since)
        r, g, b = COLOURS[self.colour]
        return (r * factor, g * factor, b * factor)


OFF = Light()


@dataclass(frozen=True)
class SeatLight:
    """A seat's light: the main one (balance, turn or winner) and an optional trick flash."""

    seat: int
    balance: int
    role: str                 # "balance" | "turn" | "winner" | "off"
    main: Light
    flash: Light | None = None  # "high" (blue) or "low" (red) flash, until flash.until
    flash_role: str | None = None

    def active(self, now: float) -> Light:
        """The light on show at `now` (a flash wins until it ends)."""
        if self.flash is not None and (self.flash.until is None or now < self.flash.until):
            return self.flash
        return self.main


@dataclass(frozen=True)
class LedView:
    """Everything the table's lights show, built at clock time `now`."""

    seats: tuple[SeatLight, ...]
    status: Light
    status_name: str
    now: float


def balance_level(balance: int) -> float:
    """PWM duty for a seat holding |balance| sticks: 0 when balanced, 0.099 at 1, 1.0 at 12+.

    Equal steps in perceived lightness from FLOOR (1 stick) to 1 (SATURATE_AT sticks),
    converted to duty with GAMMA, so 1, 2, 3 ... sticks look evenly spaced.
    """
    n = min(abs(balance), SATURATE_AT)
    if n == 0:
        return 0.0
    lightness = FLOOR + (1.0 - FLOOR) * (n - 1) / (SATURATE_AT - 1)
    return round(lightness ** GAMMA, 3)


def status_light(status: str) -> Light:
    """Status LED: green = watching, amber blinking = look at the scoresheet, red = camera lost
    (double blinks) or the game cannot be saved (fast triple blinks)."""
    if status == "watching":
        return Light("green", 1.0)
    if status == "attention":
        return Light("amber", 1.0, "blink")
    if status == "camera_lost":
        return Light("red", 1.0, "double_blink")
    if status == "storage_error":
        return Light("red", 1.0, "flash_low")
    if status == "idle":
        return Light("green", IDLE_LEVEL)
    raise SnapshotError(f"status {status!r} is not one of {', '.join(STATUSES)}")


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SnapshotError(f"snapshot {what}: {value!r} is not an integer")
    return value


def _seat(value: object, what: str, n: int) -> int:
    seat = _int(value, what)
    if not 0 <= seat < n:
        raise SnapshotError(f"snapshot {what}: seat {seat} is outside 0..{n - 1}")
    return seat


def _seats(snapshot: Mapping[str, Any], key: str, n: int) -> set[int]:
    value = snapshot.get(key) or []
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise SnapshotError(f"snapshot {key}: expected a list of seats, got {value!r}")
    return {_seat(s, f"{key}[{i}]", n) for i, s in enumerate(value)}


def _flashes(last: object, n: int, start: float) -> dict[int, tuple[Light, str]]:
    """Seat -> (flash light, role) for the trick just scored; only seats that took sticks."""
    if not isinstance(last, Mapping):
        raise SnapshotError(f"snapshot last_trick: expected an object, got {last!r}")
    high = _seat(last.get("high"), "last_trick.high", n)
    low = _seat(last.get("low"), "last_trick.low", n)
    flashes: dict[int, tuple[Light, str]] = {}
    end = start + FLASH_S
    # A covered colour (a zero) pays nothing: that seat does not flash (see docs/leds.md).
    if _int(last.get("blue", 1), "last_trick.blue") > 0:
        flashes[high] = (Light("blue", 1.0, "flash_high", start, end), "high")
    if _int(last.get("red", 1), "last_trick.red") > 0:
        flashes[low] = (Light("red", 1.0, "flash_low", start, end), "low")
    return flashes


def _main_light(balance: int, turn: bool, winner: bool, game_over: bool) -> tuple[Light, str]:
    if winner:
        return Light("white", TURN_LEVEL), "winner"
    if game_over:
        return OFF, "off"
    if turn:
        return Light("white", TURN_LEVEL, "pulse"), "turn"
    if balance == 0:
        return OFF, "off"
    return Light("blue" if balance > 0 else "red", balance_level(balance)), "balance"


def blank_view(n_seats: int, status: str, now: float) -> LedView:
    """No game in play: every seat dark, only the status LED speaks."""
    seats = tuple(SeatLight(seat, 0, "off", OFF) for seat in range(n_seats))
    return LedView(seats, status_light(status), status, now)


def view_from_snapshot(snapshot: Mapping[str, Any], status: str, now: float,
                       trick_scored_at: float | None) -> LedView:
    """The lights for a snapshot (docs/state-snapshot.md) at clock time `now`.

    trick_scored_at: when the referee scored `last_trick` (same clock), or None; its high and
    low seats flash for FLASH_S seconds from then. After the game only the winners glow (white).
    An Attacke snapshot (`"game": "attacke"`) has lights of its own: attacke_view.
    """
    if not isinstance(snapshot, Mapping):
        raise SnapshotError(f"snapshot: expected an object, got {type(snapshot).__name__}")
    if snapshot.get("game") == "attacke":
        return attacke_view(snapshot, status, now, trick_scored_at)
    if snapshot.get("game") == "solo":
        return solo_view(snapshot, status, now, trick_scored_at)
    balances = snapshot.get("balances")
    if not isinstance(balances, Sequence) or isinstance(balances, str) or not balances:
        raise SnapshotError(f"snapshot balances: expected a list of integers, got {balances!r}")
    balances = [_int(b, f"balances[{i}]") for i, b in enumerate(balances)]
    n = len(balances)
    game_over = bool(snapshot.get("game_over", False))
    turn = set() if game_over else _seats(snapshot, "to_play", n)
    winners = _seats(snapshot, "winners", n) if game_over else set()
    flashes: dict[int, tuple[Light, str]] = {}
    last = snapshot.get("last_trick")
    if last is not None and trick_scored_at is not None and now < trick_scored_at + FLASH_S:
        flashes = _flashes(last, n, trick_scored_at)
    seats = []
    for seat, balance in enumerate(balances):
        main, role = _main_light(balance, seat in turn, seat in winners, game_over)
        flash, flash_role = flashes.get(seat, (None, None))
        seats.append(SeatLight(seat, balance, role, main, flash, flash_role))
    return LedView(tuple(seats), status_light(status), status, now)


# --- Attacke ---------------------------------------------------------------------------------
# Every seat light is white there (the five contest colours do not fit a red + blue LED pair, and
# colour must not carry the meaning alone): the role is told by the pattern and the brightness.


def _optional_seat(value: object, what: str, n: int) -> int | None:
    return None if value is None else _seat(value, what, n)


def attacke_view(snapshot: Mapping[str, Any], status: str, now: float,
                 contest_won_at: float | None) -> LedView:
    """The lights for an Attacke snapshot (companion.games.attacke.views.snapshot).

    The seat whose turn it is breathes white; the leader of the contest glows steady white;
    the others still in the contest glow dim white; a seat that passed is dark. For FLASH_S
    seconds from `contest_won_at` (when the referee scored `last_contest`, same clock) the
    contest's winner blinks white, slow and long. After the game only the winners glow.
    """
    players = snapshot.get("players")
    if not isinstance(players, Sequence) or isinstance(players, str) or not players:
        raise SnapshotError(f"snapshot players: expected a list of names, got {players!r}")
    n = len(players)
    game_over = bool(snapshot.get("game_over", False))
    winners = _seats(snapshot, "winners", n) if game_over else set()
    contest = snapshot.get("contest")
    if contest is not None and not isinstance(contest, Mapping):
        raise SnapshotError(f"snapshot contest: expected an object, got {contest!r}")
    contest = {} if game_over or contest is None else contest
    turn = None if game_over else _optional_seat(snapshot.get("turn"), "turn", n)
    leader = _optional_seat(contest.get("leader"), "contest.leader", n)
    passed = _seats(contest, "passed", n)
    flash: dict[int, Light] = {}
    last = snapshot.get("last_contest")
    if last is not None and contest_won_at is not None and now < contest_won_at + FLASH_S:
        if not isinstance(last, Mapping):
            raise SnapshotError(f"snapshot last_contest: expected an object, got {last!r}")
        won = _optional_seat(last.get("winner"), "last_contest.winner", n)
        if won is not None:
            flash[won] = Light("white", 1.0, "flash_high", contest_won_at,
                               contest_won_at + FLASH_S)
    seats = []
    for seat in range(n):
        if seat in winners:
            main, role = Light("white", TURN_LEVEL), "winner"
        elif game_over or seat in passed:
            main, role = OFF, "off" if game_over else "passed"
        elif seat == turn:
            main, role = Light("white", TURN_LEVEL, "pulse"), "turn"
        elif seat == leader:
            main, role = Light("white", TURN_LEVEL), "leader"
        else:
            main, role = Light("white", IN_LEVEL), "in"
        won_light = flash.get(seat)
        seats.append(SeatLight(seat, 0, role, main, won_light, "won" if won_light else None))
    return LedView(tuple(seats), status_light(status), status, now)


# --- solo Tightrope ----------------------------------------------------------------------------
# One player: the first seat light is his, the second counts the informants waiting.


def _mission_flash(last: object, start: float) -> tuple[Light, str]:
    """A mission just resolved: blue slow long blinks when it succeeded, red fast triple
    blinks when it failed (the patterns of a trick's high and low cards)."""
    if not isinstance(last, Mapping) or not isinstance(last.get("success"), bool):
        raise SnapshotError(f"snapshot last_mission: expected an object with success, got "
                            f"{last!r}")
    end = start + FLASH_S
    if last["success"]:
        return Light("blue", 1.0, "flash_high", start, end), "mission_won"
    return Light("red", 1.0, "flash_low", start, end), "mission_failed"


def _informants_light(snapshot: Mapping[str, Any], game_over: bool) -> SeatLight:
    informants = snapshot.get("informants")
    if not isinstance(informants, Mapping):
        raise SnapshotError(f"snapshot informants: expected an object, got {informants!r}")
    count = _int(informants.get("count"), "informants.count")
    if count < 0:
        raise SnapshotError(f"snapshot informants.count: {count} is negative")
    if game_over or count == 0:
        return SeatLight(1, 0, "informants", OFF)
    pattern = f"count_{min(count, COUNT_MAX)}"
    return SeatLight(1, 0, "informants", Light("white", TURN_LEVEL, pattern))


def solo_view(snapshot: Mapping[str, Any], status: str, now: float,
              mission_at: float | None) -> LedView:
    """The lights for a solo snapshot (companion.games.solo.views.snapshot).

    The player's light breathes white while the game goes on and glows steady white when he
    has won (dark when he lost); for FLASH_S seconds from `mission_at` (when the referee
    resolved `last_mission`, same clock) it blinks the mission's outcome. The second light
    blinks once for each informant waiting, then pauses.
    """
    game_over = bool(snapshot.get("game_over", False))
    result = snapshot.get("result")
    if result not in (None, "won", "lost"):
        raise SnapshotError(f"snapshot result: {result!r} is not won, lost or null")
    if result == "won":
        main, role = Light("white", TURN_LEVEL), "winner"
    elif game_over:
        main, role = OFF, "lost"
    else:
        main, role = Light("white", TURN_LEVEL, "pulse"), "turn"
    flash: Light | None = None
    flash_role: str | None = None
    last = snapshot.get("last_mission")
    if last is not None and mission_at is not None and now < mission_at + FLASH_S:
        flash, flash_role = _mission_flash(last, mission_at)
    player = SeatLight(0, 0, role, main, flash, flash_role)
    return LedView((player, _informants_light(snapshot, game_over)), status_light(status),
                   status, now)
