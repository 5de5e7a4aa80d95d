"""vision.cards: identities, labels and canonical faces (the simulator/reader contract)."""

import itertools

import numpy as np
import pytest

from vision.cards import (
    ALL_CARDS,
    CARD_H,
    CARD_W,
    DEFAULT_STYLE,
    CardId,
    CardLabelError,
    random_style,
    render_face,
)


def _diff(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a.astype(np.int16) - b.astype(np.int16)).mean())


def test_deck_has_61_distinct_cards():
    assert len(ALL_CARDS) == 61
    assert len({c.label for c in ALL_CARDS}) == 61
    assert sum(c.kind == "number" for c in ALL_CARDS) == 50
    assert {c.label for c in ALL_CARDS if c.value == 0} == {"scoring-0-blue", "scoring-0-red"}


@pytest.mark.parametrize("card", ALL_CARDS, ids=lambda c: c.label)
def test_label_round_trip(card):
    assert CardId.from_label(card.label) == card


def test_label_examples():
    assert CardId("number", 17).label == "number-17"
    assert CardId("scoring", 4).label == "scoring-4"
    assert CardId("scoring", 0, "blue").label == "scoring-0-blue"


@pytest.mark.parametrize("bad", ["number-0", "number-51", "scoring-10", "scoring-0",
                                 "scoring-4-blue", "number-17-red", "number-07", "card-3", "",
                                 "number-", "Number-3", "scoring-0-green"])
def test_bad_labels_raise_a_value_error(bad):
    with pytest.raises(CardLabelError):
        CardId.from_label(bad)
    assert issubclass(CardLabelError, ValueError)


@pytest.mark.parametrize("args", [("number", 0), ("number", 5, "red"), ("scoring", 10),
                                  ("scoring", 0), ("joker", 1)])
def test_impossible_cards_raise(args):
    with pytest.raises(CardLabelError):
        CardId(*args)


@pytest.fixture(scope="module")
def faces():
    return {c: render_face(c) for c in ALL_CARDS}


def test_every_face_renders_and_differs(faces):
    for face in faces.values():
        assert face.shape == (CARD_H, CARD_W, 3) and face.dtype == np.uint8
    for (a, fa), (b, fb) in itertools.combinations(faces.items(), 2):
        assert _diff(fa, fb) > 1.0, (a.label, b.label)


def test_six_and_nine_differ_even_upside_down(faces):
    for kind in ("number", "scoring"):
        six, nine = faces[CardId(kind, 6)], faces[CardId(kind, 9)]
        assert _diff(six, nine) > 3.0
        assert _diff(six[::-1, ::-1], nine) > 5.0, kind  # underline/layout tell them apart


def test_number_faces_are_not_180_degree_symmetric(faces):
    for card, face in faces.items():
        if card.kind == "number":
            assert _diff(face, face[::-1, ::-1]) > 8.0, card.label


def test_big_numeral_is_about_a_third_of_the_card_height(faces):
    face = faces[CardId("number", 17)]
    ink = face.mean(axis=2) < 128
    rows = np.nonzero(ink[:, 40:160].sum(axis=1) > 6)[0]
    middle = rows[(rows > 0.35 * CARD_H) & (rows < 0.85 * CARD_H)]
    height = (middle.max() - middle.min() + 1) / CARD_H
    assert 0.33 <= height <= 0.41


def _blue_red(img: np.ndarray) -> tuple[float, float]:
    b, g, r = (img[..., i].astype(float).mean() for i in range(3))
    return b - r, r - b


def test_scoring_and_zero_halves(faces):
    h = CARD_H // 2
    four = faces[CardId("scoring", 4)]
    assert _blue_red(four[:h])[0] > 40 and _blue_red(four[h:])[1] > 40
    blue0, red0 = faces[CardId("scoring", 0, "blue")], faces[CardId("scoring", 0, "red")]
    assert _blue_red(blue0[:h])[0] > 40 and abs(_blue_red(blue0[h:])[0]) < 25
    assert _blue_red(red0[h:])[1] > 40 and abs(_blue_red(red0[:h])[0]) < 25


def test_render_face_returns_a_private_copy():
    card = CardId("number", 3)
    face = render_face(card)
    face[:] = 0
    assert render_face(card).mean() > 100


def test_random_styles_vary_and_keep_the_contract():
    rng1, rng2 = np.random.default_rng(5), np.random.default_rng(5)
    assert random_style(rng1) == random_style(rng2)
    rng = np.random.default_rng(11)
    styles = [random_style(rng) for _ in range(6)]
    assert len(set(styles)) == 6
    for style in styles:
        six, nine = render_face(CardId("number", 6), style), render_face(CardId("number", 9), style)
        assert six.shape == (CARD_H, CARD_W, 3)
        assert _diff(six[::-1, ::-1], nine) > 1.5
        assert _diff(six, render_face(CardId("number", 6), DEFAULT_STYLE)) > 1.0
