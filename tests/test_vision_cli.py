"""recognize --json, teach and eval as the CLI runs them."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cards import ALL_CARDS, DEFAULT_STYLE, CardId
from vision.cli import eval_main, recognize_main, teach_main
from vision.evaluate import teach_photos
from vision.sim.scene import Conditions, Placement, render_frame
from vision.teach import TeachError, collect_photos


@pytest.fixture(scope="module")
def frame_file(tmp_path_factory) -> tuple[Path, list]:
    placements = [
        Placement(CardId("number", 23), (300.0, 250.0), 10.0, 100.0),
        Placement(CardId("number", 9), (700.0, 300.0), 180.0, 100.0),  # upside down
        Placement(CardId("scoring", 0, "blue"), (1000.0, 500.0), 75.0, 100.0),
    ]
    frame, truth = render_frame(placements, Conditions(table="wood_dark", glare=1), seed=9)
    path = tmp_path_factory.mktemp("frames") / "table.png"
    cv2.imwrite(str(path), frame)
    return path, truth


def test_recognize_json_line_per_image(frame_file, capsys):
    path, truth = frame_file
    assert recognize_main([str(path)], None, True) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    out = json.loads(lines[0])
    assert out["image"] == str(path)
    got = {(c["kind"], c["value"], c.get("colour")) for c in out["cards"]}
    assert got == {("number", 23, None), ("number", 9, None), ("scoring", 0, "blue")}
    for card in out["cards"]:
        assert set(card) <= {"kind", "value", "colour", "confidence", "center", "corners"}
        assert 0.0 <= card["confidence"] <= 1.0
        assert len(card["corners"]) == 4 and len(card["center"]) == 2
        assert ("colour" in card) == (card["value"] == 0 and card["kind"] == "scoring")
    # corners come in the face's own orientation: TL of the upside-down 9 is at the bottom right
    nine = next(c for c in out["cards"] if c["value"] == 9)
    t9 = next(t for t in truth if t.card == CardId("number", 9))
    assert np.abs(np.array(nine["corners"]) - t9.corners).max() < 8.0


def test_recognize_unreadable_image_is_a_json_error(frame_file, tmp_path, capsys):
    path, _ = frame_file
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"nope")
    code = recognize_main([str(junk), str(path), str(tmp_path / "missing.png")], None, True)
    assert code != 0
    lines = [json.loads(x) for x in capsys.readouterr().out.strip().splitlines()]
    assert [("error" in x) for x in lines] == [True, False, True]
    assert lines[0]["image"] == str(junk)


def test_recognize_bad_deck_is_one_line(frame_file, tmp_path, capsys):
    path, _ = frame_file
    assert recognize_main([str(path)], str(tmp_path / "none.npz"), True) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "none.npz" in err


@pytest.fixture(scope="module")
def photos(tmp_path_factory) -> Path:
    return teach_photos(tmp_path_factory.mktemp("teach"), DEFAULT_STYLE, size=(640, 360))


def test_teach_errors_name_the_file(photos, tmp_path, capsys):
    assert teach_main(str(tmp_path / "nowhere"), str(tmp_path / "d.npz")) == 2
    assert "nowhere" in capsys.readouterr().err
    partial = tmp_path / "partial"
    partial.mkdir()
    for card in ALL_CARDS[:-1]:
        (partial / f"{card.label}.png").write_bytes((photos / f"{card.label}.png").read_bytes())
    with pytest.raises(TeachError, match="scoring-0-red.png"):
        collect_photos(partial)
    (partial / "scoring-0-red.png").write_bytes(b"broken")
    assert teach_main(str(partial), str(tmp_path / "d.npz")) == 2
    assert "scoring-0-red.png: cannot read" in capsys.readouterr().err
    (partial / "number-51.png").write_bytes(b"x")
    with pytest.raises(TeachError, match="number-51.png"):
        collect_photos(partial)


def test_teach_needs_a_folder_or_corrections(tmp_path, capsys):
    assert teach_main(None, str(tmp_path / "d.npz")) == 2
    assert "teach folder" in capsys.readouterr().err


def test_eval_prints_the_table(tmp_path, capsys):
    code = eval_main(["--frames", "2", "--conditions", "clean", "--set", str(tmp_path / "set")])
    assert code == 0
    out = capsys.readouterr().out
    assert "correct" in out and "abstained" in out and "missed" in out and "clean" in out
    assert eval_main(["--conditions", "nonsense", "--set", str(tmp_path / "x")]) == 2
    assert eval_main(["--designs", "editions", "--taught", "--frames", "1",
                      "--set", str(tmp_path / "y")]) == 2  # one deck a design: not editions
