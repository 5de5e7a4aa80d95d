"""Measure the card reader on labelled frames: what `recognize` reads against the truth.

Every card at least READABLE in view (not under a hand, inside the picture by at least that
much) must be read. Per card: *correct*, *wrong* (read as another card, sure), *abstained* (found,
`unknown`) or *missed* (not found). A sure read where no card needs reading is *spurious* (a
phantom). Sets whose frames are printed in several editions are read taught per edition: each
edition's deck is taught from rendered photos of it, as a user would photograph their deck.
Cards are compared by name (`Reading.label`), so a set of another game's deck (Attacke, playing
cards) is scored the same way, read by a deck taught its names.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.detect import Detector
from vision.read import Reader
from vision.recognize import Seen, look_at
from vision.types import CardId, CardLabelError

if TYPE_CHECKING:
    from vision.sim.faces import AnyDesign

READABLE = 0.45   # a truth card at least this visible (and not under a hand) must be read
MATCH = 0.35      # a read within this many card widths of a truth card's centre is of that card
KEYS = ("cards", "correct", "wrong", "abstained", "missed", "spurious")


@dataclass(frozen=True)
class CardName:
    """A card of another game's deck, known by its name (a truth row's label)."""

    label: str


@dataclass(frozen=True)
class Truth:
    card: CardId | CardName
    corners: np.ndarray
    center: tuple[float, float]
    visible: float
    under_hand: bool

    @property
    def width(self) -> float:
        return float(np.hypot(*(self.corners[1] - self.corners[0])))


def card_of(label: str) -> CardId | CardName:
    """The truth card a label names: a Tightrope card, or another deck's card by name."""
    try:
        return CardId.from_label(label)
    except CardLabelError:
        return CardName(label)


def truth_of(row: dict) -> list[Truth]:
    return [Truth(card_of(c["label"]), np.asarray(c["corners"], np.float32),
                  (float(c["center"][0]), float(c["center"][1])), float(c["visible_fraction"]),
                  bool(c["covered_by_hand"])) for c in row["cards"]]


@dataclass
class Tally:
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KEYS, 0))
    wrong: list[tuple[str, str]] = field(default_factory=list)  # (truth, read) of wrong reads

    def add(self, other: Tally) -> None:
        for k in KEYS:
            self.counts[k] += other.counts[k]
        self.wrong += other.wrong

    @property
    def right(self) -> float:
        return self.counts["correct"] / max(1, self.counts["cards"])


def score_frame(seen: list[Seen], truth: list[Truth], frame_size: tuple[int, int]) -> Tally:
    """Reads matched to the truth cards: nearest centres within MATCH of a card's width."""
    w, h = frame_size
    must = [t for t in truth if t.visible >= READABLE and not t.under_hand]
    width = float(np.median([t.width for t in truth])) if truth else 80.0
    pairs = sorted((float(np.hypot(s.center[0] - t.center[0], s.center[1] - t.center[1])), i, j)
                   for i, s in enumerate(seen) for j, t in enumerate(must))
    used_s, used_t, match = set(), set(), {}
    for d, i, j in pairs:
        if d <= MATCH * width and i not in used_s and j not in used_t:
            match[i] = j
            used_s.add(i)
            used_t.add(j)
    tally = Tally()
    c = tally.counts
    c["cards"] = len(must)
    for i, s in enumerate(seen):
        label = s.reading.label
        if i not in match:
            near = any(np.hypot(s.center[0] - t.center[0], s.center[1] - t.center[1])
                       < MATCH * width for t in truth)
            if label is not None and not near:
                c["spurious"] += 1
            continue
        if label is None:
            c["abstained"] += 1
        elif label == must[match[i]].card.label:
            c["correct"] += 1
        else:
            c["wrong"] += 1
            tally.wrong.append((must[match[i]].card.label, label))
    c["missed"] = len(must) - len(match)
    return tally


@dataclass
class Result:
    by_condition: dict[str, Tally]
    ms_per_frame: float

    @property
    def total(self) -> Tally:
        out = Tally()
        for t in self.by_condition.values():
            out.add(t)
        return out


def evaluate(rows: Sequence[dict], readers: Callable[[int], Reader],
             detector: Detector | None = None,
             progress: Callable[[int, int], None] | None = None) -> Result:
    """Read every frame of a labelled set (`readers(edition)` gives the reader of a frame's
    edition) and tally by condition."""
    detector = detector or Detector()
    table: dict[str, Tally] = {}
    spent = 0.0
    for k, row in enumerate(rows):
        frame = cv2.imread(row["path"], cv2.IMREAD_COLOR)
        if frame is None:
            raise ValueError(f"{row['path']}: cannot read the frame")
        reader = readers(int(row.get("edition", 0)))
        began = time.perf_counter()
        seen = look_at(frame, reader, detector)
        spent += time.perf_counter() - began
        tally = score_frame(seen, truth_of(row), (frame.shape[1], frame.shape[0]))
        table.setdefault(row["condition"], Tally()).add(tally)
        if progress is not None:
            progress(k + 1, len(rows))
    return Result(table, 1000.0 * spent / max(1, len(rows)))


def teach_photos(folder: Path, edition: AnyDesign, seed: int = 3,
                 size: tuple[int, int] = (1280, 720), table: str = "wood_light") -> Path:
    """One rendered photo per card of `edition` (any deck's design) lying on a table (what a user
    would shoot: the card large, near the middle, at some angle; vision.sim.photos)."""
    from vision.sim.photos import teach_folder

    return teach_folder(folder, edition, seed, size, table)


def table_text(result: Result, label: str) -> str:
    """The result as a text table (one line per condition, then the total)."""
    lines = [f"reader: {label}; find + read {result.ms_per_frame:.1f} ms a frame",
             f"{'condition':<18}" + "".join(f"{k:>10}" for k in KEYS) + f"{'right %':>9}"]
    for name, t in [*result.by_condition.items(), ("TOTAL", result.total)]:
        lines.append(f"{name:<18}" + "".join(f"{t.counts[k]:>10}" for k in KEYS)
                     + f"{100 * t.right:>9.2f}")
    return "\n".join(lines)


def as_json(result: Result, label: str) -> dict:
    return {"reader": label, "ms_per_frame": round(result.ms_per_frame, 2),
            "conditions": {k: t.counts for k, t in result.by_condition.items()},
            "total": result.total.counts, "wrong": result.total.wrong}
