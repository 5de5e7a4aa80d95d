"""The learned card detector on rendered frames: hard tables, a card cut by the frame's edge,
touching cards, empty tables, and the decoding of its output maps."""

import math

import cv2
import numpy as np
import pytest

from vision.detect import Detector, FrameError, decode
from vision.geometry import iou, shrink
from vision.sim.scene import (
    Conditions,
    Placement,
    edge_scene,
    random_scene,
    render_frame,
    render_table,
)
from vision.types import CardId

# plain and patterned cloth the card must be told from by its shape, not its colour; the floral
# print is held out of training
TABLES = {
    "cloth_white": Conditions(table="cloth_white", light_gradient=0.5),
    "checked": Conditions(table="checked", glare=2),
    "floral": Conditions(table="floral", shadow=True),
    "wood_dark": Conditions(table="wood_dark", noise=6.0, jpeg_quality=50, tilt_deg=10.0),
}


@pytest.fixture(scope="module")
def detector() -> Detector:
    return Detector()


def _found(detections, truth_card, tol=0.7) -> bool:
    return any(iou(d.quad, truth_card.corners) > tol for d in detections)


@pytest.mark.parametrize("name", list(TABLES))
def test_every_card_is_found_on_a_single_photo(detector, name):
    rng = np.random.default_rng(len(name))
    frame, truth = render_frame(random_scene(rng, 8, width_range=(85, 95)), TABLES[name], seed=3)
    found = detector.find(frame)
    assert [t.card.label for t in truth if not _found(found, t)] == []
    assert len(found) <= len(truth) + 1


def test_an_empty_table_holds_no_card(detector):
    """The detector may see a faint box in a cloth's pattern (measured: 0.09 such boxes a frame
    at its line); the reader then reads no card in it. Measured over 60 renders of each of these
    tables (27 Nov): no sure read; 3 boxes of the checked cloth's glare left `unknown` (the
    reader of 23 Nov: 2), one of them this seed's, where a glare hangs off the frame's corner."""
    from vision.read import Reader
    from vision.recognize import look_at

    reader = Reader.zero_shot()
    for name, cond in TABLES.items():
        table = render_table(cond, seed=7)
        assert all(d.score < 0.5 for d in detector.find(table)), name
        assert [s.reading.label for s in look_at(table, reader, detector)
                if s.reading.label is not None] == [], name


def test_a_card_cut_by_the_frame_s_edge_is_found_past_the_edge(detector):
    found_cut = cut = 0
    for seed in range(4):
        frame, truth = render_frame(edge_scene(np.random.default_rng(seed)),
                                    Conditions(table="cloth_grey"), seed=seed)
        for t in truth:
            if 0.35 <= t.visible_fraction < 0.95:
                cut += 1
                found_cut += _found(detector.find(frame), t, tol=0.6)
    assert cut >= 4
    assert found_cut >= cut - 1


def test_touching_cards_are_two_cards(detector):
    w = 100.0
    placements = [Placement(CardId("number", 41), (600.0, 360.0), 0.0, w),
                  Placement(CardId("number", 7), (600.0 + w + 1, 360.0), 0.0, w),
                  Placement(CardId("scoring", 4), (600.0 + 2 * w + 2, 360.0), 0.0, w)]
    frame, truth = render_frame(placements, Conditions(table="cloth_white"), seed=5)
    found = detector.find(frame)
    assert len(found) == 3 and all(_found(found, t, tol=0.75) for t in truth)


def test_the_box_fits_the_card(detector):
    placements = [Placement(CardId("number", v), (200.0 + 220 * i, 360.0), 17.0 * i, 110.0)
                  for i, v in enumerate((3, 14, 25, 36, 47))]
    frame, truth = render_frame(placements, Conditions(table="felt"), seed=11)
    found = detector.find(frame)
    assert all(max(iou(d.quad, t.corners) for d in found) > 0.85 for t in truth)


@pytest.mark.parametrize("shape", [(720, 1280), (1080, 1920), (721, 1279), (480, 640)])
def test_a_frame_is_shrunk_as_one_area_average_would(shape):
    """Halving first (OpenCV's fast whole-factor path) gives the network what one area average
    gives, to a fraction of a grey level, at the size asked for."""
    frame = render_frame(random_scene(np.random.default_rng(3), 6, shape[::-1]),
                         Conditions(table="checked", noise=4.0), seed=1)[0]
    size = (384, round(shape[0] * 384 / shape[1]))
    small = shrink(frame, size)
    once = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    assert small.shape == once.shape
    assert np.abs(small.astype(int) - once.astype(int)).mean() < 1.0


def test_decode_turns_one_peak_into_one_box():
    maps = np.full((7, 10, 12), -10.0, np.float32)
    maps[0, 4, 6] = 5.0                     # the card's centre cell
    maps[1:3, 4, 6] = 0.0                   # offset 0.5 cell in x and y
    maps[3:5, 4, 6] = np.log([15.0, 23.0])  # w, h in cells
    maps[5:7, 4, 6] = [math.cos(math.pi / 2), math.sin(math.pi / 2)]  # 2a = 90 deg
    ((box, score),) = decode(maps, 0.5, scale=2.0)
    assert score > 0.99
    assert (box.cx, box.cy) == pytest.approx((6.5 * 8, 4.5 * 8))
    assert (box.w, box.h) == pytest.approx((15 * 8, 23 * 8), rel=1e-4)
    assert box.angle == pytest.approx(math.pi / 4)
    assert decode(maps, 0.5, rows=4) == []  # the peak lies in the padding


def test_bad_frames_are_refused_in_one_line(detector):
    for bad in (np.zeros((10, 10, 3), np.uint8), np.zeros((100, 100), np.uint8),
                np.zeros((100, 100, 3), np.float32), "frame.jpg"):
        with pytest.raises(FrameError):
            detector.find(bad)
