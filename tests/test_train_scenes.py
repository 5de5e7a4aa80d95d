"""The training scenes (vision.train.scenes): the detector's sets of every game's deck fan each
seat's cards half over one another, keep held-out designs out of training, and leave the
Tightrope sets as they were; the games reader's sets label other decks' cards by name."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards import ALL_CARDS, CardId
from vision.sim.faces import Printed, game_of
from vision.train.data import SetSpec, reader_samples
from vision.train.scenes import GAMES, random_scene

SIZE = (768, 432)


def test_a_fan_lays_each_card_partly_over_the_one_before() -> None:
    scene = random_scene(np.random.default_rng(3), "train", SIZE, (0.06, 0.08), layout="fans",
                         games=("attacke",))
    assert scene.layout == "fans" and all(isinstance(t.card, Printed) for t in scene.truth)
    half_hidden = [t for t in scene.truth if 0.1 < t.visible_fraction < 0.9]
    assert len(half_hidden) >= 2, [round(t.visible_fraction, 2) for t in scene.truth]
    assert all(game_of(t.card.design) == "attacke" for t in scene.truth
               if isinstance(t.card, Printed))


@pytest.mark.parametrize("split, held_out", [("train", False), ("test", True)])
def test_other_decks_are_drawn_in_designs_of_the_split(split: str, held_out: bool) -> None:
    games_seen = set()
    for i in range(12):
        scene = random_scene(np.random.default_rng([7, i]), split, SIZE, games=GAMES)  # type: ignore[arg-type]
        printed = [t.card for t in scene.truth if isinstance(t.card, Printed)]
        if printed:
            design = printed[0].design
            games_seen.add(game_of(design))
            assert design.held_out is held_out  # type: ignore[union-attr]
        else:
            games_seen.add("tightrope")
    assert games_seen == set(GAMES)


def test_the_tightrope_sets_draw_tightrope_cards_and_no_fans() -> None:
    for i in range(30):
        scene = random_scene(np.random.default_rng([1, i]), "train", SIZE)
        assert scene.layout != "fans"
        assert all(isinstance(t.card, CardId) for t in scene.truth)


def test_a_reader_set_of_other_decks_labels_each_crop_with_its_card_and_way_up() -> None:
    spec = SetSpec("reader", "train", 1, 1, ("attacke", "solo"))
    classes = spec.classes
    assert classes[:2] == ("red-2", "red-3") and "QH" in classes and "joker" in classes
    assert classes.count("back") == 1 and len(classes) == len(set(classes))
    scene = random_scene(np.random.default_rng(5), "train", (960, 540), (0.08, 0.1),
                         layout="scatter", games=("solo",))
    crops, labels, seen = reader_samples(scene, np.random.default_rng(5), classes)
    reject = 2 * len(classes)
    named = {classes[y // 2] for y in labels if y != reject}
    truth = {t.card.label for t in scene.truth if t.visible_fraction >= 0.35}
    assert named and named <= truth and reject in labels
    assert all(c.shape == (96, 64, 3) for c in crops) and len(seen) == len(labels)


def test_a_tightrope_reader_set_keeps_the_reader_s_classes() -> None:
    classes = SetSpec("reader", "train", 1, 1).classes
    assert classes == tuple(c.label for c in ALL_CARDS)


@pytest.mark.parametrize("no_cards", [1 / 6, 0.5])
def test_a_reader_set_mixes_crops_of_no_card_in_the_share_asked(no_cards: float) -> None:
    classes = SetSpec("reader", "train", 1, 1).classes
    scene = random_scene(np.random.default_rng(8), "train", (960, 540), (0.08, 0.1),
                         layout="scatter")
    _, labels, _ = reader_samples(scene, np.random.default_rng(8), classes, no_cards=no_cards)
    rejects = labels.count(2 * len(classes))
    assert rejects == max(1, round((len(labels) - rejects) * no_cards))
