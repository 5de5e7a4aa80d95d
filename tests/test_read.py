"""The card reader: every card in any rotation, hard conditions, abstention, honest candidates."""

import numpy as np
import pytest

from vision.cards import ALL_CARDS, CARD_H, CARD_W, CardId, render_face
from vision.detect import order_quad, warp
from vision.read import (
    WARP_SIZE,
    CardImageError,
    ModelError,
    Reader,
    features,
    recognize,
)
from vision.sim.scene import Conditions, Placement, random_scene, render_frame


@pytest.fixture(scope="module")
def reader() -> Reader:
    return Reader.zero_shot()


def _at_width(face: np.ndarray, width: int) -> np.ndarray:
    import cv2

    small = cv2.resize(face, (width, round(width * CARD_H / CARD_W)), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, WARP_SIZE, interpolation=cv2.INTER_LINEAR)


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_every_card_in_every_rotation(reader, turns):
    crops = [np.ascontiguousarray(np.rot90(_at_width(render_face(c), 90), -turns))
             for c in ALL_CARDS]
    got = reader.read_oriented_batch(crops)
    wrong = [(c.label, r.kind, r.value) for c, (r, _) in zip(ALL_CARDS, got, strict=True)
             if r.card != c]
    assert not wrong
    # the clockwise quarter turns reported bring the face upright again
    assert all(t == (-turns) % 4 for _, t in got)


def test_six_and_nine_upside_down_differ(reader):
    for value in (6, 9):
        face = _at_width(render_face(CardId("number", value)), 75)
        assert reader.read(face[::-1, ::-1]).value == value
        scoring = _at_width(render_face(CardId("scoring", value)), 75)
        assert reader.read(scoring[::-1, ::-1]).value == value


def test_blue_and_red_zero_by_colour(reader):
    for colour in ("blue", "red"):
        r = reader.read(_at_width(render_face(CardId("scoring", 0, colour)), 80))
        assert (r.kind, r.value, r.colour) == ("scoring", 0, colour)


def test_candidates_are_probabilities(reader):
    r = reader.read(_at_width(render_face(CardId("number", 38)), 80))
    probs = [p for _, p in r.candidates]
    assert len(r.candidates) == 5
    assert probs == sorted(probs, reverse=True)
    assert all(0.0 <= p <= 1.0 for p in probs) and sum(probs) <= 1.0 + 1e-6
    assert r.candidates[0][0] == CardId("number", 38)
    assert r.confidence == pytest.approx(probs[0])


def test_abstains_on_blank_noise_and_foreign_cards(reader):
    import cv2

    blank = np.full((CARD_H, CARD_W, 3), (226, 238, 242), np.uint8)
    cv2.rectangle(blank, (7, 7), (CARD_W - 8, CARD_H - 8), (70, 60, 55), 2)
    foreign = blank.copy()
    cv2.putText(foreign, "K", (40, 210), cv2.FONT_HERSHEY_SIMPLEX, 5, (40, 30, 30), 12)
    noise = np.random.default_rng(0).integers(0, 256, (CARD_H, CARD_W, 3), dtype=np.uint8)
    for img in (blank, foreign, noise):
        r = reader.read(_at_width(img, 90))
        assert r.kind == "unknown" and r.value is None and r.card is None


@pytest.fixture(scope="module")
def hard_crops():
    """Crops (cut at the true corners) of cards in rendered frames under hard conditions."""
    conds = [Conditions(table="wood_dark", light_gradient=0.8, noise=6.0, jpeg_quality=50),
             Conditions(table="cloth_grey", glare=3, motion_blur=4),
             Conditions(table="wood_light", tilt_deg=14.0, shadow=True),
             Conditions(table="dark_matte", exposure=0.45, noise=5.0)]
    rng = np.random.default_rng(4)
    out = []
    for i, cond in enumerate(conds):
        placements = random_scene(rng, 12, width_range=(70, 110))
        frame, truth = render_frame(placements, cond, seed=100 + i)
        out += [(t.card, warp(frame, order_quad(t.corners), WARP_SIZE)) for t in truth
                if t.visible_fraction > 0.98]
    return out


def test_reads_hard_conditions(reader, hard_crops):
    readings = reader.read_batch([c for _, c in hard_crops])
    right = sum(r.card == card for (card, _), r in zip(hard_crops, readings, strict=True))
    wrong = sum(r.card not in (None, card) for (card, _), r in zip(hard_crops, readings,
                                                                   strict=True))
    assert len(hard_crops) >= 40
    assert right >= 0.95 * len(hard_crops)
    assert wrong <= 1


def test_half_covered_scoring_card(reader):
    """A zero lying across half of a value card: both are read from the crops at their quads."""
    from vision.detect import find_cards

    w = 100.0
    value = Placement(CardId("scoring", 7), (600.0, 360.0), 90.0, w)
    # the zero lies across the value card's right half (90 deg: the long axis is horizontal)
    zero = Placement(CardId("scoring", 0, "red"), (600.0 + 0.5 * w * CARD_H / CARD_W, 360.0),
                     90.0, w)
    frame, truth = render_frame([value, zero], Conditions(table="cloth_green"), seed=3)
    quads = find_cards(frame)
    assert len(quads) == 2
    readings = {reader.read(warp(frame, q, WARP_SIZE)).card for q in quads}
    assert readings == {CardId("scoring", 7), CardId("scoring", 0, "red")}
    assert truth[0].visible_fraction < 0.6
    seen = {(c["kind"], c["value"], c.get("colour")) for c in recognize(frame, reader)}
    assert seen == {("scoring", 7, None), ("scoring", 0, "red")}  # crops painted where covered


def test_a_row_with_no_card_alone_is_read_at_the_right_card_size(reader):
    """No card lies alone to show the card size, so it is guessed from the row's boxes; here
    the guess is a card's length, not its width, and the boxes span two cards each (measured:
    0 of 8 read). The other sizes are tried, and at the right one all 8 are read."""
    from vision.detect import Detector
    from vision.sim.scene import scoring_row_scene

    placements = scoring_row_scene(np.random.default_rng(34))
    frame, truth = render_frame(placements, Conditions(table="cloth_green"), seed=34)
    detector = Detector()
    detector.find(frame)
    assert detector.size_guessed
    read = sorted(f"{c['kind']}-{c['value']}-{c.get('colour')}" for c in recognize(frame, reader))
    assert read == sorted(f"{t.card.kind}-{t.card.value}-{t.card.colour}" for t in truth)


def test_a_row_is_read_again_at_the_size_of_its_cards_read_surely(reader):
    """Here the best of the three guessed sizes is still a few per cent off: 4 of the 7 cards
    are read. Those four show the card size; read once more at it, all 7 are."""
    from vision.detect import ASPECT
    from vision.read import _Look
    from vision.sim.scene import scoring_row_scene

    frame, truth = render_frame(scoring_row_scene(np.random.default_rng(94)),
                                Conditions(table="wood_light"), seed=94)
    look = _Look(frame, reader, None)
    look.at(None)
    guessed, guess = look.detector.size_guessed, look.detector.card_w
    best = max(sum(r.kind != "unknown" for r, _ in look.at(w)[1])
               for w in (None, guess / ASPECT, guess * ASPECT))
    assert guessed and best == 4
    read = sorted(f"{c['kind']}-{c['value']}-{c.get('colour')}" for c in recognize(frame, reader))
    assert read == sorted(f"{t.card.kind}-{t.card.value}-{t.card.colour}" for t in truth)


def test_a_card_under_another_is_read_as_itself(reader):
    """A 47 lying over a corner of a 23 at another angle: the 23's crop shows grey where the 47
    lies (the reader never sees the 47's numerals there), and both are read."""
    w = 110.0
    frame, truth = render_frame(
        [Placement(CardId("number", 23), (560.0, 360.0), 10.0, w),
         Placement(CardId("number", 47), (630.0, 420.0), -25.0, w)],
        Conditions(table="wood_dark"), seed=12)
    assert truth[0].visible_fraction < 0.85
    cards = recognize(frame, reader)
    assert sorted(c["value"] for c in cards) == [23, 47]
    assert all(c["kind"] == "number" for c in cards)


def test_features_shape_and_bad_crop():
    f = features(np.zeros((72, 48, 3), np.uint8))
    assert f.dtype == np.float32 and f.ndim == 1
    with pytest.raises(CardImageError):
        Reader.zero_shot().read(np.zeros((4, 4, 3), np.uint8))


def test_bad_deck_files(tmp_path):
    with pytest.raises(ModelError, match="does not exist"):
        Reader.from_deck(tmp_path / "nope.npz")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a deck")
    with pytest.raises(ModelError, match="junk.npz"):
        Reader.from_deck(junk)
    partial = tmp_path / "partial.npz"
    np.savez(partial, w1=np.zeros(3))
    with pytest.raises(ModelError, match="missing"):
        Reader.from_deck(partial)


def test_a_taught_reader_asks_the_zero_shot_model_only_where_it_is_unsure(reader):
    """Where the deck's model is unsure, the zero-shot model's sure read counts only when it
    names the deck's own best guess."""
    from dataclasses import replace

    from vision.cards import ALL_CARDS

    crop = _at_width(render_face(CardId("number", 17)), 90)
    unsure = replace(reader.model, threshold=1.01)  # never sure of anything, best guess right
    assert Reader(unsure).read(crop).kind == "unknown"
    assert Reader(unsure, second=reader.model).read(crop).card == CardId("number", 17)
    # a deck model whose best guess for a 17 is a 23: the two do not agree, nothing is read
    a, b = ALL_CARDS.index(CardId("number", 17)), ALL_CARDS.index(CardId("number", 23))
    cols = np.arange(reader.model.w2.shape[1])
    cols[[2 * a, 2 * a + 1, 2 * b, 2 * b + 1]] = cols[[2 * b, 2 * b + 1, 2 * a, 2 * a + 1]]
    swapped = replace(unsure, w2=reader.model.w2[:, cols], b2=reader.model.b2[cols])
    confused = Reader(swapped, second=reader.model).read(crop)
    assert confused.kind == "unknown" and confused.candidates[0][0] == CardId("number", 23)
    # a deck model sure of itself is not second-guessed
    assert Reader(reader.model, second=swapped).read(crop).card == CardId("number", 17)


@pytest.mark.parametrize("i", [50, 61, 292])
def test_a_pile_is_read_by_a_second_look_where_its_boxes_missed(reader, i):
    """Piles from the labelled set (seed 2026) where the detector's boxes cut some cards wrong:
    frame 50 (9 cards in one blob) reads none of its 8 at first, frame 61 8 of 10, frame 292 6 of
    7. The boxes it passed over, the unsure ones nudged, and those proposed where the sure cards
    leave the pile unexplained are read; every card is then read, and none wrongly. (Frame 50's
    44, on top, has no two edges meeting within 4 px of a corner: its boxes come from edges that
    end short of it.)"""
    from vision.cli import READABLE_FRACTION, match_quads
    from vision.read import _Look
    from vision.sim.labelled import labelled_frame

    frame, truth, _, _ = labelled_frame(2026, i, "overlap")
    readable = [t for t in truth if t.visible_fraction >= READABLE_FRACTION]
    quads, reads = _Look(frame, reader, None).at(None)
    first = match_quads(quads, readable)
    assert sum(reads[q][0].card == readable[t].card for q, t in first.items()) < len(readable)
    cards = [c for c in recognize(frame, reader) if c["kind"] != "unknown"]
    found = match_quads([np.float32(c["corners"]) for c in cards], readable)
    assert len(found) == len(readable)
    assert all(CardId(cards[c]["kind"], cards[c]["value"], cards[c].get("colour"))
               == readable[t].card for c, t in found.items())
    assert len(cards) == len(readable)  # nothing read twice or where no card is
