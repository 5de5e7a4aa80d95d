"""The reader's names for a card, for the games whose cards it names by plain strings (Attacke's
"red-3", the solo game's "QH"), and what the rules make of an unsure read: the one place that
reads a `Reading` for them. (Tightrope names its cards by `CardId`, read in its interpreter.)

Pure code: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable

from vision.types import Reading

from .base import certain_by_rules


def candidates(reading: Reading | None) -> list[tuple[str, float]]:
    """The reader's candidate names for the card and their probabilities, best first."""
    return list(reading.named) if reading is not None else []


def sure_name(reading: Reading | None) -> str | None:
    """The name the reader is sure of (above its own line), or None."""
    return reading.label if reading is not None else None


def probability(reading: Reading | None, name: str) -> float:
    """The reader's probability of `name` (0 where it is no candidate)."""
    return max((p for n, p in candidates(reading) if n == name), default=0.0)


def certain_name(reading: Reading | None, legal: Callable[[str], bool]) -> str | None:
    """The name a card certainly has, or None. A sure read the rules allow is certain; one they
    refuse is not (it is asked about). An unsure read is certain where the rules lift its best
    legal candidate (`certain_by_rules`)."""
    sure = sure_name(reading)
    if sure is not None:
        return sure if legal(sure) else None
    cands = candidates(reading)
    ranked = sorted(((n, p) for n, p in cands if legal(n)), key=lambda x: -x[1])
    if reading is None or not ranked:
        return None
    ruled_out = sum(p for n, p in cands if not legal(n))
    rival = ranked[1][1] if len(ranked) > 1 else 0.0
    return ranked[0][0] if certain_by_rules(ranked[0][1], rival, ruled_out, reading.line) else None
