"""Fixtures and helpers shared by the test files."""

from __future__ import annotations

from typing import Any

import numpy as np

from companion.commands import Seen
from vision.types import CardId, Change, Observation, Reading


def ask_about_a_card(referee: Any, seat: int, *candidates: tuple[str, float], t: float = 1.0,
                     track: int = 9001) -> None:
    """The camera saw `seat`'s card and is unsure of it (reader candidates (label, p)): the
    referee's interpreter asks which card it is, as at the table."""
    cands = tuple((CardId.from_label(label), p) for label, p in candidates)
    reading = Reading.of(None, cands[0][1], cands, 0.9)
    quad = np.float32([[10, 10], [50, 10], [50, 70], [10, 70]])
    obs = Observation(reading, quad, (30.0, 40.0), seat, 3, track)
    frame = np.full((120, 160, 3), 90, np.uint8)
    referee.call(Seen((Change("appeared", obs, 0),), t, frame))
