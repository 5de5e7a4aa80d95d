"""Zones file: load/validate/save and zone_of."""

import json

import pytest

from vision.zones import Zones, ZonesError, as_zones, load_zones, save_zones

SQUARE = [[0, 0], [100, 0], [100, 100], [0, 100]]
ZONES = {
    "seats": [[[0, 200], [640, 200], [640, 360], [0, 360]],
              [[640, 200], [1280, 200], [1280, 360], [640, 360]]],
    "scoring": [[100, 50], [1180, 50], [1180, 220], [100, 220]],
}


def test_zone_of_seats_scoring_and_outside():
    z = Zones.from_dict(ZONES)
    assert z.n_seats == 2
    assert z.zone_of((300, 300)) == 0
    assert z.zone_of((900, 300.5)) == 1
    assert z.zone_of((600, 100)) == "scoring"
    assert z.zone_of((600, 210)) == "scoring"  # overlap with a seat: the scoring row wins
    assert z.zone_of((5, 5)) is None


def test_round_trip_file(tmp_path):
    path = tmp_path / "zones.json"
    save_zones(Zones.from_dict(ZONES), path)
    z = load_zones(path)
    assert z.to_dict() == json.loads(json.dumps(Zones.from_dict(ZONES).to_dict()))
    assert as_zones(str(path)).zone_of((300, 300)) == 0
    assert as_zones(ZONES).zone_of((900, 300)) == 1
    assert as_zones(None) is None


@pytest.mark.parametrize(
    "data, words",
    [
        ([], "JSON object"),
        ({"seats": [SQUARE]}, "scoring"),
        ({"seats": [], "scoring": SQUARE}, "1..8"),
        ({"seats": [[[0, 0], [1, 1]]], "scoring": SQUARE}, "seat 0"),
        ({"seats": [SQUARE], "scoring": [[0, 0], [5, 0], [10, 0]]}, "no area"),
        ({"seats": [SQUARE], "scoring": [["a", 0], [5, 0], [10, 0]]}, "scoring"),
        ({"seats": [SQUARE], "scoring": SQUARE, "extra": 1}, "unknown key"),
    ],
)
def test_bad_zones_are_one_line_errors(data, words):
    with pytest.raises(ZonesError, match=words) as info:
        Zones.from_dict(data)
    assert "\n" not in str(info.value)
    assert isinstance(info.value, ValueError)


def test_bad_files(tmp_path):
    with pytest.raises(ZonesError, match="cannot read"):
        load_zones(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ZonesError, match="not valid JSON"):
        load_zones(bad)


def test_named_places_are_optional_and_win_over_a_seat(tmp_path):
    spots = {"1a": [[10, 250], [200, 250], [200, 350], [10, 350]],
             "deck": [[1000, 250], [1200, 250], [1200, 350], [1000, 350]]}
    z = Zones.from_dict({**ZONES, "places": spots})
    assert z.zone_of((100, 300)) == "1a" and z.zone_of((1100, 300)) == "deck"
    assert z.zone_of((400, 300)) == 0 and z.zone_of((600, 100)) == "scoring"
    path = tmp_path / "zones.json"
    save_zones(z, path)
    assert load_zones(path).zone_of((100, 300)) == "1a"
    assert "places" not in Zones.from_dict(ZONES).to_dict()  # a file without places as before
    assert Zones.from_dict({**ZONES, "places": {"3": SQUARE}}).zone_of((50, 50)) == "3"
    for bad in ({"": SQUARE}, {"scoring": SQUARE}, []):
        with pytest.raises(ZonesError, match="place"):
            Zones.from_dict({**ZONES, "places": bad})
