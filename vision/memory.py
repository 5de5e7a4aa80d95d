"""The cards people named at this table tonight, as the reader's network sees them.

A card the reader was unsure of is asked about, and the person's answer names it. Most cards come
back: each round of Tightrope deals the same numbers again. The network's embedding of the named
card's upright crop is kept; a later unsure read whose first guess lies within SAME (cosine) of a
crop named that card, and MARGIN nearer it than any crop named another card, is read as that card:
the table is not asked about it again. A sure read that lies as near a crop named another card
(and MARGIN nearer it than any crop named its own) is doubted: read unsure, the table is asked.
Once the camera was caught out, a card named that it had read surely as another, every sure read
of that other card is doubted for the rest of the night unless it lies near a crop named it: its
confidence is not to be trusted on this deck (a question a round per card caught, until a person
names one that comes back).

Tuned on the calib designs only, zero-shot and taught (seeds 2026-2028, 900 frames; each unsure
read checked against the crops named before it in its design, as a game would): of 590 unsure
reads, 194 are read so, none wrong. The nearest a different card came to a crop named was 0.948
(a 9 under a glare against a 6 named; a blurred 50 against a 30 named, in a design whose 3 and
5 print alike); 0.93 read those two wrong. In a single photo the same card read again lies at
0.99 or more (median); across a game's rounds, at another seat and turned, at 0.96 to 0.98
(an unseen design on a checked cloth, seed 6: SAME 0.97 asked 44 of that game's 45 questions,
0.96 asked 39; that game is no longer blind to SAME).

Only the Tightrope network remembers (KNOWN_NETWORKS). The games network reading Attacke's calib
designs would read 20 of 73 unsure reads so, none wrong, but different cards lie up to 0.898
there (a purple and a green 5: its embedding holds colours close): not measured enough yet.

The memory holds the embeddings of each network apart (a deck of another game is read by another
network) and lives as long as the companion runs: the crops also join the deck at the next
start (companion.lessons). It is shared by the threads that read and that answer, so it locks.
"""

from __future__ import annotations

import threading

import numpy as np

SAME = 0.96
MARGIN = 0.02
FIRST = 0.5  # ... and the reader's own first guess must be at least this sure
KNOWN_NETWORKS = frozenset({"reader"})  # whose embeddings these figures were measured on


class TableMemory:
    """Unit embeddings of the upright crops of cards people named, by network and card name."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._names: dict[str, list[str]] = {}
        self._vectors: dict[str, np.ndarray] = {}
        self._caught: dict[str, set[str]] = {}  # cards the camera read surely, wrongly, tonight

    def __len__(self) -> int:
        with self._lock:
            return sum(len(names) for names in self._names.values())

    def add(self, network: str, name: str, embedding: np.ndarray,
            read_as: str | None = None) -> None:
        """A person named the card whose upright crop `network` embeds as `embedding` (kept
        only for the networks the figures were measured on); `read_as`: the card the camera
        read it as surely, if any."""
        if network not in KNOWN_NETWORKS:
            return
        unit = _unit(embedding)[None]
        with self._lock:
            if read_as is not None and read_as != name:
                self._caught.setdefault(network, set()).add(read_as)
            self._names.setdefault(network, []).append(name)
            old = self._vectors.get(network)
            self._vectors[network] = unit if old is None else np.concatenate([old, unit])

    def recalls(self, network: str, name: str, confidence: float, embedding: np.ndarray
                ) -> bool:
        """Is a read whose first guess is `name` at `confidence` that card: FIRST or more
        sure, and a crop named `name` seen this near (SAME), nearer by MARGIN than any crop
        named another card?"""
        if confidence < FIRST:
            return False
        mine, rival = self._nearest(network, name, embedding)
        return _near(mine, rival)

    def doubts(self, network: str, name: str, embedding: np.ndarray) -> bool:
        """Is a sure read of `name` likely another card: a crop people named another card
        seen this near (SAME), nearer by MARGIN than any crop named `name`? A person told the
        camera its read was wrong, and this crop looks like that one (design 375, zero-shot:
        the reader took that typeface's 6 for an 8 at 0.98, each round). And once the camera
        read a card named another surely as `name` tonight, any sure read of `name` that is
        not recalled (as near a crop named `name`) is doubted: in design 375 the next round's
        6 read 8 lay 0.941 from the 6 named, under SAME."""
        mine, rival = self._nearest(network, name, embedding)
        if _near(rival, mine):
            return True
        with self._lock:
            caught = name in self._caught.get(network, ())
        return caught and not _near(mine, rival)

    def _nearest(self, network: str, name: str, embedding: np.ndarray) -> tuple[float, float]:
        """The cosines of the nearest crop named `name` and of the nearest named another card
        (-1 where there is none)."""
        with self._lock:
            names, vectors = self._names.get(network), self._vectors.get(network)
        if not names or vectors is None:
            return -1.0, -1.0
        near = vectors @ _unit(embedding)
        mine = np.array([n == name for n in names])
        return (float(near[mine].max()) if mine.any() else -1.0,
                float(near[~mine].max()) if (~mine).any() else -1.0)


def _near(mine: float, rival: float) -> bool:
    """A crop this near (cosine `mine`) one named a card, and MARGIN nearer than `rival`, the
    nearest named another, is taken for that card."""
    return mine >= SAME and mine - rival >= MARGIN


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, np.float32).reshape(-1)
    return v / max(float(np.linalg.norm(v)), 1e-12)
