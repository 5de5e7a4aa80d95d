"""Pin map validation, the TOML [pins] table and the pin-factory choice."""

from pathlib import Path

import pytest
from gpiozero import PWMLED
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.pins import (
    BUS_GPIOS,
    KEEP_STATES,
    PHYSICAL,
    HardwareError,
    PinConfigError,
    PinMap,
    choose_pin_factory,
    load_pin_map,
    parse_pin,
)

EXAMPLE = Path(__file__).resolve().parents[1] / "hardware" / "config_example.toml"


def all_pins(pm: PinMap) -> list[int]:
    return [p for seat in pm.seats for p in seat] + list(pm.status) + [pm.ok, pm.undo]


def test_defaults_are_twenty_distinct_header_pins_off_i2c_and_uart():
    pins = all_pins(PinMap())
    assert len(pins) == 20 == len(set(pins))
    assert not set(pins) & {0, 1, 2, 3, 14, 15}
    assert all(p in PHYSICAL for p in pins)
    # only the status LED sits on a bus (SPI0), and the notes say so
    notes = PinMap().bus_notes()
    assert len(notes) == 3 and all("SPI0" in n and "status" in n for n in notes)


def test_config_example_is_the_defaults():
    assert load_pin_map(EXAMPLE) == PinMap()


def test_no_config_or_no_pins_table_gives_defaults(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[web]\nport = 8000\n')
    assert load_pin_map(cfg) == PinMap() == load_pin_map(None) == PinMap.from_dict(None)


def test_from_dict_overrides_and_accepts_gpio_names():
    pm = PinMap.from_dict({"seats": [[2, 3, 4], ["GPIO5", "BCM6", "7"], [8, 9, 10]],
                           "status": [11, 12, 13], "ok": 14, "undo": 15,
                           "active_high": False})
    assert pm.seats == ((2, 3, 4), (5, 6, 7), (8, 9, 10))
    assert pm.seat_pins(1) == (5, 6, 7) and pm.seat_pins(1, "pair") == (5, 7)
    assert not pm.active_high and pm.label(14) == "ok" and pm.label(6) == "seats[1][1]"


def test_pair_mode_takes_two_pins_per_seat():
    pm = PinMap.from_dict({"mode": "pair", "seats": [[17, 22], [23, 25], [5, 13]]})
    assert pm.seat_pins(2) == (5, 13)
    with pytest.raises(PinConfigError, match="rgb mode needs 3"):
        pm.seat_pins(0, "rgb")


@pytest.mark.parametrize("section, message", [
    ({"ok": 17}, r"GPIO17 is used twice \(seats\[0\]\[0\] and ok\)"),
    ({"status": [10, 9, 10]}, r"GPIO10 is used twice \(status\[0\] and status\[2\]\)"),
    ({"undo": 30}, r"pins.undo: GPIO30 is not on the 40-pin header"),
    ({"ok": 0}, r"pins.ok: GPIO0 is reserved"),
    ({"ok": -4}, r"not on the 40-pin header"),
    ({"ok": "pin4"}, r"'pin4' is not a BCM pin"),
    ({"ok": True}, r"True is not a pin number"),
    ({"ok": 4.0}, r"4.0 is not a pin number"),
    ({"colour": 1}, r"unknown key 'colour'"),
    ({"mode": "rgbw"}, r"pins.mode: 'rgbw' is not one of rgb, pair"),
    ({"seats": [[17, 27]] * 3}, r"seats\[0\]: rgb mode needs 3 pins, got 2"),
    ({"seats": [[17, 27, 22], [23, 24, 25]]}, r"need 3 to 5 seats, got 2"),
    ({"seats": 17}, r"pins.seats: expected a list"),
    ({"status": [10, 9]}, r"pins.status: needs 3 pins"),
    ({"active_high": "yes"}, r"active_high: must be true or false"),
])
def test_bad_sections_give_one_clear_line(section, message):
    with pytest.raises(PinConfigError, match=message) as info:
        PinMap.from_dict(section)
    assert "\n" not in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, HardwareError)


def test_parse_pin_forms():
    assert parse_pin(" gpio27 ", "x") == 27 and parse_pin("BCM2", "x") == 2
    assert set(BUS_GPIOS) == {2, 3, 7, 8, 9, 10, 11, 14, 15}


def test_load_pin_map_errors_are_one_line(tmp_path):
    with pytest.raises(PinConfigError, match="cannot read config"):
        load_pin_map(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[pins\nok = 4\n")
    with pytest.raises(PinConfigError, match="invalid TOML"):
        load_pin_map(bad)
    flat = tmp_path / "flat.toml"
    flat.write_text('pins = 4\n')
    with pytest.raises(PinConfigError, match=r"\[pins\] must be a table"):
        load_pin_map(flat)


def model_file(tmp_path: Path, text: bytes | None) -> Path:
    path = tmp_path / "model"
    if text is not None:
        path.write_bytes(text)
    return path


@pytest.mark.parametrize("env, model, mock", [
    ({}, None, True),                                            # no device tree: a PC
    ({}, b"QEMU Virtual Machine\0", True),
    ({}, b"Raspberry Pi 5 Model B Rev 1.0\0", False),
    ({}, b"Raspberry Pi Zero 2 W Rev 1.0\0", False),
    ({"TIGHTROPE_MOCK_GPIO": "1"}, b"Raspberry Pi 4 Model B Rev 1.4\0", True),
    ({"TIGHTROPE_MOCK_GPIO": "0"}, None, False),
])
def test_choose_pin_factory(tmp_path, env, model, mock):
    factory = choose_pin_factory(env, model_file(tmp_path, model))
    if mock:
        assert isinstance(factory, MockFactory) and issubclass(factory.pin_class, MockPWMPin)
        # LEDs, buttons and the web panel must see the same mock pins
        assert choose_pin_factory(env, model_file(tmp_path, model)) is factory
    else:
        assert factory is None


def test_shared_mock_pins_keep_a_bounded_change_log():
    factory = choose_pin_factory({"TIGHTROPE_MOCK_GPIO": "1"})
    with PWMLED(7, pin_factory=factory) as led:   # GPIO7: spare in the default map
        for i in range(3000):
            led.value = (i % 100) / 100
        assert 0 < len(led.pin.states) <= 2 * KEEP_STATES + 1
        assert led.pin.state == 0.99 and led.pin.states[-1].state == 0.99


def test_wiring_doc_table_matches_the_default_pin_map():
    """docs/wiring.md is what people solder from: its table must be the software's defaults."""
    doc = (EXAMPLE.parents[1] / "docs" / "wiring.md").read_text()
    rows = [line.split("|")[1:5] for line in doc.splitlines() if line.startswith("| ")]
    table = {cells[3].strip().strip("`"): (int(cells[0]), cells[1].strip(), cells[2])
             for cells in rows if cells[1].strip().startswith("GPIO")}
    pm = PinMap()
    expected = {f"seats[{i}][{j}]": p
                for i, seat in enumerate(pm.seats) for j, p in enumerate(seat)}
    expected |= {f"status[{j}]": p for j, p in enumerate(pm.status)}
    expected |= {"ok": pm.ok, "undo": pm.undo}
    assert set(table) == set(expected)
    for key, pin in expected.items():
        physical, bcm, text = table[key]
        assert (physical, bcm) == (PHYSICAL[pin], f"GPIO{pin}"), key
        colour = ("red", "green", "blue")[int(key[-2])] if key.endswith("]") else key
        assert colour.lower() in text.lower(), key
