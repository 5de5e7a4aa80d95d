"""A glare over half a card's face: what it hides may tell two cards apart, so the crop is
read unsure whatever the network says, and the table is asked."""

import math

import cv2
import numpy as np
import pytest

from vision.geometry import rectify
from vision.glare import GLARED, WASHED_OUT, washed_out
from vision.network import Network, bundled
from vision.read import Reader
from vision.sim.scene import Conditions, Placement, render_frame
from vision.types import CardId


@pytest.fixture(scope="module")
def crop() -> np.ndarray:
    frame, truth = render_frame([Placement(CardId("number", 38), (640.0, 360.0), 0.0, 110.0)],
                                Conditions(table="wood_dark"), seed=1)
    return rectify(frame, truth[0].corners)


def share(crop: np.ndarray) -> float:
    """The share of one crop's face a glare washed out."""
    return float(washed_out(crop[None])[0])


def test_crops_are_looked_at_together_each_on_its_own(crop):
    both = washed_out(np.stack([crop, glared(crop)]))
    assert both.tolist() == [share(crop), share(glared(crop))]


def glared(crop: np.ndarray, radius: int = 24) -> np.ndarray:
    """The crop under a white, colourless glare centred on its face."""
    out = crop.copy()
    cv2.ellipse(out, (32, 48), (radius, int(radius * 1.3)), 0, 0, 360, (255, 255, 255), -1)
    return cv2.GaussianBlur(out, (5, 5), 0)


def test_a_clean_card_is_not_washed_out(crop):
    assert share(crop) == 0.0


def test_a_glare_over_most_of_the_face_washes_it_out_and_a_small_one_does_not(crop):
    assert share(glared(crop)) >= WASHED_OUT
    assert 0.0 < share(glared(crop, radius=12)) < WASHED_OUT


def test_a_card_lit_evenly_bright_is_not_washed_out(crop):
    bright = cv2.add(crop, np.full_like(crop, 80))  # its stock clips to white with its face
    assert share(bright) < WASHED_OUT


def test_a_coloured_light_is_no_glare(crop):
    out = crop.copy()
    cv2.ellipse(out, (32, 48), (24, 31), 0, 0, 360, (120, 255, 255), -1)  # yellow, in BGR
    assert share(out) < WASHED_OUT


class _SureOf38:
    """An onnxruntime session of the reader's shape that reads every crop as a 38, surely:
    what the network says does not matter under a glare."""

    def get_inputs(self):
        return [type("Input", (), {"name": "crops"})()]

    def run(self, _outputs, feeds):
        n = len(feeds["crops"]) // 2  # each crop as cut, then turned round
        classes = len(bundled("reader").meta["classes"])
        logits = np.full((2 * n, 2 * classes + 1), -10.0, np.float32)
        logits[:n, 2 * 37] = logits[n:, 2 * 37 + 1] = 10.0  # number-38, upright then turned
        return [logits, np.zeros((2 * n, 128), np.float32)]


def test_a_sure_read_under_a_glare_is_asked_with_its_candidates_kept(crop):
    reader = Reader(Network("reader", _SureOf38(), bundled("reader").meta))
    assert reader.read([crop])[0].reading.label == "number-38"
    look = reader.read([glared(crop)])[0]
    assert look.reading.label is None
    assert look.reading.named[0][0] == "number-38"


class _UnsureOf38(_SureOf38):
    """... reading every crop as a 38 at 0.9 and a 36 at 0.1: unsure."""

    def run(self, _outputs, feeds):
        logits, embedding = super().run(_outputs, feeds)
        n = len(logits) // 2
        logits[:n, 2 * 35] = logits[n:, 2 * 35 + 1] = 10.0 - np.log(9.0)  # number-36
        return [logits, embedding]


def test_an_unsure_read_under_a_glare_is_never_narrowed_by_the_rules(crop):
    """A glare on the table boxed as a card read as a red zero at 0.93, the blue zero revealed:
    the rules left only the red one (design 88, felt). Under a glare an unsure read has no line
    a game's narrowing could lift it over; one in clear light keeps the reader's."""
    reader = Reader(Network("reader", _UnsureOf38(), bundled("reader").meta))
    clear = reader.read([crop])[0].reading
    assert clear.label is None and clear.named[0][0] == "number-38"
    assert clear.line == reader.line
    small = glared(crop, radius=18)
    assert GLARED <= share(small) < WASHED_OUT
    assert reader.read([small])[0].reading.line == math.inf


class _SureOfRedZero(_SureOf38):
    """... reading every crop as a red zero, surely."""

    def run(self, _outputs, feeds):
        logits, embedding = super().run(_outputs, feeds)
        n = len(logits) // 2
        red_zero = bundled("reader").meta["classes"].index("scoring-0-red")
        logits[:n, 2 * 37] = logits[n:, 2 * 37 + 1] = -10.0
        logits[:n, 2 * red_zero] = logits[n:, 2 * red_zero + 1] = 10.0
        return [logits, embedding]


def test_a_zero_is_read_unsure_under_less_glare_than_other_cards(crop):
    """A glare's halo on the bare table is a ring, as a zero's face is."""
    some = glared(crop, radius=18)
    assert GLARED <= share(some) < WASHED_OUT
    zero = Reader(Network("reader", _SureOfRedZero(), bundled("reader").meta))
    assert zero.read([crop])[0].reading.label == "scoring-0-red"
    assert zero.read([some])[0].reading.label is None
    other = Reader(Network("reader", _SureOf38(), bundled("reader").meta))
    assert other.read([some])[0].reading.label == "number-38"
