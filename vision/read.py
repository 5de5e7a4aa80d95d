"""Read rectified card crops: which of the 61 cards each is, which way up, and how sure.

The reader is a small CNN (vision/models/reader.onnx) trained on hundreds of typefaces, layouts
and tables. For each crop it gives 2 classes per card (upright, upside down: a 6 and a 9 differ
only by the card's own orientation) and "no card", plus an embedding a taught deck is read from.

Every crop is read twice, as cut and turned round. The two looks must name the same card (a
card's layout shows its value more than once: its big numeral and its indices, or a scoring
card's two halves, and the two looks weigh them differently); their probabilities are combined
(geometric mean), then calibrated. Below the calibrated line the answer is `unknown`, an
abstention that still carries the honest candidates. A taught reader (a deck file, vision.teach)
reads with the deck's own head and keeps the zero-shot head as a second opinion: where the deck
is unsure, a sure zero-shot read of the deck's best guess is taken; where both are sure of
different cards, neither is; and a sure taught read stands only where the general reader ranks
the same card first, at CONFIRM or more (or a little less where the deck's head is nearly sure of
it too), or where the crop lies nearer the deck's own photo of the card than of each of its
rivals (vision.compare: the deck's last word). Where the general reader confirms the value but
takes the card for the other kind (a number 3 for a scoring 3), the read is unsure on the deck's
own line: where the card lies tells the kind, and the game's narrowing may take it there.
At the table, a reader given a memory (vision.memory) keeps the cards people named when it was
unsure, and reads them surely when they come back.

Other games' cards (Attacke's `red-7`, a playing card's `QH`) are read by a second network,
`reader-games` (GAMES_NETWORK), trained the same way on those decks: zero-shot it reads a deck of
those names by its own classes of them (`Reader.zero_shot(names)`); a deck taught such names is
read by the deck's head, with that network as its second opinion, as above. Such readings carry
the names only (`Reading.of_name`). A deck taught before that network existed (`Deck.network`
"reader") is read by its own head alone: the Tightrope reader knows none of its classes. A
foreign deck's head also sees the crop's colours (`colour_features`, `Deck.features`): the
Tightrope network's embedding tells blue from red but hardly purple from green from yellow.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import NamedTuple

import numpy as np

from vision.colour import colour_features
from vision.compare import Photos
from vision.deck import GAMES_NETWORK, TIGHTROPE, Deck, Head, card_of_context
from vision.geometry import READ_H, READ_W
from vision.glare import GLARED, WASHED_OUT, washed_out
from vision.memory import TableMemory
from vision.network import MODEL_DIR, ModelError, Network, bundled, normalise
from vision.types import ALL_CARDS, GUESSES, Reading

N_CARDS = len(ALL_CARDS)
REJECT = 2 * N_CARDS
LEAD = 4.0  # the zero-shot reader settles a taught read only this far ahead of its runner-up
# A reading's candidates are its first GUESSES and every other card with CANDIDATE or more: a
# game's narrowing conditions on what its rules rule out, and the five first left a read's spread
# tail (0.021 of a 6 read at 0.69, design 11, zero-shot) counted as cards the rules allow. What
# is left out (at most 0.006) still counts so. Every card would cost 60 us a read more.
CANDIDATE = 1e-4
# A taught Tightrope read is sure where the general reader ranks the same card first at CONFIRM
# or more, or where its deck's head gives it FLOOR or more, the general reader is not sure of
# another card, and the crop lies nearer the deck's photo of the card than of each of the
# head's other candidates (vision.compare.Photos). A deck's head is fitted on clean photos and
# is sure too soon of a card half hidden or under glare: the calib designs, taught (2,039
# cards), read 96.7 % right and 6 wrong at the heads' own lines (a 9 under glare as 10, a 43
# under another card as 47 at 0.985, a 38 cut by the frame as 31 at 0.9895); the general
# reader's 0.95 alone left none wrong and 83.2 % right, these rules none and 93.0 % (24 Nov).
# Tuned on the calib designs only.
CONFIRM = 0.98
FLOOR = 0.5
# ... or where the deck's head gives it BOTH_TAUGHT or more and the general reader ranks it first
# at BOTH_ZERO or more: two readers nearly sure of one card. The general reader's confidence
# moves by 0.02 when the crop is cut a third of a pixel aside (a card boxed the other way up),
# so CONFIRM alone drops plain cards read 0.97 and 0.99 by it. Calib designs, taught (2,021
# cards, 27 Nov): 15 more read right, none wrong; the surest wrong pair there was a 23 read as
# 27 at 0.93 (head) and 0.95 (general). BOTH_ZERO 0.9 -> 0.6 (28 Nov): on four calib sets
# (seeds 2026-2028 and 2030, 1,200 frames, taught) the reads it left unsure with the head at 0.97
# or more and the general reader first were all right (22 over 0.3, 18 over 0.6); every wrong
# pair of the general reader first had the head at 0.92 or less. Tuned on the calib designs only.
BOTH_TAUGHT, BOTH_ZERO = 0.97, 0.6
# A box the deck's head leans to call no card, though it ranks first, with NOT_NO_CARD or more,
# the card the general reader is sure of, is that card read unsure: the table is asked. Calib
# designs, taught (seeds 2027 and 2028, 600 frames): three such boxes on cards (0.23, 0.23 and
# 0.47: zeros half under another card or in the dark, a 1 under a hand), one on no card (0.001).
NOT_NO_CARD = 0.2
# A deck of other games' cards is confirmed by the games reader alone: tuned on the calib
# designs of Attacke and playing cards (taught, 300 frames each): 0.95 gave 95.7 % and 97.6 %
# right, 0.8 97.0 % and 97.8 %, with no more wrong reads (0 and 1); 0.5 one more wrong.
CONFIRM_GAMES = 0.8

__all__ = ["CardImageError", "GAMES_NETWORK", "ModelError", "Reader", "Look", "unsure"]


class CardImageError(ValueError):
    """A card crop that cannot be read at all (empty, wrong shape)."""


class Look(NamedTuple):
    """One crop read: the reading, the quarter turns (0 or 2) that bring the face upright, and
    how likely the crop shows no card at all."""

    reading: Reading
    turns: int
    no_card: float


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """The temperature that minimises the negative log-likelihood of classes y (golden-section
    search): the reader's and a taught deck's calibration."""
    def nll(t: float) -> float:
        p = softmax(logits / t)
        return float(-np.log(p[np.arange(len(y)), y] + 1e-12).mean())

    lo, hi = 0.2, 10.0
    for _ in range(40):
        a, b = lo + 0.382 * (hi - lo), lo + 0.618 * (hi - lo)
        if nll(a) < nll(b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def turned_round(p: np.ndarray) -> np.ndarray:
    """Class probabilities (or logits) of a crop turned 180 degrees, as the crop's own: each
    card's upright and upside-down classes swap (any deck: 2 classes a card, "no card" last)."""
    out = p.copy()
    reject = p.shape[1] - 1
    out[:, :reject] = p[:, :reject].reshape(-1, reject // 2, 2)[:, :, ::-1].reshape(-1, reject)
    return out


def combine(p_cut: np.ndarray, p_turned: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the two looks' probabilities combined, whether they name the same card)."""
    a, b = p_cut, turned_round(p_turned)
    q = np.sqrt(a * b)
    q /= q.sum(axis=1, keepdims=True)
    agree = per_card(a).argmax(axis=1) == per_card(b).argmax(axis=1)
    return q, agree


def per_card(p: np.ndarray) -> np.ndarray:
    """(n, 2k + 1) -> (n, k + 1): each card's two orientations summed, "no card" last."""
    reject = p.shape[1] - 1
    return np.concatenate([p[:, :reject].reshape(-1, reject // 2, 2).sum(axis=2),
                           p[:, reject:]], axis=1)


def reading_of(q: np.ndarray, agree: bool, line: float,
               names: tuple[str, ...] | None = None) -> Look:
    """The reading (and its upright turns) of one crop's combined probabilities: of the
    Tightrope cards, or (`names`: another game's deck, the classes' names) by name."""
    cards = per_card(q[None])[0]
    k = len(cards) - 1
    p = cards.tolist()
    order = [i for n, i in enumerate(np.argsort(-cards[:k]).tolist())
             if n < GUESSES or p[i] >= CANDIDATE]
    best = order[0]
    turns = 0 if q[2 * best] >= q[2 * best + 1] else 2
    sure = agree and p[best] >= line and p[best] > p[k]
    probs = [p[i] for i in order]
    if names is not None:
        named = tuple(zip([names[i] for i in order], probs, strict=True))
        return Look(Reading.of_name(names[best] if sure else None, p[best], named, line), turns,
                    p[k])
    candidates = tuple(zip([ALL_CARDS[i] for i in order], probs, strict=True))
    return Look(Reading.of(ALL_CARDS[best] if sure else None, p[best], candidates, line), turns,
                p[k])


@functools.cache
def _zero_shot_head(network: str = "reader") -> Head:
    """The network's own last layer, as a deck head (what teaching starts from)."""
    meta = bundled(network).meta
    path = MODEL_DIR / f"{network}-head.npz"
    if not path.is_file():
        raise ModelError(f"{path} is missing (python -m vision.train)")
    with np.load(path, allow_pickle=False) as z:
        return Head(z["w"].astype(np.float32), z["b"].astype(np.float32),
                    float(meta["temperature"]), float(meta["line"]))


def network_for(names: tuple[str, ...]) -> str:
    """The bundled network that reads these card names: the Tightrope reader for its cards, the
    games reader for other games' cards where it is bundled and knows them all."""
    if names == TIGHTROPE or not (MODEL_DIR / f"{GAMES_NETWORK}.onnx").is_file():
        return "reader"
    return GAMES_NETWORK if set(names) <= set(bundled(GAMES_NETWORK).meta["classes"]) \
        else "reader"


def columns_of(classes: list[str] | tuple[str, ...], names: tuple[str, ...]
               ) -> np.ndarray | None:
    """The network's output columns of the cards `names` (each card upright, turned round, then
    "no card"), None where the network does not know them all. Reading only a deck's own
    columns: a frame of Attacke holds no playing card."""
    index = {name: i for i, name in enumerate(classes)}
    if not set(names) <= set(index):
        return None
    cols = [c for name in names for c in (2 * index[name], 2 * index[name] + 1)]
    return np.array([*cols, 2 * len(classes)], np.int64)


class Reader:
    """Zero-shot (`Reader.zero_shot()`) or taught (`Reader.from_deck(path)`) card reader; a
    deck of another game's cards reads them by name (`names`, `Reading.label`)."""

    def __init__(self, network: Network | None = None, deck: Deck | None = None,
                 source: str = "zero-shot", names: tuple[str, ...] = TIGHTROPE) -> None:
        self.deck = deck
        self.names = deck.names if deck is not None else names
        """The names of the cards it reads (Tightrope's labels unless its deck says others)."""
        self.network = network or bundled(deck.network if deck is not None else
                                          network_for(names))
        if deck is not None and deck.digest and deck.digest != self.network.digest:
            raise ModelError(f"the deck was taught on other weights of the {deck.network} "
                             "network (the companion's reader was trained again since): fit it "
                             "again from its examples, `teach --deck DECK --out DECK`")
        meta = self.network.meta
        self.temperature, self.line = float(meta["temperature"]), float(meta["line"])
        self.mean, self.std = float(meta["mean"]), float(meta["std"])
        self.source = source
        self.memory: TableMemory | None = None  # the cards named at the table (`remember`)
        # the network's own reading of these cards (None: it does not know them)
        self.columns = columns_of(meta.get("classes", TIGHTROPE), self.names)
        if deck is None and self.columns is None:
            raise ModelError(f"no bundled reader knows the cards {', '.join(names[:3])}...: "
                             "teach the deck (`teach --game`)")

    @classmethod
    def zero_shot(cls, names: tuple[str, ...] = TIGHTROPE) -> Reader:
        """The bundled reader of these cards, nothing taught."""
        return cls(names=names)

    @classmethod
    def from_deck(cls, path: str | Path) -> Reader:
        try:
            return cls(deck=Deck.load(path), source=f"deck {Path(path).name}")
        except ModelError as exc:
            raise ModelError(str(exc).replace("DECK", str(path))) from None

    @property
    def tightrope(self) -> bool:
        """Whether it reads the Tightrope deck (its readings carry CardIds)."""
        return self.names == TIGHTROPE

    @property
    def threshold(self) -> float:
        return self.deck.head.line if self.deck is not None else self.line

    def forward(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(logits, embeddings) of each crop, as cut and turned round: (2n, ...), turned last."""
        batch = np.stack([_check(c) for c in crops])
        both = np.concatenate([batch, batch[:, ::-1, ::-1]])
        logits, embedding = self.network.run(normalise(both, self.mean, self.std))
        return logits, embedding

    def probabilities(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray,
                                                               np.ndarray, np.ndarray]:
        """(zero-shot q, zero-shot agree, taught q, taught agree); the taught pair is the
        zero-shot pair again when no deck is taught."""
        q0, agree0, qt, agree_t, _ = self._probabilities(crops)
        return q0, agree0, qt, agree_t

    def _probabilities(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray, np.ndarray,
                                                                np.ndarray]:
        """`probabilities`, and the embeddings (`forward`)."""
        n = len(crops)
        logits, embedding = self.forward(crops)
        p = softmax((logits if self.columns is None else logits[:, self.columns])
                    / self.temperature)
        q0, agree0 = combine(p[:n], p[n:])
        if self.deck is None:
            return q0, agree0, q0, agree0, embedding
        pt = softmax(self.deck.head.logits(deck_input(self.deck, embedding, crops)))
        qt, agree_t = combine(pt[:n], pt[n:])
        return q0, agree0, qt, agree_t, embedding

    def read(self, crops: list[np.ndarray]) -> list[Look]:
        """A reading and the upright quarter turns for each READ_W x READ_H crop."""
        if not crops:
            return []
        q0, agree0, qt, agree_t, embedding = self._probabilities(crops)
        names = None if self.tightrope else self.names
        out = []
        for i in range(len(crops)):
            if self.deck is None:
                out.append(reading_of(q0[i], bool(agree0[i]), self.line, names))
                continue
            taught = reading_of(qt[i], bool(agree_t[i]), self.deck.head.line, names)
            if self.columns is None:  # the network does not know the deck's cards
                out.append(taught)
                continue
            zero = reading_of(q0[i], bool(agree0[i]), self.line, names)
            look = _second_opinion(taught, zero, self.confirm)
            if look.reading.label is None:
                look = self._by_photos(crops[i], taught, zero, look)
            out.append(look)
        out = _past_glare(out, crops)
        return out if self.memory is None else self._recalled(out, embedding)

    def remember(self, context: np.ndarray, name: str, read_as: str | None = None) -> None:
        """A person named the card in the middle of `context` (a teach context crop), which
        the camera read surely as `read_as` (None: unsure): later unsure reads of it may be
        recalled, and where the camera was wrong, its later sure reads of that card are doubted
        (vision.memory). Nothing without a memory."""
        if self.memory is None or name not in self.names:
            return
        crop = card_of_context(context)
        q0, _, qt, _, embedding = self._probabilities([crop])
        q, i = (q0 if self.columns is not None else qt)[0], self.names.index(name)
        self.memory.add(self.network.name, name, embedding[1 if q[2 * i + 1] > q[2 * i] else 0],
                        read_as)

    def _recalled(self, looks: list[Look], embedding: np.ndarray) -> list[Look]:
        """Unsure looks whose first guess (no zero: the rules take a zero only on the reader's
        own word) the memory recalls, read surely as that card; sure looks it doubts (a crop
        like it was named another card), unsure. Looks a glare washed out (read on no line)
        stay unsure."""
        n, out, memory = len(looks), list(looks), self.memory
        for i, look in enumerate(looks):
            r = look.reading
            if memory is None or not r.named or not math.isfinite(r.line):
                continue
            upright = embedding[i if look.turns == 0 else n + i]
            name, confidence = r.named[0]
            if r.sure:
                if memory.doubts(self.network.name, name, upright):
                    out[i] = unsure(look)
            elif not (r.candidates and r.candidates[0][0].is_zero) and \
                    memory.recalls(self.network.name, name, confidence, upright):
                out[i] = look._replace(reading=_named_first(r))
        return out

    @functools.cached_property
    def photos(self) -> Photos | None:
        """The deck's photos, its last word on a read its rules leave unsure (built at the first
        such read). Any game's deck: since teach's search was mended (PHOTO_SEARCH 3) they read
        Attacke's calib designs 95.5 % right (94.7 % without), with no new wrong read."""
        return Photos(self.deck.examples) if self.deck is not None else None

    def _by_photos(self, crop: np.ndarray, taught: Look, zero: Look, unsure: Look) -> Look:
        """The deck's best guess, sure, where its head gives it FLOOR or more, the general
        reader is not sure of another card, and the crop lies nearer the deck's photo of it
        than of each of the head's other candidates (vision.compare); else `unsure`. Also where
        the head's two looks name different cards: the photos are compared either way up, and
        on the calib designs this read 0.9 points more Tightrope cards right, none wrong.
        Another game's card must also be the games reader's first guess, sure or not: an
        unseen Attacke design whose values print as question marks was read 12 times wrong by
        its photos (a yellow 2 as yellow 3, the games reader's first guess yellow 4), none
        with this; its calib designs read the same either way (Tightrope's calib designs would
        lose 17 right reads of a 1 the general reader takes for a 4, none wrong)."""
        t = taught.reading
        if self.photos is None or not t.named or t.named[0][1] < FLOOR:
            return unsure
        best = t.named[0][0]
        if zero.reading.label not in (None, best):
            return unsure
        if not self.tightrope and zero.reading.named and zero.reading.named[0][0] != best:
            return unsure  # another game's deck: the games reader must lean the same way
        upright = crop if taught.turns == 0 else crop[::-1, ::-1]
        if not self.photos.nearer(upright, best, [name for name, _ in t.named[1:GUESSES]]):
            return unsure
        return taught._replace(reading=_named_first(t))

    @property
    def confirm(self) -> float:
        """How sure the network must be of a taught read's card for it to stand."""
        return CONFIRM if self.tightrope else CONFIRM_GAMES

    def read_one(self, crop: np.ndarray) -> Look:
        return self.read([crop])[0]


def deck_input(deck: Deck, embedding: np.ndarray, crops: list[np.ndarray]) -> np.ndarray:
    """What the deck's head reads of crops read as cut and turned round (`Reader.forward`'s 2n
    embeddings): the embedding, and the crops' colours where the deck was taught them."""
    if deck.features != "colour":
        return embedding
    colours = colour_features(np.stack(crops))  # a crop turned round has the same colours
    return np.concatenate([embedding, np.concatenate([colours, colours])], axis=1)


def _second_opinion(taught: Look, zero: Look, confirm: float = CONFIRM) -> Look:
    """The taught read, checked by the zero-shot one (which must rank the same card first, at
    `confirm` or more, or at BOTH_ZERO where the deck's head gives it BOTH_TAUGHT; a card of the
    same value but the other kind leaves the kind to where the card lies)."""
    t, z = taught.reading, zero.reading
    if t.label is None:
        # unsure of its deck, but the general reader is sure of the same card, which the deck
        # ranks first, well ahead of the next card and of no card at all (a box on the blue half
        # of a scoring 9 the deck took for no card: the general reader read a blue zero)
        if z.label is not None and t.named and z.label == t.named[0][0] and (
                len(t.named) < 2 or t.named[0][1] >= LEAD * t.named[1][1]):
            if t.named[0][1] > taught.no_card:
                return zero
            if t.named[0][1] >= NOT_NO_CARD:
                # the deck leans to no card, yet gives its first card a fair share: a card, but
                # which one is the table's to say (a blue zero under a glare its deck read as
                # no card 0.74 was left out of its trick); glares and half-card boxes get 0.12
                # or less
                return unsure(zero)
        return taught  # unsure, or torn between two cards its deck prints alike (a 6 and a 9)
    if z.named and z.named[0][0] == t.label and _confirms(z.named[0][1], t.confidence, confirm):
        return taught
    if _of_its_value(t, z, confirm):
        # the two agree on the value, not on the kind (an unseen design whose number cards the
        # general reader takes for scoring cards): where the card lies says which, a number card
        # in a seat's place, a scoring card in the row. Unsure on the deck's own line, so that
        # the game's narrowing may take the card there (design 11, taught: a 3 the deck read at
        # 0.99 and the general reader as a scoring 3, 0.86, and as the 3, 0.10)
        return taught._replace(reading=Reading.of(None, t.confidence, t.candidates, t.line))
    # the general reader sure of another card; a card half hidden or a typeface that fools
    # the deck's head (its photos may settle it: Reader._by_photos); or a 6 and a 9, which
    # differ only in which way up the card lies, which one photo a card may not teach, and
    # which the general reader (trained on hundreds of layouts) confirms
    return unsure(taught)


def _confirms(zero_p: float, taught_p: float, confirm: float) -> bool:
    """The general reader's share `zero_p` confirms a sure taught read of `taught_p`."""
    return zero_p >= confirm or (taught_p >= BOTH_TAUGHT and zero_p >= BOTH_ZERO)


def _of_its_value(t: Reading, z: Reading, confirm: float) -> bool:
    """The general reader ranks first a card of the taught card's value but of the other kind,
    and gives that value (either kind) a share that confirms the taught read."""
    card = t.card
    first = z.candidates[0][0] if z.candidates else None
    if card is None or first is None or first.value != card.value or first.kind == card.kind:
        return False
    share = sum(p for c, p in z.candidates if c.value == card.value and c.colour is None)
    return _confirms(share, t.confidence, confirm)


def _past_glare(looks: list[Look], crops: list[np.ndarray]) -> list[Look]:
    """Sure looks stay sure unless a glare washed out half the card's face, or GLARED of a
    zero's (a glare's halo on the bare table is a ring, as a zero's face is); unsure looks stay
    unsure whatever a game's rules rule out where it washed out GLARED of it (vision.glare):
    they are read on no line (math.inf)."""
    washed = washed_out(np.stack(crops))
    out = list(looks)
    for i, (look, share) in enumerate(zip(looks, washed, strict=True)):
        card = look.reading.card
        zero = card is not None and card.is_zero
        if share >= (WASHED_OUT if look.reading.label is not None and not zero else GLARED):
            out[i] = unsure(look)
    return out


def _named_first(r: Reading) -> Reading:
    """The reading with its first guess named, surely."""
    return (Reading.of(r.candidates[0][0], r.confidence, r.candidates, r.line)
            if r.candidates else Reading.of_name(r.named[0][0], r.confidence, r.named, r.line))


def unsure(look: Look) -> Look:
    """The look with its reading unsure: the same candidates, no card named."""
    r = look.reading
    return look._replace(reading=Reading.of(None, r.confidence, r.candidates, math.inf)
                         if r.candidates else
                         Reading.of_name(None, r.confidence, r.named, math.inf))


def _check(crop: np.ndarray) -> np.ndarray:
    if not isinstance(crop, np.ndarray) or crop.shape != (READ_H, READ_W, 3) or \
            crop.dtype != np.uint8:
        shape = getattr(crop, "shape", None)
        raise CardImageError(f"a card crop must be {READ_H}x{READ_W}x3 uint8 (geometry.rectify), "
                             f"got {shape}")
    return crop
