"""Labelled evaluation sets: frames under named hard conditions plus one truth line per frame.

truth.jsonl, one line per frame:
{"image": "00012_glare.png", "condition": "glare", "size": [w, h], "seed": s, "edition": e,
 "cards": [{"label", "corners", "center", "visible_fraction", "covered_by_hand"}, ...]}
Corners are the face's TL, TR, BR, BL in frame px, in the card's own orientation. `edition` is
the index of the frame's deck in the set's editions (a set may print each frame in one of several
designs: a taught reader is then taught each design and reads that design's frames). A design of
another game's deck (`vision.sim.faces`: Attacke, playing cards) prints that deck's cards, labelled
by their names; its sets have no scoring row (`FOREIGN_CONDITIONS`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.cards import DEFAULT_STYLE, Edition, random_style
from vision.sim.faces import AnyDesign, game_of, printed_deck
from vision.sim.scene import (
    Conditions,
    SimError,
    edge_scene,
    pile_scene,
    random_scene,
    render_frame,
    scoring_row_scene,
)

Size = tuple[int, int]
LABELLED_VERSION = 5
# the surfaces an everyday frame is drawn on (the conditions below name others)
EVERYDAY_TABLES = ("wood_light", "wood_dark", "cloth_green", "cloth_grey", "dark_matte")
# A frame's card width (px at 1280): one deck under one camera, so one size per frame, give or
# take 6 % for the cards nearer the camera or farther out; it differs from frame to frame.
CARD_WIDTHS = (70.0, 160.0)
SIZE_SPREAD = 0.06


def _base(rng: np.random.Generator, tables: Sequence[str], **over: object) -> Conditions:
    """A plausible everyday frame: one of `tables`, a little uneven light and sensor noise."""
    cond = Conditions(table=str(rng.choice(list(tables))),
                      light_gradient=float(rng.uniform(0.0, 0.3)),
                      noise=float(rng.uniform(0.8, 2.5)),
                      colour_cast=float(rng.uniform(-0.2, 0.2)))
    return replace(cond, **over)


# name -> (conditions from an rng, random_scene keyword arguments from an rng)
SceneArgs = dict[str, object]
_CONDITIONS: dict[str, Callable[[np.random.Generator, Sequence[str]],
                                tuple[Conditions, SceneArgs]]] = {
    "clean": lambda r, t: (_base(r, t, light_gradient=float(r.uniform(0, 0.15))), {}),
    "tilt": lambda r, t: (_base(r, t, tilt_deg=float(r.uniform(8, 15))), {}),
    "glare": lambda r, t: (_base(r, t, glare=int(r.integers(1, 4))), {}),
    "rot180": lambda r, t: (_base(r, t), {"angle": 180.0}),
    "hands": lambda r, t: (_base(r, t, hands=int(r.integers(1, 3))), {}),
    "wood_light": lambda r, t: (_base(r, t, table="wood_light",
                                   light_gradient=float(r.uniform(0.4, 0.8)),
                                   shadow=bool(r.random() < 0.5)), {}),
    "overlap": lambda r, t: (_base(r, t), {"overlap": 0.6}),
    "blur_noise_jpeg": lambda r, t: (_base(r, t, motion_blur=int(r.integers(3, 8)),
                                        noise=float(r.uniform(4, 8)),
                                        jpeg_quality=int(r.integers(35, 71))), {}),
    "dark": lambda r, t: (_base(r, t, exposure=float(r.uniform(0.35, 0.55)),
                             noise=float(r.uniform(3, 6)),
                             light_gradient=float(r.uniform(0.3, 0.6)),
                             colour_cast=float(r.uniform(0.3, 0.8))), {}),
    "cloth": lambda r, t: (_base(r, t, table=str(r.choice(["cloth_green", "cloth_grey"])),
                              light_gradient=float(r.uniform(0.2, 0.5))), {}),
    # the scoring row: value cards side by side, a zero lying across half of one of them
    "scoring_row": lambda r, t: (_base(r, t, light_gradient=float(r.uniform(0.0, 0.4))),
                              {"scene": scoring_row_scene}),
    # where a card barely stands out from the table, or its squares are card-sized edges
    "white_cloth": lambda r, t: (_base(r, t, table=str(r.choice(["cloth_white", "cloth_cream"])),
                                    light_gradient=float(r.uniform(0.1, 0.5))), {}),
    "checked_cloth": lambda r, t: (_base(r, t, table="checked",
                                      light_gradient=float(r.uniform(0.1, 0.4))), {}),
    # cards cut by the frame's edge (10-60 % outside), and dense piles
    "edge": lambda r, t: (_base(r, t), {"scene": edge_scene}),
    "pile": lambda r, t: (_base(r, t), {"scene": pile_scene}),
}
HARD_CONDITIONS: tuple[str, ...] = tuple(_CONDITIONS)
# the conditions of the unseen-design evaluation: every hard case the issue names
UNSEEN_CONDITIONS: tuple[str, ...] = (
    "clean", "white_cloth", "checked_cloth", "glare", "hands", "rot180", "scoring_row", "overlap",
    "edge", "pile", "tilt", "blur_noise_jpeg", "dark", "wood_light")
# the same for another game's deck: Tightrope's scoring row is no scene of theirs
FOREIGN_CONDITIONS: tuple[str, ...] = tuple(c for c in UNSEEN_CONDITIONS if c != "scoring_row")


def condition(name: str, rng: np.random.Generator,
              tables: Sequence[str] = EVERYDAY_TABLES) -> tuple[Conditions, SceneArgs]:
    """The Conditions and random_scene arguments of one frame of the named condition (an
    everyday table drawn from `tables`)."""
    if name not in _CONDITIONS:
        raise SimError(f"unknown condition {name!r}; choose from {', '.join(HARD_CONDITIONS)}")
    return _CONDITIONS[name](rng, tables)


def make_labelled_set(out_dir: str | Path, n_frames: int, seed: int = 0,
                      conditions: Sequence[str] = HARD_CONDITIONS, *, size: Size = (1280, 720),
                      cards_per_frame: tuple[int, int] = (5, 10),
                      style: AnyDesign | Sequence[AnyDesign] | None = DEFAULT_STYLE,
                      tables: Sequence[str] = EVERYDAY_TABLES,
                      progress: Callable[[int, int], None] | None = None) -> Path:
    """Render n_frames frames (cycling through `conditions`) and truth.jsonl into out_dir.

    Frames are PNG, or JPEG at the frame's own quality when its condition compresses. `style`:
    the deck's edition; a sequence prints frame i in edition i mod its length (recorded in the
    row); None draws every frame's cards in another random stroke-font edition. `tables`: the
    everyday surfaces. Deterministic for a seed; skipped when out_dir already holds a set made
    from the same inputs.
    """
    names = list(conditions)
    for name in names:
        condition(name, np.random.default_rng(0))  # validates the names before any work
    if n_frames < 0:
        raise SimError(f"n_frames must not be negative, got {n_frames}")
    lo, hi = cards_per_frame
    if not 1 <= lo <= hi:
        raise SimError(f"cards_per_frame must be 1 <= low <= high, got {cards_per_frame}")
    out = Path(out_dir)
    editions = list(style) if isinstance(style, list | tuple) else [style]
    digest = hashlib.sha256(repr((LABELLED_VERSION, n_frames, seed, names, size, cards_per_frame,
                                  editions, list(tables))).encode()).hexdigest()[:20]
    stamp = out / ".labelled"
    if stamp.is_file() and stamp.read_text().strip() == digest:
        return out
    out.mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(n_frames):
        name = names[i % len(names)]
        edition = i % len(editions)
        img, truth, quality, frame_seed = labelled_frame(seed, i, name, size=size,
                                                         cards_per_frame=cards_per_frame,
                                                         style=editions[edition], tables=tables)
        image = f"{i:05d}_{name}.{'jpg' if quality else 'png'}"
        params = [cv2.IMWRITE_JPEG_QUALITY, quality] if quality else []
        cv2.imwrite(str(out / image), img, params)
        lines.append({"image": image, "condition": name, "size": list(size),
                      "seed": frame_seed, "edition": edition,
                      "cards": [t.to_json() for t in truth]})
        if progress is not None:
            progress(i + 1, n_frames)
    with open(out / "truth.jsonl", "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    stamp.write_text(digest + "\n")
    return out


def labelled_frame(seed: int, i: int, name: str, *, size: Size = (1280, 720),
                   cards_per_frame: tuple[int, int] = (5, 10),
                   style: AnyDesign | None = DEFAULT_STYLE,
                   tables: Sequence[str] = EVERYDAY_TABLES
                   ) -> tuple[np.ndarray, list, int | None, int]:
    """Frame i of a labelled set (`make_labelled_set`'s arguments; `name` its condition):
    (image, truth, JPEG quality to save it at or None, the frame's render seed)."""
    lo, hi = cards_per_frame
    rng = np.random.default_rng([seed, i])
    cond, scene_args = condition(name, rng, tables)
    deck: dict[str, object] = {}
    if style is not None and game_of(style) != "tightrope":
        if scene_args.get("scene") is scoring_row_scene:
            raise SimError(f"the {game_of(style)} deck has no scoring row: leave out {name!r}")
        deck = {"cards": printed_deck(style)}  # cards printed in their own design
        style = DEFAULT_STYLE
    frame_style: Edition = style if style is not None else random_style(rng)  # type: ignore
    if "scene" in scene_args:
        placements = scene_args["scene"](rng, size, **deck)  # type: ignore[operator]
    else:
        width = float(rng.uniform(*CARD_WIDTHS)) * size[0] / 1280
        spread = (width * (1 - SIZE_SPREAD), width * (1 + SIZE_SPREAD))
        placements = random_scene(rng, int(rng.integers(lo, hi + 1)), size,
                                  width_range=spread, **scene_args, **deck)  # type: ignore
    frame_seed = (seed * 1_000_003 + i) % (1 << 31)
    img, truth = render_frame(placements, replace(cond, jpeg_quality=None), size,
                              seed=frame_seed, style=frame_style)
    return img, truth, cond.jpeg_quality, frame_seed


def load_labelled_set(path: str | Path) -> list[dict]:
    """The truth lines of a labelled set (images resolved against its folder)."""
    folder = Path(path)
    try:
        text = (folder / "truth.jsonl").read_text(encoding="utf-8")
    except OSError as exc:
        raise SimError(f"{folder}: no readable truth.jsonl ({exc.strerror or exc})") from exc
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SimError(f"{folder}/truth.jsonl line {n}: not JSON") from exc
        row["path"] = str(folder / row["image"])
        rows.append(row)
    return rows
