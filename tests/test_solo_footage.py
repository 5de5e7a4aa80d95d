"""Solo footage: a record's events as table actions (informants dealt and turned along the row,
a mission's cards on its spot, the card that stays), and the simulator laying cards in named
areas, written to zones.json as places."""

from __future__ import annotations

import json

import pytest

from companion.footage import DRAW_S, LOOK_S, deck_design, solo_actions, solo_areas
from companion.games.solo.cards import Card
from companion.games.solo.rules import (
    CardDrawn,
    CardsRedrawn,
    GameStarted,
    JackPlayed,
    MissionPlayed,
    Spot,
)
from vision.sim.faces import Printed
from vision.sim.footage import LayAt, Pause, Take, render_footage
from vision.sim.scene import Conditions, SimError
from vision.zones import load_zones

DESIGN = deck_design("solo", 3)


def at(area: str, name: str, slot: int | None = None) -> LayAt:
    return LayAt(area, Printed(name, DESIGN), slot)


def test_a_jack_a_redraw_and_a_mission_become_the_table_s_actions():
    c = Card.parse
    events = [GameStarted(("Ana",)),
              JackPlayed(c("JS"), c("7H")),                       # the 7H lies in slot 1
              CardDrawn(),
              CardsRedrawn((c("2C"),)),                           # one informant dealt: slot 3
              MissionPlayed(Spot.LOW_LEFT, (c("10S"), c("9S")),
                            (c("2D"), c("7H"), c("3D"), c("4D")), c("10S"))]
    backs = [at("scoring", "back", k) for k in range(3)]
    assert solo_actions(events, DESIGN) == [
        at("deck", "back"), *backs,
        at("front", "JS"), Take("scoring", (1,)), at("scoring", "7H", 1), Pause(DRAW_S),
        Take("front"),
        Pause(DRAW_S),
        at("front", "2C"), Pause(DRAW_S), Take("front"), at("scoring", "back", 3),
        at("1a", "10S"), at("1a", "9S"),
        Take("scoring", (0,)), at("scoring", "2D", 0), Take("scoring", (2,)),
        at("scoring", "3D", 2), Take("scoring", (3,)), at("scoring", "4D", 3),
        Pause(LOOK_S), Take("scoring"), Take("1a", (1,)),         # the 10S stays on 1a
        *(at("scoring", "back", k) for k in range(4)),            # one win: four informants
    ]


@pytest.fixture(scope="module")
def footage(tmp_path_factory):
    out = tmp_path_factory.mktemp("solo-footage")
    actions = [at("deck", "back"), at("scoring", "back", 0), at("1b", "QH"), at("1b", "7C"),
               at("front", "2C"), Take("1b", (0,))]
    render_footage(actions, 1, out, fps=4, seed=1, cond=Conditions(noise=2.0),
                   size=(640, 360), hold_s=0.25, hand_s=0.5, lead_in_s=0.25,
                   areas=solo_areas())
    return out


def test_solo_footage_writes_places_and_lays_cards_in_them(footage):
    zones = load_zones(footage / "zones.json")
    assert {name for name, _ in zones.places} == {"1a", "1b", "1c", "2a", "2b", "3", "deck"}
    last = [json.loads(line) for line in (footage / "truth.jsonl").read_text().splitlines()][-1]
    lying = [(card["label"], zones.zone_of(card["center"])) for card in last["table"]]
    # the QH taken away; the player's own laying has no place: it lies in his seat's zone
    assert lying == [("back", "deck"), ("back", "scoring"), ("7C", "1b"), ("2C", 0)]


def test_an_area_the_table_has_not_is_an_error(tmp_path):
    with pytest.raises(SimError, match="no area 'moon'"):
        render_footage([at("moon", "QH")], 1, tmp_path, fps=2, size=(320, 180),
                       areas=solo_areas())
