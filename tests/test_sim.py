"""vision.sim: frames, truth, footage and labelled sets of the simulated table."""

import hashlib
import json
import os
import subprocess
import sys

import cv2
import numpy as np
import pytest

from vision.cards import CARD_H, CARD_W, CardId, render_face
from vision.sim import (
    Conditions,
    HandPose,
    Placement,
    SimError,
    card_corners,
    random_scene,
    render_frame,
    render_table,
    scoring_row_scene,
)
from vision.sim.footage import (
    ClearRound,
    ClearTrick,
    Place,
    Reveal,
    _seats,
    render_footage,
    table_layout,
)
from vision.sim.labelled import HARD_CONDITIONS, load_labelled_set, make_labelled_set

CANON = np.float32([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]])
N = lambda v: CardId("number", v)  # noqa: E731
S = lambda v: CardId("scoring", v)  # noqa: E731
BLUE0, RED0 = CardId("scoring", 0, "blue"), CardId("scoring", 0, "red")


def _warp(img: np.ndarray, corners: np.ndarray) -> np.ndarray:
    m = cv2.getPerspectiveTransform(np.float32(corners) - 0.5, CANON - 0.5)
    return cv2.warpPerspective(img, m, (CARD_W, CARD_H))


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised correlation of two colour crops (inner part: the edges are blurred)."""
    ga, gb = a[15:-15, 15:-15].astype(float), b[15:-15, 15:-15].astype(float)
    ga, gb = ga - ga.mean(), gb - gb.mean()
    return float((ga * gb).sum() / np.sqrt((ga * ga).sum() * (gb * gb).sum() + 1e-9))


SCENE = [
    Placement(N(6), (250.0, 200.0), 0.0, 130.0),
    Placement(N(9), (560.0, 210.0), 180.0, 120.0),
    Placement(S(4), (850.0, 360.0), 37.0, 110.0),
    Placement(BLUE0, (400.0, 520.0), 250.0, 100.0),
    Placement(N(50), (1100.0, 520.0), 90.0, 75.0),
]


# --- geometry and truth -------------------------------------------------------------------------


def test_card_corners_follow_the_rotation():
    p = Placement(N(1), (100.0, 200.0), 0.0, 100.0)
    tl, tr, br, bl = card_corners(p)
    assert tl[0] < tr[0] and tl[1] < bl[1]
    assert np.linalg.norm(tr - tl) == pytest.approx(100.0)
    assert np.linalg.norm(bl - tl) == pytest.approx(100.0 * CARD_H / CARD_W)
    up = card_corners(Placement(N(1), (100.0, 200.0), 180.0, 100.0))
    assert np.allclose(up[0], br, atol=1e-3)  # upside down: its TL lies where the upright BR was
    ccw = card_corners(Placement(N(1), (100.0, 200.0), 90.0, 100.0))
    assert ccw[0][1] > ccw[1][1]  # turned counter-clockwise: the top edge points left


@pytest.mark.parametrize("tilt", [0.0, 12.0])
def test_truth_quads_hold_the_right_faces(tilt):
    cond = Conditions(table="wood_dark", tilt_deg=tilt, light_gradient=0.2, noise=1.5)
    img, truth = render_frame(SCENE, cond, seed=3)
    assert img.shape == (720, 1280, 3) and img.dtype == np.uint8
    assert [t.card for t in truth] == [p.card for p in SCENE]
    for t in truth:
        crop = _warp(img, t.corners)
        face = render_face(t.card)
        right, flipped = _corr(crop, face), _corr(crop, face[::-1, ::-1])
        assert right > 0.8, (t.card.label, right)
        assert right > flipped + 0.1, t.card.label
        assert t.visible_fraction > 0.97 and not t.covered_by_hand
        assert np.allclose(t.center, t.corners.mean(axis=0), atol=3.0)


def test_inside_the_quad_is_card_outside_is_table():
    cond = Conditions(table="dark_matte")
    img, truth = render_frame(SCENE[:1], cond, seed=1)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    inside = np.zeros(grey.shape, np.uint8)
    cv2.fillPoly(inside, [np.round(truth[0].corners).astype(np.int32)], 1)
    ring = cv2.dilate(inside, np.ones((25, 25), np.uint8)) - cv2.dilate(inside, np.ones((9, 9)))
    core = cv2.erode(inside, np.ones((9, 9), np.uint8))
    assert grey[core > 0].mean() > 150  # paper
    assert grey[ring > 0].mean() < 60   # dark table


def test_tilt_moves_the_cards_and_the_truth_together():
    flat = render_frame(SCENE, Conditions(tilt_deg=0), seed=4)[1]
    tilted = render_frame(SCENE, Conditions(tilt_deg=14, tilt_dir_deg=0.0), seed=4)[1]
    shift = max(np.abs(a.corners - b.corners).max() for a, b in zip(flat, tilted, strict=True))
    assert shift > 15  # perspective really changed the geometry...

    def skew(t):  # 0 for a parallelogram
        tl, tr, br, bl = t.corners
        return float(np.linalg.norm((tr - tl) - (br - bl)))

    assert max(skew(t) for t in flat) < 0.01
    assert max(skew(t) for t in tilted) > 3.0  # ...into a real keystone, not a mere affine map


def test_frames_are_deterministic_for_a_seed():
    cond = Conditions(table="cloth_green", tilt_deg=9, light_gradient=0.5, glare=2, shadow=True,
                      noise=4, motion_blur=5, jpeg_quality=60, hands=1)
    a, ta = render_frame(SCENE, cond, seed=7)
    b, tb = render_frame(SCENE, cond, seed=7)
    c, _ = render_frame(SCENE, cond, seed=8)
    assert np.array_equal(a, b)
    assert [t.visible_fraction for t in ta] == [t.visible_fraction for t in tb]
    assert not np.array_equal(a, c)
    n1, _ = render_frame(SCENE, cond, seed=7, noise_seed=1)
    n2, _ = render_frame(SCENE, cond, seed=7, noise_seed=2)
    diff = np.abs(n1.astype(int) - n2.astype(int))
    assert 0.5 < diff.mean() < 12  # only the sensor noise differs


def test_overlap_and_hands_lower_the_visible_fraction():
    under = Placement(N(20), (500.0, 360.0), 0.0, 120.0)
    half = Placement(N(21), (500.0, 360.0 + 0.5 * 120 * CARD_H / CARD_W), 0.0, 120.0)
    hidden = Placement(N(22), (900.0, 360.0), 0.0, 100.0)
    over = Placement(N(23), (900.0, 360.0), 0.0, 140.0)
    free = Placement(N(24), (200.0, 150.0), 0.0, 100.0)
    hand = HandPose(entry=(200.0, -150.0), tip=(200.0, 200.0), palm_px=140.0)
    _, truth = render_frame([under, half, hidden, over, free], Conditions(), seed=0,
                            hand_poses=[hand])
    vis = {t.card.value: t for t in truth}
    assert vis[20].visible_fraction == pytest.approx(0.5, abs=0.05)
    assert vis[21].visible_fraction > 0.97
    assert vis[22].visible_fraction < 0.01
    assert vis[24].covered_by_hand and vis[24].visible_fraction < 0.9
    assert not vis[20].covered_by_hand


def test_cards_half_out_of_the_frame_count_as_partly_visible():
    edge = Placement(N(30), (0.0, 360.0), 0.0, 100.0)
    _, truth = render_frame([edge], Conditions(), seed=0)
    assert truth[0].visible_fraction == pytest.approx(0.5, abs=0.05)


def test_every_condition_renders():
    for table in ("wood_light", "wood_dark", "cloth_green", "cloth_grey", "dark_matte"):
        img = render_table(Conditions(table=table, light_gradient=0.5, shadow=True), (320, 200))
        assert img.shape == (200, 320, 3)
    empty, truth = render_frame([], Conditions(), (320, 200), seed=2)
    assert truth == [] and np.array_equal(empty, render_table(Conditions(), (320, 200), 2))


@pytest.mark.parametrize("kwargs", [{"table": "lava"}, {"tilt_deg": -1}, {"light_gradient": 2},
                                    {"jpeg_quality": 0}, {"noise": -1}, {"exposure": 0}])
def test_bad_conditions_raise(kwargs):
    with pytest.raises(SimError):
        Conditions(**kwargs)


def test_random_scene_without_overlap_keeps_cards_apart_and_inside():
    rng = np.random.default_rng(0)
    placements = random_scene(rng, 10, (1280, 720))
    assert len(placements) >= 8 and len({p.card for p in placements}) == len(placements)
    img, truth = render_frame(placements, Conditions(), seed=0)
    for p, t in zip(placements, truth, strict=True):
        assert 70 <= p.width_px <= 160
        assert t.visible_fraction > 0.97
        assert (t.corners >= 0).all() and (t.corners[:, 0] < 1280).all()
    flipped = random_scene(rng, 5, angle=180.0)
    assert all(174 <= p.angle_deg <= 186 for p in flipped)
    piled = random_scene(np.random.default_rng(1), 8, overlap=1.0)
    _, truth = render_frame(piled, Conditions(), seed=0)
    assert min(t.visible_fraction for t in truth) < 0.95
    with pytest.raises(SimError):
        random_scene(rng, 62)


# --- footage ------------------------------------------------------------------------------------

ACTIONS = [Reveal(S(4)), Place(1, N(17)), Place(2, N(33)), Place(0, N(5)), ClearTrick(),
           Reveal(BLUE0), Reveal(S(7)), Place(2, N(40)), ClearTrick(), ClearRound()]
SMALL = (640, 360)


@pytest.fixture(scope="module")
def footage(tmp_path_factory):
    out = tmp_path_factory.mktemp("footage")
    cond = Conditions(light_gradient=0.3, noise=2.0, tilt_deg=6.0)
    render_footage(ACTIONS, 3, out, fps=5, seed=2, cond=cond, size=SMALL, hold_s=0.4, hand_s=0.8)
    return out, cond


def test_footage_writes_frames_zones_and_truth(footage):
    out, _ = footage
    frames = sorted(p.name for p in out.glob("frame_*.jpg"))
    lead_in, per_action = 5, 4 + 2
    assert len(frames) == lead_in + per_action * len(ACTIONS)
    assert frames == [f"frame_{i:06d}.jpg" for i in range(len(frames))]
    zones = json.loads((out / "zones.json").read_text())
    assert set(zones) == {"seats", "scoring"} and len(zones["seats"]) == 3
    for poly in [*zones["seats"], zones["scoring"]]:
        assert len(poly) >= 3 and all(len(pt) == 2 for pt in poly)
    lines = [json.loads(x) for x in (out / "truth.jsonl").read_text().splitlines()]
    assert [x["action"] for x in lines] == ["reveal", "place", "place", "place", "clear_trick",
                                            "reveal", "reveal", "place", "clear_trick",
                                            "clear_round"]
    assert [x["frame"] for x in lines] == sorted(x["frame"] for x in lines)
    assert [c["label"] for c in lines[3]["table"]] == ["scoring-4", "number-17", "number-33",
                                                       "number-5"]
    assert lines[-1]["table"] == []


def test_footage_cards_lie_in_their_zones(footage):
    out, _ = footage
    zones = json.loads((out / "zones.json").read_text())
    polys = {i: np.float32(p) for i, p in enumerate(zones["seats"])}
    polys["scoring"] = np.float32(zones["scoring"])
    for line in (out / "truth.jsonl").read_text().splitlines():
        for card in json.loads(line)["table"]:
            inside = cv2.pointPolygonTest(polys[card["zone"]], tuple(card["center"]), False)
            assert inside >= 0, card


def test_footage_hand_comes_and_goes_and_the_card_lies_still(footage):
    out, _ = footage
    line = json.loads((out / "truth.jsonl").read_text().splitlines()[1])  # Place(1, 17)
    done = line["frame"]
    read = lambda i: cv2.imread(str(out / f"frame_{i:06d}.jpg")).astype(int)  # noqa: E731

    def changed(i, j):  # share of pixels that changed by more than noise
        return float((np.abs(read(i) - read(j)).max(axis=2) > 40).mean())

    assert changed(done, done + 1) < 0.0005 < 0.01 < changed(done - 2, done)
    card = line["table"][-1]
    crop = _warp(read(done).astype(np.uint8), np.float32(card["corners"]))
    assert _corr(crop, render_face(N(17))) > 0.7
    seat_angle = table_layout(3, SMALL)  # seat 1 sits at the far (top) edge: card upside down
    assert card["corners"][0][1] > card["corners"][2][1] and seat_angle["seats"]


def test_footage_zero_lies_across_half_the_value_card(footage):
    out, _ = footage
    line = json.loads((out / "truth.jsonl").read_text().splitlines()[6])  # Reveal(7)
    by_label = {c["label"]: c for c in line["table"]}
    labels = [c["label"] for c in line["table"]]
    assert labels.index("scoring-0-blue") > labels.index("scoring-7")  # the zero lies on top
    zero, seven = (np.float32(by_label[k]["corners"]) for k in ("scoring-0-blue", "scoring-7"))
    inter, _ = cv2.intersectConvexConvex(zero, seven)
    assert inter / cv2.contourArea(seven) == pytest.approx(0.5, abs=0.1)
    crop = _warp(cv2.imread(str(out / f"frame_{line['frame']:06d}.jpg")), seven)
    top, bottom = crop[20:CARD_H // 2 - 20], crop[CARD_H // 2 + 20:-20]
    b, _, r = (float(top[..., i].mean()) for i in range(3))
    assert abs(b - r) < 40  # the value card's blue half is hidden under the zero's plain half
    assert bottom[..., 2].mean() - bottom[..., 0].mean() > 60  # its red half still shows


def test_footage_is_cached_and_rerenders_on_change(footage, tmp_path):
    out, cond = footage
    before = os.path.getmtime(out / "frame_000000.jpg")
    render_footage(ACTIONS, 3, out, fps=5, seed=2, cond=cond, size=SMALL, hold_s=0.4, hand_s=0.8)
    assert os.path.getmtime(out / "frame_000000.jpg") == before
    short = render_footage(ACTIONS[:2], 3, tmp_path / "a", fps=5, seed=2, cond=cond, size=SMALL,
                           hold_s=0.4, hand_s=0.8)
    first = cv2.imread(str(short / "frame_000012.jpg"))
    again = cv2.imread(str(out / "frame_000012.jpg"))
    assert np.array_equal(first, again)  # deterministic: same seed, same frames


def test_footage_rejects_bad_actions(tmp_path):
    with pytest.raises(SimError):
        render_footage([Place(3, N(5))], 3, tmp_path / "x", size=SMALL)
    with pytest.raises(SimError):
        render_footage([Reveal(N(5))], 3, tmp_path / "y", size=SMALL)
    with pytest.raises(SimError):
        table_layout(7)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_table_layout_partitions_the_seats(n):
    layout = table_layout(n)
    polys = [np.float32(p) for p in layout["seats"]]
    total = sum(cv2.contourArea(p) for p in polys)
    assert total == pytest.approx(1280 * 720, rel=0.01)
    assert cv2.pointPolygonTest(polys[0], (640, 700), False) > 0  # seat 0: the near edge
    for i, seat in enumerate(_seats(n, (1280, 720))):  # each seat's place lies in its zone only
        inside = [cv2.pointPolygonTest(p, seat.spot, False) > 0 for p in polys]
        assert inside == [j == i for j in range(n)]
    scoring = np.float32(layout["scoring"])
    assert all(cv2.pointPolygonTest(scoring, s.spot, False) < 0 for s in _seats(n, (1280, 720)))


# --- labelled sets ------------------------------------------------------------------------------


def test_labelled_set(tmp_path):
    out = make_labelled_set(tmp_path / "set", len(HARD_CONDITIONS), seed=1, size=SMALL,
                            cards_per_frame=(2, 4))
    rows = load_labelled_set(out)
    assert [r["condition"] for r in rows] == list(HARD_CONDITIONS)
    for row in rows:
        img = cv2.imread(row["path"])
        assert img is not None and img.shape == (360, 640, 3)
        assert row["image"].endswith(".jpg" if row["condition"] == "blur_noise_jpeg" else ".png")
        if row["condition"] not in ("scoring_row", "pile", "edge"):  # they lay their own
            assert 1 <= len(row["cards"]) <= 4
        for card in row["cards"]:
            CardId.from_label(card["label"])
            assert np.array(card["corners"]).shape == (4, 2)
            assert 0.0 <= card["visible_fraction"] <= 1.0
    rot = next(r for r in rows if r["condition"] == "rot180")
    for card in rot["cards"]:
        tl, _, br, _ = np.array(card["corners"])
        assert tl[1] > br[1]  # upside down
    with pytest.raises(SimError):
        make_labelled_set(tmp_path / "bad", 2, conditions=["fog"])


def test_bad_placements_raise():
    with pytest.raises(SimError):
        render_frame([Placement(N(1), (100.0, 100.0), 0.0, 0.0)], Conditions())
    with pytest.raises(SimError):
        render_frame([Placement("number-1", (100.0, 100.0), 0.0, 90.0)], Conditions())
    with pytest.raises(SimError):
        render_frame([], Conditions(), size=(10, 10))
    with pytest.raises(SimError):
        render_frame([], Conditions(), seed=-1)


def test_frames_are_the_same_in_another_process():
    code = ("import hashlib, numpy as np; from vision.sim import *; from vision.cards import *;"
            "img, _ = render_frame(random_scene(np.random.default_rng(4), 3, (320, 200),"
            " width_range=(40, 60)), Conditions(table='wood_dark', tilt_deg=7, glare=1, noise=3,"
            " hands=1), (320, 200), seed=9); print(hashlib.sha256(img.tobytes()).hexdigest())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONHASHSEED": "123"})
    img, _ = render_frame(random_scene(np.random.default_rng(4), 3, (320, 200),
                                       width_range=(40, 60)),
                          Conditions(table="wood_dark", tilt_deg=7, glare=1, noise=3, hands=1),
                          (320, 200), seed=9)
    assert out.stdout.strip() == hashlib.sha256(img.tobytes()).hexdigest()


def test_a_moving_hand_is_smeared():
    from vision.sim.hands import draw_hand

    def partial(blur):
        img = np.full((300, 400, 3), 128.0, np.float32)
        pose = HandPose(entry=(200.0, -100.0), tip=(200.0, 250.0), palm_px=90.0, blur=blur)
        alpha, _ = draw_hand(img, pose, np.random.default_rng(0))
        return float(((alpha > 0.05) & (alpha < 0.95)).mean())

    assert partial((30.0, 0.0)) > 3 * partial((0.0, 0.0))


@pytest.mark.parametrize("seed", range(6))
def test_scoring_row_lays_zeros_across_value_cards(seed):
    placements = scoring_row_scene(np.random.default_rng(seed))
    _, truth = render_frame(placements, Conditions(), seed=seed)
    values = [t for t in truth if t.card.value > 0]
    zeros = [t for t in truth if t.card.value == 0]
    assert 4 <= len(values) <= 9 and 1 <= len(zeros) <= 2
    assert all(t.card.kind == "scoring" for t in truth)
    assert all(z.visible_fraction > 0.99 for z in zeros)  # the zeros lie on top
    half_covered = [t for t in values if 0.35 < t.visible_fraction < 0.65]
    assert len(half_covered) == len(zeros)
    for z in zeros:  # a blue 0 over the value card's blue (top) half, a red 0 over its red half
        under = min(half_covered, key=lambda t: np.hypot(*(np.subtract(t.center, z.center))))
        up = under.corners[0] - under.corners[3]  # BL -> TL: the card's own up
        towards_zero = np.subtract(z.center, under.center)
        assert (np.dot(up, towards_zero) > 0) == (z.card.colour == "blue")
