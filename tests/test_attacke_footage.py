"""Attacke footage: a record's events as table actions (the rules decide what leaves the table
when), and the simulator laying named cards of the Attacke deck in the seats' zones."""

from __future__ import annotations

import json
import random

import cv2
import numpy as np
import pytest

from companion.footage import THINK_S, attacke_actions, attacke_design, table_actions
from companion.games.attacke.randgame import random_game
from companion.games.attacke.rules import Card, CardsPlayed, Game, GameStarted, Passed, Variant
from vision.sim.faces import Printed
from vision.sim.footage import ClearSeat, Lay, Pause, render_footage
from vision.sim.scene import Conditions, SimError

DESIGN = attacke_design(3)
SMALL = (480, 270)


def lay(seat: int, name: str) -> Lay:
    return Lay(seat, Printed(name, DESIGN))


def test_a_contest_becomes_lays_and_clears_as_the_rules_say():
    c = Card.parse
    events = [GameStarted(("Ana", "Ben", "Cy"), 0, Variant(concealed=True)),
              CardsPlayed(0, (c("red-3"),)),
              Passed(1),                                  # Ben laid nothing: he says "pass"
              CardsPlayed(2, (c("red-5"),), 1),           # one card face down (A12)
              Passed(0),                                  # Ana's red 3 leaves (A7)
              ]                                           # Cy wins: his cards leave (A9)
    assert Game.replay(events).contests[0].winner == 2
    assert attacke_actions(events, DESIGN) == [
        lay(0, "red-3"), Pause(THINK_S), lay(2, "red-5"), lay(2, "back"), ClearSeat(0),
        ClearSeat(2)]
    assert table_actions(events, DESIGN) == attacke_actions(events, DESIGN)


def test_an_opener_with_no_knight_passing_leaves_nothing_to_clear():
    events = [GameStarted(("Ana", "Ben", "Cy"), 0), Passed(0),
              CardsPlayed(1, (Card.parse("blue-2"),))]
    assert attacke_actions(events, DESIGN) == [Pause(THINK_S), lay(1, "blue-2")]


@pytest.fixture(scope="module")
def footage(tmp_path_factory):
    events = random_game(random.Random(5), 3, Variant(concealed=True), contests=1)
    actions = attacke_actions(events, DESIGN)
    out = tmp_path_factory.mktemp("attacke-footage")
    cond = Conditions(light_gradient=0.3, noise=2.0, tilt_deg=5.0)
    render_footage(actions, 3, out, fps=4, seed=1, cond=cond, size=SMALL, hold_s=0.25,
                   hand_s=0.5, lead_in_s=0.25)
    return out, actions, events


def test_attacke_footage_holds_the_cards_where_they_should_be(footage):
    out, script, events = footage
    lines = [json.loads(x) for x in (out / "truth.jsonl").read_text().splitlines()]
    actions = [a for a in script if not isinstance(a, Pause)]  # the table as it was: no line
    assert len(lines) == len(actions) and len(actions) >= 4
    zones = json.loads((out / "zones.json").read_text())
    polys = [np.float32(p) for p in zones["seats"]]
    expected: dict[int, list[str]] = {s: [] for s in range(3)}
    for action, line in zip(actions, lines, strict=True):
        if isinstance(action, Lay):
            assert line == {**line, "action": "lay", "seat": action.seat,
                            "card": action.card.name}
            expected[action.seat].append(action.card.name)
        else:
            assert line["action"] == "clear_seat" and line["seat"] == action.seat
            expected[action.seat] = []
        held = {s: [c["label"] for c in line["table"] if c["zone"] == s] for s in range(3)}
        assert held == expected
        for card in line["table"]:  # every card lies in its seat's zone
            assert cv2.pointPolygonTest(polys[card["zone"]], tuple(card["center"]), False) >= 0
    # the contest is over: every card has left the table, the victor's last
    assert lines[-1]["table"] == [] and isinstance(actions[-1], ClearSeat)
    assert actions[-1].seat == Game.replay(events).contests[0].winner
    # a fan: a seat's cards lie side by side, not on one another
    fans = [line["table"] for line in lines if len(line["table"]) >= 2]
    for table in fans:
        for a in table:
            for b in table:
                if a is not b and a["zone"] == b["zone"]:
                    gap = np.hypot(*np.subtract(a["center"], b["center"]))
                    assert gap > 0.3 * 0.062 * SMALL[0]
    frames = sorted(out.glob("frame_*.jpg"))  # fps 4: lead-in 1, a hand 2, a hold 1, a pause 8
    pauses = sum(1 for a in script if isinstance(a, Pause))
    assert len(frames) == 1 + 3 * len(actions) + round(4 * THINK_S) * pauses


def test_a_lay_needs_a_printed_card_and_a_seat(tmp_path):
    with pytest.raises(SimError):
        render_footage([Lay(3, Printed("red-2", DESIGN))], 3, tmp_path / "x", size=SMALL)
    with pytest.raises(SimError):
        Lay(0, "red-2")  # type: ignore[arg-type]
    with pytest.raises(SimError):
        render_footage([ClearSeat(4)], 3, tmp_path / "z", size=SMALL)
