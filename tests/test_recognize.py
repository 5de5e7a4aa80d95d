"""Reading photos of decks the reader never saw (tests/fixtures/unseen: typefaces of the test
split, held-out layouts and tables), the simulator's own deck, and single crops."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from conftest import Boxes, SplitScoringReader, scoring_five

from vision.cards import DEFAULT_STYLE, render_face
from vision.detect import Detector, FrameError
from vision.evaluate import Tally, score_frame, truth_of
from vision.geometry import READ_H, READ_W, Box, rectify
from vision.read import CardImageError, Reader
from vision.recognize import look_at, part_of_a_card, recognize, whole_of_a_part
from vision.sim.scene import Conditions, Placement, render_frame
from vision.types import CardId, Reading

UNSEEN = Path(__file__).parent / "fixtures" / "unseen"


@pytest.fixture(scope="module")
def reader() -> Reader:
    return Reader.zero_shot()


@pytest.fixture(scope="module")
def detector() -> Detector:
    return Detector()


def unseen_rows() -> list[dict]:
    rows = [json.loads(line) for line in (UNSEEN / "truth.jsonl").read_text().splitlines()]
    for row in rows:
        row["path"] = str(UNSEEN / row["image"])
    return rows


@pytest.fixture(scope="module")
def unseen_tally(reader, detector) -> dict[str, Tally]:
    out: dict[str, Tally] = {}
    for row in unseen_rows():
        frame = cv2.imread(row["path"], cv2.IMREAD_COLOR)
        tally = score_frame(look_at(frame, reader, detector), truth_of(row),
                            (frame.shape[1], frame.shape[0]))
        out.setdefault(row["condition"], Tally()).add(tally)
    return out


CONDITIONS = sorted({r["condition"] for r in unseen_rows()})


@pytest.mark.parametrize("condition", CONDITIONS)
def test_unseen_designs_are_never_read_confidently_wrong(unseen_tally, condition):
    t = unseen_tally[condition]
    assert t.counts["wrong"] == 0, t.wrong
    assert t.counts["spurious"] == 0  # no phantom cards


def test_unseen_designs_are_mostly_read(unseen_tally):
    """A regression guard at today's level (measured: 72.3 % of these 148 cards, 72.6 % of
    2,021 in the bench's unseen set); the rest are abstentions the referee asks about."""
    total = Tally()
    for t in unseen_tally.values():
        total.add(t)
    assert total.counts["cards"] >= 140
    assert total.right >= 0.7, (total.right, total.counts)


def test_white_and_checked_cloth_and_the_frame_edge_are_found(unseen_tally):
    for condition in ("white_cloth", "checked_cloth", "edge"):
        c = unseen_tally[condition].counts
        assert c["missed"] <= c["cards"] // 5, (condition, c)


def test_the_json_of_a_card_read(reader, detector):
    frame, truth = render_frame([Placement(CardId("number", 23), (640.0, 360.0), 30.0, 110.0)],
                                Conditions(table="wood_light"), seed=3)
    (card,) = recognize(frame, reader, detector)
    assert card["kind"] == "number" and card["value"] == 23 and "colour" not in card
    assert 0.9 <= card["confidence"] <= 1.0
    assert np.hypot(card["center"][0] - 640, card["center"][1] - 360) < 6
    # corners TL, TR, BR, BL as printed: the card's top-left corner is the printed one
    assert np.abs(np.array(card["corners"]) - truth[0].corners).max() < 12


def test_a_zero_s_colour_is_in_the_json(reader, detector):
    frame, _ = render_frame([Placement(CardId("scoring", 0, "red"), (640.0, 360.0), 0.0, 110.0)],
                            Conditions(table="cloth_green"), seed=4)
    (card,) = recognize(frame, reader, detector)
    assert (card["kind"], card["value"], card["colour"]) == ("scoring", 0, "red")


def test_a_six_and_a_nine_are_told_apart_by_the_card_s_own_orientation(reader):
    for value in (6, 9):
        face = cv2.resize(render_face(CardId("number", value), DEFAULT_STYLE), (READ_W, READ_H),
                          interpolation=cv2.INTER_AREA)
        look = reader.read_one(face)
        assert look.reading.value == value and look.turns == 0
        turned = np.ascontiguousarray(face[::-1, ::-1])
        look = reader.read_one(turned)
        assert look.reading.value == value and look.turns == 2


def test_a_crop_of_bare_table_is_no_card(reader, detector):
    table, _ = render_frame([], Conditions(table="wood_dark"), seed=5)
    crop = rectify(table, np.float32([[500, 200], [580, 200], [580, 323], [500, 323]]))
    assert reader.read_one(crop).no_card > 0.5
    assert recognize(table, reader, detector) == []


def test_bad_input_is_refused_in_one_line(reader, detector):
    with pytest.raises(CardImageError):
        reader.read([np.zeros((10, 10, 3), np.uint8)])
    with pytest.raises(FrameError):
        detector.find(np.zeros((8, 8, 3), np.uint8))
    with pytest.raises(FrameError):
        detector.find(np.zeros((100, 100), np.uint8))


def test_an_unsure_box_across_a_pile_of_read_cards_is_no_card():
    """The red half of a value card and the zero across it, boxed together and read unsure, are
    the cards already read, not one more (a phantom the table would be asked to name)."""
    value = Box(100, 100, 60, 90, 0).quad()
    zero = value + np.float32([0, 45])
    across = value + np.float32([0, 25])
    unsure = Reading("unknown", None, None, 0.69, ((CardId("scoring", 0, "blue"), 0.69),))
    assert part_of_a_card(unsure, across, [value, zero])
    assert not part_of_a_card(unsure, across, [value])  # half of it lies on the table
    sure = Reading.of(CardId("scoring", 6), 0.99, ((CardId("scoring", 6), 0.99),), 0.98)
    assert not part_of_a_card(sure, across, [value, zero])  # a sure read is a card


def test_a_box_smaller_than_a_card_inside_one_is_part_of_it_however_it_reads():
    """The red half of a value card, boxed with the white half of the zero across it, reads
    surely as a red zero: but the box is smaller than a card and lies in the value card's."""
    value = Box(100, 100, 75, 116, math.pi / 2).quad()
    half = Box(104, 134, 59, 90, math.pi / 2).quad()
    red_zero = Reading.of(CardId("scoring", 0, "red"), 0.997,
                          ((CardId("scoring", 0, "red"), 0.997),), 0.98)
    assert part_of_a_card(red_zero, half, [value])
    assert not part_of_a_card(red_zero, value + np.float32([0, 58]), [value])  # a whole card
    assert not part_of_a_card(red_zero, value, [value])  # itself


def _box(cx: float, cy: float, w: float = 60, h: float = 90) -> np.ndarray:
    return np.float32([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2],
                       [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2]])


def test_a_box_across_two_cards_of_a_fan_is_no_third_card():
    from vision.recognize import across_a_pile

    left, right = _box(100, 100), _box(140, 100)  # a fan: the right card half over the left
    spanning = _box(120, 110, 70, 80)  # a box across both, read surely as some card
    assert across_a_pile([left, right, spanning]) == {2}
    assert across_a_pile([left, right]) == set()
    # the middle card of a fan of three lies under its neighbours' boxes: known before, it
    # stays; a new box there is dropped
    middle, far = _box(120, 100), _box(160, 100)
    assert across_a_pile([far], known=[left, middle]) == set()
    assert across_a_pile([middle], known=[left, right]) == {0}


def test_a_box_across_two_overlapping_cards_gives_way_to_the_box_beside_it(white_is_a_card):
    """Two copies of a card, the second laid half over the first, smear into one peak between
    them whose box lies across both; the cell beside the peak boxes the card on top."""
    from vision.detect import Detection
    from vision.recognize import look_beside

    frame = np.zeros((300, 600, 3), np.uint8)
    cv2.rectangle(frame, (326, 51), (406, 173), (255, 255, 255), -1)  # the card on top
    under = Box(416, 112, 73, 113, math.pi / 2)  # the card beneath: boxed on its own
    smeared = Detection(Box(382, 125, 87, 130, math.pi), 0.44, beside=(
        Box(381, 122, 88, 131, math.pi),     # the peak's own box again: not read twice
        Box(409, 111, 79, 121, math.pi / 2),  # the card beneath again: a card already boxed
        Box(366, 112, 80, 122, math.pi / 2)))  # the card on top
    found = look_beside(frame, white_is_a_card, smeared, [under.quad()])
    assert found is not None
    det, look = found
    assert (det.box.cx, det.box.cy, look.reading.label) == (366, 112, "blue-7")
    assert look_beside(frame, white_is_a_card, Detection(smeared.box, 0.44), []) is None


def test_two_copies_of_a_card_overlapping_are_two_cards_in_a_deck_with_copies():
    from vision.detect import Detection
    from vision.read import Look
    from vision.recognize import decide

    seven = Reading.of_name("blue-7", 0.99, (("blue-7", 0.99),), 0.9)
    top, beneath = Box(366, 112, 80, 122, math.pi / 2), Box(416, 112, 80, 122, math.pi / 2)
    found = [Detection(top, 0.4), Detection(beneath, 0.6)]
    looks = [Look(seven, 0, 0.0), Look(seven, 0, 0.0)]
    assert len(decide(found, looks, unique=False)) == 2
    assert len(decide(found, looks, unique=True)) == 1  # Tightrope: one card of each name
    half = Box(366, 140, 80, 61, 0.0)  # a box on half of the card on top, read as it
    assert len(decide(found[:1] + [Detection(half, 0.3)], looks, unique=False)) == 1


def test_a_box_on_half_a_card_gives_way_to_the_whole_card(white_is_a_card):
    """Of a card printed in two halves the detector may box one half, lying across: the card
    it is half of, reaching either way, is read instead; never one that holds a card boxed."""
    from vision.detect import Detection
    from vision.recognize import look_beside

    frame = np.zeros((400, 400, 3), np.uint8)
    card = Box(200, 200, 80, 123, math.pi / 2)  # upright
    cv2.fillConvexPoly(frame, card.quad().astype(np.int32), (255, 255, 255))
    top_half = card.halves()[0]
    found = look_beside(frame, white_is_a_card, Detection(top_half, 0.5), [])
    assert found is not None
    assert (round(found[0].box.cx), round(found[0].box.cy)) == (200, 200)
    inside = Box(200, 230, 40, 60, math.pi / 2)  # a card boxed where the whole would lie
    assert look_beside(frame, white_is_a_card, Detection(top_half, 0.5), [inside.quad()]) is None


def test_a_scoring_card_boxed_as_its_two_halves_is_one_card_not_two_zeros():
    """The detector boxed an unseen design's scoring 5 only as its two halves, each read surely
    as a zero of its colour: a round's first trick scored two zeros and no value card (zero-shot,
    checked cloth). A box read as a zero is looked at as the cards it may be half of."""
    frame, card = scoring_five()
    halves = Boxes(*card.halves())
    seen = look_at(frame, SplitScoringReader(), halves)  # type: ignore[arg-type]
    assert [s.reading.card for s in seen] == [CardId("scoring", 5)]
    assert np.hypot(seen[0].center[0] - 200, seen[0].center[1] - 200) < 10
    # the card's own box found too: its halves are parts of it
    seen = look_at(frame, SplitScoringReader(), Boxes(card, *card.halves()))  # type: ignore[arg-type]
    assert [s.reading.card for s in seen] == [CardId("scoring", 5)]


def test_a_whole_zero_stays_a_zero_beside_another_card():
    """A zero's own box is a whole card: the boxes around it, half again as long, show no card
    or lie across the card beside it, and are never taken for a card."""
    frame = np.full((400, 500, 3), 60, np.uint8)
    zero = Box(150, 200, 80, 123, math.pi / 2)
    cv2.fillConvexPoly(frame, zero.quad().astype(np.int32), (200, 60, 30))
    seen = look_at(frame, SplitScoringReader(), Boxes(zero))  # type: ignore[arg-type]
    assert [s.reading.card for s in seen] == [CardId("scoring", 0, "blue")]
    five = Box(330, 200, 80, 123, math.pi / 2)  # a scoring 5 laid beside it, boxed whole
    top, bottom = sorted(five.halves(), key=lambda b: b.cy)
    cv2.fillConvexPoly(frame, top.quad().astype(np.int32), (200, 60, 30))
    cv2.fillConvexPoly(frame, bottom.quad().astype(np.int32), (30, 40, 200))
    seen = look_at(frame, SplitScoringReader(), Boxes(zero, five))  # type: ignore[arg-type]
    assert sorted(str(s.reading.card) for s in seen) == sorted(
        [str(CardId("scoring", 0, "blue")), str(CardId("scoring", 5))])


def _fill(frame: np.ndarray, box: Box, colour: tuple[int, int, int]) -> None:
    cv2.fillConvexPoly(frame, box.quad().astype(np.int32), colour)


def _beside(frame: np.ndarray) -> Box:
    """A scoring 5 laid apart, boxed whole: the size of the cards."""
    five = Box(400, 200, 80, 123, math.pi / 2)
    top, bottom = sorted(five.halves(), key=lambda b: b.cy)
    _fill(frame, top, (200, 60, 30))
    _fill(frame, bottom, (30, 40, 200))
    return five


def test_a_zero_boxed_on_its_half_is_the_whole_zero():
    """A zero boxed on its coloured half only (its white half on a pale cloth shows no edge):
    the right card, but its centre a quarter card off. A zero is a whole card: the box is
    looked at as the two cards it may be half of, and the one that reads as that zero is it."""
    frame = np.full((400, 500, 3), 60, np.uint8)
    zero = Box(150, 200, 80, 123, math.pi / 2)
    _fill(frame, zero, (200, 60, 30))  # (the test's reader reads a blue crop as the blue 0)
    half = min(zero.halves(), key=lambda b: b.cy)
    seen = look_at(frame, SplitScoringReader(), Boxes(half, _beside(frame)))  # type: ignore[arg-type]
    zeros = [s for s in seen if s.reading.card == CardId("scoring", 0, "blue")]
    assert len(zeros) == 1 and len(seen) == 2
    assert np.hypot(zeros[0].center[0] - 150, zeros[0].center[1] - 200) < 5


def test_a_value_card_s_half_under_a_zero_boxed_alone_is_asked_about():
    """Design 44 on a white cloth: the red half of the 9 under the blue zero, boxed alone, read
    as a red zero at 0.998. Neither card it may be half of reads as a value card or as that zero
    (the one reaching under the blue zero shows that zero's white half), so it is read unsure."""
    frame = np.full((400, 500, 3), 60, np.uint8)
    nine = Box(150, 230, 80, 123, math.pi / 2)
    top, bottom = sorted(nine.halves(), key=lambda b: b.cy)
    _fill(frame, bottom, (30, 40, 200))  # its red half shows; its blue half lies under:
    zero = Box(150, 169, 80, 123, math.pi / 2)
    zero_top, zero_bottom = sorted(zero.halves(), key=lambda b: b.cy)
    _fill(frame, zero_top, (200, 60, 30))  # the blue zero: blue above, white below
    _fill(frame, zero_bottom, (235, 235, 235))
    seen = look_at(frame, SplitScoringReader(), Boxes(bottom, _beside(frame)))  # type: ignore[arg-type]
    under = [s for s in seen if np.hypot(s.center[0] - 150, s.center[1] - 261) < 20]
    assert len(under) == 1 and under[0].reading.label is None
    assert under[0].reading.named[0][0] == "scoring-0-red"


def test_an_unsure_box_of_half_a_card_is_read_as_the_card_it_is_half_of():
    """An Attacke card printed in two halves on a cloth of its colours, boxed only as a half
    (0.53 of a card), read unsure: the card it is half of, read surely, is the card (Attacke
    zero-shot, seed 83: a green 5 tracked as two unsure cards, and as a third when its own box
    came). A box read surely, or a card's size, is left as it is."""
    from vision.detect import Detection
    from vision.read import Look

    card = Box(640, 380, 82, 124, 0.0)
    frame = np.zeros((720, 1280, 3), np.uint8)
    for half, grey in zip(card.halves(), (200, 120), strict=True):
        cv2.fillConvexPoly(frame, half.quad().astype(np.int32), (grey, grey, grey))

    class TwoTone:  # half 200 and half 120 is the green 5; either alone, a green 7 unsure
        tightrope = False

        def read(self, crops):
            def look(c):
                light, dark = (float((np.abs(c.astype(int) - g) < 10).mean()) for g in (200, 120))
                if min(light, dark) >= 0.35:
                    return Look(Reading.of_name("green-5", 0.99, (("green-5", 0.99),), 0.95), 0,
                                0.0)
                return Look(Reading.of_name(None, 0.9, (("green-7", 0.9),), 0.95), 0, 0.0)
            return [look(c) for c in crops]

    reader, size = TwoTone(), (82.0, 124.0)
    half = Detection(card.halves()[0], 0.5)
    unsure = reader.read([rectify(frame, half.quad)])[0]
    assert unsure.reading.label is None
    det, look = whole_of_a_part(frame, reader, half, unsure, [], size)
    assert look.reading.label == "green-5"
    assert math.dist(det.box.centre, card.centre) < 5
    sure = Look(Reading.of_name("green-7", 0.99, (("green-7", 0.99),), 0.95), 0, 0.0)
    assert whole_of_a_part(frame, reader, half, sure, [], size) is None
    assert whole_of_a_part(frame, reader, Detection(card, 0.5), unsure, [], size) is None
