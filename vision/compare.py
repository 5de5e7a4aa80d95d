"""Compare a card crop with a taught deck's own photos of the cards it may be.

A taught deck keeps one photo of each of its cards (vision.deck). Its head reads the network's
embedding, which a typeface never trained on can fool, and which is sure too late of a card half
hidden or under glare. The photos are the deck itself: a crop of the 17 lies nearer the photo of
the 17 than of the 11 on the very pixels where those two photos differ, whatever the typeface.
`Photos.nearer` asks that of a read card against each rival (either way up: a 6 turned round is
a rival of a 9), where the crop looks like the card's photo overall (not half hidden). Two cards
whose photos print alike in grey are told apart by their colours (a red zero and a blue one,
turned round); where those are alike too (a 6 and a 9 on a deck that prints them alike, turned
round), they cannot be told apart this way, and the answer is no.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import cv2
import numpy as np

from vision.colour import colour_features
from vision.deck import Example, card_of_context

MARGIN = 10       # px of a photo's edge left out: its box or the crop's may be off by that much
DIFFER = 1.0      # two photos differ where their normalised grey levels are this far apart
MIN_PIXELS = 20   # fewer such pixels: the two cards print alike
# The crop's distance to the read card's photo, over its distance to a rival's, on the pixels
# where the two photos differ, must stay below this. Calib designs, taught (the reads their
# heads gave at 0.5 or more that vision.read's rules left unsure, the general reader not sure
# of another card): at 0.7, 118 of 139 right reads were kept and none of the 7 wrong ones
# (their ratios 1.07 and more). Never tuned on the unseen set.
RATIO = 0.7
# The crop must also look like the read card's photo overall (their correlation, where the photo
# lies): a card half hidden does not, and what hides it may happen to lie farther from a
# rival's photo than from its own. The calib designs' right reads of that kind: 5 % below 0.81,
# median 0.95; their wrong reads 0.11 to 0.71.
FIT = 0.8
COLOURS_DIFFER = 1.0  # two photos alike in grey differ in colour this far (colour_features)


def _grey(crop: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32),
                            (0, 0), 1.0)


def _standard(x: np.ndarray) -> np.ndarray:
    return (x - x.mean()) / (x.std() + 1e-6)


class Photos:
    """The deck's photos of its cards, by name, as reader crops (grey, blurred a little)."""

    def __init__(self, examples: Iterable[Example]) -> None:
        self.inner: dict[str, np.ndarray] = {}
        self.colours: dict[str, np.ndarray] = {}
        for e in examples:
            if e.source == "photo" and e.label not in self.inner:
                card = card_of_context(e.image)
                self.inner[e.label] = _grey(card)[MARGIN:-MARGIN, MARGIN:-MARGIN]
                self.colours[e.label] = colour_features(card[None])[0]

    def nearer(self, crop: np.ndarray, card: str, rivals: Sequence[str]) -> bool:
        """Whether the upright crop (READ_W x READ_H) shows `card` rather than any of `rivals`,
        on the pixels where their photos differ. False where a photo is missing."""
        if card not in self.inner or not rivals or any(r not in self.inner for r in rivals):
            return False
        grey = _grey(crop)
        mine = _placed(grey, self.inner[card])
        lies = ~np.isnan(mine)
        if float((_standard(grey[lies]) * mine[lies]).mean()) < FIT:
            return False
        colours = colour_features(crop[None])[0]
        for rival in rivals:
            for theirs in (self.inner[rival], self.inner[rival][::-1, ::-1]):
                placed = _placed(grey, theirs)
                both, differ = _differ(mine, placed)
                if int(differ.sum()) < MIN_PIXELS:  # the two print alike in grey
                    if not _nearer_in_colour(colours, self.colours[card], self.colours[rival]):
                        return False
                elif not _nearer(grey, mine, placed, both, differ):
                    return False
        return True


def _placed(grey: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """A photo's inner part standardised and laid where it best lines up with the crop (shifted
    by up to MARGIN px either way); NaN where it does not reach. Each photo is laid on its own:
    teach's box on a photo may be off too, and two photos compared as cut would differ by
    that shift more than by their numerals."""
    match = cv2.matchTemplate(grey, np.ascontiguousarray(inner), cv2.TM_CCOEFF_NORMED)
    x, y = cv2.minMaxLoc(match)[3]
    h, w = inner.shape
    out = np.full(grey.shape, np.nan, np.float32)
    out[y:y + h, x:x + w] = _standard(inner)
    return out


def _differ(mine: np.ndarray, theirs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(where both photos lie, where they differ) as masks."""
    both = ~np.isnan(mine) & ~np.isnan(theirs)
    differ = both.copy()
    differ[both] = np.abs(mine[both] - theirs[both]) > DIFFER
    return both, differ


def _nearer_in_colour(crop: np.ndarray, mine: np.ndarray, theirs: np.ndarray) -> bool:
    """Whether the crop's colours lie nearer the card's photo's than the rival's, by RATIO, the
    two photos' colours COLOURS_DIFFER apart or more."""
    if float(np.linalg.norm(mine - theirs)) < COLOURS_DIFFER:
        return False
    return float(np.linalg.norm(crop - mine)) < RATIO * float(np.linalg.norm(crop - theirs))


def _nearer(grey: np.ndarray, mine: np.ndarray, theirs: np.ndarray, both: np.ndarray,
            differ: np.ndarray) -> bool:
    """Whether the crop lies nearer `mine` than `theirs` by RATIO on the pixels where the two
    differ (`_differ`'s masks)."""
    seen = _standard(grey[both])  # the crop where both photos lie, standardised
    at = np.zeros(grey.shape, np.float32)
    at[both] = seen
    to_mine = float(((at - mine)[differ] ** 2).mean())
    to_theirs = float(((at - theirs)[differ] ** 2).mean())
    return to_mine < RATIO * to_theirs
