"""Teaching the reader another game's deck by name: Attacke's cards in a design it never saw,
the deck file that knows its names, readings by name, corrections whose names hold '-', and the
CLI's `teach --game` and `recognize --deck`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main as companion_main
from companion.games import game_named
from vision.cli import recognize_main
from vision.deck import TIGHTROPE, Deck
from vision.detect import Detector
from vision.evaluate import Tally, Truth, card_of, score_frame, teach_photos
from vision.network import ModelError, bundled
from vision.read import Reader
from vision.recognize import look_at
from vision.sim.faces import printed_deck, random_deck_design
from vision.sim.scene import Conditions, random_scene, render_frame
from vision.teach import (
    TeachError,
    add_corrections,
    collect_named_photos,
    context_crop,
    label_of_correction,
    teach,
)
from vision.types import CardId, Reading

SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
pytestmark = pytest.mark.skipif(not Path(SANS).is_file(),
                                reason="Debian's fonts-dejavu-core (make test installs it)")
ATTACKE = tuple(game_named("attacke").deck)


@pytest.fixture(scope="module")
def design():
    """An Attacke edition of the test split: typefaces and a layout family held out of
    training."""
    return random_deck_design("attacke", np.random.default_rng(5), "test")


@pytest.fixture(scope="module")
def taught(design, tmp_path_factory) -> tuple[Path, dict]:
    folder = teach_photos(tmp_path_factory.mktemp("attacke"), design, size=(960, 540))
    deck = tmp_path_factory.mktemp("deck") / "attacke.npz"
    return deck, teach(folder, deck, names=ATTACKE)


def plain_frames(design) -> list[tuple[np.ndarray, list]]:
    """Cards lying apart on four tables, glare on two of them."""
    out = []
    rng = np.random.default_rng(21)
    for i, table in enumerate(("wood_dark", "cloth_green", "wood_light", "dark_matte")):
        placements = random_scene(rng, 7, (1280, 720), width_range=(95, 115),
                                  cards=printed_deck(design))
        cond = Conditions(table=table, light_gradient=0.3, glare=i % 2, noise=2.0)
        out.append(render_frame(placements, cond, seed=40 + i))
    return out


def test_an_unseen_attacke_deck_is_read_by_name_and_never_confidently_wrong(taught, design):
    deck_path, stats = taught
    deck = Deck.load(deck_path)
    assert deck.names == ATTACKE and not deck.tightrope and deck.head.w.shape[1] == 57
    assert stats["wrong"] * stats["checked"] <= 1
    reader, detector, total = Reader.from_deck(deck_path), Detector(), Tally()
    for frame, truth in plain_frames(design):
        seen = look_at(frame, reader, detector)
        for s in seen:  # a foreign card is never a Tightrope card downstream
            assert s.reading.card is None and s.reading.candidates == ()
            assert s.reading.named and s.reading.named[0][0] in ATTACKE
        total.add(score_frame(seen, [Truth(card_of(t.card.label), t.corners, t.center,
                                           t.visible_fraction, t.covered_by_hand)
                                     for t in truth], (1280, 720)))
    c = total.counts
    assert c["wrong"] == 0 and c["spurious"] == 0, total.wrong
    assert c["correct"] >= 0.6 * c["cards"], c


def test_recognize_prints_the_names_of_a_foreign_deck(taught, design, tmp_path, capsys):
    deck_path, _ = taught
    frame, truth = plain_frames(design)[0]
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), frame)
    assert recognize_main([str(path)], str(deck_path), True) == 0
    cards = json.loads(capsys.readouterr().out)["cards"]
    labels = {c["label"] for c in cards} - {None}
    assert labels and labels <= {t.card.label for t in truth}
    assert all(c["kind"] == "unknown" and c["value"] is None for c in cards)
    assert recognize_main([str(path)], str(deck_path), False) == 0
    assert any(name in capsys.readouterr().out for name in labels)


def test_corrections_of_a_foreign_deck_keep_names_with_dashes(taught, design, tmp_path):
    deck_path, _ = taught
    names = ["red-5", "shield-10", "yellow-7"]
    frame, truth = render_frame(
        random_scene(np.random.default_rng(3), 3, (1280, 720), width_range=(100, 110),
                     cards=[p for p in printed_deck(design) if p.name in names]),
        Conditions(table="felt"), seed=8)
    folder = tmp_path / "corrections" / "2"
    folder.mkdir(parents=True)
    for k, t in enumerate(truth):
        cv2.imwrite(str(folder / f"{t.card.label}-{k + 2}.png"), context_crop(frame, t.corners))
    out = tmp_path / "deck.npz"
    assert add_corrections(tmp_path / "corrections", out, deck_path)["corrections"] == 3
    deck = Deck.load(out)
    assert deck.names == ATTACKE
    assert sorted(e.label for e in deck.examples if e.source == "correction") == sorted(names)


def test_correction_names_parse_against_the_deck_longest_first():
    assert label_of_correction("red-5-3", ATTACKE) == "red-5"
    assert label_of_correction("shield-10-2", ATTACKE) == "shield-10"
    assert label_of_correction("shield-7-12", ATTACKE) == "shield-7"
    assert label_of_correction("back-1", ATTACKE) == "back"
    assert label_of_correction("red-6-1", ATTACKE) is None
    assert label_of_correction("number-36-1") == "number-36"
    assert label_of_correction("scoring-0-blue-4") == "scoring-0-blue"
    assert label_of_correction("10H-3", tuple(game_named("solo").deck)) == "10H"


def test_a_game_teach_folder_names_the_file_amiss(tmp_path, capsys):
    for name in ATTACKE[:-1]:
        (tmp_path / f"card-{name}.png").write_bytes(b"x")
    with pytest.raises(TeachError, match=r"missing photo .*card-back\.png$"):
        collect_named_photos(tmp_path, ATTACKE)
    (tmp_path / "card-back.png").write_bytes(b"x")
    (tmp_path / "card-red-5.jpg").write_bytes(b"x")
    with pytest.raises(TeachError, match=r"card-red-5.png: a second photo of red-5"):
        collect_named_photos(tmp_path, ATTACKE)
    (tmp_path / "card-red-5.jpg").unlink()
    (tmp_path / "number-17.png").write_bytes(b"x")
    with pytest.raises(TeachError, match=r"number-17.png: not a card of this deck"):
        collect_named_photos(tmp_path, ATTACKE)
    (tmp_path / "number-17.png").unlink()
    # through the CLI, one line; the photo that cannot be read is named
    assert companion_main(["teach", str(tmp_path), "--game", "attacke",
                           "--out", str(tmp_path / "d.npz")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "card-red-2.png: cannot read" in err.split("\r")[-1]
    assert not (tmp_path / "d.npz").exists()


def test_readings_name_their_card_in_any_deck():
    card = CardId("number", 17)
    r = Reading.of(card, 0.99, ((card, 0.99), (CardId("number", 11), 0.01)), 0.9)
    assert r.label == "number-17" and r.sure
    assert r.named == (("number-17", 0.99), ("number-11", 0.01))
    unsure = Reading("unknown", None, None, 0.5, ((card, 0.5),), 0.9)
    assert unsure.label is None and unsure.named == (("number-17", 0.5),) and not unsure.sure
    foreign = Reading.of_name("red-7", 0.97, (("red-7", 0.97), ("red-2", 0.02)), 0.9)
    assert foreign.sure and foreign.card is None and foreign.kind == "unknown"
    assert foreign.candidates == () and foreign.value is None and foreign.colour is None


def test_a_deck_file_without_names_is_tightrope(tmp_path):
    from vision.deck import Head

    head = Head(np.zeros((128, 123), np.float32), np.zeros(123, np.float32), 1.0, 0.9)
    Deck(head).save(tmp_path / "t.npz")
    with np.load(tmp_path / "t.npz") as z:
        assert int(z["version"]) == 2 and b"names" not in bytes(z["meta"])
    assert Deck.load(tmp_path / "t.npz").names == TIGHTROPE
    wrong = Deck(head, names=("a", "b"))  # 2 names, a head of 61 cards
    wrong.save(tmp_path / "w.npz")
    with pytest.raises(ValueError, match="does not fit its 2 card names"):
        Deck.load(tmp_path / "w.npz")


def test_a_deck_remembers_the_network_it_was_taught_on(tmp_path):
    from vision.deck import Head

    head = Head(np.zeros((141, 5), np.float32), np.zeros(5, np.float32), 1.0, 0.9)
    Deck(head, names=("a", "b"), network="reader-games").save(tmp_path / "g.npz")
    assert Deck.load(tmp_path / "g.npz").network == "reader-games"
    Deck(head, names=("a", "b")).save(tmp_path / "old.npz")  # taught before the games reader
    assert Deck.load(tmp_path / "old.npz").network == "reader"
    Deck(head, names=("a", "b"), network="reader-9000").save(tmp_path / "new.npz")
    with pytest.raises(ValueError, match="network this companion lacks"):
        Deck.load(tmp_path / "new.npz")


@pytest.mark.parametrize("name, angle", [("red-3", -20.0), ("yellow-5", 8.0), ("green-7", -12.0),
                                         ("blue-2", 15.0), ("purple-5", -12.0), ("red-2", 15.0)])
def test_a_card_photographed_close_is_boxed_along_it_not_across(name, angle):
    """Attacke's cards are printed in two halves, and in this held-out design each half of a
    card photographed close may look to a detector like a card lying across: the detector of
    23 Nov boxed one half, sideways, surest of all (the example would show two thirds of the
    card turned a quarter), and sometimes not the whole card at all: two halves side by side
    stand for it. Teach's box lies along the card either way."""
    import math

    from vision.geometry import box_of_quad
    from vision.sim.faces import Printed
    from vision.sim.scene import Placement
    from vision.teach import _card_box

    design = random_deck_design("attacke", np.random.default_rng([2026, 78]), "test")
    frame, truth = render_frame([Placement(Printed(name, design), (640, 360), angle, 280.0)],
                                Conditions(table="wood_light", light_gradient=0.2, noise=1.5),
                                size=(1280, 720), seed=9)
    card, detector = box_of_quad(truth[0].corners), Detector()

    def across(box) -> float:  # radians between the box's long axis and the card's
        return abs((box.angle - card.angle + math.pi / 2) % math.pi - math.pi / 2)

    box = _card_box(frame, detector)
    assert box is not None and across(box) < 0.2
    # measured: 0.92..1.03 of the card's width and of its height
    assert 0.85 < box.w / card.w < 1.2 and 0.85 < box.h / card.h < 1.1


def test_half_a_card_boxed_across_is_no_card_to_a_taught_deck(taught, design):
    from vision.geometry import box_of_quad, rectify
    from vision.sim.faces import Printed
    from vision.sim.scene import Placement

    reader = Reader.from_deck(taught[0])
    for name in ("green-5", "yellow-2", "blue-7", "red-3"):
        frame, truth = render_frame([Placement(Printed(name, design), (640, 360), 5.0, 110.0)],
                                    Conditions(table="wood_light"), size=(1280, 720), seed=3)
        whole = reader.read([rectify(frame, truth[0].corners)])[0]
        assert whole.reading.label == name
        for half in box_of_quad(truth[0].corners).halves():
            look = reader.read([rectify(frame, half.quad())])[0]
            assert look.no_card >= 0.5 or look.reading.label is None, (name, look)


def test_a_tightrope_deck_cut_by_an_older_card_search_is_taught_again(tmp_path):
    from vision.deck import Head
    from vision.read import _zero_shot_head
    from vision.teach import PHOTO_SEARCH, up_to_date

    zero = _zero_shot_head()
    head = Head(zero.w, zero.b, 1.0, 0.9)
    digest = bundled("reader").digest
    Deck(head, digest=digest, search=PHOTO_SEARCH).save(tmp_path / "now.npz")
    Deck(head, digest=digest).save(tmp_path / "old.npz")  # its photos searched unpadded
    assert Deck.load(tmp_path / "now.npz").search == PHOTO_SEARCH
    assert up_to_date(tmp_path / "now.npz", TIGHTROPE)
    assert not up_to_date(tmp_path / "old.npz", TIGHTROPE)


def test_a_deck_fitted_to_other_weights_is_refused_then_fitted_again(taught, tmp_path, capsys):
    deck_path, _ = taught
    deck = Deck.load(deck_path)
    assert deck.network == "reader-games" and deck.digest == bundled("reader-games").digest
    deck.digest = "0" * 16  # as if the companion's reader were trained again since
    stale = tmp_path / "stale.npz"
    deck.save(stale)
    with pytest.raises(ModelError, match=f"teach --deck {stale} --out {stale}"):
        Reader.from_deck(stale)
    assert companion_main(["teach", "--game", "attacke", "--deck", str(stale),
                           "--out", str(stale)]) == 0
    assert "teach: wrote" in capsys.readouterr().err
    again = Reader.from_deck(stale)
    assert again.deck is not None and again.deck.names == ATTACKE
    assert len(again.deck.examples) == len(deck.examples)


def test_no_bundled_reader_knows_cards_of_no_game():
    with pytest.raises(ModelError, match="no bundled reader knows"):
        Reader.zero_shot(("a-card", "another"))


def test_the_games_reader_reads_an_unseen_attacke_deck_untaught(design, tmp_path, capsys):
    reader, detector, total = Reader.zero_shot(ATTACKE), Detector(), Tally()
    frames = plain_frames(design)
    for frame, truth in frames:
        seen = look_at(frame, reader, detector)
        assert all(s.reading.card is None and s.reading.named[0][0] in ATTACKE for s in seen)
        total.add(score_frame(seen, [Truth(card_of(t.card.label), t.corners, t.center,
                                           t.visible_fraction, t.covered_by_hand)
                                     for t in truth], (1280, 720)))
    c = total.counts
    assert c["wrong"] == 0 and c["spurious"] == 0, total.wrong
    # measured: 7 of 28 in this design's serif (no network saw it), the rest abstained on;
    # docs/PERFORMANCE.md gives 44 % over the unseen designs: teach a deck to read it well
    assert c["correct"] >= 0.2 * c["cards"], c
    frame, truth = frames[0]
    cv2.imwrite(str(tmp_path / "table.png"), frame)
    assert companion_main(["recognize", str(tmp_path / "table.png"), "--game", "attacke",
                           "--json"]) == 0
    cards = json.loads(capsys.readouterr().out)["cards"]
    assert {c["label"] for c in cards} - {None} <= {t.card.label for t in truth}


def _fan(design, count: int) -> tuple[np.ndarray, list]:
    """The first `count` cards of a fan laid right to left, each 0.6 of a card's width past the
    last and half over it (Cy's red 5, 2, 5, 2 of the demo's game, upside down to the camera)."""
    from vision.sim.faces import Printed
    from vision.sim.scene import Placement

    names = ("red-5", "red-2", "red-5", "red-2")[:count]
    fan = [Placement(Printed(n, design), (700 - 48 * k, 300), 180.0, 80.0)
           for k, n in enumerate(names)]
    return render_frame(fan, Conditions(table="wood_light", light_gradient=0.3, noise=2.0),
                        seed=3)


def test_a_fan_boxed_as_one_is_read_card_by_card(taught, design):
    """A box lying across the two middle cards of this fan (the detector of 23 Nov boxed them
    so) shows no card: card-sized windows over it find them (`recognize.look_within`). Before,
    two of the four were seen."""
    from vision.detect import Detection
    from vision.geometry import Box, box_of_quad
    from vision.recognize import look_within

    frame, truth = _fan(design, count=4)
    outer = [np.asarray(truth[k].corners, np.float32) for k in (0, 3)]
    card = box_of_quad(outer[0])
    across = Detection(Box(628, 300, 125, 150, 0.0), 0.4)
    found = look_within(frame, Reader.from_deck(taught[0]), across, outer, (card.w, card.h),
                        [(outer[0], truth[0].card.label), (outer[1], truth[3].card.label)])
    assert sorted((look.reading.label, round(det.box.cx / 48)) for det, look in found) == \
        sorted((t.card.label, round(t.center[0] / 48)) for t in truth[1:3])


@pytest.mark.parametrize("names", [("purple-5", "purple-4"), ("yellow-3", "yellow-2"),
                                   ("red-2", "red-7")])
def test_a_card_laid_on_another_boxed_askew_with_it_is_found_as_that_one_lies(taught, design,
                                                                             names):
    """Two cards lying sideways, the second laid on the first 0.55 of a width further up (a
    seat's stack at the side of the table), boxed as one by a box lying askew of both, as the
    detector boxed such a stack in a whole game: windows in the orientation of the card the
    box touches find the one laid on it (in the box's own orientations, none of them)."""
    from vision.detect import Detection
    from vision.geometry import Box, box_of_quad
    from vision.recognize import look_within
    from vision.sim.faces import Printed
    from vision.sim.scene import Placement

    cards = [Placement(Printed(n, design), (700, 400 - 45 * k), 90.0, 84.0)
             for k, n in enumerate(names)]
    frame, truth = render_frame(cards, Conditions(table="cloth_green", light_gradient=0.3,
                                                  noise=2.0), seed=4)
    below = np.asarray(truth[0].corners, np.float32)
    card = box_of_quad(below)
    askew = Detection(Box(700, 378, 100, 150, 0.9), 0.5)
    found = look_within(frame, Reader.from_deck(taught[0]), askew, [below], (card.w, card.h),
                        [(below, names[0])])
    assert [look.reading.label for _, look in found] == [names[1]]
    assert math.dist(found[0][0].box.centre, truth[1].center) < 0.35 * card.w


@pytest.mark.xfail(strict=True, reason="the detector of 27 Nov boxes this fan's top card 1 px "
                   "off its middle, and this deck reads that box unsure (0.94; the games reader "
                   "0.65): it is asked about (the next test), not read. 2 px lower it reads 0.99; "
                   "a window on the changed place is not taken where it is the box itself")
def test_the_watcher_sees_each_card_laid_into_a_fan(taught, design):
    """Laid one by one, each card of the fan is committed once, as itself. (A card still read
    unsure when the next is laid half over it is committed unsure first, so that it is not
    lost under it; read surely again, it is committed as itself.)"""
    from vision.watch import TableWatcher

    watcher = TableWatcher(None, Reader.from_deck(taught[0]), fps=10)
    committed = []
    for count in range(1, 5):
        frame, _ = _fan(design, count)
        for _ in range(8):
            committed += [c.observation.reading.label for c in watcher.feed(frame)
                          if c.kind == "appeared"]
    assert sorted(c for c in committed if c is not None) == ["red-2", "red-2", "red-5", "red-5"]
    assert sorted(o.reading.label for o in watcher.cards()) == ["red-2", "red-2", "red-5", "red-5"]


def test_each_card_laid_into_a_fan_is_committed_once_and_never_as_another(taught, design):
    """However surely it reads, each card laid into the fan is committed once, where it lies: as
    itself, or unsure once its re-reads are spent (the table is asked which card it is), never
    as another card."""
    from vision.watch import TableWatcher

    watcher = TableWatcher(None, Reader.from_deck(taught[0]), fps=10)
    for count in range(1, 5):
        frame, truth = _fan(design, count)
        for _ in range(20):
            watcher.feed(frame)
    cards = sorted(watcher.cards(), key=lambda o: -o.center[0])  # laid right to left
    assert [round(o.center[0] / 48) for o in cards] == [round(t.center[0] / 48) for t in truth]
    assert all(o.reading.label in (None, t.card.label) for o, t in zip(cards, truth, strict=True))
