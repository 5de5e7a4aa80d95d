"""The live watcher: frames in, committed card observations and removals out.

A frame flows one way: motion -> find -> match -> read -> decide.

- motion: the frame is compared with the last one at 160 px wide. Where nothing moved and no card
  waits to be read or confirmed, `feed` returns at once (the cheap path, most frames of a game);
- find: the learned detector (vision.detect) boxes every card; it needs no picture of the empty
  table, so a restart with cards, or a hand, on the table sees them as they are;
- match: each box is matched to the card tracked at its place; the card keeps the box most like
  its own among the box, those beside its peak and the cards it may be half of, or its own box
  where none is like it (a peak smeared between two overlapping cards: that box is then also
  looked at as a new one); a card no hand passed over takes no box but its own found again
  (it cannot have moved); a box found before to hold a fan stands for the fan's cards;
- read: new cards, cards about to be committed (a second read) and unsure cards are read at full
  resolution (vision.read), at most `max_reads` crops a frame (the rest wait a frame); a card a
  hand moves over is not read until it lies still; a new box read as no card is looked at again
  as the boxes beside its peak and the cards it may be half of (`recognize.look_beside`), and,
  larger than a card, as a fan or pile the detector boxed as one: card-sized windows over it
  (`recognize.look_within`), remembered until something moves over it; a box smeared over
  cards known, read unsure, as a row boxed as one, whose last card lies at one end of it or
  where the table changed under the last hand (`recognize.at_a_rows_end`); a new box read unsure
  across a card known, as the place that changed, read surely (`recognize.at_a_change`: the
  detector boxed the card laid and the one beneath as one); a new box under half a card read
  unsure, as the card it is half of (`recognize.whole_of_a_part`); a new box far smaller than a
  card, read unsure, is a speck of the cloth; a card whose box now reads as no card (boxed with
  a card laid half over it) lies there still, unread, and that box is looked at for the new card
  (unless its place looks bare again: it was taken away); as a hand leaves, a place it changed
  (its pieces a pixel apart taken together too) that no box covers is read in a card-sized
  window, and a card read there, surely or unsure but half sure or more (to be asked about), keeps
  that window as its box (`_laid_unboxed`);
- decide: a card is committed ("appeared") once it held still for `stable_s` with one reading and
  a second read, at the end, agreed; it is "removed" once its place showed something else for as
  long. A card not yet committed whose box comes and goes (read unsure at a fan's end) waits
  ARM_WAIT times as long for it while its place looks as when it was read. A card under a
  moving hand is covered, neither committed nor removed; a card the detector
  misses in a still frame but whose place still looks as it did stays (once a hand passed over
  it, its place must also read as some card: a glare makes a bare place look alike), and so
  does one whose place now shows another card the detector does not box (cards fanned or heaped
  over it, face down): a card is taken away when its place shows no card, or looks as it did
  before the hand that laid the card came (a busy cloth reads as a little of many cards to a
  reader never taught the deck; looks are compared where no glare washed them out: a glare
  lying still over a place makes card and bare cloth alike); a place that shows neither, while
  a hand works elsewhere (an arm resting across it), waits ARM_WAIT times as long. A card read
  surely stays that card when read unsure later (a shadow, a card laid across half of it), unless a
  hand passed over it and its place now looks unlike it, read as next to nothing of it: another
  card was laid where it was taken away, under the same hand (a "removed", then the new card;
  read surely so, an unsure read naming it first does not bring the old card back);
  where the detector's own box of what was read lies off the card's place, it is a card laid
  over it, and the card beneath stays.
  The table as last seen bare is kept (at half size) for that: each still spell before a hand
  renews it everywhere but under the cards then known, so the place of a card laid half over
  another is the cloth beneath both.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

import cv2
import numpy as np

from vision.detect import Detection, Detector, check_frame
from vision.geometry import Box, box_of_quad, card_width, covered, iou, rectify, turned
from vision.glare import glared
from vision.read import Look, Reader, unsure
from vision.recognize import (
    LARGER,
    NOT_A_CARD,
    SAME_BOX,
    a_speck,
    a_zero,
    across_a_pile,
    apart,
    at_a_change,
    at_a_rows_end,
    card_size,
    distinct,
    half_a_card,
    half_of_a_known_card,
    in_frame,
    look_beside,
    look_within,
    lying,
    near_twins,
    part_of_a_card,
    shrunk,
    whole_of_a_part,
    whole_of_half,
    zero_of_its_half,
)
from vision.types import GUESSES, Change, Observation, Reading
from vision.zones import Zone, Zones, as_zones

TINY_W = 160
MATCH = 0.45        # a box within this many card widths of a track is that card
MAX_REREADS = 10    # fresh reads of a still card read `unknown` before that is all there is
SAME_LOOK = 0.75    # a track's place still looks like it (normalised correlation of thumbnails)
SAME_CHROMA = 0.04  # ... and its mean colour (chromaticity) is within this of the card's
SEEN = 0.3          # ... each over the pixels no glare washed out, where this share is left
LAID_OVER = 0.2     # a sure read of another card this many card widths off a track's place
UNDER = 0.3         # a card this much under cards laid later lies there still, unseen
GONE_BY = 0.01      # an unsure read giving a card known to lie there less is no read of it
CHANGED = 0.3       # a fan's window over a place this much changed since the table lay still
CHANGED_AREA = 0.5  # a change a card laid now makes covers this much of a card at least
UNBOXED = 0.35      # ... and a card the detector did not box, this much outside every box
JOIN = 0.125        # changed pieces this near (of a card's short side) may be one card's
BARE_SCALE = 0.5    # the bare table is kept at half size: a card's thumbnail needs no more
ARM_WAIT = 10       # a card's place covered while a hand works elsewhere: times as long to go
BARE_OF_CARDS = 0.05  # a window where a hand left, read unsure, with no more "no card" ...
HALF_SURE = 0.5     # ... and its first guess this likely: a card (a busy cloth reads 0.2-0.3)
# Before any card was measured, a change whose outline it fills this much, its long side this
# many times its short one (any deck: poker 1.40, bridge 1.56, tarot 1.71) and that side this
# many of the motion's pixels at least (a 32nd of the frame's width), is a card's size.
OUTLINE_FILLED, CARD_SHAPE, OUTLINE_LEAST = 0.6, (1.3, 1.8), 5


def _key(r: Reading) -> str | None:
    """What a reading says the card is, in any deck: its name, None where unsure."""
    return r.label


@dataclass(eq=False)  # identity: tracks are removed from a list by `is`
class _Track:
    id: int
    det: Detection
    look: Look
    count: int = 0                 # frames held still with this reading
    missing: int = 0               # still frames its place showed something else
    rereads: int = 0
    confirmed: bool = False        # a second read agreed since the reading last changed
    disturbed: bool = False        # something moved over it since it was last read
    committed: Observation | None = None
    across: bool = False           # its box lies across a pile of other cards: no card
    thumb: _Thumb | None = field(default=None, repr=False)  # its place when committed
    read_as: _Thumb | None = field(default=None, repr=False)  # ... when last read, before that
    bare: _Bare | None = field(default=None, repr=False)  # its place before it was laid

    @property
    def reading(self) -> Reading:
        return self.look.reading

    @property
    def quad(self) -> np.ndarray:
        return turned(self.det.quad, self.look.turns)

    @property
    def center(self) -> tuple[float, float]:
        return self.det.box.centre


class TableWatcher:
    """Frames in (`feed`), committed table changes out; `cards()` is what lies there now."""

    def __init__(self, zones: Zones | dict | str | None, reader: Reader, fps: float = 10.0,
                 stable_s: float = 0.3, max_reads: int = 8,
                 detector: Detector | None = None) -> None:
        self.zones = as_zones(zones)
        self.reader = reader
        self.detector = detector or Detector()
        self.need = max(2, math.ceil(stable_s * fps))
        self.max_reads = max(1, max_reads)
        self.frame_index = -1
        self._prev: np.ndarray | None = None
        self._before: np.ndarray | None = None  # the last frame the table lay still in (tiny)
        self._still: np.ndarray | None = None   # ... and in full
        self._table: np.ndarray | None = None   # the table before the hand now over it, in full
        self._table_tiny: np.ndarray | None = None  # ... and at the motion's scale
        self._known_before = 0  # the tracks made before that hand came
        self._cloth = _Cloth()                   # the table as last seen bare
        self._still_for = 0  # frames the table has lain still (a hand may pause a frame: not it)
        self._noise = 3.0
        self._tracks: list[_Track] = []
        self._ids = 0
        self._busy = False
        self._settled = False  # a full pass since the last motion left nothing waiting
        self._card: tuple[float, float] | None = None  # the size of the cards, last measured
        self._fans: list[_Fan] = []  # boxes the detector gives a fan, and the cards found in it
        self._unboxed: list[Detection] = []  # cards found where the table changed, no box
        self._changes_at: tuple[int, tuple[np.ndarray, np.ndarray] | None] = (-2, None)
        self._moving: frozenset[Zone] = frozenset()
        self._zone_masks: list[tuple[Zone, np.ndarray]] = []  # each zone at the motion's scale
        self.stats = {"still": 0, "full": 0, "reads": 0}

    @property
    def busy(self) -> bool:
        """Something moved over the table in the last frame (a hand)."""
        return self._busy

    @property
    def moving(self) -> frozenset[Zone]:
        """The zones (seats, places, the scoring row) something moved over in the last frame:
        where a hand is laying or taking cards."""
        return self._moving

    def cards(self) -> list[Observation]:
        return [t.committed for t in self._tracks if t.committed is not None]

    def feed(self, frame: np.ndarray) -> list[Change]:
        """The changes this frame commits (cheap when nothing moved and nothing waits)."""
        frame = check_frame(frame)
        self.frame_index += 1
        motion = self._motion(frame)
        self._busy = bool(motion.any())
        self._moving = self._zones_under(motion) if self._busy else frozenset()
        if self._busy:
            # the table before this hand: where it lay still as long as a card must, not a
            # frame a hand paused in (design 52: a hand that paused over Ben's place became his
            # card's bare place, and the card was never seen taken away)
            if self._settled and self._still_for >= self.need and self._still is not None:
                self._table, self._table_tiny = self._still, self._before
                self._known_before = self._ids
                self._cloth.renew(self._still, [t.det.quad for t in self._tracks])
            self._settled, self._still_for = False, 0
        else:
            self._still_for += 1
            if self._settled and not any(self._waiting(t) for t in self._tracks):
                self.stats["still"] += 1
                for t in self._tracks:
                    t.count += 1
                return []
        self.stats["full"] += 1
        changes = self._full(frame, motion)
        self._settled = not self._busy
        if self._settled:
            self._before, self._still = self._prev, frame
        return changes

    # --- motion ------------------------------------------------------------------------------

    def _motion(self, frame: np.ndarray) -> np.ndarray:
        h, w = frame.shape[:2]
        tiny = cv2.cvtColor(cv2.resize(frame, (TINY_W, max(1, round(h * TINY_W / w))),
                                       interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
        prev, self._prev = self._prev, tiny
        self._scale = TINY_W / w
        if prev is None or prev.shape != tiny.shape:
            return np.ones(tiny.shape, bool)  # the first frame: look at everything
        diff = cv2.absdiff(tiny, prev)
        self._noise = 0.95 * self._noise + 0.05 * min(float(cv2.mean(diff)[0]) + 1.0, 20.0)
        return diff > self._changed_by

    @property
    def _changed_by(self) -> float:
        """How much a grey level must differ to be a change: four times the frames' noise, 8 at
        least."""
        return max(8.0, 4.0 * self._noise)

    def _zones_under(self, motion: np.ndarray) -> frozenset[Zone]:
        """The zones that `motion` (at the motion's scale) touches."""
        if self.zones is None:
            return frozenset()
        if not self._zone_masks or self._zone_masks[0][1].shape != motion.shape:
            polygons: list[tuple[Zone, np.ndarray]] = [
                *enumerate(self.zones.seats), ("scoring", self.zones.scoring),
                *self.zones.places]
            self._zone_masks = []
            for zone, polygon in polygons:
                mask = np.zeros(motion.shape, np.uint8)
                cv2.fillPoly(mask, [(polygon * self._scale).astype(np.int32)], 1)
                self._zone_masks.append((zone, mask > 0))
        return frozenset(zone for zone, mask in self._zone_masks if motion[mask].any())

    def _laid_now(self) -> Callable[[np.ndarray], bool] | None:
        """Whether a place (a quad) changed, CHANGED of it, since the table last lay still: a
        card laid there now, not one lying there before (a heap's other cards, face down). None
        before the table first lay still: any place may hold a new card. The frame's changes
        are found once, for all the places asked about."""
        changed = self._changed(self._before)
        if changed is None:
            return None

        def laid(quad: np.ndarray) -> bool:
            mask = np.zeros(changed.shape, np.uint8)
            cv2.fillConvexPoly(mask, (quad * self._scale).astype(np.int32), 1)
            area = int(mask.sum())
            return area > 0 and float(changed[mask > 0].sum()) / area >= CHANGED

        return laid

    def _changed(self, since: np.ndarray | None) -> np.ndarray | None:
        """Where the frame differs from a still table `since` (at the motion's scale: the
        last still frame, or the table before the hand), None before there was one."""
        if since is None or self._prev is None:
            return None
        return cv2.absdiff(self._prev, since) > self._changed_by

    def _changed_near(self, det: Detection, card: tuple[float, float],
                      taken: list[np.ndarray]) -> list[tuple[float, float]]:
        """Where a card laid now lies in each place the box touches that changed from the
        table before the hand, CHANGED_AREA of a card or more: the centre of the card-sized
        window lying as the card beneath (`recognize.lying`) that covers most of the change
        (`_fitted`; Attacke zero-shot, seed 77, a floral cloth: the blue 3's change reached the
        frame's edge, its middle 35 px off the card)."""
        changes = self._changes()
        if changes is None:
            return []
        labels, areas = changes
        mask = np.zeros(labels.shape, np.uint8)
        cv2.fillConvexPoly(mask, (det.quad * self._scale).astype(np.int32), 1)
        least = CHANGED_AREA * self._area(card)
        angle = lying(det, taken)
        return [self._fitted(labels == k, card, angle).centre
                for k in np.unique(labels[mask > 0]) if k and areas[k] >= least]

    def _changes(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The places that changed from the table before the hand (at the motion's scale):
        their labels and areas (`cv2.connectedComponentsWithStats`), found once a frame for
        every box looked at; None before there was such a table."""
        if self._changes_at[0] != self.frame_index:
            changed = self._changed(self._table_tiny)
            parts = None
            if changed is not None:
                _, labels, stats, _ = cv2.connectedComponentsWithStats(changed.astype(np.uint8))
                parts = labels, stats[:, cv2.CC_STAT_AREA]
            self._changes_at = (self.frame_index, parts)
        return self._changes_at[1]

    def _area(self, card: tuple[float, float]) -> float:
        """A card's area at the motion's scale."""
        return card[0] * card[1] * self._scale ** 2

    def _moved_over(self, quad: np.ndarray, motion: np.ndarray) -> bool:
        x, y, w, h = cv2.boundingRect((quad * self._scale).astype(np.int32))
        return bool(motion[max(0, y - 1):y + h + 2, max(0, x - 1):x + w + 2].any())

    # --- the still path ----------------------------------------------------------------------

    def _waiting(self, t: _Track) -> bool:
        """Does the track need a full pass: not yet committed, or unsure and due a re-read?"""
        return (t.committed is None or _key(t.committed.reading) != _key(t.reading)
                or t.missing > 0 or self._reread(t))

    @staticmethod
    def _reread(t: _Track) -> bool:
        return not t.reading.sure and t.rereads < MAX_REREADS

    # --- the full pass -----------------------------------------------------------------------

    def _full(self, frame: np.ndarray, motion: np.ndarray) -> list[Change]:
        seen: set[int] = set()
        to_read: list[tuple[Detection, _Track | None]] = []
        smears: list[Detection] = []
        looked: set[int] = set()  # the boxes looked at for new cards
        # the detector's own boxes, unlike the box the card keeps, of cards a hand passed over
        offs: list[tuple[Detection, _Track, Detection]] = []
        found = self._unfanned(distinct(self.detector.find(frame)), motion)
        found += self._still_unboxed(found, motion)
        boxed: dict[int, Detection] = {}  # the detector's own box of a track's steadied one
        missing: dict[int, int] = {}  # the frames each track matched was missing before
        hidden: list[Change] = []  # unsure cards a hand now covers, committed before it does
        for det, track in zip(found, self._match(found), strict=True):
            if track is not None:
                raw = det
                steady = _steady(det, track.det)
                if track.det.window and _larger(steady.box, track.det.box):
                    steady = track.det  # a card found in a window keeps it: that box is across
                    # it and the card laid over it (Attacke zero-shot, seed 4: the yellow 2's
                    # box took in half the 4 laid over it, and the 4 was taken for its part)
                if steady is track.det and det is not track.det:
                    smears.append(det)  # like none of the card's boxes: looked at on its own too
                elif steady is not det and track.disturbed and \
                        iou(det.quad, track.det.quad) < SAME_BOX:
                    offs.append((det, track, track.det))  # one laid half on it?
                det = steady
                boxed[id(det)] = raw
                seen.add(id(track))
                missing[id(track)], track.missing = track.missing, 0
            if self._moved_over(det.quad, motion):
                if track is not None:  # a hand over it: not still, not read until it is
                    hidden += self._covered_unsure(track)
                    track.count, track.disturbed = 0, True
                continue
            if track is not None and not (self._reread(track) or self._confirm_due(track)
                                          or track.disturbed):
                # no hand moved it: it keeps its box but for its own box found again (Attacke
                # seed 38: the whole of a box beside a red 3, taken as its box, covered the red
                # 4 laid half on it, and the 4 was taken for a part of the 3)
                if det is raw:
                    track.det = det
                track.count += 1
                continue
            to_read.append((det, track))
        to_read += [(d, None) for d in smears if not self._moved_over(d.quad, motion)]
        to_read.sort(key=lambda r: r[1] is not None)  # new cards first
        for _, track in to_read[self.max_reads:]:
            if track is not None:
                track.count = 0  # not read this frame: it waits for the next
        batch = to_read[: self.max_reads]
        looks = self._no_whole_cards(batch, self.reader.read([rectify(frame, d.quad)
                                                              for d, _ in batch]))
        self.stats["reads"] += len(batch)
        empty = {id(boxed.get(id(d), d)) for (d, _), look in zip(batch, looks, strict=True)
                 if look.no_card >= NOT_A_CARD}  # boxes of no card: no card's place is taken
        cards = [d for (d, _), look in zip(batch, looks, strict=True)
                 if look.no_card < NOT_A_CARD and not a_zero(look)]  # read as cards, no zeros
        for (det, track), look in zip(batch, looks, strict=True):
            if track is not None and look.no_card < NOT_A_CARD:
                if not self._laid_over(track, det, look, boxed.get(id(det), det)):
                    self._update(track, det, look, frame)
                    continue
                seen.discard(id(track))  # the card beneath: no box of its own now
                track = None
                if not look.reading.sure:  # the card laid over it: the detector's own box
                    det, look = self._as_boxed(frame, det, look, boxed)
            if track is not None and track.bare is not None and track.bare.shows(frame):
                # no card, and its place bare as it was before the card came: it was taken away
                # and the box is a glare's (Attacke zero-shot, seed 81: the red 7 stayed, and
                # the 4 laid there next was taken for it); `_unseen` says when it is gone
                seen.discard(id(track))
                track.missing = missing[id(track)]
                continue
            if track is not None:  # its box shows no card now: a card laid half over it, boxed
                track.count, track.disturbed = track.count + 1, False  # with it; it lies there
                det, look = self._as_boxed(frame, det, look, boxed)  # the new card is there
            taken = self._taken(found, det, empty)
            looked.add(id(det))
            for card_det, card_look in self._new_cards(frame, det, look, taken,
                                                       [d.quad for d in cards if d is not det],
                                                       smear=track is not None or det in smears):
                seen.add(id(self._new_track(frame, card_det, card_look)))
        offs = [o for o in offs if id(o[0]) not in looked
                and not self._moved_over(o[0].quad, motion)]
        for det, track, place in offs[:max(0, self.max_reads - len(batch))]:  # spare reads only
            look = self.reader.read([rectify(frame, det.quad)])[0]
            self.stats["reads"] += 1
            if self._off_card(det, look, self._taken(found, det, empty, (track, place.quad))):
                seen.add(id(self._new_track(frame, det, look)))
                track.det = place  # the card beneath lies where it lay, not across both
        if not self._busy and not self._settled:  # the hand just left: what did it lay?
            # no box a card kept its own place in (`_steady`): it lies across that card and the
            # one laid by it (Attacke zero-shot, seed 104: a third green 3 down a column, under
            # such a box only, was never seen, and Fay's play counted without it)
            across = {id(raw) for k, raw in boxed.items() if k != id(raw)}
            kept = [d for d in found if id(d) not in across]
            for det, look in self._laid_unboxed(frame, kept):
                seen.add(id(self._new_track(frame, det, look)))
                self._unboxed.append(det)
        self._mark_across()
        changes = hidden
        for t in self._parts():  # the cards read around it show what this box really is
            self._tracks.remove(t)
            if t.committed is not None:
                changes.append(Change("removed", t.committed, self.frame_index))
        for t in list(self._tracks):
            if id(t) not in seen:
                changes += self._unseen(t, frame, motion)
            else:
                changes += self._decide(t, frame)
        self._card_size()  # measured while cards lie here, kept while the table lies bare
        return changes

    def _no_whole_cards(self, batch: list[tuple[Detection, _Track | None]],
                        looks: list[Look]) -> list[Look]:
        """Boxes read surely that are no whole card, read unsure: the table is asked.
        - Zeros smaller than the cards read surely (`recognize.half_a_card`): a zero is a whole
          card, and a box that small is a part of one (`_new_cards` looks for the zero it is
          half of). Design 44 on a white cloth: the red half of the 9 under the blue zero,
          boxed alone, 86 x 57 px where the cards are 76 x 115, read as a red zero at 0.998;
          its whole boxes read no value card (`recognize.whole_of_half`), the two zeros
          cancelled, and every trick of the round was scored wrong.
        - Any card whose box is shrunk along both sides (`recognize.shrunk`): Attacke
          zero-shot, seed 107, a green 3's white half, boxed across the card, read 0.99 as a
          shield 10, and the shield was scored."""
        if not any(look.reading.sure for look in looks):
            return looks  # (the cards' size is not worth measuring)
        size = self._card_size()
        return [unsure(look) if look.reading.sure and (half_a_card(det, look, size) or
                                                       shrunk(det, size)) else look
                for (det, _), look in zip(batch, looks, strict=True)]

    def _card_size(self) -> tuple[float, float] | None:
        """The size (w, h) of the cards known, read surely (`recognize.card_size`), or where
        none lies there, as last measured (the camera does not move): a round's first scoring
        card is revealed on a bare table, and may be boxed as its halves."""
        sure = [t.det.quad for t in self._tracks if t.reading.sure and not t.across]
        self._card = card_size(sure) or self._card
        return self._card

    def _as_boxed(self, frame: np.ndarray, det: Detection, look: Look,
                  boxed: dict[int, Detection]) -> tuple[Detection, Look]:
        """The detector's own box of a track's box that showed no card, and its look: a card's
        box steadied to its place (`_steady`) holds only a part of a fan laid over it."""
        raw = boxed.get(id(det), det)
        if raw is det:
            return det, look
        look = self.reader.read([rectify(frame, raw.quad)])[0]
        self.stats["reads"] += 1
        return raw, look

    def _taken(self, found: list[Detection], det: Detection, empty: set[int],
               before: tuple[_Track, np.ndarray] | None = None) -> list[np.ndarray]:
        """The places of the cards known and of the frame's other boxes that show a card
        (`before`: a card and the place it lay in before this frame)."""
        return [d.quad for d in found if d is not det and id(d) not in empty] + \
            [before[1] if before is not None and t is before[0] else t.det.quad
             for t in self._tracks]

    def _new_track(self, frame: np.ndarray, det: Detection, look: Look) -> _Track:
        self._ids += 1
        now = _thumb(frame, det.quad)
        self._tracks.append(_Track(self._ids, det, look, count=1, read_as=now,
                                   bare=self._bare(frame, det.quad, now)))
        return self._tracks[-1]

    def _bare(self, frame: np.ndarray, quad: np.ndarray, now: _Thumb) -> _Bare | None:
        """How a new card's place (looking `now`) looked before the hand that laid it came,
        and the cloth beneath it as last seen bare (the same, unless the card lies over
        another), where unlike the card (else no help: the card lay there already)."""
        if self._table is None or self._table.shape != frame.shape:
            return None
        looks = (_thumb(self._table, quad), *self._cloth.thumbs(quad))
        kept = tuple(b for b in looks if not _similar(now, b))
        return _Bare(quad, kept) if kept else None

    def _new_cards(self, frame: np.ndarray, det: Detection, look: Look, taken: list[np.ndarray],
                   cards: list[np.ndarray], smear: bool) -> list[tuple[Detection, Look]]:
        """The new cards a box no card's track took shows: itself, read as a card (a box
        smeared between two known cards only where it lies apart from them, `recognize.apart`,
        else the card at an end of it, `_rows_end`; one read unsure across a card known, the
        place that changed, read surely, `_at_a_change`; a half of a scoring card read as a
        zero, as the whole card, `recognize.whole_of_half`, and one read unsure under half a
        card, as the card it is half of where that reads surely, `recognize.whole_of_a_part`:
        `cards` are the boxes read this frame as cards other than zeros; not a speck far
        smaller than a card, read unsure);
        where it shows no card, the first box beside its peak read as one (`look_beside`), or
        else the cards of a fan in it (`_fan`), or else the card laid where it lies across a
        card known (`_at_a_change`)."""
        if look.no_card < NOT_A_CARD:
            if self._boxed_again(det, look):
                return []
            if smear and not apart(det.quad, taken):
                return self._rows_end(frame, det, look, taken)
            known = cards + [t.det.quad for t in self._tracks if not a_zero(t.look)]
            size = self._card_size()
            if half_of_a_known_card(det, look, known, size):
                return []  # a half of a card known, or of one its other half showed first
            if not look.reading.sure:
                laid = self._at_a_change(frame, det, taken)
                if laid or self._read_again(det, look):
                    return laid
            whole = whole_of_half(frame, self.reader, det, look, known, size) or \
                self._zero_of_its_half(frame, det, look, taken) or \
                whole_of_a_part(frame, self.reader, det, look, known, size)
            if whole is None and not look.reading.sure and a_speck(det, size):
                return []  # a speck of the cloth read as a little of some card
            return [whole or (det, look)]
        again = look_beside(frame, self.reader, det, taken)
        if again is not None:
            return [again]
        return self._fan(frame, det, taken) or self._at_a_change(frame, det, taken)

    def _boxed_again(self, det: Detection, look: Look) -> bool:
        """Is a box no track took, read surely, one of a card known to lie there (SAME_BOX), read
        as that card? It is that card, boxed twice (Attacke zero-shot, seed 104: a shield 7 found
        in a fan's box, and boxed on its own as well, was counted twice)."""
        return look.reading.sure and any(
            t.reading.label == look.reading.label and iou(det.quad, t.det.quad) > SAME_BOX
            for t in self._tracks)

    def _at_a_change(self, frame: np.ndarray, det: Detection, taken: list[np.ndarray]
                     ) -> list[tuple[Detection, Look]]:
        """The card laid now under a new box across a card known, read unsure or as no card:
        the place that changed, read surely (`recognize.at_a_change`), remembered as a fan;
        else none."""
        card = self._card_size()
        if card is None:
            return []
        laid = at_a_change(frame, self.reader, det, taken, card,
                           self._changed_near(det, card, taken))
        return self._as_fan(det, [laid] if laid is not None else [])

    def _zero_of_its_half(self, frame: np.ndarray, det: Detection, look: Look,
                          taken: list[np.ndarray]) -> tuple[Detection, Look] | None:
        """A box read as a zero that is half a card (`recognize.half_a_card`, read unsure by
        `_no_whole_cards`): the zero it is half of, boxed whole (`recognize.zero_of_its_half`:
        a zero boxed on its coloured half only), or None."""
        if not a_zero(look) or not half_a_card(det, look, self._card_size()):
            return None  # (a_zero first: the cards' size is not worth measuring for others)
        return zero_of_its_half(frame, self.reader, det, look, taken,
                                [(t.det.quad, t.reading.label) for t in self._tracks])

    def _read_again(self, det: Detection, look: Look) -> bool:
        """Does an unsure box's first guess name a card read surely whose track it would
        match (MATCH card widths)? It is that card again: the part of it that peeks out from
        under a card laid over it (Attacke, seed 17: a shield 7 half under a face-down card,
        boxed 0.25 card widths off it and read as a shield 7 at 0.60, was asked about and
        counted twice: a second shield 7 the player never laid). Not as far as TWIN_APART:
        Attacke's players lay copies nearer than that (seed 4: 9 more questions)."""
        if not look.reading.named:
            return False
        first, (x, y) = look.reading.named[0][0], det.box.centre
        return any(t.reading.sure and t.reading.label == first and
                   math.hypot(t.center[0] - x, t.center[1] - y) < MATCH * det.box.w
                   for t in self._tracks)

    def _off_card(self, det: Detection, look: Look, taken: list[np.ndarray]) -> bool:
        """Is the detector's own box of a card a hand passed over, unlike the box the card
        keeps, a card laid half on it: read surely, apart from the cards known, and not as a
        card lying near it (`recognize.near_twins`: a box half off a card still reads it)?"""
        named = [(t.det.quad, t.reading.label) for t in self._tracks]
        return look.reading.sure and look.no_card < NOT_A_CARD and apart(det.quad, taken) \
            and not near_twins(det.quad, look.reading.label, named, det.box.w)

    def _unfanned(self, found: list[Detection], motion: np.ndarray) -> list[Detection]:
        """The boxes of the frame, each box of a fan seen before (SAME_BOX) standing for the
        cards found in it, so that they are matched and read as boxes of their own; a fan whose
        box is gone, or that something moved over (a card laid on it), is forgotten: its box is
        looked at again once still."""
        out: list[Detection] = []
        kept: list[_Fan] = []
        fans = [f for f in self._fans if not self._moved_over(f.quad, motion)]
        for det in found:
            fan = next((f for f in fans if iou(det.quad, f.quad) >= SAME_BOX), None)
            if fan is None:
                out.append(det)
            else:
                out += fan.cards
                kept.append(fan)
        self._fans = kept
        return out

    def _laid_unboxed(self, frame: np.ndarray, found: list[Detection]
                      ) -> list[tuple[Detection, Look]]:
        """The cards a hand just laid where the detector found no box: each place that changed
        from the table before the hand, UNBOXED of a card or more of it under no box and no
        card known, is read in the card-sized window that covers most of the change
        (`_fitted`), lying as the nearest card known or as the change does; a window in the
        frame, apart from every box, read surely, is a card. Attacke zero-shot, seed 77: Ben's
        red 3, laid half over his red 7 at a row's end, was never boxed (nor were the two
        beneath it, kept as they looked), and his play counted without it. A card new under
        this hand, read unsure and not yet committed, is no box here: a window read surely
        across it, off its place, is its card, and it goes (seed 83: a yellow 7 on a yellow
        floral cloth, boxed a third of a card off and read unsure, kept out the window that
        read it at 0.998); a window on its place is that card, boxed well, and it stays (seed
        62: a purple 3 so made anew lost its reads, and the next card covered it uncounted).
        A window read unsure, its first guess HALF_SURE or more and next to no "no card"
        (BARE_OF_CARDS), apart from those cards, is a card too, to be asked about: solo
        zero-shot, seed 29: a 4 of spades discarded on a yellow floral cloth, never boxed, read
        0.92 unsure in its window, was never seen, and the game's end was scored wrong. (A
        floral cloth where a hand left reads 0.2-0.3 as some card, with as little "no card":
        design 435, zero-shot, a phantom so made held Cy's place, and 10 questions were asked.)"""
        changes = self._changes()
        if changes is None:
            return []
        labels, areas = changes
        card = self._card_size() or self._outlined_card(frame, labels, areas)
        if card is None:
            return []
        guesses = [t for t in self._tracks if t.id > self._known_before and
                   not t.reading.sure and t.committed is None]
        known = [d.quad for d in found if all(iou(d.quad, t.det.quad) < SAME_BOX for t in guesses)]
        known += [t.det.quad for t in self._tracks if t not in guesses]
        under = np.zeros(labels.shape, np.uint8)
        for q in known:
            cv2.fillConvexPoly(under, (q * self._scale).astype(np.int32), 1)
        least = UNBOXED * self._area(card)
        boxes = []
        for part in self._pieces(labels, areas, card, least):
            if np.count_nonzero(part & (under == 0)) < least:
                continue
            for angle in self._lying_near(part, known):
                box = self._fitted(part, card, angle)
                if apart(box.quad(), known) and in_frame(frame, box):
                    boxes.append(box)
        looks = self.reader.read([rectify(frame, b.quad()) for b in boxes]) if boxes else []
        self.stats["reads"] += len(boxes)
        out: list[tuple[Detection, Look]] = []
        guessed: list[tuple[Detection, Look]] = []
        for box, look in sorted(zip(boxes, looks, strict=True),
                                key=lambda c: -c[1].reading.confidence):
            if look.no_card >= NOT_A_CARD or \
                    not all(apart(box.quad(), [d.quad]) for d, _ in out + guessed):
                continue
            if look.reading.sure:
                out.append((Detection(box, 0.0, window=True), look))
            elif look.no_card < BARE_OF_CARDS and look.reading.confidence >= HALF_SURE and \
                    apart(box.quad(), [t.det.quad for t in guesses]):
                guessed.append((Detection(box, 0.0, window=True), look))
        for t in guesses:
            on = [w for w in out if math.dist(w[0].box.centre, t.center) < LAID_OVER * min(card)]
            if on:  # its own card, boxed on its place: read on there (its reads, its count)
                out = [w for w in out if all(w is not o for o in on)]
            elif any(covered(t.det.quad, [d.quad]) >= SAME_BOX for d, _ in out):
                self._tracks.remove(t)  # half or more of it in a window off it: a box of that card
        return out + guessed  # each apart from the rest, as taken

    def _outlined_card(self, frame: np.ndarray, labels: np.ndarray, areas: np.ndarray
                       ) -> tuple[float, float] | None:
        """The size (w, h) of the largest changed place shaped as a lone card: one it fills
        OUTLINE_FILLED of its outline, its sides in CARD_SHAPE, OUTLINE_LEAST or longer, as
        outlined in full (`_outline`); None where there is none. Attacke zero-shot, seed 107:
        Ben's green 2, the game's first card, laid on a floral cloth on a table bare since the
        watcher started, was never boxed; no card size was known to fit a window to its change,
        and Cy was taken as the opener."""
        least = OUTLINE_FILLED * CARD_SHAPE[0] * OUTLINE_LEAST ** 2
        for k in sorted((k for k in range(1, len(areas)) if areas[k] >= least),
                        key=lambda k: -areas[k]):
            piece = labels == k
            short, long_side = _sides(piece)
            if short >= OUTLINE_LEAST and areas[k] >= OUTLINE_FILLED * short * long_side and \
                    _card_shaped(short, long_side):
                full = self._outline(frame, piece)
                return full if full and _card_shaped(*full) else (short / self._scale,
                                                                  long_side / self._scale)
        return None

    def _outline(self, frame: np.ndarray, piece: np.ndarray) -> tuple[float, float] | None:
        """The size (w, h) of what changed in full in a `piece` changed at the motion's scale:
        there, a card's edge changes each pixel it crosses, and the change is up to a pixel
        wider on each side (a grey card of 79 x 122 px on a black table: 88 x 136 there, 82 x
        125 in full)."""
        if self._table is None:
            return None
        reach = np.ones((3, 3), np.uint8)
        x, y, w, h = cv2.boundingRect(cv2.dilate(piece.astype(np.uint8), reach))
        left, top = int(x / self._scale), int(y / self._scale)
        right, bottom = int((x + w) / self._scale), int((y + h) / self._scale)
        grey = [cv2.GaussianBlur(cv2.cvtColor(f[top:bottom, left:right], cv2.COLOR_BGR2GRAY),
                                 (3, 3), 0) for f in (frame, self._table)]
        changed = cv2.absdiff(*grey) > self._changed_by
        kept = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_OPEN, reach)  # not lone pixels
        return _sides(kept) if kept.any() else None

    def _pieces(self, labels: np.ndarray, areas: np.ndarray, card: tuple[float, float],
                least: float) -> list[np.ndarray]:
        """Each changed place `least` or larger, and each such group of places lying within
        JOIN of a card of each other: a card as bright as the cloth in places changes in pieces
        (Attacke zero-shot, seed 77: a yellow card on a yellow floral cloth changed in its two
        sides, 0.38 and 0.26 of a card, a pixel apart; a window fitted to either lay a third of
        a card off it and read unsure). Two cards laid side by side may form one group: their
        own places stay."""
        pieces = [labels == k for k in range(1, len(areas)) if areas[k] >= least]
        reach = max(1, round(min(card) * self._scale * JOIN))
        near = cv2.dilate((labels > 0).astype(np.uint8), np.ones((2 * reach + 1,) * 2, np.uint8))
        n, groups = cv2.connectedComponents(near)
        for g in range(1, n):
            members = np.unique(labels[(groups == g) & (labels > 0)])
            if len(members) > 1 and areas[members].sum() >= least:
                pieces.append(np.isin(labels, members))
        return pieces

    def _lying_near(self, part: np.ndarray, known: list[np.ndarray]) -> list[float]:
        """How a card laid in the changed `part` may lie: as the change's own outline does,
        and as the card known nearest it (a row's cards lie alike)."""
        ys, xs = np.nonzero(part)
        outline = cv2.minAreaRect(np.stack([xs, ys], axis=1).astype(np.float32))
        angles = [box_of_quad(cv2.boxPoints(outline)).angle]
        middle = (outline[0][0] / self._scale, outline[0][1] / self._scale)
        if known:
            near = min(known, key=lambda q: math.dist(box_of_quad(q).centre, middle))
            angles.append(box_of_quad(near).angle)
        return angles

    def _fitted(self, part: np.ndarray, card: tuple[float, float], angle: float) -> Box:
        """The card-sized box lying at `angle` that covers most of the changed `part` (at the
        motion's scale), nearest its middle where many do: a change may take in a hand's
        shadow, and miss where the card is as bright as the cloth."""
        cover = cv2.filter2D(part.astype(np.float32), -1, _footprint(card, angle, self._scale),
                             borderType=cv2.BORDER_CONSTANT)
        ys, xs = np.nonzero(cover >= cover.max() - 0.5)
        my, mx = (float(v.mean()) for v in np.nonzero(part))
        k = int(np.argmin((xs - mx) ** 2 + (ys - my) ** 2))
        return Box((xs[k] + 0.5) / self._scale, (ys[k] + 0.5) / self._scale, card[0], card[1],
                   angle)

    def _still_unboxed(self, found: list[Detection], motion: np.ndarray) -> list[Detection]:
        """The windows of cards found with no box (`_laid_unboxed`), standing in for the box the
        detector does not give, while their card's track keeps them, until a hand moves over
        them or the detector boxes the card."""
        held = {id(t.det) for t in self._tracks}
        self._unboxed = [d for d in self._unboxed if id(d) in held
                         and not self._moved_over(d.quad, motion)
                         and all(iou(d.quad, f.quad) < SAME_BOX for f in found)]
        return list(self._unboxed)

    def _fan(self, frame: np.ndarray, det: Detection, taken: list[np.ndarray]
             ) -> list[tuple[Detection, Look]]:
        """The cards read in a box that shows no card, larger than the cards on the table
        (recognize.look_within): remembered as a fan, its box in later frames stands for them."""
        card = self._card_size()
        if card is None:
            return []
        named = [(t.det.quad, t.reading.label) for t in self._tracks if t.reading.label]
        return self._as_fan(det, look_within(frame, self.reader, det, taken, card, named,
                                             self._laid_now()))

    def _rows_end(self, frame: np.ndarray, det: Detection, look: Look, taken: list[np.ndarray]
                  ) -> list[tuple[Detection, Look]]:
        """The new card of a box smeared over cards known, read unsure: the card at an end of
        a row boxed as one (recognize.at_a_rows_end), remembered as a fan."""
        card = self._card_size()
        if look.reading.sure or card is None:
            return []
        end = at_a_rows_end(frame, self.reader, det, taken, card,
                            self._changed_near(det, card, taken))
        return self._as_fan(det, [end] if end is not None else [])

    def _as_fan(self, det: Detection, cards: list[tuple[Detection, Look]]
                ) -> list[tuple[Detection, Look]]:
        """The `cards` found in the box, which stands for them in later frames, where any."""
        if cards:
            self._fans.append(_Fan(det.quad, tuple(d for d, _ in cards)))
        return cards

    def _parts(self) -> list[_Track]:
        """Tracks that are a part of other cards read surely (recognize.part_of_a_card): a box
        across a pile, or one born while the card it lies in was still under the hand."""
        sure = [t for t in self._tracks if t.reading.sure and not t.across]
        return [t for t in self._tracks if not t.across and
                part_of_a_card(t.reading, *self._as_laid(t, sure))]

    @staticmethod
    def _as_laid(t: _Track, sure: list[_Track]) -> tuple[np.ndarray, list[np.ndarray]]:
        """A track's box and the boxes of the sure cards it may be a part of. A card committed
        at its own place is judged where it lay, among the cards that lay there before it: the
        middle card of a fan lies under the card laid after it, and its box may slide onto the
        neighbours' peak, yet it is no part of them."""
        if t.committed is None:
            return t.det.quad, [o.det.quad for o in sure if o is not t]
        return t.committed.quad, [o.det.quad for o in sure if o.id < t.id]

    def _mark_across(self) -> None:
        """Mark the new sure tracks whose box lies across a pile (recognize.across_a_pile):
        never committed, but kept, so that its box, seen again, stays its own and does not take
        the place of a card of the pile."""
        new = [t for t in self._tracks if t.reading.sure and t.committed is None]
        known = [t.det.quad for t in self._tracks if t.reading.sure and t.committed is not None]
        across = {id(new[k]) for k in across_a_pile(
            [t.det.quad for t in new], known, [k for k, t in enumerate(new) if t.det.window])}
        for t in self._tracks:
            t.across = id(t) in across

    def _match(self, found: list[Detection]) -> list[_Track | None]:
        """Each box's track: the closest pairs first, each within MATCH card widths (the wider
        of the box and the card: a half of the card, boxed, is that card), so that a card laid
        half over another, in a fan, does not take the track of the card beneath when that
        card's own box is found nearer to it."""
        pairs = sorted((math.hypot(t.center[0] - det.box.cx, t.center[1] - det.box.cy), i, k)
                       for i, det in enumerate(found) for k, t in enumerate(self._tracks))
        out: list[_Track | None] = [None] * len(found)
        taken: set[int] = set()
        for d, i, k in pairs:
            width = max(found[i].box.w, self._tracks[k].det.box.w)
            if d < MATCH * width and out[i] is None and k not in taken:
                out[i] = self._tracks[k]
                taken.add(k)
        return out

    def _confirm_due(self, t: _Track) -> bool:
        """A sure card about to be committed is read once more: two reads must agree."""
        return (not t.confirmed and t.reading.sure
                and t.count + 1 >= self.need and self._uncommitted(t))

    @staticmethod
    def _uncommitted(t: _Track) -> bool:
        return t.committed is None or _key(t.committed.reading) != _key(t.reading)

    @staticmethod
    def _laid_over(t: _Track, det: Detection, look: Look, raw: Detection) -> bool:
        """A box near a card known to lie there, read as another card, and off its place:
        another card laid half over it (a fan), not the card swapped. Read unsure, it must give
        the known card next to nothing (GONE_BY), and it is the detector's own box (`raw`, not
        the box `det` steadied to the card's place) that lies off it. (Attacke seed 44: a green
        7 laid a third of a card off over a shield 7 was read unsure in the box steadied to the
        shield's place, was taken for the shield swapped, and the shield was lost: every later
        contest waited for a person.)"""
        known = t.committed.reading if t.committed is not None else None
        if known is None or not known.sure or look.reading.label == known.label:
            return False
        if not look.reading.sure:
            if not _none_of(look.reading, known):
                return False
            det = raw
        return math.hypot(t.center[0] - det.box.cx, t.center[1] - det.box.cy) \
            >= LAID_OVER * det.box.w

    def _update(self, t: _Track, det: Detection, look: Look, frame: np.ndarray) -> None:
        """A still track read again."""
        known = t.committed.reading if t.committed is not None else None
        if known is not None and known.sure and not look.reading.sure and t.reading.sure and \
                not self._replaced(t, det, look, frame):
            # an unsure look at a card known to lie here (a shadow, a zero laid across half of
            # it) is that card; only a sure read of another card says it was swapped, or an
            # unsure one where the place no longer looks like it (read unsure from then on).
            # Where a swap was read surely, the unsure look naming it first is the new card's
            # (Attacke zero-shot, seed 81: a red 7 laid under a glare where a red 2 was taken
            # away, read surely twice, then 0.99 unsure: the 2 came back, the 7 was never seen)
            held = t.reading if look.reading.named and \
                look.reading.named[0][0] == t.reading.label else known
            look = Look(held, t.look.turns, look.no_card)
        t.det, t.disturbed = det, False  # read again after a hand: it may be another card now
        if t.committed is None:
            t.read_as = _thumb(frame, det.quad)
        if not t.reading.sure:
            t.rereads += 1
        if _key(look.reading) == _key(t.reading):
            if look.reading.sure and t.count + 1 >= self.need:
                t.confirmed = True  # a second read agreed with the first
            t.count += 1
            if look.reading.confidence > t.reading.confidence:
                t.look = look
        elif _same_card(look.reading, t.reading):
            t.look, t.count, t.confirmed = look, t.count + 1, False
        else:
            t.look, t.count, t.confirmed = look, 1, False

    def _replaced(self, t: _Track, det: Detection, look: Look, frame: np.ndarray) -> bool:
        """A hand passed over a card known to lie here, no card lies over it (UNDER), its place
        looks unlike it now (its thumbnail at its commit) and the reader gives it next to
        nothing (GONE_BY): another card lies there, read unsure. One laid where a card was
        taken away, under the same hand: a solo row's next informants, face down in a design
        the reader was never taught. (A card laid half over it changes its place's look too:
        a fan, not a swap.)"""
        if not t.disturbed or t.thumb is None or t.committed is None:
            return False
        if not _none_of(look.reading, t.committed.reading) or \
                _similar(_thumb(frame, det.quad), t.thumb):
            return False
        return covered(t.det.quad, [o.det.quad for o in self._tracks if o is not t]) < UNDER

    def _decide(self, t: _Track, frame: np.ndarray) -> list[Change]:
        if t.across or not self._uncommitted(t) or t.count < self._need_for(t):
            return []
        if t.reading.sure and not t.confirmed:
            return []
        return self._commit(t, _thumb(frame, t.det.quad))

    def _commit(self, t: _Track, thumb: _Thumb | None) -> list[Change]:
        obs = Observation(t.reading, t.quad, t.center, self._zone(t.center), t.count, t.id)
        out = []
        if t.committed is not None:
            out.append(Change("removed", t.committed, self.frame_index))
        t.committed, t.thumb = obs, thumb
        out.append(Change("appeared", obs, self.frame_index))
        return out

    def _covered_unsure(self, t: _Track) -> list[Change]:
        """A card read unsure, or surely with no second read yet to agree, that lay still long
        enough to be one, that a hand now covers (the next card laid on it, or it is taken
        away): committed now, unsure, so that the table is asked about it rather than never
        told. (No thumbnail: the hand is over its place.)"""
        if t.committed is not None or t.confirmed or t.across or t.count < self.need or \
                not _likely_a_card(t.reading):
            return []
        if t.reading.sure:
            t.look = unsure(t.look)  # one read: a guess
        return self._commit(t, None)

    def _need_for(self, t: _Track) -> int:
        if t.reading.sure:
            return self.need
        # an unsure card is committed (the referee asks) once re-reads are spent; what is
        # likely no card at all is not
        if t.rereads < MAX_REREADS and t.count < 4 * self.need:
            return 1 << 30
        return 2 * self.need if _likely_a_card(t.reading) else 1 << 30

    def _unseen(self, t: _Track, frame: np.ndarray, motion: np.ndarray) -> list[Change]:
        """A track no box matched: covered (something moves over it), still there (its place
        looks as it did and, a hand having passed over it, shows a card), or gone (a place
        covered by what is neither a card nor the bare table, while the table is busy, only
        after ARM_WAIT times as long: an arm lying still across it)."""
        if self._moved_over(t.det.quad, motion):  # under a hand, or being taken away: wait
            hidden = self._covered_unsure(t)
            t.count, t.disturbed = 0, True
            if t.committed is None:
                t.missing += 1
                if t.missing > 3 * self.need:
                    self._tracks.remove(t)  # a glimpse under a hand, never confirmed
            return hidden
        known = t.thumb if t.committed is not None else t.read_as  # its place as last seen
        alike = known is not None and _similar(_thumb(frame, t.det.quad), known)
        if t.committed is None:
            return self._flickering(t, alike)
        if alike and not t.disturbed:
            t.missing = 0
            t.count += 1
            return []
        above = [o.det.quad for o in self._tracks if o is not t and o.reading.sure
                 and o.missing == 0 and o.id > t.id]
        if covered(t.det.quad, above) >= UNDER:
            t.missing = 0  # under a card laid later, half over it: it lies there still
            return []
        # under cards the detector does not box, or alike after a hand passed over it (a glare
        # over its place looks alike bare, so it is read): it lies there still
        place = self._place(t, frame)
        if place == "card":
            t.missing, t.disturbed = 0, False
            t.count += 1 if alike else 0
            return []
        t.missing += 1
        if t.missing < self.need * (ARM_WAIT if place == "covered" and self._busy else 1):
            return []
        self._tracks.remove(t)
        return [Change("removed", t.committed, self.frame_index)]

    def _flickering(self, t: _Track, alike: bool) -> list[Change]:
        """A card not yet committed that no box matched in a still frame: where its place
        looks as when it was last read, the box flickers (a card at a fan's end, read unsure in
        one frame and not boxed in the next) and the card waits ARM_WAIT times as long for its
        box, keeping its count and its re-reads; else it goes as soon as a card would. (Attacke,
        seed 4: a yellow 5 laid at the end of a column of four, boxed in 8 frames of 14 and read
        0.91-0.94 unsure, was dropped each time it went unboxed for a third of a second, its
        re-reads never spent, and the contest was scored without it, no question asked.)"""
        t.missing += 1
        if t.missing >= self.need * (ARM_WAIT if alike and not t.disturbed else 1):
            self._tracks.remove(t)
        return []

    def _place(self, t: _Track, frame: np.ndarray) -> Literal["card", "table", "covered"]:
        """What the place of a card no box matched shows: some card (not as it looked before
        the card was laid, and the reader's "no card" under NOT_A_CARD), the table as it was,
        or something else, covered (neither a card nor its place as it looked bare: where that
        look is unknown, the table). A card taken away leaves the table bare; one covered by
        cards leaves cards there. (A busy cloth, floral or checked, reads as a little of many
        cards to a reader never taught the deck; it looks as it did.) Solo, seed 19: an arm
        reaching across a spot to the informants' row rested over its last card while the
        hand turned them, and the card, taken for gone each time, was counted again anew."""
        if t.bare is not None and t.bare.shows(frame):
            return "table"
        look = self.reader.read([rectify(frame, t.det.quad)])[0]
        self.stats["reads"] += 1
        if look.no_card < NOT_A_CARD:
            return "card"
        return "table" if t.bare is None else "covered"

    def _zone(self, center: tuple[float, float]) -> int | str | None:
        return self.zones.zone_of(center) if self.zones is not None else None


def _larger(box: Box, card: Box) -> bool:
    """Is `box` LARGER than the card's box, along either side?"""
    return max(box.w / card.w, box.h / card.h) >= LARGER


def _steady(det: Detection, known: Detection) -> Detection:
    """The box `det` may stand for most like the card's box `known`: a card first read from a
    box beside a smeared peak, or as the whole of a half boxed, keeps that box while it lies
    still. Where none is like it (SAME_BOX), the card keeps its own: the box is a peak smeared
    between it and a card laid half over it, and the card lies where it lay."""
    boxes = (det.box, *det.beside, *det.box.wholes())
    like, best = max(((iou(b.quad(), known.quad), b) for b in boxes), key=lambda x: x[0])
    if like < SAME_BOX:
        return known
    return det if best is det.box else Detection(best, det.score, det.beside)


class _Fan(NamedTuple):
    """A box of the detector's that showed no card, and the cards read in it."""

    quad: np.ndarray
    cards: tuple[Detection, ...]


class _Thumb(NamedTuple):
    """A small picture of a card's place (16 x 24 px), for "does it still look the same": its
    grey pattern (normalised) and its mean colour's chromaticity (a glare across the place
    makes the bare table's pattern look like a card's; its colour does not), both taken where
    no glare washed out either picture (`glare`: `vision.glare.glared`).
    A glare that lies still over a seat's place is half of every picture of it, card or bare
    cloth, and made them alike (Attacke zero-shot, seed 81: a yellow 4 laid where a red 7 was
    taken away was taken for the 7, and the bare place between for a card)."""

    small: np.ndarray  # float32, BGR
    grey: np.ndarray   # float32
    glare: np.ndarray  # bool, where a glare washed it out


class _Bare(NamedTuple):
    """A card's place before the card was laid, looked at where the card was first boxed: the
    box it keeps may move a little (design 52: 6 px, and the printed cloth's small shapes then
    matched no longer, and the card was never seen taken away). Its looks: the table before
    the hand, and the cloth beneath (`_Cloth`)."""

    quad: np.ndarray
    looks: tuple[_Thumb, ...]

    def shows(self, frame: np.ndarray) -> bool:
        """Does the place look bare in `frame`, as it did before the card came?"""
        now = _thumb(frame, self.quad)
        return any(_similar(now, b) for b in self.looks)


class _Cloth:
    """The table as last seen bare, at BARE_SCALE: each still spell before a hand renews it
    everywhere but under the cards then known, which keep what lay there before they came.
    The table before the hand shows, under a card laid half over another, the card beneath;
    this shows the cloth. Attacke, a floral cloth, zero-shot: the fan of a contest was taken
    away, the reader took the bare cloth for a little of some card, and the fan's top card,
    whose place before it was laid showed the card beneath, was never seen taken away."""

    def __init__(self) -> None:
        self.image: np.ndarray | None = None

    def renew(self, still: np.ndarray, cards: list[np.ndarray]) -> None:
        small = cv2.resize(still, None, fx=BARE_SCALE, fy=BARE_SCALE,
                           interpolation=cv2.INTER_AREA)
        if self.image is None or self.image.shape != small.shape:
            self.image = small
            return
        under = np.zeros(small.shape[:2], np.uint8)
        for quad in cards:
            cv2.fillConvexPoly(under, np.round(quad * BARE_SCALE).astype(np.int32), 1)
        under = cv2.dilate(under, np.ones((5, 5), np.uint8))  # edges and shadows too
        np.copyto(self.image, small, where=(under == 0)[..., None])

    def thumbs(self, quad: np.ndarray) -> tuple[_Thumb, ...]:
        """The bare cloth's look at `quad` (a full-size quad), if any is known."""
        if self.image is None:
            return ()
        return (_thumb(self.image, quad * BARE_SCALE),)


def _sides(mask: np.ndarray) -> tuple[float, float]:
    """The short and long sides of the smallest box, turned as it may be, around a mask's
    pixels, each counted whole (a side's both end pixels)."""
    ys, xs = np.nonzero(mask)
    (_, _), (a, b), _ = cv2.minAreaRect(np.stack([xs, ys], axis=1).astype(np.float32))
    short, long_side = sorted((a + 1, b + 1))
    return short, long_side


def _card_shaped(short: float, long_side: float) -> bool:
    """Are the sides in a card's proportions (CARD_SHAPE)?"""
    return CARD_SHAPE[0] <= long_side / short <= CARD_SHAPE[1]


def _footprint(card: tuple[float, float], angle: float, scale: float) -> np.ndarray:
    """A card's shape (w x h, its long axis at `angle`) at `scale`, as a kernel of ones."""
    side = int(math.ceil(max(card) * scale)) | 1
    kernel = np.zeros((side, side), np.float32)
    middle = side / 2 - 0.5
    quad = Box(middle, middle, card[0] * scale, card[1] * scale, angle).quad()
    cv2.fillConvexPoly(kernel, np.round(quad).astype(np.int32), 1.0)
    return kernel


def _thumb(frame: np.ndarray, quad: np.ndarray) -> _Thumb:
    small = rectify(frame, quad, (16, 24))
    return _Thumb(small.astype(np.float32),
                  cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32),
                  glared(small.max(axis=2), small.min(axis=2)))


def _similar(a: _Thumb, b: _Thumb) -> bool:
    seen = ~(a.glare | b.glare)
    if seen.mean() < SEEN:  # next to all glare (or a white card's stock): the whole, as is
        seen[:] = True
    pattern = [_normalised(t.grey[seen]) for t in (a, b)]
    chroma = [t.small[seen].mean(axis=0) + 1.0 for t in (a, b)]
    return (float(pattern[0] @ pattern[1]) >= SAME_LOOK
            and float(np.abs(chroma[0] / chroma[0].sum() - chroma[1] / chroma[1].sum()).max())
            <= SAME_CHROMA)


def _normalised(g: np.ndarray) -> np.ndarray:
    g = g - g.mean()
    return g / (float(np.linalg.norm(g)) + 1e-6)


def _none_of(reading: Reading, known: Reading) -> bool:
    """Does `reading` give the card `known` next to nothing (GONE_BY): no read of it?"""
    return dict(reading.named).get(known.label or "", 0.0) < GONE_BY


def _first_guess(r: Reading) -> str | None:
    return r.label or (r.named[0][0] if r.named else None)


def _same_card(reading: Reading, before: Reading) -> bool:
    """Does `reading` name first the card `before` did, one surely and one not? The same card,
    lying still all the while, read now and then over the line: its count goes on. (Attacke
    zero-shot, seed 104: a yellow 3 laid after a yellow 3, down a column, read 0.98 unsure
    five times, then surely, then 0.97 unsure, its count begun anew at each, was covered by
    the next card before it was ever made up, and never counted, nor asked about.)"""
    return reading.sure != before.sure and _first_guess(reading) is not None and \
        _first_guess(reading) == _first_guess(before)


def _likely_a_card(reading: Reading) -> bool:
    """An unsure reading whose first guesses have half the probability or more: a card, not a
    glimpse of the table (which reads as a little of many cards, or as no card)."""
    return sum(p for _, p in reading.named[:GUESSES]) >= 0.5


def width_of(obs: Observation) -> float:
    return card_width(obs.quad)
