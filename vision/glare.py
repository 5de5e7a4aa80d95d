"""How much of a card's face a glare washed out: the reader is not asked to see through it.

A glare is light brighter than the card's own stock, and colourless. Where it lies over half
the face, what it hides may be just what tells two cards apart (the middle pip of a five of
clubs, read surely as the four; solo bench, unseen design, seed 5), so such a crop is read
unsure and the table is asked. A read already unsure is not made sure by what a game's rules
rule out where a glare washed out GLARED of the face: a glare on the bare table, boxed as a
card, reads as a red zero (0.93; unseen design 88 on felt, its ring the glare's halo), and with
the blue zero revealed the rules left only the red one. A zero is read surely only where less
than GLARED of it is washed out: its face is a ring, as that glare's halo was (on the calib
designs 1 of 276 zeros read right is so washed out). The stock's brightness is taken from
strips just inside the card's edges, which a glare over the middle leaves as they were; a card
lit evenly bright is not washed out, its pips and strokes still stand out from its stock.
"""

from __future__ import annotations

import numpy as np

WASHED_OUT = 0.5     # a crop whose face is this much lost in a glare is read unsure
GLARED = 0.3         # ... a zero, or an unsure read (no narrowing then), this much lost
RING = (0.03, 0.10)  # the card's stock: strips this far in from each edge (of its length),
SIDE = 0.15          # leaving this much of each end out (rounded corners show the table)
FACE = 0.12          # the face: the crop inside this margin
ABOVE_STOCK = 10     # glare: brighter than the stock's bright end by this much (of 255),
BRIGHT = 245         # at least this bright,
GREY = 10            # and nearly colourless: its channels' spread at most 1 / GREY of its value


def washed_out(crops: np.ndarray) -> np.ndarray:
    """The share of each card crop's face (n x h x w x 3 BGR, uint8) that a glare washed out.
    Every other pixel is looked at (a share of the area needs no more), all crops at once and
    in uint8 (a read must stay cheap: 0.06 ms for ten crops)."""
    c = crops[:, ::2, ::2]
    blue, green, red = c[..., 0], c[..., 1], c[..., 2]
    value = np.maximum(np.maximum(blue, green), red)
    low = np.minimum(np.minimum(blue, green), red)
    n, h, w = value.shape
    a, b = round(h * RING[0]), round(h * RING[1])
    sa, sb = round(w * SIDE), w - round(w * SIDE)
    c0, c1 = round(w * RING[0]), round(w * RING[1])
    ta, tb = round(h * SIDE), h - round(h * SIDE)
    ring = np.concatenate([value[:, a:b, sa:sb].reshape(n, -1),
                           value[:, h - b:h - a, sa:sb].reshape(n, -1),
                           value[:, ta:tb, c0:c1].reshape(n, -1),
                           value[:, ta:tb, w - c1:w - c0].reshape(n, -1)], axis=1)
    k = (3 * ring.shape[1]) // 4
    stock = np.partition(ring, k, axis=1)[:, k].astype(np.int16)
    fh, fw = round(h * FACE), round(w * FACE)
    v, lo = value[:, fh:h - fh, fw:w - fw], low[:, fh:h - fh, fw:w - fw]
    line = np.maximum(stock + ABOVE_STOCK, BRIGHT)[:, None, None]
    return glared(v, lo, line).reshape(n, -1).mean(axis=1)


def glared(value: np.ndarray, low: np.ndarray, line: np.ndarray | int = BRIGHT) -> np.ndarray:
    """Where a glare washed the picture out: pixels `line` bright or more (BRIGHT unless said)
    and nearly colourless (`value`, `low`: each pixel's brightest and dimmest channel, uint8)."""
    return (value >= line) & (value - low <= value // GREY)
