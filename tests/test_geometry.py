"""Oriented boxes, quads and the reader's crop (vision.geometry), shared by training and runtime."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vision.geometry import READ_H, READ_W, Box, box_of_quad, covered, iou, rectify, turned


@given(cx=st.floats(-500, 2000), cy=st.floats(-500, 2000), w=st.floats(10, 300),
       k=st.floats(1.2, 2.0), angle=st.floats(0, math.pi - 1e-6))
def test_a_box_and_its_quad_are_one_card(cx, cy, w, k, angle):
    box = Box(cx, cy, w, w * k, angle)
    back = box_of_quad(box.quad())
    assert back.cx == pytest.approx(cx, abs=1e-3) and back.cy == pytest.approx(cy, abs=1e-3)
    assert back.w == pytest.approx(w, rel=1e-4) and back.h == pytest.approx(w * k, rel=1e-4)
    diff = abs(back.angle - angle) % math.pi
    assert min(diff, math.pi - diff) < 1e-4


def test_a_quad_s_top_is_towards_the_frame_s_top_and_its_corners_go_clockwise():
    q = Box(100, 100, 60, 90, math.radians(80)).quad()  # nearly upright
    top, bottom = (q[0] + q[1]) / 2, (q[2] + q[3]) / 2
    assert top[1] < bottom[1]
    assert q[1][0] > q[0][0]  # TL then TR: clockwise on screen
    level = Box(100, 100, 60, 90, 0.0).quad()  # lying level: its top to the left
    assert (level[0] + level[1])[0] / 2 < 100


def test_turned_relabels_the_corners_of_a_card_read_upside_down():
    q = Box(0, 0, 60, 90, math.pi / 2).quad()
    assert np.array_equal(turned(q, 2), np.roll(q, -2, axis=0))
    assert np.array_equal(turned(q, 0), q)


def test_rectify_cuts_the_card_upright_and_black_past_the_frame():
    frame = np.full((200, 300, 3), 50, np.uint8)
    frame[40:100, 100:140] = 200  # a card 40 x 60 ...
    frame[40:50, 100:140] = (0, 0, 255)  # ... red along its top
    quad = np.float32([[100, 40], [140, 40], [140, 100], [100, 100]])
    crop = rectify(frame, quad)
    assert crop.shape == (READ_H, READ_W, 3)
    assert crop[3, READ_W // 2, 2] == 255 and crop[-3, READ_W // 2, 2] == 200
    upside_down = rectify(frame, turned(quad, 2))
    assert upside_down[-3, READ_W // 2, 2] == 255  # the red top is at the crop's bottom
    off = rectify(frame, quad + np.float32([250, 0]))  # half past the right edge
    assert (off[:, -5:] == 0).all()


@pytest.mark.parametrize("side", [100, 150, 200, 256, 320])
def test_a_large_card_is_shrunk_as_area_resampling_would(side):
    rng = np.random.default_rng(side)
    texture = (rng.random((520, 520, 3)) * 255).astype(np.uint8)  # detail down to one pixel
    height = round(side * 1.5)
    quad = np.float32([[0, 0], [side, 0], [side, height], [0, height]])
    ideal = cv2.resize(texture[:height, :side], (READ_W, READ_H), interpolation=cv2.INTER_AREA)
    diff = np.abs(rectify(texture, quad).astype(float) - ideal.astype(float))
    assert diff.mean() < 8  # on pixel noise (std 74): the worst case


def test_iou_of_quads():
    a = Box(0, 0, 60, 90, math.pi / 2).quad()
    assert iou(a, a) == pytest.approx(1.0)
    assert iou(a, a + 1000) == 0.0
    assert iou(a, a + np.float32([30, 0])) == pytest.approx(1 / 3, rel=1e-3)


def test_covered_measures_a_box_against_the_union_of_cards():
    """A box across two cards of a pile lies mostly inside neither, but inside both together."""
    box = Box(100, 100, 60, 90, math.pi / 2).quad()
    left = box - np.float32([30, 0])
    right = box + np.float32([30, 0])
    assert covered(box, []) == 0.0
    assert covered(box, [left]) == pytest.approx(0.5, abs=0.05)
    assert covered(box, [left, right]) == pytest.approx(1.0, abs=0.05)
    assert covered(box, [box + 1000]) == 0.0


def test_a_card_is_one_of_the_two_wholes_of_each_of_its_halves():
    card = Box(300, 200, 80, 80 * 1.54, 1.2)
    for half in card.halves():
        assert half.w * half.h == pytest.approx(card.w * card.h / 1.54 ** 2, rel=0.01)
        assert max(iou(whole.quad(), card.quad()) for whole in half.wholes()) > 0.99
        # the other reaches the other way: half of it on the card
        assert min(iou(whole.quad(), card.quad()) for whole in half.wholes()) == \
            pytest.approx(1 / 3, abs=0.01)


def test_windows_over_a_box_lying_across_a_fan_hold_each_card_of_it():
    """A landscape box across three portrait cards fanned 0.6 of a width apart: a window of the
    card's size lies on each card (IoU over 0.75: at most half a step, w / 8, off it), in the
    cards' orientation, none past the reach."""
    w, h = 80.0, 80 * 1.54
    cards = [Box(400 + 48 * k, 300, w, h, math.pi / 2) for k in range(3)]
    across = Box(448, 300, h, 176.0, 0.0)  # long axis along the fan, as the detector boxed it
    windows = across.windows(w, h, step=w / 4, reach=w / 3)
    assert {round(b.angle, 6) for b in windows} == {0.0, round(math.pi / 2, 6)}
    assert all(b.w == w and b.h == h for b in windows)
    for card in cards:
        assert max(iou(b.quad(), card.quad()) for b in windows) > 0.75
    reach = (176.0 - w) / 2 + w / 3
    assert max(abs(b.cx - 448) for b in windows if b.angle > 1) <= reach + 1e-6


def test_a_box_the_size_of_its_window_is_that_window_and_those_turned_across_it():
    box = Box(100, 100, 50, 77, 0.3)
    windows = box.windows(50, 77, step=20, reach=0)
    assert windows[0] == box
    assert [round(b.angle, 6) for b in windows[1:]] == [round(0.3 + math.pi / 2, 6)] * 2


def test_the_ends_of_a_box_holding_a_row_are_its_first_and_last_card():
    """A row of three cards laid a half width over one another, boxed as one: a card-sized box
    flush with each end of it lies on the first and on the last card; no end along a side no
    longer than the card's."""
    w, h = 80.0, 80 * 1.54
    cards = [Box(300, 200 + 40 * k, w, h, 0.0) for k in range(3)]  # lying across, in a column
    row = Box(300, 240, w + 80, h, 0.0)
    ends = row.ends(w, h)
    assert len(ends) == 2 and all((b.w, b.h, b.angle) == (w, h, 0.0) for b in ends)
    assert sorted(round(b.cy) for b in ends) == [200, 280]
    for end, card in zip(sorted(ends, key=lambda b: b.cy), (cards[0], cards[2]), strict=True):
        assert iou(end.quad(), card.quad()) > 0.99
    assert Box(300, 200, w, h, 0.0).ends(w, h) == []


@given(st.floats(0, math.pi - 1e-3), st.floats(0, math.pi - 1e-3),
       st.floats(20, 200), st.floats(20, 200))
def test_a_box_held_in_another_orientation_holds_each_of_its_corners(angle, turn, w, h):
    box = Box(300, 200, w, h, angle)
    held = box.held_in(turn)
    assert held.angle == pytest.approx(turn % math.pi)
    assert covered(box.quad(), [held.quad()], cell=0.5) > 0.97
    if abs(turn - angle) < 1e-9:  # in its own orientation: itself
        assert (held.w, held.h) == (pytest.approx(w, abs=1e-3), pytest.approx(h, abs=1e-3))
