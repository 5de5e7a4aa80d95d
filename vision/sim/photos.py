"""Teach folders of rendered photos, for any deck: one photo of each card lying on a table.

A teach folder holds one photo per card of the deck, named by the card. Tightrope's photos are
named by the card's label, `number-17.png` (docs/teach.md, what `vision.teach` reads); the other
decks' photos are `card-<name>.png` (`card-QH.png`, `card-joker.png`, `card-red-7.png`,
`card-back.png`), the names the solo game's issue gives its teach folder.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.sim.faces import DECKS, AnyDesign, Printed, game_of
from vision.sim.scene import Conditions, Placement, render_frame


def teach_file(game: str, name: str) -> str:
    """The file name of the photo of card `name` in a teach folder of `game`'s deck."""
    return f"{name}.png" if game == "tightrope" else f"card-{name}.png"


def teach_folder(folder: Path, design: AnyDesign, seed: int = 3,
                 size: tuple[int, int] = (1280, 720), table: str = "wood_light") -> Path:
    """One rendered photo per card of the design's deck lying on a table (what a user would
    shoot: the card large, near the middle, at some angle), named by `teach_file`. A Tightrope
    card lies now and then upside down (teach turns it upright with the general reader); another
    game's card the right way up, as docs/teach.md asks (nothing else knows its top).
    Photos already there are kept. Returns `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    game = game_of(design)
    for i, name in enumerate(DECKS[game]):
        path = folder / teach_file(game, name)
        turned = rng.random() < 0.3 and game == "tightrope"
        angle = float(rng.uniform(-25, 25) + (180 if turned else 0))
        width = float(rng.uniform(220, 320)) * size[0] / 1280
        placement = [Placement(Printed(name, design), (size[0] / 2, size[1] / 2), angle, width)]
        if path.exists():
            continue
        frame, _ = render_frame(placement, Conditions(table=table, light_gradient=0.2,
                                                      noise=1.5), size=size, seed=seed + i)
        cv2.imwrite(str(path), frame)
    return folder
