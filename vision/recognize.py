"""Read one photo of the table: find -> rectify -> read -> decide.

The `recognize --json` output for one frame: every card found, read or `unknown`, in the frame's
pixel coordinates. A box the reader takes for no card at all (bare table, a hand, a box across
two cards) is looked at again as the boxes beside its peak and the cards it may be half of
(`look_beside`), then, where it is larger than a card (a fan or a pile boxed as one), as
card-sized windows over it (`look_within`), and left out where none reads as a card: no phantom
cards. Of two boxes on one card, the surer is kept. Cards are told apart by name
(`Reading.label`), so a deck of any game's cards is read the same way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.detect import Detection, Detector
from vision.geometry import Box, box_of_quad, covered, iou, rectify, turned
from vision.read import Look, Reader, unsure
from vision.types import CardId, Reading

SAME_BOX = 0.5      # boxes overlapping more than this are one card
SAME_CARD = 1.2     # one card read twice within this many card widths is one card
NOT_A_CARD = 0.5    # a box whose "no card" probability reaches this shows no card
PART_OF = 0.7       # an unsure box this much inside surely read cards is a part of them
SMALLER = 0.8       # ... and a box of less than this card's area this much inside it, too
# A box read as a zero of less than HALF a card's area is a part of a card: the 9's red half
# under the blue zero, boxed alone on a white cloth, measured 0.56; whole zeros on the calib
# designs 0.72 or more (a card far off in a tilted view, a zero half under a hand).
HALF = 0.65
# A new box read unsure whose both sides are under SPECK of the cards' is no card: a flower of
# a busy cloth, 40 x 60 px where the cards are 73 x 110 (0.55; Attacke seed 47). A part of a
# card keeps one side whole (a strip of a fan, a card cut by the frame's edge or half under
# another), and a zero's half keeps 0.75 of both.
SPECK = 0.65
# A box read surely in the cards' proportions (within PROPORTION) whose both sides are under
# SHRUNK of the cards' is no whole card, and its read is a guess: Attacke zero-shot, seed 107,
# a green 3 on a floral cloth, boxed on its white half and across the card (62 x 95 px where
# the cards are 78 x 119: 0.80 of both), read 0.99 as a shield 10. A card half under another,
# or cut by the frame's edge, keeps one side, and its box is out of the cards' proportions.
SHRUNK, PROPORTION = 0.85, 0.1
PILE = 0.9          # a surely read box this much inside other surely read cards lies across them
BESIDE = 3          # boxes beside a peak read (at most) when its own box shows no card
ITS_OWN = 0.8       # ... each of them boxing less than this much (IoU) like one read before
LARGER = 1.1        # a no-card box this much longer or wider than a card may hold several:
FAN_STEP = 0.25     # it is looked at in card-sized windows this many card widths apart,
FAN_REACH = 0.33    # reaching this far past its edges (in card widths);
FAN_APART = 0.35    # cards read in them lie this many card widths apart at least,
TWIN_APART = 0.9    # two of one name this many (a fan's copies lie a card's width apart)
NUDGE, NUDGED = 0.5, 3  # windows beside the 3 likeliest unsure ones (read at 0.5 or more)
ASKEW = 0.15        # ... and windows in the orientation of a card it touches this askew (rad)
WHOLE = 0.9         # an unsure whole of a zero's box whose reads hold this much on value cards


@dataclass(frozen=True)
class Seen:
    """A card in one frame: its reading and its corners TL, TR, BR, BL as printed."""

    reading: Reading
    quad: np.ndarray
    score: float

    @property
    def center(self) -> tuple[float, float]:
        c = self.quad.mean(axis=0)
        return float(c[0]), float(c[1])

    @property
    def width(self) -> float:
        return float(np.hypot(*(self.quad[1] - self.quad[0])))


def distinct(found: list[Detection]) -> list[Detection]:
    """Boxes that are not a second box on a card already boxed (surest first)."""
    kept: list[Detection] = []
    for d in sorted(found, key=lambda d: -d.score):
        if all(iou(d.quad, k.quad) <= SAME_BOX for k in kept):
            kept.append(d)
    return kept


def look_beside(frame: np.ndarray, reader: Reader, det: Detection, taken: Sequence[np.ndarray]
                ) -> tuple[Detection, Look] | None:
    """A box whose own read shows no card, looked at again: the first of the boxes beside its
    peak (`Detection.beside`) and the two cards it may be half of (`Box.wholes`) read surely as
    a card, that boxes no card already boxed (`taken`: IoU over SAME_BOX), and neither lies on
    them nor holds one of them (PART_OF covered: a box across two cards). Two cards overlapping
    smear into one peak between them, whose box lies across both, while a cell beside it boxes
    the card on top; and of a card printed in two halves (Attacke's) the detector may box one
    half only, lying across."""
    tried = [det.quad]
    boxes: list[Box] = []
    for box in (*det.beside[:BESIDE], *det.box.wholes()):
        quad = box.quad()
        if all(iou(quad, q) <= ITS_OWN for q in tried) and apart(quad, taken):
            boxes.append(box)
            tried.append(quad)
    if not boxes:
        return None
    looks = reader.read([rectify(frame, b.quad()) for b in boxes])
    return next(((Detection(b, det.score, det.beside), look)
                 for b, look in zip(boxes, looks, strict=True)
                 if look.reading.sure and look.no_card < NOT_A_CARD), None)


def a_zero(look: Look) -> bool:
    """Is a look's first candidate a zero (sure or not)? Only Tightrope's reads name CardIds."""
    top = look.reading.candidates[0][0] if look.reading.candidates else None
    return isinstance(top, CardId) and top.is_zero


def half_of_a_known_card(det: Detection, look: Look, cards: Sequence[np.ndarray],
                         size: tuple[float, float] | None = None) -> bool:
    """Is a Tightrope box read as a zero (or any box read unsure under HALF a card, `size`:
    the cards' w x h) a half of one of `cards` (boxes of cards other than zeros): one of the
    two cards it may be half of is boxed as that card (SAME_BOX)? A zero's own box is a whole
    card: the boxes around it, half again as long, box no card."""
    return (a_zero(look) or (not look.reading.sure and a_half(det, size))) and \
        any(iou(b.quad(), q) >= SAME_BOX for b in det.box.wholes() for q in cards)


def whole_of_half(frame: np.ndarray, reader: Reader, det: Detection, look: Look,
                  taken: Sequence[np.ndarray], size: tuple[float, float] | None
                  ) -> tuple[Detection, Look] | None:
    """A Tightrope box read as a zero, looked at as the two cards it may be half of
    (`Box.wholes`): the first read as a scoring value card that lies in the frame, holds
    none of the cards `taken` and lies on none (`apart`; boxes read as zeros are no cards
    here), or None. A scoring card's coloured half boxed alone reads as a zero of that colour
    (an unseen design's scoring 5 was boxed only as its two halves, each read surely as a zero:
    a round's first trick scored two zeros and no value); a zero's own box is a whole card, and
    the boxes around it, half again as long, show no card, lie across the card beside it, or (a
    zero cut by the frame's edge) reach past the edge. Where the box is no whole card by its
    size (`size`: the cards' w x h, unknown or `half_a_card`), a whole read unsure counts too
    where its reads hold WHOLE or more on value cards: that card, read unsure, so the table is
    asked. Design 231 on a striped cloth: the game's first scoring card, a 2, boxed only as
    its halves, each read surely as a zero, its whole as a 2 at 0.92 or a 9; the two zeros
    were scored. (A zero's own whole, half again as long, may read as a value card unsure.)"""
    if not a_zero(look):
        return None
    unsure_too = size is None or half_a_card(det, look, size)
    return _whole(frame, reader, det, taken,
                  lambda whole: _value_card(whole.reading, unsure_too))


def _value_card(reading: Reading, unsure_too: bool) -> bool:
    """A read of a scoring card that is not a zero: sure, or (`unsure_too`) unsure with
    WHOLE of its mass on such cards."""
    def value(card: CardId | None) -> bool:
        return card is not None and card.kind == "scoring" and card.value != 0
    if reading.sure:
        return value(reading.card)
    return unsure_too and sum(p for card, p in reading.candidates if value(card)) >= WHOLE


def half_a_card(det: Detection, look: Look, size: tuple[float, float] | None) -> bool:
    """Is a box read as a zero (sure or not) smaller than the cards (`size`: their w x h),
    less than HALF their area? A zero is a whole card: so small a box is a part of one."""
    return a_zero(look) and a_half(det, size)


def a_half(det: Detection, size: tuple[float, float] | None) -> bool:
    """Is the box less than HALF the cards' area (`size`: their w x h)?"""
    return size is not None and det.box.w * det.box.h < HALF * size[0] * size[1]


def whole_of_a_part(frame: np.ndarray, reader: Reader, det: Detection, look: Look,
                    taken: Sequence[np.ndarray], size: tuple[float, float] | None
                    ) -> tuple[Detection, Look] | None:
    """A box read unsure, less than HALF a card, looked at as the two cards it may be half
    of (`Box.wholes`): the first read surely that lies in the frame, apart from the cards
    `taken`, or None. Attacke zero-shot, seed 83: a green 5 on a floral cloth of greens,
    boxed only as its halves (0.53 of a card each), each read unsure as a green 7, was
    tracked and asked about as two cards, and its own box, found a few seconds later, as a
    third: the next player's card was taken for a card laid after a pass."""
    if look.reading.sure or not a_half(det, size):
        return None
    return _whole(frame, reader, det, taken, lambda whole: whole.reading.sure)


def a_speck(det: Detection, size: tuple[float, float] | None) -> bool:
    """Are both sides of the box under SPECK of the cards' (`size`: their w x h)?"""
    return _both_under(det, size, SPECK)


def shrunk(det: Detection, size: tuple[float, float] | None) -> bool:
    """Is the box in the cards' proportions (`size`: their w x h), both its sides under SHRUNK
    of theirs?"""
    if size is None or not _both_under(det, size, SHRUNK):
        return False
    (a, b), (c, d) = sorted((det.box.w, det.box.h)), sorted(size)
    return abs(b / a * c / d - 1) < PROPORTION


def _both_under(det: Detection, size: tuple[float, float] | None, share: float) -> bool:
    if size is None:
        return False
    box, card = sorted((det.box.w, det.box.h)), sorted(size)
    return box[0] < share * card[0] and box[1] < share * card[1]


def zero_of_its_half(frame: np.ndarray, reader: Reader, det: Detection, look: Look,
                     taken: Sequence[np.ndarray], named: Sequence[tuple[np.ndarray, str | None]]
                     ) -> tuple[Detection, Look] | None:
    """The zero whose half a box read as that zero (sure or not) is: the first of the two
    cards it may be half of (`Box.wholes`) that lies in the frame, apart from every card
    `taken` (zeros too), and reads surely as the same zero; else None. None too where a card
    of that name is known near (`named`: (quad, name), `near_twins`): the box is a half of
    that zero, boxed whole already. A zero boxed on its coloured half only (its white half on
    a pale cloth shows no edge) is the whole zero; the red half of a 9 under the blue zero,
    boxed alone, also reads as a red zero, but its whole reaching under the blue zero (that
    zero's white half over the 9's red one looks like a red zero) lies on the blue zero, and
    the other reaches past the 9 onto the cloth."""
    first = look.reading.candidates[0][0] if look.reading.candidates else None
    if not isinstance(first, CardId) or not first.is_zero or \
            near_twins(det.quad, first.label, named, det.box.h):
        return None
    return _whole(frame, reader, det, taken, lambda whole: whole.reading.card == first)


def _whole(frame: np.ndarray, reader: Reader, det: Detection, taken: Sequence[np.ndarray],
           wanted: Callable[[Look], bool]) -> tuple[Detection, Look] | None:
    """The first of the two cards a box may be half of (`Box.wholes`) that lies in the frame,
    apart from the cards `taken`, and shows a card whose look is `wanted`; else None."""
    boxes = [b for b in det.box.wholes() if apart(b.quad(), taken) and in_frame(frame, b)]
    looks = reader.read([rectify(frame, b.quad()) for b in boxes]) if boxes else []
    for box, whole in zip(boxes, looks, strict=True):
        if whole.no_card < NOT_A_CARD and wanted(whole):
            return Detection(box, det.score, det.beside), whole
    return None


def in_frame(frame: np.ndarray, box: Box) -> bool:
    """Does the box lie wholly in the frame?"""
    h, w = frame.shape[:2]
    return bool(np.all((box.quad() >= 0) & (box.quad() <= (w - 1, h - 1))))


def look_within(frame: np.ndarray, reader: Reader, det: Detection, taken: Sequence[np.ndarray],
                card: tuple[float, float], named: Sequence[tuple[np.ndarray, str]] = (),
                new: Callable[[np.ndarray], bool] | None = None) -> list[tuple[Detection, Look]]:
    """The cards in a box larger than a card (`card`: the w x h of the cards on the table) that
    shows no card: the detector boxed a fan or a pile as one. Card-sized windows over it, in
    both its orientations (`Box.windows`), apart from the cards `taken` (as in `look_beside`),
    are read; of those read surely, the surest first, each that lies FAN_APART from every card
    kept, and TWIN_APART from any card of its name (kept, or `named`: (quad, name) of the cards
    known around), is a card. Windows off a card still read it (its index shows), and every
    window over a heap of cards face down reads as the back. `new`: only windows it takes (on a
    live table, over what changed since it last lay still: the card just laid) are read."""
    w, h = card
    if max(det.box.w / w, det.box.h / h) < LARGER:
        return []
    def open_to(b: Box) -> bool:  # a window that may hold a card not found yet
        return apart(b.quad(), taken) and (new is None or new(b.quad()))

    boxes = [b for b in _fan_windows(det.box, taken, w, h) if open_to(b)]
    looks = reader.read([rectify(frame, b.quad()) for b in boxes]) if boxes else []
    nudged = [b for b in _nudged(boxes, looks, FAN_STEP * w / 2) if open_to(b)]
    boxes += nudged
    looks += reader.read([rectify(frame, b.quad()) for b in nudged]) if nudged else []
    sure = sorted((i for i, look in enumerate(looks)
                   if look.reading.sure and look.no_card < NOT_A_CARD),
                  key=lambda i: -looks[i].reading.confidence)
    kept: list[tuple[Detection, Look]] = []
    for i in sure:
        b, label = boxes[i], looks[i].reading.label
        cards = [*named, *((k.quad, look.reading.label) for k, look in kept)]
        if all(_far(b.centre, k.box.centre, FAN_APART * w) for k, _ in kept) and \
                not near_twins(b.quad(), label, cards, w):
            kept.append((Detection(b, det.score, window=True), looks[i]))
    return kept


def at_a_rows_end(frame: np.ndarray, reader: Reader, det: Detection,
                  taken: Sequence[np.ndarray], card: tuple[float, float],
                  changed: Sequence[tuple[float, float]] = ()
                  ) -> tuple[Detection, Look] | None:
    """The card at an end of a box larger than a card (`card`: the w x h of the cards on the
    table) that lies on cards known (`taken`), read as a card, unsure: the detector boxed a row
    of cards laid half over one another as one, and the card laid last has no box of its own
    (Attacke zero-shot, seed 48: a red 2 laid half over its twin, itself half over a red 4, was
    never seen; every read of that typeface is unsure, so no window over the row reads surely,
    as `look_within` wants). The card-sized windows flush with each end of the box, and those
    centred on the places that changed under the last hand (`at_a_change`), lying as the
    first card it touches does, in the frame and apart from every card taken, are read: the
    likeliest read as a card, sure or not, is the card (unsure, the table is asked which). None
    where none reads as a card."""
    w, h = card
    angle = lying(det, taken)
    ends = det.box.held_in(angle).ends(w, h) if max(det.box.w / w, det.box.h / h) >= LARGER \
        else []
    return _likeliest(frame, reader, det, [*ends, *_windows_at(changed, card, angle)], taken)


def at_a_change(frame: np.ndarray, reader: Reader, det: Detection, taken: Sequence[np.ndarray],
                card: tuple[float, float], changed: Sequence[tuple[float, float]]
                ) -> tuple[Detection, Look] | None:
    """The card laid now under a box read unsure, or as no card, that lies across a card known
    (`taken`): the card-sized window centred where a place that changed under the last hand
    lies (`changed`), lying as the first card the box touches does, in the frame, apart from
    every card taken and read surely.
    Attacke zero-shot, seed 68: a red 5 laid half over a red 2 was boxed only as a card-sized
    box across the two, turned a quarter, read unsure; the change it made, read, is the 5.
    None where no such window reads surely as a card."""
    if not any(covered(q, [det.quad]) > 0 for q in taken):
        return None
    windows = [b for b in _windows_at(changed, card, lying(det, taken))
               if iou(b.quad(), det.quad) < SAME_BOX]  # the box itself read again: its read
    # stands (Attacke zero-shot, seed 39: a back boxed well, read as a shield 10 at 0.88, was
    # read at 0.99 a few pixels off, surely, and counted as a shield 10)
    found = _likeliest(frame, reader, det, windows, taken)
    return found if found is not None and found[1].reading.sure else None


def lying(det: Detection, taken: Sequence[np.ndarray]) -> float:
    """How a card laid in the box lies (its long axis's angle): as the first card known it
    touches (a row's cards lie alike), else as the box."""
    return next((box_of_quad(q).angle for q in taken if covered(q, [det.quad]) > 0),
                det.box.angle)


def _windows_at(centres: Sequence[tuple[float, float]], card: tuple[float, float],
                angle: float) -> list[Box]:
    return [Box(x, y, card[0], card[1], angle) for x, y in centres]


def _likeliest(frame: np.ndarray, reader: Reader, det: Detection, boxes: Sequence[Box],
               taken: Sequence[np.ndarray]) -> tuple[Detection, Look] | None:
    """Of the `boxes` in the frame and apart from the cards `taken`, the one read likeliest
    as a card, sure ones first, as a window of `det`; None where none reads as a card."""
    boxes = [b for b in boxes if apart(b.quad(), taken) and in_frame(frame, b)]
    looks = reader.read([rectify(frame, b.quad()) for b in boxes]) if boxes else []
    cards = [(b, look) for b, look in zip(boxes, looks, strict=True)
             if look.no_card < NOT_A_CARD and look.reading.named]
    if not cards:
        return None
    box, look = max(cards, key=lambda c: (c[1].reading.sure, c[1].reading.named[0][1]))
    return Detection(box, det.score, window=True), look


def near_twins(quad: np.ndarray, label: str | None, cards: Sequence[tuple[np.ndarray, str | None]],
               width: float) -> list[np.ndarray]:
    """The quads of the `cards` ((quad, name)) named `label` that lie nearer `quad` than
    TWIN_APART card widths: a box or window there may be that card read again, half off it."""
    centre = box_of_quad(quad).centre
    return [q for q, name in cards if label is not None and name == label
            and not _far(centre, box_of_quad(q).centre, TWIN_APART * width)]


def _nudged(boxes: Sequence[Box], looks: Sequence[Look], shift: float) -> list[Box]:
    """Windows `shift` (half the grid's step) beside the NUDGED likeliest unsure ones, each way
    along both axes: a grid a quarter card apart may straddle a card that a window nearer to
    it reads surely."""
    likely = sorted((i for i, look in enumerate(looks) if not look.reading.sure
                     and look.no_card < NOT_A_CARD and look.reading.named
                     and look.reading.named[0][1] >= NUDGE),
                    key=lambda i: -looks[i].reading.named[0][1])[:NUDGED]
    out = []
    for i in likely:
        b = boxes[i]
        u = (math.cos(b.angle) * shift, math.sin(b.angle) * shift)
        for dx, dy in (u, (-u[0], -u[1]), (-u[1], u[0]), (u[1], -u[0])):
            out.append(Box(b.cx + dx, b.cy + dy, b.w, b.h, b.angle))
    return out


def _fan_windows(box: Box, taken: Sequence[np.ndarray], w: float, h: float) -> list[Box]:
    """Card-sized windows over `box`, in its orientations and in those of the cards `taken`
    that it touches: a card laid on another lies much as that one does, where the detector may
    box the two askew."""
    out = box.windows(w, h, FAN_STEP * w, FAN_REACH * w)
    angles = [box.angle]
    for q in taken:
        angle = box_of_quad(q).angle
        if covered(q, [box.quad()]) > 0 and all(_askew(angle, a) for a in angles):
            angles.append(angle)
            out += box.held_in(angle).windows(w, h, FAN_STEP * w, FAN_REACH * w)
    return out


def _askew(a: float, b: float) -> bool:
    """Two long axes' directions ASKEW apart, either way round (a box's two orientations)."""
    d = abs(a - b) % (math.pi / 2)
    return min(d, math.pi / 2 - d) >= ASKEW


def _far(a: tuple[float, float], b: tuple[float, float], distance: float) -> bool:
    return math.hypot(a[0] - b[0], a[1] - b[1]) >= distance


def card_size(quads: Sequence[np.ndarray]) -> tuple[float, float] | None:
    """The size (w, h) of the cards boxed by `quads` (the median), None where there are none."""
    if not quads:
        return None
    boxes = [box_of_quad(q) for q in quads]
    return (float(np.median([b.w for b in boxes])), float(np.median([b.h for b in boxes])))


def apart(quad: np.ndarray, taken: Sequence[np.ndarray]) -> bool:
    """A box that is no box of the cards `taken`, lies not on them, and holds none of them."""
    return all(iou(quad, q) <= SAME_BOX and covered(q, [quad]) < PART_OF for q in taken) and \
        covered(quad, list(taken)) < PART_OF


def part_of_a_card(reading: Reading, quad: np.ndarray, sure: list[np.ndarray]) -> bool:
    """A box that is a part of cards read surely, not a card of its own: read unsure and lying
    inside them (a box across a pile), or smaller than a card and lying inside one, however it
    reads (the red half of a value card under a zero, boxed with the zero's white half, reads
    as a red zero)."""
    if not reading.sure:
        return covered(quad, sure) >= PART_OF
    area = cv2.contourArea(np.asarray(quad, np.float32))
    return any(area < SMALLER * cv2.contourArea(np.asarray(q, np.float32))
               and covered(quad, [q]) >= PART_OF for q in sure)


def across_a_pile(quads: list[np.ndarray], known: Sequence[np.ndarray] = (),
                  cards: Collection[int] = ()) -> set[int]:
    """Which of these surely read boxes lie across a pile: covered by the union of the others
    and of the `known` cards (boxes of cards seen lying there before) at PILE or more (a box
    spanning two overlapping cards of a fan reads as a third card, surely). The most covered
    goes first, and is then no cover for the rest. A card known before is never one: the middle
    card of a fan of three lies under its neighbours' boxes, not under their cards; nor are the
    boxes `cards` (indices: windows of a fan, `look_within`), which cover the others all the
    same."""
    out: set[int] = set()
    while True:
        rest = [i for i in range(len(quads)) if i not in out]
        cover = {i: covered(quads[i], [quads[j] for j in rest if j != i] + list(known))
                 for i in rest if i not in cards}
        worst = max(cover, key=lambda i: cover[i], default=None)
        if worst is None or cover[worst] < PILE:
            return out
        out.add(worst)


def decide(found: list[Detection], looks: list[Look], unique: bool = True) -> list[Seen]:
    """The cards of a frame from its boxes and their reads: no-card boxes dropped, a card read
    twice kept once (the surer read). `unique`: the deck holds one card of each name (Tightrope's),
    so one name read twice near each other is one card (both halves of a scoring card boxed); in
    a deck with copies (Attacke's), only where one box lies in the other."""
    seen: list[Seen] = []
    order = sorted(range(len(found)), key=lambda i: -looks[i].reading.confidence)
    sure_at = [i for i in order if looks[i].reading.sure and looks[i].no_card < NOT_A_CARD]
    across = {sure_at[k] for k in across_a_pile(
        [found[i].quad for i in sure_at],
        cards=[k for k, i in enumerate(sure_at) if found[i].window])}
    sure = [found[i].quad for i in sure_at if i not in across]
    for i in order:
        look, det = looks[i], found[i]
        if look.no_card >= NOT_A_CARD or i in across:
            continue
        s = Seen(look.reading, turned(det.quad, look.turns), det.score)
        if part_of_a_card(s.reading, det.quad, sure):
            continue
        if s.reading.sure and any(
                k.reading.label == s.reading.label
                and float(np.hypot(k.center[0] - s.center[0], k.center[1] - s.center[1]))
                < SAME_CARD * k.width
                and (unique or max(covered(s.quad, [k.quad]), covered(k.quad, [s.quad])) >= PART_OF)
                for k in seen):
            continue
        seen.append(s)
    return seen


def look_at(frame: np.ndarray, reader: Reader, detector: Detector | None = None) -> list[Seen]:
    """The cards in one frame."""
    found = distinct((detector or Detector()).find(frame))
    looks = reader.read([rectify(frame, d.quad) for d in found])
    cards = [d.quad for d, look in zip(found, looks, strict=True)
             if look.no_card < NOT_A_CARD and not a_zero(look)]
    size = card_size([d.quad for d, look in zip(found, looks, strict=True)
                      if look.reading.sure and look.no_card < NOT_A_CARD])
    for i, look in enumerate(looks):
        if look.no_card < NOT_A_CARD and half_of_a_known_card(found[i], look, cards):
            looks[i] = look._replace(no_card=1.0)  # a part of that card, no card of its own
        elif look.no_card < NOT_A_CARD:
            found[i], looks[i] = whole_of_half(frame, reader, found[i], look, cards, size) or \
                _as_zero_half(frame, reader, found, looks, i, size)
        else:
            found[i], looks[i] = look_beside(frame, reader, found[i],
                                             _others(found, looks, i)) or (found[i], look)
    card = card_size([d.quad for d, look in zip(found, looks, strict=True)
                      if look.reading.sure and look.no_card < NOT_A_CARD])
    for i in range(len(found)):
        if card is not None and looks[i].no_card >= NOT_A_CARD:
            taken = [d.quad for d, look in zip(found, looks, strict=True)
                     if look.no_card < NOT_A_CARD]
            named = [(d.quad, look.reading.label) for d, look in zip(found, looks, strict=True)
                     if look.reading.label is not None and look.no_card < NOT_A_CARD]
            for det, look in look_within(frame, reader, found[i], taken, card, named):
                found.append(det)
                looks.append(look)
    return decide(found, looks, unique=reader.tightrope)


def _others(found: list[Detection], looks: list[Look], i: int) -> list[np.ndarray]:
    """The quads of the frame's boxes but the i-th that show a card."""
    return [d.quad for k, d in enumerate(found) if k != i and looks[k].no_card < NOT_A_CARD]


def _as_zero_half(frame: np.ndarray, reader: Reader, found: list[Detection], looks: list[Look],
                  i: int, size: tuple[float, float] | None) -> tuple[Detection, Look]:
    """The i-th box, read as a zero that is half a card (`half_a_card`): the zero it is half
    of (`zero_of_its_half`), else read unsure; any other box as it is."""
    det, look = found[i], looks[i]
    if not half_a_card(det, look, size):
        return det, look
    named = [(d.quad, looks[k].reading.label) for k, d in enumerate(found)
             if k != i and looks[k].reading.sure]
    return zero_of_its_half(frame, reader, det, look, _others(found, looks, i), named) or \
        (det, unsure(look))


def as_json(seen: Seen, label: bool = False) -> dict:
    """One card of `recognize --json`; with `label` (a deck of another game's cards) also the
    card's name, `"label": "red-7"` (null where the reader abstains)."""
    r = seen.reading
    card: dict = {"kind": r.kind, "value": r.value}
    if label:
        card["label"] = r.label
    if r.colour is not None:
        card["colour"] = r.colour
    card["confidence"] = round(r.confidence, 4)
    card["center"] = [round(v, 1) for v in seen.center]
    card["corners"] = [[round(float(x), 1), round(float(y), 1)] for x, y in seen.quad]
    return card


def recognize(frame: np.ndarray, reader: Reader, detector: Detector | None = None) -> list[dict]:
    """The `recognize --json` "cards" list for one frame."""
    return [as_json(s, not reader.tightrope) for s in look_at(frame, reader, detector)]
