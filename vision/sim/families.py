"""Layout families: the choices a random design makes, and the ones kept out of training.

Each kind of layout choice (where the indices sit, the border, the picture, ...) is a tuple of
families whose last one is held out: no design of the training split uses it, so the unseen-design
figures measure layouts the models never saw, not only typefaces. Every deck's designs
(`designs`, `attacke`, `playing`) draw their families here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Literal, TypeVar

import numpy as np

from vision.sim.fonts import Split

Layouts = Literal["train", "held_out", "any"]
D = TypeVar("D")


def layouts_for(split: Split, layouts: Layouts | None) -> Layouts:
    """The families a split draws by default: held-out ones for the test split, else none."""
    return layouts or ("held_out" if split == "test" else "train")


def pick_family(rng: np.random.Generator, options: tuple[str, ...],
           weights: tuple[float, ...] | None, layouts: Layouts) -> str:
    """One family of `options` (weighted); the held-out last one only where `layouts` allows."""
    if layouts == "train":
        options = options[:-1]
        weights = weights[:-1] if weights else None
    w = np.array(weights if weights else [1.0] * len(options), float)
    return str(options[int(rng.choice(len(options), p=w / w.sum()))])


def uses_held_out(design: object, held_out: Mapping[str, object]) -> bool:
    """Whether the design uses any family kept out of training."""
    return any(getattr(design, k) == v for k, v in held_out.items())


def with_held_out(design: D, held_out: Mapping[str, object], rng: np.random.Generator,
                  layouts: Layouts) -> D:
    """For "held_out" layouts: the design with at least one family never trained on."""
    if layouts != "held_out" or uses_held_out(design, held_out):
        return design
    key = str(rng.choice(sorted(held_out)))
    return replace(design, **{key: held_out[key]})  # type: ignore[type-var]
