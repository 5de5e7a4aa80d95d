"""The stabilizer: turn a stream of frames into committed card observations and removals.

Each frame is first compared with the previous one at 160 px wide (grey): where nothing moved and
no card is waiting to become stable, `feed` returns at once (the cheap path). Otherwise the cards
are detected against the learned empty table, matched to the cards seen before by position, and
re-read only where something moved. A card is committed ("appeared") once the same reading held
for `stable_s` seconds of frames with no motion over it; a committed card is "removed" once its
place has shown bare table for as long. A still hand over a card is foreground that is not the
card, so the card is neither re-committed nor removed while it is covered. At most `max_reads`
crops are read in one frame (a time budget: more new cards wait one frame). One physical card
gives one track: a second read of the same card nearby, or an unsure read over a known card, is
dropped. The empty table is given, or learned from the first frame (cards already lying there
are painted over with the frame's own table estimate).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import cv2
import numpy as np

from vision.detect import Detector, check_frame, find_cards
from vision.read import Reader, Reading
from vision.zones import Zones, as_zones

TINY_W = 160
# An unsure read is often one bad glimpse (a quad found as a hand left, a glare flicker): a
# still card read `unknown` is detected and read afresh on this many frames before the unsure
# read is all there is. A lasting unknown object then costs nothing more.
MAX_REREADS = 10
# A committed card is read as another only on a reading at least this sure (and surer than
# the one committed): more evidence is needed to overturn a card than to see one.
OVERTURN = 0.99


@dataclass(frozen=True)
class Observation:
    reading: Reading
    quad: np.ndarray
    center: tuple[float, float]
    zone: int | str | None
    stable_frames: int
    track: int = -1  # the physical card: the same number while it lies there, read again or not


@dataclass(frozen=True)
class Change:
    kind: Literal["appeared", "removed"]
    observation: Observation
    frame_index: int


@dataclass(eq=False)  # identity: tracks are removed from a list by `is`
class _Track:
    quad: np.ndarray
    center: tuple[float, float]
    reading: Reading
    id: int = -1
    count: int = 1
    missing: int = 0
    covered: bool = False
    covered_for: int = 0
    rereads: int = 0  # fresh reads of a still card that was read `unknown`
    committed: Observation | None = None
    seen: bool = field(default=True, repr=False)


def _key(r: Reading) -> tuple:
    return (r.kind, r.value, r.colour)


def learn_background(frame: np.ndarray) -> np.ndarray:
    """Empty-table image from a first frame: any card already lying there (a restart in the
    middle of a game) is painted over with the table around it, so it is still detected later.
    The table seen since replaces the paint (`Detector.absorb`)."""
    frame = check_frame(frame)
    quads = find_cards(frame)
    if not quads:
        return frame.copy()
    mask = np.zeros(frame.shape[:2], np.uint8)
    for q in quads:
        cv2.fillConvexPoly(mask, np.rint(q).astype(np.int32), 255)
    mask = cv2.dilate(mask, np.ones((7, 7), np.uint8))  # the card's rim and soft shadow too
    # inpaint at the work size: the surrounding table's own colour, fast enough for a start
    small, s = Detector.work_size(frame)
    small_mask = cv2.resize(mask, (small.shape[1], small.shape[0]),
                            interpolation=cv2.INTER_NEAREST)
    table = cv2.inpaint(small, small_mask, 5, cv2.INPAINT_TELEA)
    if s < 1.0:
        table = cv2.resize(table, (frame.shape[1], frame.shape[0]),
                           interpolation=cv2.INTER_LINEAR)
    bg = frame.copy()
    bg[mask > 0] = table[mask > 0]
    return bg


class TableWatcher:
    """Frames in (`feed`), committed table changes out; `cards()` is what lies there now."""

    def __init__(self, zones: Zones | dict | str | None, reader: Reader, fps: float = 10.0,
                 stable_s: float = 0.3, background: np.ndarray | None = None,
                 max_reads: int = 6) -> None:
        self.zones = as_zones(zones)
        self.reader = reader
        self.need = max(2, math.ceil(stable_s * fps))
        self.max_reads = max(1, max_reads)  # crops read per frame at most (time budget)
        self.detector = Detector(background) if background is not None else None
        self.frame_index = -1
        self._prev: np.ndarray | None = None
        self._scale = 1.0
        self._tracks: list[_Track] = []
        self._track_ids = 0
        self._busy = False
        self._noise = 3.0
        self._last_full_ok = False
        self._waiting: list[np.ndarray] = []  # quads of new cards not read yet
        self._absorbed_at = 0  # frame index of the last background update
        self._absorb_every = max(2, round(fps))
        self.stats = {"still": 0, "full": 0, "reads": 0}  # frames by path, crops read

    # --- public -------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """A hand or other motion is over the table in the last frame."""
        return self._busy

    def cards(self) -> list[Observation]:
        return [t.committed for t in self._tracks if t.committed is not None]

    def feed(self, frame: np.ndarray) -> list[Change]:
        """Changes committed by this frame (cheap when nothing moved since the last one)."""
        frame = check_frame(frame)
        self.frame_index += 1
        small = Detector.work_size(frame)  # made once: for the motion check and the detector
        tiny = self._tiny(small[0], frame.shape[1])
        if self.detector is None:
            self.detector = Detector(learn_background(frame))
        motion = self._motion(tiny)
        self._busy = bool(motion.any())
        if not self._busy and self._waiting and not any(t.missing for t in self._tracks):
            self.stats["still"] += 1
            return self._read_waiting(frame, small)  # new cards, now still: read them
        if not self._busy and self._prev_settled():
            self.stats["still"] += 1
            if self.frame_index - self._absorbed_at >= self._absorb_every:
                self._absorbed_at = self.frame_index  # the table as seen now, once a second
                # a track read as no card may be a phantom of the old table: absorbed if it
                # looks like the table now (a real card never does)
                known = [t.quad for t in self._tracks if t.reading.kind != "unknown"]
                self.detector.absorb(small[0], small[1], known + self._waiting)
            return self._tick_still()
        self.stats["full"] += 1
        return self._full(frame, motion, small)

    # --- internals ----------------------------------------------------------------------------
    def _tiny(self, small: np.ndarray, frame_w: int) -> np.ndarray:
        h, w = small.shape[:2]
        self._scale = TINY_W / frame_w
        tiny = cv2.resize(small, (TINY_W, max(1, round(h * TINY_W / w))),
                          interpolation=cv2.INTER_AREA)
        return cv2.cvtColor(tiny, cv2.COLOR_BGR2GRAY)

    def _motion(self, tiny: np.ndarray) -> np.ndarray:
        prev, self._prev = self._prev, tiny
        if prev is None or prev.shape != tiny.shape:
            return np.zeros(tiny.shape, bool)
        diff = cv2.absdiff(tiny, prev)
        # sensor noise level, tracked slowly: what a still frame differs by
        self._noise = 0.95 * self._noise + 0.05 * min(float(cv2.mean(diff)[0]) + 1.0, 20.0)
        return diff > max(8.0, 4.0 * self._noise)

    def _prev_settled(self) -> bool:
        """Still frames need no detection when the last full pass had no missing track and no
        unsure card waits for a fresh read."""
        return (self._last_full_ok
                and not any(t.missing or self._reread(t) for t in self._tracks))

    @staticmethod
    def _reread(t: _Track) -> bool:
        return t.reading.kind == "unknown" and t.rereads < MAX_REREADS and not t.covered

    def _read_waiting(self, frame: np.ndarray, work: tuple[np.ndarray, float]) -> list[Change]:
        """A still frame with new cards found before (under moving hands, or over the frame's
        read budget): read them at the quads found then (nothing moved since), tick the rest."""
        small, s = work
        assert self.detector is not None  # new cards wait only after a full pass
        batch, self._waiting = self._waiting[: self.max_reads], self._waiting[self.max_reads :]
        readings = self._read(frame, small, s, batch)
        self.stats["reads"] += len(batch)
        changes = self._tick_still()
        before = set(map(id, self._tracks))
        order = sorted(range(len(batch)), key=lambda i: -readings[i][0].confidence)
        for i in order:
            reading, turns = readings[i]
            q = np.roll(batch[i], -turns, axis=0)
            if not self._duplicate(q, reading):
                self._update(q, None, reading, False)
        for t in self._tracks:
            if id(t) not in before:
                t.seen = True
                changes.extend(self._maybe_commit(t))
        return changes

    def _read(self, frame: np.ndarray, small: np.ndarray, s: float, quads: list[np.ndarray]
              ) -> list[tuple[Reading, int]]:
        assert self.detector is not None
        return self.reader.read_quads(frame, small, s, quads, self.detector.covers(quads))

    def _tick_still(self) -> list[Change]:
        changes: list[Change] = []
        for t in self._tracks:
            if not t.covered:
                t.count += 1
                changes.extend(self._maybe_commit(t))
        return changes

    def _moved_over(self, quad: np.ndarray, motion: np.ndarray) -> bool:
        if not motion.any():
            return False
        x, y, w, h = cv2.boundingRect((quad * self._scale).astype(np.int32))
        y0, x0 = max(0, y - 1), max(0, x - 1)
        return bool(motion[y0 : y + h + 2, x0 : x + w + 2].any())

    def _full(self, frame: np.ndarray, motion: np.ndarray, work: tuple[np.ndarray, float]
              ) -> list[Change]:
        assert self.detector is not None
        mask, s, small = self.detector.mask(frame, work)
        quads = self.detector.find_in(mask, s, small)
        for t in self._tracks:
            t.seen = False
        to_read: list[tuple[bool, np.ndarray, _Track | None]] = []
        self._waiting = []
        for q in quads:
            track = self._match(q)
            moved = self._moved_over(q, motion)
            if track is not None and not moved and not track.seen and not track.covered:
                if not self._reread(track):
                    track.seen, track.quad = True, q
                    track.count += 1
                    continue
                track.rereads += 1
            if moved and track is None:
                self._waiting.append(q)  # a new card under moving hands: read once still
                continue
            to_read.append((moved, q, track))
        # frame budget: still crops first; the rest wait for the next frame (a full pass again)
        to_read.sort(key=lambda r: r[0])
        deferred = to_read[self.max_reads:]
        to_read = to_read[: self.max_reads]
        for _, q, track in deferred:
            if track is None:
                self._waiting.append(q)
            elif not track.seen:
                track.seen = True  # still there, just not re-read this frame
        readings = self._read(frame, small, s, [q for _, q, _ in to_read])
        self.stats["reads"] += len(to_read)
        order = sorted(range(len(to_read)), key=lambda i: -readings[i][0].confidence)
        for i in order:  # surest first: a weaker duplicate of a card already placed is dropped
            (_, q, track), (reading, turns) = to_read[i], readings[i]
            q = np.roll(q, -turns, axis=0)  # corners in the face's own orientation
            if not self._duplicate(q, reading):
                self._update(q, track, reading, self._moved_over(q, motion))
        changes: list[Change] = []
        for t in list(self._tracks):
            if not t.seen:
                changes.extend(self._unseen(t, mask, s))
            else:
                t.missing, t.covered, t.covered_for = 0, False, 0
                changes.extend(self._maybe_commit(t))
        self._last_full_ok = not deferred and not any(t.missing for t in self._tracks)
        return changes

    def _match(self, q: np.ndarray) -> _Track | None:
        c = q.mean(axis=0)
        size = float(np.linalg.norm(q[1] - q[0]))
        best, best_d = None, 0.35 * size
        for t in self._tracks:
            d = math.hypot(t.center[0] - c[0], t.center[1] - c[1])
            if d < best_d:
                best, best_d = t, d
        return best

    def _update(self, q: np.ndarray, track: _Track | None, reading: Reading, moved: bool) -> None:
        center = (float(q[:, 0].mean()), float(q[:, 1].mean()))
        if track is None or track.seen:
            track = self._adopt(q, center, reading)
        elif track.committed is None:
            # a glimpse not yet committed (a box under a hand) that now reads as the card
            # committed beside it, whose own box came out shifted meanwhile: one card, that one
            card = self._adopt(q, center, reading)
            if card is not None and card.committed is not None:
                self._tracks.remove(track)
                track = card
        if track is None:
            self._track_ids += 1
            self._tracks.append(_Track(q, center, reading, self._track_ids,
                                       count=0 if moved else 1))
            return
        track.seen = True
        known = track.committed.reading if track.committed is not None else None
        if known is not None and known.kind != "unknown" and _key(reading) != _key(known) and (
                reading.confidence < max(known.confidence, OVERTURN)):
            # an unsure or no surer glimpse of a card known to lie here (a hand's shadow, a zero
            # laid across it) is that card; a card really swapped in place reads as sure
            reading = known
        same = _key(track.reading) == _key(reading)
        track.quad, track.center = q, center
        if same and not moved:
            track.count += 1
            if reading.confidence > track.reading.confidence:
                track.reading = reading
        else:
            track.reading, track.count = reading, 0 if moved else 1

    def _duplicate(self, q: np.ndarray, reading: Reading) -> bool:
        """The same card already seen this frame within a card's size: one physical card."""
        c = q.mean(axis=0)
        size = float(np.linalg.norm(q[1] - q[0]))
        if reading.kind == "unknown":  # an unsure box over a card read this frame, or one
            best = reading.candidates[0][0] if reading.candidates else None  # unsure of it
            for t in self._tracks:
                if t.reading.kind == "unknown":
                    continue
                d = math.hypot(t.center[0] - c[0], t.center[1] - c[1])
                if (t.seen and d < 0.7 * size) or (
                        (t.seen or t.committed is not None) and t.reading.card == best
                        and d < 1.2 * size):
                    return True
            return False
        return any(t.seen and _key(t.reading) == _key(reading)
                   and math.hypot(t.center[0] - c[0], t.center[1] - c[1]) < 1.2 * size
                   for t in self._tracks)

    def _adopt(self, q: np.ndarray, center: tuple[float, float], reading: Reading
               ) -> _Track | None:
        """An unmatched detection that reads like a nearby track not seen this frame is that
        card (its quad came out shifted, e.g. a zero decomposed differently): keep one track."""
        if reading.kind == "unknown":
            return None
        size = float(np.linalg.norm(q[1] - q[0]))
        for t in self._tracks:
            if (not t.seen and _key(t.reading) == _key(reading)
                    and math.hypot(t.center[0] - center[0], t.center[1] - center[1]) < size):
                return t
        return None

    def _need_for(self, t: _Track) -> int:
        if t.reading.kind != "unknown":
            return self.need
        # an unsure card is committed (the referee asks); what is likely no card at all is not
        p_card = sum(p for _, p in t.reading.candidates)
        return self.need * 2 if p_card >= 0.5 else 1 << 30

    def _maybe_commit(self, t: _Track) -> list[Change]:
        if t.count < self._need_for(t):
            return []
        prev = t.committed
        if prev is not None and _key(prev.reading) == _key(t.reading):
            return []
        obs = Observation(t.reading, t.quad, t.center, self._zone(t.center), t.count, t.id)
        out = []
        if prev is not None:
            out.append(Change("removed", prev, self.frame_index))
        t.committed = obs
        out.append(Change("appeared", obs, self.frame_index))
        return out

    def _unseen(self, t: _Track, mask: np.ndarray, s: float) -> list[Change]:
        """A track not detected now: covered (foreground over it) or gone (bare table)."""
        poly = (t.quad * s).astype(np.int32)
        x, y, w, h = cv2.boundingRect(poly)
        region = mask[max(0, y) : y + h, max(0, x) : x + w]
        covered = region.size > 0 and float(np.count_nonzero(region)) / region.size > 0.3
        if covered:
            t.missing, t.covered = 0, True
            t.count = 0  # not stable while something is over it
            t.covered_for += 1
            if t.committed is None and t.covered_for > 3 * self.need:
                self._tracks.remove(t)  # a passing glimpse (a hand's edge) never confirmed
            return []
        t.covered = False
        t.missing += 1
        if t.missing < self.need:
            return []
        self._tracks.remove(t)
        if t.committed is None:
            return []
        return [Change("removed", t.committed, self.frame_index)]

    def _zone(self, center: tuple[float, float]) -> int | str | None:
        return self.zones.zone_of(center) if self.zones is not None else None
