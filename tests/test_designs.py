"""Card designs in real typefaces (vision.sim.designs), the font inventory and its splits
(vision.sim.fonts), and the table surfaces training and the unseen-design sets draw on."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cards import CARD_H, CARD_W
from vision.sim.designs import HELD_OUT, Design, glyph
from vision.sim.fonts import SPLITS, group_of, scan, split_of
from vision.sim.textures import HELD_OUT_TABLES, TABLES, draw_table, random_table
from vision.types import ALL_CARDS, CardId

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
pytestmark = pytest.mark.skipif(not Path(SANS).is_file(),
                                reason="Debian's fonts-dejavu-core (make test installs it)")


def design(**over: object) -> Design:
    return replace(Design("test", SERIF, SANS), **over)


def test_every_card_of_a_design_is_drawn_and_all_61_differ():
    d = design()
    faces = [d.face(c) for c in ALL_CARDS]
    assert all(f.shape == (CARD_H, CARD_W, 3) and f.dtype == np.uint8 for f in faces)
    flat = np.stack([f.reshape(-1) for f in faces]).astype(np.int16)
    for i in range(len(flat)):
        for j in range(i + 1, len(flat)):
            assert np.abs(flat[i] - flat[j]).mean() > 1.0, (ALL_CARDS[i], ALL_CARDS[j])


def test_a_six_and_a_nine_differ_turned_round_when_the_design_marks_them():
    for mark in ("underline", "dot"):
        d = design(mark69=mark, picture="none", index_layout="corners2", border="none")
        six = d.face(CardId("number", 6)).astype(int)
        nine_turned = d.face(CardId("number", 9))[::-1, ::-1].astype(int)
        assert np.abs(six - nine_turned).mean() > 1.0


def test_a_scoring_card_has_its_blue_half_on_top_and_a_zero_its_colour():
    d = design(scoring="halves", blue=(200, 60, 10), red=(20, 20, 220))
    face = d.face(CardId("scoring", 7)).astype(int)
    top, bottom = face[: CARD_H // 2], face[CARD_H // 2:]
    assert top[..., 0].mean() > top[..., 2].mean() and bottom[..., 2].mean() > bottom[..., 0].mean()
    for zero, channel in ((CardId("scoring", 0, "blue"), 0), (CardId("scoring", 0, "red"), 2)):
        f = design(zero="full").face(zero).astype(int)
        assert f[..., channel].mean() > f[..., 2 - channel].mean() + 60


def test_glyphs_keep_their_height_and_marks_add_to_it():
    plain = glyph(SANS, "6", 40.0)
    assert plain.shape[0] == 40
    underlined = glyph(SANS, "6", 40.0, "underline")
    assert underlined.shape[0] > 40 and underlined.shape[1] == plain.shape[1]


def test_held_out_layouts_are_what_the_design_says():
    assert not design().held_out
    for key, value in HELD_OUT.items():
        assert design(**{key: value}).held_out


def test_design_groups_keep_clones_and_variants_on_one_side():
    assert group_of("Liberation Sans") == group_of("Arimo") == group_of("Nimbus Sans")
    assert group_of("BetecknaGS") == group_of("BetecknaGSCondensed") == group_of("Beteckna")
    assert group_of("Noto Serif") == group_of("Noto Sans Bengali")
    assert {split_of(g) for g in ("helvetica", "times", "noto", "dejavu")} <= set(SPLITS)
    assert split_of("noto") == split_of("noto")  # stable: a hash, not the process's seed


def test_the_font_scan_finds_real_fonts_with_ten_distinct_digits(tmp_path):
    fonts = scan(cache=tmp_path / "fonts.json")
    paths = {f.path for f in fonts}
    assert SANS in paths and SERIF in paths
    again = scan(cache=tmp_path / "fonts.json")  # from the cache now
    assert {f.path for f in again} == paths


@pytest.mark.parametrize("kind", [t for t in TABLES if t != "photo_unseen"])
def test_every_table_surface_draws(kind):
    img = draw_table(kind, 160, 90, np.random.default_rng(1), 12.0)
    assert img.shape == (90, 160, 3) and np.isfinite(img).all() and img.std() >= 0


def test_training_never_draws_a_held_out_surface(monkeypatch):
    import vision.sim.textures as textures

    drawn: dict[str, set[str]] = {"train": set(), "test": set()}
    real = textures.draw_table

    def spy(kind, w, h, rng, card_px, split="train"):
        drawn[split].add(kind)
        return real(kind, w, h, rng, card_px, split)

    monkeypatch.setattr(textures, "draw_table", spy)
    for seed in range(300):
        for split in ("train", "test"):
            random_table(np.random.default_rng(seed), 8, 8, 2.0, split)
    assert not drawn["train"] & set(HELD_OUT_TABLES)
    assert "floral" in drawn["test"] and {"checked", "cloth_white"} <= drawn["train"]
    assert {"printed", "plaid"} <= drawn["train"] and not {"printed", "plaid"} & drawn["test"]


@pytest.mark.parametrize("kind", ["printed", "plaid"])
def test_a_busy_print_is_busy_where_a_cloth_is_plain(kind):
    """Shape prints and tartans are trained on for what they are: edges everywhere, at the
    scale of a card's features (the unseen floral print is such a cloth)."""
    def edges(table: str, seed: int) -> float:
        img = np.clip(draw_table(table, 320, 200, np.random.default_rng(seed), 40.0), 0, 255)
        return float(np.any([cv2.Canny(c, 40, 120) > 0 for c in cv2.split(img.astype(np.uint8))],
                            axis=0).mean())  # in any colour: a print may be grey-alike

    assert min(edges(kind, s) for s in range(8)) > 5 * max(edges("cloth", s) for s in range(8))


def test_fonts_from_the_npm_registry_are_drawn_for_training_only(tmp_path):
    """A typeface fetched from the registry (a `fontsource` folder) widens the train split; one
    whose design group falls in calib or test is drawn by no split, so the unseen-design sets
    stay Debian's held-out typefaces."""
    import shutil

    goudy = "/usr/share/fonts/opentype/sortsmill/GoudyBookletter1911.otf"
    if not Path(goudy).is_file():
        pytest.skip("Debian's fonts-goudybookletter (make test installs it)")
    for name, src in (("dejavu-sans", SANS), ("goudy", goudy)):
        (tmp_path / "fontsource" / name).mkdir(parents=True)
        shutil.copy(src, tmp_path / "fontsource" / name / Path(src).name)
    shutil.copy(SERIF, tmp_path / Path(SERIF).name)  # the same design, from Debian
    fonts = {Path(f.path).name: f for f in scan([tmp_path], cache=tmp_path / "fonts.json")}
    sans, book, serif = fonts["DejaVuSans.ttf"], fonts[Path(goudy).name], fonts["DejaVuSerif.ttf"]
    assert sans.registry and book.registry and not serif.registry
    assert sans.split == serif.split == sans.drawn_for == "train"
    assert book.split == "test" and book.drawn_for is None


def test_a_registry_family_is_fetched_checked_and_kept_in_its_folder(tmp_path, monkeypatch):
    """`vision.train.fontsource.fetch`: the package's integrity is checked, only its Latin
    regular and bold files are kept, and a family fetched before is not fetched again."""
    import base64
    import hashlib
    import io
    import json
    import tarfile

    from vision.train import fontsource

    def tarball(files: dict[str, bytes]) -> bytes:
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w:gz") as tar:
            for name, data in files.items():
                info = tarfile.TarInfo(f"package/{name}")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        return out.getvalue()

    meta = {"subsets": ["latin", "greek"], "weights": [300, 400, 600, 900], "styles": ["normal"]}
    blob = tarball({"metadata.json": json.dumps(meta).encode(), "LICENSE": b"OFL",
                    **{f"files/fam-{s}-{w}-normal.woff2": f"{s}{w}".encode()
                       for s in ("latin", "greek") for w in meta["weights"]}})
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(blob).digest()).decode()
    asked: list[str] = []

    def get(url: str) -> bytes:
        asked.append(url)
        if url.endswith("/latest"):
            return json.dumps({"dist": {"tarball": "https://x/fam.tgz",
                                        "integrity": integrity}}).encode()
        return blob

    monkeypatch.setattr(fontsource, "_get", get)
    assert fontsource.fetch("fam", tmp_path) == 2
    kept = sorted(p.name for p in (tmp_path / "fam").iterdir())
    assert kept == ["LICENSE", "fam-latin-400-normal.woff2", "fam-latin-600-normal.woff2",
                    "metadata.json"]
    assert fontsource.fetch("fam", tmp_path) == 0 and len(asked) == 2  # kept: not asked again

    blob = blob[:-1] + bytes([blob[-1] ^ 1])  # a tarball damaged on the way
    with pytest.raises(fontsource.FetchError, match="integrity"):
        fontsource.fetch("other", tmp_path)
    assert not (tmp_path / "other").exists()
    assert fontsource.nearest_weights([100, 200]) == [200]
    assert fontsource.nearest_weights([400, 700, 800]) == [400, 700]
