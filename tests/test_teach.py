"""Teaching the reader a deck it never saw, from one photo a card, and the table's corrections
joining a deck."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.deck import Deck
from vision.detect import Detector
from vision.evaluate import Tally, score_frame, teach_photos
from vision.read import Reader
from vision.recognize import look_at
from vision.sim.designs import Design
from vision.sim.scene import Conditions, random_scene, render_frame
from vision.teach import CONTEXT_SIZE, add_corrections, context_crop, teach
from vision.types import CardId

GOUDY = "/usr/share/fonts/opentype/sortsmill/GoudyBookletter1911.otf"  # a test-split serif
pytestmark = pytest.mark.skipif(not Path(GOUDY).is_file(),
                                reason="Debian's fonts-goudybookletter (make test installs it)")

# cream cards, a thin coloured border, a small picture, indices in a layout held out of
# training, other blues and reds: a deck like nobody's the models saw
UNSEEN = Design("goudy-test", GOUDY, GOUDY, stock=(205, 228, 240), ink=(40, 30, 70),
                index_layout="topbottom", index_height=0.1, border="line",
                border_colour=(60, 120, 30), picture="emblem", picture_colour=(40, 80, 190),
                mark69="none", scoring="halves", blue=(150, 70, 40), red=(70, 30, 190),
                zero="ring")


@pytest.fixture(scope="module")
def taught(tmp_path_factory) -> tuple[Path, dict]:
    folder = teach_photos(tmp_path_factory.mktemp("photos"), UNSEEN, size=(960, 540))
    deck = tmp_path_factory.mktemp("deck") / "goudy.npz"
    return deck, teach(folder, deck)


def frames_of_the_deck() -> list[tuple[np.ndarray, list]]:
    out = []
    rng = np.random.default_rng(11)
    for i, table in enumerate(("cloth_white", "checked", "wood_dark", "felt")):
        placements = random_scene(rng, 7, (1280, 720), 0.2 if i % 2 else 0.0,
                                  width_range=(85, 110))
        cond = Conditions(table=table, light_gradient=0.3, glare=i % 2, noise=2.0)
        out.append(render_frame(placements, cond, seed=30 + i, style=UNSEEN))
    return out


def tally(reader: Reader, frames) -> Tally:
    total, detector = Tally(), Detector()
    for frame, truth in frames:
        from vision.evaluate import Truth

        views = [Truth(t.card, t.corners, t.center, t.visible_fraction, t.covered_by_hand)
                 for t in truth]
        total.add(score_frame(look_at(frame, reader, detector), views, (1280, 720)))
    return total


def test_a_taught_deck_reads_its_own_cards_and_none_wrong(taught):
    deck, stats = taught
    # the check crops (measured: 96.4 % read, 1 of 732 wrong; the line allows 1 in 2,000 of
    # all check crops, no-card crops included)
    assert stats["wrong"] * stats["checked"] <= 1 and stats["right"] >= 0.9
    frames = frames_of_the_deck()
    mine = tally(Reader.from_deck(deck), frames)
    zero = tally(Reader.zero_shot(), frames)
    assert mine.counts["wrong"] == 0 and mine.counts["spurious"] == 0, mine.wrong
    # measured: 27 of 28 (zero-shot 15; 20 before teach looked for a card photographed close
    # in a wider frame and the deck's photos settled reads the general reader does not confirm)
    assert mine.right >= 0.9 and mine.right > zero.right, (mine.counts, zero.counts)


def _rivals(card: CardId) -> list[str]:
    """Three other cards of the deck (never a 6's or 9's twin)."""
    if card.kind == "number":
        values = [(card.value + k - 1) % 50 + 1 for k in (1, 10, 23)]
        return [f"number-{v}" for v in values if {v, card.value} != {6, 9}]
    return [f"scoring-{(card.value + k) % 9 + 1}" for k in (1, 4)] + ["number-17"]


def test_a_decks_photos_tell_its_cards_apart_where_they_differ(taught):
    from vision.compare import Photos
    from vision.geometry import rectify

    photos = Photos(Deck.load(taught[0]).examples)
    told = wrong = cards = 0
    for frame, truth in frames_of_the_deck():
        for t in truth:
            if t.visible_fraction < 1 or t.covered_by_hand or t.card.colour:
                continue
            crop = rectify(frame, t.corners)  # upright: its corners as printed
            cards += 1
            told += photos.nearer(crop, t.card.label, _rivals(t.card))
            wrong += any(photos.nearer(crop, r, [t.card.label]) for r in _rivals(t.card))
    # measured: 22 of 24 cards told apart from their rivals, none taken for a rival
    assert cards >= 15 and wrong == 0 and told >= 0.8 * cards, (told, wrong, cards)


def test_a_6_and_a_9_are_told_apart_by_the_decks_photos_only_where_their_glyphs_differ(taught):
    from vision.compare import Photos
    from vision.deck import Example
    from vision.geometry import rectify
    from vision.sim.scene import Placement

    examples = Deck.load(taught[0]).examples
    photos = Photos(examples)
    told = 0
    for value, twin in ((6, 9), (9, 6)):
        for angle, table in ((0.0, "felt"), (180.0, "cloth_white"), (20.0, "wood_dark")):
            frame, truth = render_frame(
                [Placement(CardId("number", value), (640, 360), angle, 100.0)],
                Conditions(table=table), seed=5, style=UNSEEN)
            crop = rectify(frame, truth[0].corners)  # upright
            # Goudy's 9 is not its 6 turned round: the photos may tell them, never wrongly
            told += photos.nearer(crop, f"number-{value}", [f"number-{twin}"])
            assert not photos.nearer(crop, f"number-{twin}", [f"number-{value}"])
            if value == 6:  # a deck whose 9 is its 6 turned round: no photo settles which
                six = next(e for e in examples if e.label == "number-6" and e.source == "photo")
                alike = Photos([six, Example(np.ascontiguousarray(six.image[::-1, ::-1]),
                                             "number-9")])
                assert not alike.nearer(crop, "number-6", ["number-9"])
                assert not alike.nearer(crop, "number-9", ["number-6"])
    assert told >= 5  # measured: 6 of 6


def test_corrections_join_the_deck_and_are_read(taught, tmp_path):
    deck_path, _ = taught
    frame, truth = render_frame(
        random_scene(np.random.default_rng(5), 3, (1280, 720), width_range=(90, 100)),
        Conditions(table="floral", glare=1), seed=77, style=UNSEEN)
    corrections = tmp_path / "corrections" / "12"
    corrections.mkdir(parents=True)
    for k, t in enumerate(truth):
        crop = context_crop(frame, t.corners)
        assert crop.shape[:2] == (CONTEXT_SIZE[1], CONTEXT_SIZE[0])
        cv2.imwrite(str(corrections / f"{t.card.label}-{k + 1}.png"), crop)
    out = tmp_path / "deck.npz"
    stats = add_corrections(tmp_path / "corrections", out, deck_path)
    assert stats["corrections"] == 3
    deck = Deck.load(out)
    assert sorted(e.label for e in deck.examples if e.source == "correction") == sorted(
        t.card.label for t in truth)
    before = len([e for e in Deck.load(deck_path).examples if e.source == "photo"])
    assert len([e for e in deck.examples if e.source == "photo"]) == before
    got = {s.reading.card for s in look_at(frame, Reader.from_deck(out))}
    assert {t.card for t in truth} <= got


def test_corrections_alone_make_a_deck_from_the_general_reader(tmp_path):
    frame, truth = render_frame(
        [replace(p, card=CardId("number", 36)) for p in random_scene(
            np.random.default_rng(6), 1, (1280, 720), width_range=(100, 100))],
        Conditions(table="wood_light"), seed=5, style=UNSEEN)
    folder = tmp_path / "corrections"
    folder.mkdir()
    cv2.imwrite(str(folder / "number-36-1.png"), context_crop(frame, truth[0].corners))
    stats = add_corrections(folder, tmp_path / "deck.npz")
    assert stats["corrections"] == 1
    assert Deck.load(tmp_path / "deck.npz").examples[0].label == "number-36"


def test_the_host_forgets_the_tables_corrections(taught, tmp_path):
    from companion.lessons import Lessons

    deck_path, _ = taught
    frame, truth = render_frame(
        random_scene(np.random.default_rng(8), 2, (1280, 720), width_range=(90, 100)),
        Conditions(table="wood_dark"), seed=78, style=UNSEEN)
    folder = tmp_path / "corrections" / "3"
    folder.mkdir(parents=True)
    for k, t in enumerate(truth):
        cv2.imwrite(str(folder / f"{t.card.label}-{k + 1}.png"), context_crop(frame, t.corners))
    used: list = []
    out = tmp_path / "deck.npz"
    lessons = Lessons(tmp_path / "corrections", deck_path, out, used.append)
    assert lessons.summary() == {"crops": 2, "games": 1, "busy": ""}
    lessons.learn().join()
    assert used == [out] and lessons.learn() is None  # learned: nothing newer than the deck
    lessons.forget().join()
    assert lessons.summary()["crops"] == 0 and not (tmp_path / "corrections").exists()
    left = Deck.load(out).examples
    assert left and all(e.source == "photo" for e in left) and used == [out, out]


def test_a_deck_of_corrections_alone_is_removed_when_they_are_forgotten(tmp_path):
    from companion.lessons import Lessons

    frame, truth = render_frame(
        random_scene(np.random.default_rng(6), 1, (1280, 720), width_range=(100, 100)),
        Conditions(table="wood_light"), seed=5, style=UNSEEN)
    folder = tmp_path / "corrections" / "1"
    folder.mkdir(parents=True)
    cv2.imwrite(str(folder / f"{truth[0].card.label}-1.png"), context_crop(frame, truth[0].corners))
    used: list = []
    out = tmp_path / "deck.npz"
    lessons = Lessons(tmp_path / "corrections", out, out, used.append)
    lessons.learn().join()
    assert out.is_file() and used == [out]
    lessons.forget().join()
    assert not out.exists() and used == [out, None]  # the zero-shot reader reads again


def _zero_photo(colour: tuple[int, int, int], turned: bool = False) -> np.ndarray:
    """An example's crop of a zero: its top half in `colour` with a ring, its bottom half blank."""
    from vision.deck import CARD_IN_CONTEXT, CONTEXT_SIZE

    (cw, ch), (w, h) = CARD_IN_CONTEXT, CONTEXT_SIZE
    context = np.full((h, w, 3), (60, 110, 150), np.uint8)  # a wooden table
    x0, y0 = (w - cw) // 2, (h - ch) // 2
    context[y0:y0 + ch, x0:x0 + cw] = 235
    context[y0:y0 + ch // 2, x0:x0 + cw] = colour
    cv2.ellipse(context, (w // 2, y0 + ch // 4), (cw // 6, ch // 8), 0, 0, 360, (235,) * 3, 6)
    return np.ascontiguousarray(context[::-1, ::-1]) if turned else context


def test_a_red_zero_and_a_blue_one_alike_in_grey_are_told_apart_by_their_colours():
    """A deck's blue zero, turned round, prints as its red zero does in grey; their colours
    tell them apart. Two photos alike in colour too are never told apart."""
    from vision.compare import Photos
    from vision.deck import Example, card_of_context

    red, blue = (60, 40, 200), (200, 104, 20)  # BGR, the same grey level
    photos = Photos([Example(_zero_photo(red), "scoring-0-red"),
                     Example(_zero_photo(blue, turned=True), "scoring-0-blue")])
    red_crop = card_of_context(_zero_photo(red))
    blue_crop = card_of_context(_zero_photo(blue, turned=True))  # upright as its photo
    assert photos.nearer(red_crop, "scoring-0-red", ["scoring-0-blue"])
    assert not photos.nearer(red_crop, "scoring-0-blue", ["scoring-0-red"])
    assert photos.nearer(blue_crop, "scoring-0-blue", ["scoring-0-red"])
    twins = Photos([Example(_zero_photo(red), "scoring-0-red"),
                    Example(_zero_photo(red, turned=True), "scoring-0-blue")])
    assert not twins.nearer(red_crop, "scoring-0-red", ["scoring-0-blue"])
