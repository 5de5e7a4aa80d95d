"""The card reader on single crops: every card either way up, honest candidates, abstention."""

import math

import cv2
import numpy as np
import pytest

from vision.cards import ALL_CARDS, render_face
from vision.deck import TIGHTROPE
from vision.geometry import READ_H, READ_W
from vision.network import MAX_BATCH
from vision.read import CardImageError, Reader, combine, turned_round


@pytest.fixture(scope="module")
def reader() -> Reader:
    return Reader.zero_shot()


def _crop(card, width: int = 80) -> np.ndarray:
    """The face as a camera sees it `width` px wide, resampled to the reader's crop."""
    face = render_face(card)
    small = cv2.resize(face, (width, round(width * face.shape[0] / face.shape[1])),
                       interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (READ_W, READ_H), interpolation=cv2.INTER_LINEAR)


@pytest.mark.parametrize("upside_down", [False, True])
def test_every_card_either_way_up(reader, upside_down):
    crops = [_crop(c) for c in ALL_CARDS]
    if upside_down:
        crops = [np.ascontiguousarray(c[::-1, ::-1]) for c in crops]
    looks = reader.read(crops)
    assert [(c.label, lk.reading.card) for c, lk in zip(ALL_CARDS, looks, strict=True)
            if lk.reading.card != c] == []
    assert {lk.turns for lk in looks} == {2 if upside_down else 0}


def test_a_batch_past_the_networks_batch_reads_as_its_cards_alone(reader):
    """Runs of MAX_BATCH inputs (the arena keeps the largest batch's memory) change no output."""
    crops = [_crop(c, width) for c in ALL_CARDS[:7] for width in (60, 80)]
    assert 2 * len(crops) > 2 * MAX_BATCH  # each crop goes in as cut and turned round
    logits, embedding = reader.forward(crops)
    for i, crop in enumerate(crops):
        one_logits, one_embedding = reader.forward([crop])
        np.testing.assert_allclose(logits[[i, len(crops) + i]], one_logits, atol=1e-4)
        np.testing.assert_allclose(embedding[[i, len(crops) + i]], one_embedding, atol=1e-4)


def test_candidates_are_ranked_probabilities_of_every_card_worth_counting(reader):
    """The first five, and every other card with CANDIDATE or more: a game that rules some out
    knows their share nearly to the last."""
    from vision.read import CANDIDATE

    clear = _crop(ALL_CARDS[20], 70)
    half = clear.copy()
    half[40:] = 128  # its lower half hidden: the reader's share spreads over many cards
    counts = []
    for crop in (clear, half):
        (look,) = reader.read([crop])
        probs = [p for _, p in look.reading.candidates]
        assert probs == sorted(probs, reverse=True) and all(p >= CANDIDATE for p in probs[5:])
        assert 1.0 - len(ALL_CARDS) * CANDIDATE <= sum(probs) + look.no_card <= 1.0 + 1e-6
        counts.append(len(probs))
    assert counts[0] == 5 and counts[1] > 20
    assert look.reading.candidates[0][0] == ALL_CARDS[20]
    assert look.reading.line == reader.line


def test_noise_and_blank_crops_are_not_cards(reader):
    rng = np.random.default_rng(0)
    crops = [rng.integers(0, 256, (READ_H, READ_W, 3), dtype=np.uint8),
             np.full((READ_H, READ_W, 3), 128, np.uint8),
             np.zeros((READ_H, READ_W, 3), np.uint8)]
    assert [lk.reading.kind for lk in reader.read(crops)] == ["unknown"] * 3


def test_a_read_is_what_both_looks_agree_on():
    """The crop turned round is read as its own card upside down; two looks naming different
    cards do not agree, however sure each is."""
    n = 2 * len(ALL_CARDS) + 1
    p = np.full((1, n), 1e-6)
    p[0, 0] = 1.0                          # card 0 upright
    same = turned_round(p)                 # what the turned look of that card says
    q, agree = combine(p, same)
    assert agree[0] and q[0].argmax() == 0
    other = np.full((1, n), 1e-6)
    other[0, 3] = 1.0                      # card 1, upside down
    assert not combine(p, other)[1][0]


def test_bad_crops_are_refused_in_one_line(reader):
    for bad in (np.zeros((10, 10, 3), np.uint8), np.zeros((READ_H, READ_W), np.uint8),
                np.zeros((READ_H, READ_W, 3), np.float32)):
        with pytest.raises(CardImageError, match="card crop"):
            reader.read([bad])
    assert reader.read([]) == []


def _look(card, p: float, line: float, runner_up=None):
    from vision.read import Look
    from vision.types import Reading

    other = runner_up or next(c for c in ALL_CARDS if c != card)
    cands = ((card, p), (other, 1 - p))
    return Look(Reading.of(card if p >= line else None, p, cands, line), 0, 0.0)


@pytest.mark.parametrize("zero_card, zero_p, taught_p, sure", [
    (17, 0.985, 0.95, True),   # the general reader ranks it first, surely enough: taken
    (17, 0.55, 0.999, False),  # first, but not surely enough: the deck's head may be fooled
    (17, 0.80, 0.999, True),   # first, and the deck's head all but sure: taken
    (17, 0.93, 0.99, True),    # both readers nearly sure of the one card: taken
    (17, 0.93, 0.95, False),   # ... but the deck's head only just over its line: not
    (11, 0.60, 0.999, False),  # another card first: a typeface that prints 1 like 7, say
    (9, 0.97, 0.999, False),   # the twin of a 6: which way up is the general reader's to say
])
def test_a_taught_read_is_sure_where_the_general_reader_confirms_it(zero_card, zero_p, taught_p,
                                                                    sure):
    from vision.read import _second_opinion
    from vision.types import CardId

    taught_card = CardId("number", 6 if zero_card == 9 else 17)
    taught = _look(taught_card, taught_p, 0.9)
    zero = _look(CardId("number", zero_card), zero_p, 0.98, runner_up=taught_card)
    got = _second_opinion(taught, zero).reading
    assert (got.card == taught_card) if sure else got.card is None


@pytest.mark.parametrize("zero, first_p, three_p, line", [
    ("scoring", 0.86, 0.10, 0.947),     # the value confirmed, the kind doubted: where it lies
    ("scoring", 0.40, 0.10, math.inf),  # too unsure of the value to confirm it: asked
    ("number", 0.86, 0.10, math.inf),   # another value first (13): asked, as before
])
def test_a_taught_read_whose_kind_the_general_reader_doubts_is_left_to_where_it_lies(
        zero, first_p, three_p, line):
    """Design 11, taught: Dora's 3, read 3 at 0.99 by the deck and as a scoring 3 (0.86) or the
    3 (0.10) by the general reader, was asked about every time. The two agree on the value; a
    number card in a seat's place and a scoring card in the row tell the kind (the game's
    narrowing), so the read is unsure on the deck's own line, not on none."""
    from vision.read import Look, _second_opinion
    from vision.types import CardId, Reading

    three = CardId("number", 3)
    taught = Look(Reading.of(three, 0.987, ((three, 0.987), (CardId("scoring", 3), 0.011)),
                             0.947), 0, 0.0)
    first = CardId("scoring", 3) if zero == "scoring" else CardId("number", 13)
    zero_read = Look(Reading.of(None, first_p, ((first, first_p), (three, three_p)), 0.977),
                     0, 0.0)
    got = _second_opinion(taught, zero_read).reading
    assert got.card is None and got.line == line and got.candidates[0] == (three, 0.987)


@pytest.mark.parametrize("card_p, no_card, taken, a_card", [
    (0.60, 0.39, True, True),    # the deck unsure, but the general reader sure of its first card
    (0.26, 0.74, False, True),   # the deck leans to no card, yet gives the card a fair share:
                                 # a card, which one the table is asked (a zero under a glare)
    (0.12, 0.88, False, False),  # the deck takes the crop for no card: half a card, not a card
])
def test_an_unsure_taught_read_is_settled_only_where_the_deck_sees_a_card(card_p, no_card,
                                                                            taken, a_card):
    from vision.read import NOT_NO_CARD, Look, _second_opinion
    from vision.recognize import NOT_A_CARD
    from vision.types import CardId, Reading

    blue_zero, nine = CardId("scoring", 0, "blue"), CardId("scoring", 9)
    taught = Look(Reading.of(None, card_p, ((blue_zero, card_p), (nine, 1e-5)), 0.9), 0,
                  no_card)
    zero = _look(blue_zero, 0.997, 0.98)
    got = _second_opinion(taught, zero)
    assert got.reading.card == (blue_zero if taken else None)
    assert (got.no_card < NOT_A_CARD) == a_card
    if a_card and not taken:  # unsure, naming the card first, as the general reader does
        assert card_p >= NOT_NO_CARD and got.reading.named[0][0] == blue_zero.label


class _Nearer:
    """A deck's photos that always find the crop nearer the guessed card's photo."""

    def nearer(self, crop, card, rivals) -> bool:
        return True


@pytest.mark.parametrize("zero_first, taken", [
    ("yellow-3", True),   # the games reader leans the same way, unsure: the photos settle it
    ("yellow-4", False),  # it leans to another card: values printed as question marks
])
def test_another_games_card_is_taken_from_its_photos_only_where_the_games_reader_agrees(
        zero_first, taken):
    from vision.read import Look, Reader
    from vision.types import Reading

    reader = object.__new__(Reader)
    reader.names, reader.photos = ("yellow-2", "yellow-3", "yellow-4", "yellow-5"), _Nearer()
    taught = Look(Reading.of_name(None, 0.81, (("yellow-3", 0.81), ("yellow-2", 0.10)), 0.9),
                  0, 0.0)
    zero = Look(Reading.of_name(None, 0.74, ((zero_first, 0.74), ("yellow-5", 0.2)), 0.8), 0, 0.0)
    got = reader._by_photos(np.zeros((96, 64, 3), np.uint8), taught, zero, taught)
    assert got.reading.label == ("yellow-3" if taken else None)


def test_a_tightrope_card_is_taken_from_its_photos_whatever_the_general_reader_leans_to():
    """A calib design's 1 the general reader takes for a 4, unsure: the deck's photos read it."""
    from vision.read import Look, Reader
    from vision.types import CardId, Reading

    one, four, forty_one = CardId("number", 1), CardId("number", 4), CardId("number", 41)
    reader = object.__new__(Reader)
    reader.names, reader.photos = TIGHTROPE, _Nearer()
    taught = Look(Reading.of(None, 0.95, ((one, 0.95), (forty_one, 0.01)), math.inf), 0, 0.0)
    zero = Look(Reading.of(None, 0.83, ((four, 0.83), (one, 0.14)), 0.98), 0, 0.0)
    assert reader._by_photos(np.zeros((96, 64, 3), np.uint8), taught, zero, taught
                             ).reading.card == one
