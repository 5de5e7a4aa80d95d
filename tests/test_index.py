"""Reading a number card by its corner indices where its middle is hidden (vision.index)."""

import numpy as np
import pytest

from vision.cards import CardId, render_face
from vision.index import (
    LABELS,
    NO_INDEX,
    IndexReader,
    bundled,
    contradicts,
    corner_patches,
    decide,
    names,
)
from vision.read import WARP_SIZE, ModelError, Reader, recognize
from vision.sim.scene import Conditions, Placement, render_frame


@pytest.fixture(scope="module")
def reader() -> Reader:
    return Reader.zero_shot()


def _probs(*corners: tuple[int, float]) -> np.ndarray:
    """(4, 51) corner probabilities: each corner's best class and its probability."""
    p = np.zeros((4, len(LABELS)), np.float32)
    for k, (cls, conf) in enumerate(corners):
        p[k] = (1.0 - conf) / (len(LABELS) - 1)
        p[k, cls] = conf
    return p


def test_two_corners_at_opposite_ends_name_the_card():
    got = decide(_probs((37, 0.95), (NO_INDEX, 0.9), (NO_INDEX, 0.9), (37, 0.6)))
    assert got is not None and got.value == 37 and got.confidence == pytest.approx(0.95)


def test_one_corner_is_not_enough():
    assert decide(_probs((37, 0.99), (NO_INDEX, 0.9), (NO_INDEX, 0.9), (NO_INDEX, 0.9))) is None


def test_two_corners_at_one_end_need_the_whole_card_reader_to_propose_the_card():
    # a neighbour's edge along the quad can show two of *its* indices at one end
    p = _probs((NO_INDEX, 0.9), (NO_INDEX, 0.9), (10, 0.99), (10, 0.96))
    assert decide(p) is None
    assert decide(p, ((CardId("number", 29), 0.2), (CardId("number", 17), 0.1))) is None
    assert decide(p, ((CardId("number", 29), 0.2), (CardId("number", 10), 0.1))).value == 10


def test_one_corner_and_the_whole_cards_best_guess_agree():
    p = _probs((NO_INDEX, 0.9), (NO_INDEX, 0.9), (42, 0.75), (NO_INDEX, 0.9))
    assert decide(p, ((CardId("number", 42), 0.37), (CardId("number", 49), 0.15))).value == 42
    # the guess must be the best one, and the corner sure enough
    assert decide(p, ((CardId("number", 49), 0.37), (CardId("number", 42), 0.15))) is None
    weak = _probs((NO_INDEX, 0.9), (NO_INDEX, 0.9), (42, 0.6), (NO_INDEX, 0.9))
    assert decide(weak, ((CardId("number", 42), 0.37),)) is None


def test_a_corner_naming_another_value_vetoes():
    assert decide(_probs((28, 0.95), (25, 0.75), (28, 0.9), (NO_INDEX, 0.9))) is None
    assert decide(_probs((28, 0.95), (25, 0.5), (28, 0.9), (NO_INDEX, 0.9))).value == 28


def test_not_sure_enough_anywhere():
    assert decide(_probs((28, 0.7), (28, 0.7), (28, 0.7), (28, 0.7))) is None


def test_corners_contradict_a_read_only_surely_and_only_where_none_agrees():
    blank = (NO_INDEX, 0.9)
    assert contradicts(_probs((29, 0.95), blank, blank, blank), 20)
    assert not contradicts(_probs((29, 0.85), blank, blank, blank), 20)
    # one corner for the value read (a blurred corner misread as another): no contradiction
    assert not contradicts(_probs((29, 0.95), (20, 0.4), blank, blank), 20)
    assert not contradicts(_probs((NO_INDEX, 1.0),) * 4, 20)


def test_a_corner_names_a_value_only_surely_and_uncontradicted():
    assert names(_probs((37, 0.95), (NO_INDEX, 0.9), (NO_INDEX, 0.9), (NO_INDEX, 0.9)), 37)
    assert not names(_probs((37, 0.85), (NO_INDEX, 0.9), (NO_INDEX, 0.9), (NO_INDEX, 0.9)), 37)
    assert not names(_probs((37, 0.95), (NO_INDEX, 0.9), (NO_INDEX, 0.9), (NO_INDEX, 0.9)), 36)


def test_a_number_seen_in_part_is_checked_against_the_corners(reader):
    """A pile in another edition (the labelled set's frame 122, seed 99): the whole-card reader
    alone is sure of a 20 that is not on the table (the 2 of a 29, its 9 under another card);
    the corners show 29, and the read becomes unknown."""
    from vision.sim.labelled import labelled_frame

    frame, truth, _, _ = labelled_frame(99, 122, "overlap", style=None)
    on_table = {(t.card.kind, t.card.value) for t in truth}
    whole_only = Reader(reader.model, "zero-shot")
    assert ("number", 20) not in on_table
    assert ("number", 20) in {(c["kind"], c["value"]) for c in recognize(frame, whole_only)}
    read = {(c["kind"], c["value"]) for c in recognize(frame, reader) if c["kind"] != "unknown"}
    assert read <= on_table


def test_corner_patches_turn_the_bottom_indices_upright():
    crop = np.zeros((WARP_SIZE[1], WARP_SIZE[0], 3), np.uint8)
    crop[-1, -1] = 255  # the crop's last pixel: the bottom-right patch's first once turned
    tl, tr, bl, br = corner_patches(crop)
    assert tl.shape == tr.shape == bl.shape == br.shape
    assert br[0, 0].tolist() == [255, 255, 255] and not tl.any() and not bl.any()


def test_the_bundled_model_reads_clean_corners_and_no_index_on_scoring_cards():
    import cv2

    index = bundled()
    for card in (CardId("number", 7), CardId("number", 44), CardId("number", 19)):
        crop = cv2.resize(render_face(card), WARP_SIZE, interpolation=cv2.INTER_AREA)
        got = index.read(crop)
        assert got is not None and got.value == card.value
        assert index.read(crop[::-1, ::-1]).value == card.value  # any way up
    scoring = cv2.resize(render_face(CardId("scoring", 4)), WARP_SIZE, interpolation=cv2.INTER_AREA)
    assert index.read(scoring) is None
    assert (index.proba([scoring])[0].argmax(axis=1) == NO_INDEX).all()


def test_a_card_model_is_not_an_index_model():
    from vision.read import ZERO_SHOT_PATH

    with pytest.raises(ModelError, match="class list"):
        IndexReader.load(ZERO_SHOT_PATH)


def test_a_number_card_under_a_scoring_card_is_read_by_its_corners(reader):
    # the scoring card lies over the middle of the 37: three of its four corners show
    placed = [Placement(CardId("number", 37), (640, 360), 5, 120),
              Placement(CardId("scoring", 5), (700, 380), 30, 120)]
    frame, truth = render_frame(placed, Conditions(table="wood_light"), seed=4)
    assert truth[0].visible_fraction < 0.6
    read = {(c["kind"], c["value"]) for c in recognize(frame, reader)}
    assert read == {("scoring", 5), ("number", 37)}
    whole_only = Reader(reader.model, "zero-shot")  # the same reader without the corners
    assert ("number", 37) not in {(c["kind"], c["value"]) for c in recognize(frame, whole_only)}
