"""The simulator's other decks (vision.sim.attacke, vision.sim.playing), the one face lookup for
every deck (vision.sim.faces), their teach folders (vision.sim.photos) and frames holding them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.games import game_named
from vision.cards import CARD_H, CARD_W, DEFAULT_STYLE
from vision.sim import Conditions, attacke, designs, playing, random_scene, render_frame
from vision.sim.__main__ import main
from vision.sim.attacke import (
    COLOURS,
    EMBLEMS,
    FIELDS,
    HUE_FAMILIES,
    SHIELDS,
    AttackeDesign,
    random_attacke_design,
)
from vision.sim.attacke import FAMILIES as ATTACKE_FAMILIES
from vision.sim.attacke import INDEX_LAYOUTS as ATTACKE_INDICES
from vision.sim.draw import BACKS, BORDERS
from vision.sim.faces import DECKS, Printed, face, printed_deck, random_deck_design
from vision.sim.photos import teach_file, teach_folder
from vision.sim.playing import COURTS, INDEX_CORNERS, JOKERS, SUIT_COLOURS, PlayingDesign
from vision.sim.playing import FAMILIES as PLAYING_FAMILIES

FACE_CACHES = {"tightrope": designs._face, "attacke": attacke._face, "solo": playing._face}
SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
pytestmark = pytest.mark.skipif(not Path(SANS).is_file(),
                                reason="Debian's fonts-dejavu-core (make test installs it)")


def attacke_designs() -> list[AttackeDesign]:
    """Editions that between them use every family of every layout choice."""
    base = AttackeDesign("test", SERIF, SANS)
    return [replace(base, field=FIELDS[k % 4], emblem=EMBLEMS[k % 4],
                    index_layout=ATTACKE_INDICES[k % 3], shield=SHIELDS[k % 3],
                    back=BACKS[k % 4], index_pip=k % 2 == 0) for k in range(4)]


def playing_designs() -> list[PlayingDesign]:
    base = PlayingDesign("test", SANS, SERIF)
    return [replace(base, suit_colours=SUIT_COLOURS[k % 2], index_corners=INDEX_CORNERS[k % 2],
                    court=COURTS[k % 3], joker=JOKERS[k % 2], border=BORDERS[k % 5],
                    back=BACKS[k % 4]) for k in range(5)]


def test_the_decks_are_the_games_decks():
    for game in ("tightrope", "attacke", "solo"):
        assert DECKS[game] == game_named(game).deck


@pytest.mark.parametrize("designs", [attacke_designs, playing_designs])
def test_every_card_renders_in_every_family_and_no_two_cards_look_alike(designs):
    for d in designs():
        names = DECKS["attacke" if isinstance(d, AttackeDesign) else "solo"]
        faces = [face(d, name) for name in names]
        assert all(f.shape == (CARD_H, CARD_W, 3) and f.dtype == np.uint8 for f in faces)
        half = (CARD_W // 2, CARD_H // 2)  # a card is 80 px wide on camera: half size is plenty
        stack = np.stack([cv2.resize(f, half, interpolation=cv2.INTER_AREA) for f in faces])
        stack = stack.astype(np.int16)
        for i in range(len(stack)):  # a QS and a QC differ in a few small pips: 50 px at least
            differ = (np.abs(stack[i + 1:] - stack[i]).max(axis=3) > 60).sum(axis=(1, 2))
            assert (differ >= 50).all(), (d, names[i], names[i + 1 + int(differ.argmin())])


@pytest.mark.parametrize("game", ["tightrope", "attacke", "solo"])
def test_a_random_design_of_any_deck_is_the_same_for_a_seed(game):
    one = random_deck_design(game, np.random.default_rng(7))
    again = random_deck_design(game, np.random.default_rng(7))
    assert one == again and one != random_deck_design(game, np.random.default_rng(8))
    name = DECKS[game][-2]
    drawn = face(one, name).copy()
    FACE_CACHES[game].cache_clear()  # drawn afresh, not the cached array
    assert np.array_equal(drawn, face(again, name))


def _hue_mode(img: np.ndarray) -> int:
    """The commonest hue (OpenCV 0..180) of the face's strongly coloured pixels."""
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).reshape(-1, 3)
    strong = hsv[(hsv[:, 1] > 90) & (hsv[:, 2] > 60)]
    return int(np.bincount(strong[:, 0], minlength=180).argmax())


def test_a_knight_shows_its_contest_colour():
    for d in [*attacke_designs(), random_attacke_design(np.random.default_rng(3))]:
        for colour in COLOURS:
            (lo, hi), _, _ = HUE_FAMILIES[colour]
            for value in (2, 7):
                hue = _hue_mode(face(d, f"{colour}-{value}"))
                assert (hue - lo) % 180 <= hi - lo + 2, (d.field, colour, hue)


PIP_AREA = (slice(CARD_H // 6, -CARD_H // 6), slice(CARD_W // 4, -CARD_W // 4))  # no index


def test_pips_are_printed_in_the_suits_colour():
    for d in playing_designs():
        for suit in "SHDC":
            img = face(d, f"7{suit}").astype(int)[PIP_AREA]
            ink = img[np.abs(img - np.array(d.stock)).sum(axis=2) > 150]
            b, g, r = ink.mean(axis=0)
            if suit == "H" or (suit == "D" and d.suit_colours == "two"):
                assert r > b + 60 and r > g + 60, (d.suit_colours, suit)
            elif suit == "D":
                assert b > r + 60, suit
            elif suit == "C" and d.suit_colours == "four":
                assert g > r + 40 and g > b + 40, suit
            else:
                assert max(b, g, r) < 110, (d.suit_colours, suit)


@pytest.mark.parametrize("game, families", [("attacke", ATTACKE_FAMILIES),
                                             ("solo", PLAYING_FAMILIES)])
def test_training_never_draws_a_held_out_family(game, families):
    train = [random_deck_design(game, np.random.default_rng(s)) for s in range(60)]
    unseen = [random_deck_design(game, np.random.default_rng(s), layouts="held_out")
              for s in range(30)]
    assert not any(d.held_out for d in train) and all(d.held_out for d in unseen)
    for key, options in families.items():
        assert {getattr(d, key) for d in train} == set(options[:-1]), key
    assert {d.suit_colours if game == "solo" else d.field for d in unseen} == set(
        families["suit_colours" if game == "solo" else "field"])


def test_a_name_outside_the_deck_is_refused():
    d = attacke_designs()[0]
    with pytest.raises(ValueError, match="not an Attacke card"):
        face(d, "orange-2")
    with pytest.raises(ValueError, match="solo deck"):
        Printed("1S", playing_designs()[0])
    with pytest.raises(ValueError):
        face(DEFAULT_STYLE, "QH")


@pytest.mark.parametrize("designs", [attacke_designs, playing_designs])
def test_a_teach_folder_holds_one_photo_per_card(tmp_path, designs):
    d = designs()[1]
    game = "attacke" if isinstance(d, AttackeDesign) else "solo"
    teach_folder(tmp_path, d, size=(320, 180))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"card-{name}.png" for name in DECKS[game])
    assert cv2.imread(str(tmp_path / teach_file(game, "back"))).shape == (180, 320, 3)
    assert teach_file("solo", "QH") == "card-QH.png"
    assert teach_file("tightrope", "number-17") == "number-17.png"


def test_cards_of_any_deck_lie_in_a_frame_with_their_truth():
    cards = [*printed_deck(attacke_designs()[2]), *printed_deck(playing_designs()[3])]
    placements = random_scene(np.random.default_rng(5), 8, cards=cards,
                              width_range=(110.0, 130.0))
    frame, truth = render_frame(placements, Conditions(light_gradient=0.2, noise=1.0), seed=5)
    assert frame.shape == (720, 1280, 3) and len(truth) == len(placements) == 8
    canon = np.float32([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]])
    for p, t in zip(placements, truth, strict=True):
        assert t.card is p.card and t.to_json()["label"] == p.card.name
        m = cv2.getPerspectiveTransform(t.corners - 0.5, canon - 0.5)
        seen = cv2.warpPerspective(frame, m, (CARD_W, CARD_H)).astype(float)[20:-20, 20:-20]
        want = p.card.face().astype(float)[20:-20, 20:-20]
        seen, want = seen - seen.mean(), want - want.mean()
        assert (seen * want).sum() / np.sqrt((seen ** 2).sum() * (want ** 2).sum()) > 0.6


def test_the_command_line_writes_each_decks_contact_sheets(tmp_path):
    assert main(["faces", str(tmp_path), "--seed", "2"]) == 0
    assert {p.name for p in tmp_path.iterdir()} == {
        f"{game}{part}.png" for game in DECKS for part in ("", "-camera", "-table")}
    assert cv2.imread(str(tmp_path / "solo-table.png")).shape == (720, 1280, 3)
