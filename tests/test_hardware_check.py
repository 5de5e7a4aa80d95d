"""`python -m hardware`: the solder check lights exactly one LED colour per step."""

import io
import re
import threading

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.check import main, parser, run
from hardware.pins import PinMap


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    assert not [info.name for info, refs in f._reservations.items() if refs]
    f.reset()


@pytest.mark.parametrize("seats, mode", [(3, "rgb"), (4, "pair"), (5, "rgb")])
def test_each_step_lights_the_pin_it_names(factory, seats, mode):
    pm = PinMap()
    led_pins = [p for s in range(seats) for p in pm.seat_pins(s, mode)] + list(pm.status)
    out = io.StringIO()
    seen: list[dict[int, float]] = []

    def at_step(_seconds: float) -> None:   # called while each step is lit
        seen.append({p: float(factory.pin(p).state) for p in led_pins})

    args = parser().parse_args(["--seats", str(seats), "--mode", mode, "--buttons", "0"])
    assert run(args, out, at_step, factory) == 0
    lines = [line for line in out.getvalue().splitlines() if line.startswith("lit: ")]
    assert len(lines) == len(seen) == len(led_pins) + 4
    for line, states in zip(lines, seen, strict=True):
        named = int(re.search(r"GPIO(\d+)", line).group(1)) if "GPIO" in line else pm.seats[0][2]
        lit = {p for p, v in states.items() if v > 0}
        assert lit == {named}, line
        if "stick" in line:   # the brightness ramp: PWM duty as printed
            assert round(states[named] * 100) == int(re.search(r"duty (\d+)%", line).group(1))
        else:
            assert states[named] == 1.0


def test_buttons_are_echoed(factory):
    out = io.StringIO()
    pm = PinMap()

    def press() -> None:
        factory.pin(pm.ok).drive_low()
        factory.pin(pm.ok).drive_high()

    args = parser().parse_args(["--seats", "3", "--step", "0", "--buttons", "0.5"])
    timer = threading.Timer(0.1, press)
    timer.start()
    try:
        assert run(args, out, lambda s: None, factory) == 0
    finally:
        timer.cancel()
    assert "button: ok" in out.getvalue().splitlines()


def test_bad_config_is_one_line_and_exit_2(tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text("[pins]\nok = 17\n")
    assert main(["--config", str(cfg), "--step", "0", "--buttons", "0"]) == 2
    err = capsys.readouterr().err
    assert err == "error: pins: GPIO17 is used twice (seats[0][0] and ok)\n"
    few = tmp_path / "few.toml"
    few.write_text("[pins]\nseats = [[17, 27, 22], [23, 24, 25], [5, 6, 13]]\n")
    assert main(["--config", str(few), "--seats", "5", "--step", "0"]) == 2
    assert "the pin map wires only 3 seats" in capsys.readouterr().err
