"""A taught deck: the reader's last layer fitted to one edition, and the examples it was fitted on.

The reader network ends in a linear head on a 128-d embedding. A deck file holds a head of the
same shape fitted to a user's deck (vision.teach), its calibration, and the example crops it was
fitted on (the taught photos' surroundings, JPEG, and the corrections made at the table), so
that new corrections can be added and the head fitted again without the photos.

A deck knows its card names, the head's class list in order (card i upright = class 2i, turned
round = 2i+1, the last class no card): Tightrope's 61 labels (`TIGHTROPE`), or another game's
names (`red-7`, `QH`...), which the application passes in (vision knows no game). Tightrope decks
are written as they always were (version 2, no names: a file without names is Tightrope); a deck
of other names is version 3, with its names in its meta, so that an older companion refuses it,
and the network whose embedding its head reads (`network`: "reader-games", the reader of other
games' cards; "reader" for a deck taught before that network was bundled). Every deck keeps a
digest of the weights it was fitted to: a deck fitted to other weights (the companion's reader
was trained again since) is refused by `Reader`, and fitted again from the examples it keeps by
`teach --deck D --out D`. A deck also keeps the revision of teach's card search that cut its
examples from the photos (`search`): examples cut by an older one are taught again from the
photos, not fitted again. File: numpy .npz, no pickles.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.geometry import READ_H, READ_W, Box, rectify
from vision.network import ModelError
from vision.types import ALL_CARDS

DECK_VERSION = 2        # a Tightrope deck (its names are ALL_CARDS's labels)
NAMED_VERSION = 3       # a deck of other card names, kept in its meta
TIGHTROPE: tuple[str, ...] = tuple(c.label for c in ALL_CARDS)
FEATURES = ("", "colour")  # what a head reads besides the embedding (vision.read.deck_input)
GAMES_NETWORK = "reader-games"  # the network that reads other games' cards by name
NETWORKS = ("reader", GAMES_NETWORK)  # the networks a deck's head may read the embedding of
CONTEXT = 1.5                          # an example's crop is this many times the card's box
CARD_IN_CONTEXT = (2 * READ_W, 2 * READ_H)  # ... the card in its middle at this size (px)
CONTEXT_SIZE = (round(CARD_IN_CONTEXT[0] * CONTEXT), round(CARD_IN_CONTEXT[1] * CONTEXT))


@dataclass
class Head:
    """logits = embedding @ w + b, then / temperature; below `line` the reader abstains."""

    w: np.ndarray           # (EMBED, classes) float32
    b: np.ndarray           # (classes,) float32
    temperature: float
    line: float

    def logits(self, embedding: np.ndarray) -> np.ndarray:
        return (embedding @ self.w + self.b) / self.temperature


@dataclass
class Example:
    """One taught card: the crop around it (the card in the middle, CONTEXT times its box) and
    its label (the card's teach-folder label); `source` "photo" or "correction"."""

    image: np.ndarray       # BGR uint8
    label: str
    source: str = "photo"


def crop_in_context(context: np.ndarray, scale: float, dx: float, dy: float, size: float,
                    angle: float) -> np.ndarray:
    """A reader crop from an example's crop shrunk by `scale`, its box moved by (dx, dy) card
    widths, scaled by `size` and turned by `angle` radians (teach's augmentation)."""
    img = context if scale >= 0.999 else cv2.resize(
        context, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    h, w = img.shape[:2]
    cw = CARD_IN_CONTEXT[0] * w / CONTEXT_SIZE[0]
    box = Box(w / 2 + dx * cw, h / 2 + dy * cw, cw * size, cw * size * READ_H / READ_W,
              (math.pi / 2 + angle) % math.pi)
    return rectify(img, box.quad(), (READ_W, READ_H))


def card_of_context(context: np.ndarray) -> np.ndarray:
    """The reader crop (READ_W x READ_H) of the card in the middle of an example's crop."""
    return crop_in_context(context, 1.0, 0.0, 0.0, 1.0, 0.0)


@dataclass
class Deck:
    """A head, the examples it was fitted on, its check's figures and its card names (the class
    list: Tightrope's labels unless the deck was taught another game's names)."""

    head: Head
    examples: list[Example] = field(default_factory=list)
    stats: dict = field(default_factory=dict)
    names: tuple[str, ...] = TIGHTROPE
    features: str = ""      # "colour": the head also reads the crop's colours (vision.read)
    network: str = "reader"  # the bundled network whose embedding the head reads
    digest: str = ""         # ... and its weights' digest ("" in a deck from before it was kept)
    search: int = 0          # the revision of teach's card search that cut its photos' examples

    @property
    def tightrope(self) -> bool:
        """Whether this is a deck of the Tightrope cards (read with the general reader's help)."""
        return self.names == TIGHTROPE

    def save(self, path: str | Path) -> None:
        p = Path(path)
        blobs = [cv2.imencode(".jpg", e.image, [cv2.IMWRITE_JPEG_QUALITY, 92])[1]
                 for e in self.examples]
        offsets = np.cumsum([0] + [len(b) for b in blobs])
        meta = {"labels": [e.label for e in self.examples],
                "sources": [e.source for e in self.examples], "stats": self.stats,
                "network_digest": self.digest, "photo_search": self.search}
        if not self.tightrope:
            meta["names"] = list(self.names)
            meta["features"] = self.features
            meta["network"] = self.network
        tmp = p.with_name(p.name + ".tmp")
        with open(tmp, "wb") as f:
            np.savez_compressed(
                f, version=np.array(DECK_VERSION if self.tightrope else NAMED_VERSION),
                w=self.head.w.astype(np.float32),
                b=self.head.b.astype(np.float32), temperature=np.array(self.head.temperature),
                line=np.array(self.head.line), offsets=offsets.astype(np.int64),
                blobs=np.concatenate(blobs) if blobs else np.zeros(0, np.uint8),
                meta=np.frombuffer(json.dumps(meta).encode(), np.uint8))
        tmp.replace(p)

    @classmethod
    def load(cls, path: str | Path) -> Deck:
        p = Path(path)
        if not p.is_file():
            raise ModelError(f"deck file {p} does not exist")
        try:
            with np.load(p, allow_pickle=False) as z:
                data = {k: z[k] for k in z.files}
        except (OSError, ValueError, EOFError) as exc:
            raise ModelError(f"{p}: not a deck file (damaged or not made by `teach`)") from exc
        need = {"version", "w", "b", "temperature", "line", "offsets", "blobs", "meta"}
        if not need <= set(data):
            raise ModelError(f"{p}: not a deck file (made by `teach`?)")
        version = int(data["version"])
        if version not in (DECK_VERSION, NAMED_VERSION):
            raise ModelError(f"{p}: a deck of an older companion (version "
                             f"{version}): teach the deck again")
        try:
            meta = json.loads(bytes(data["meta"]).decode())
            names = TIGHTROPE if version == DECK_VERSION else tuple(meta["names"])
            features = "" if version == DECK_VERSION else str(meta.get("features", ""))
            if features not in FEATURES:
                raise ValueError(f"it reads features this companion does not know ({features})")
            network = "reader" if version == DECK_VERSION else str(meta.get("network", "reader"))
            if network not in NETWORKS:
                raise ValueError(f"it was taught on a network this companion lacks ({network})")
            if len(names) != len(set(names)) or not names or not all(
                    isinstance(n, str) and n for n in names):
                raise ValueError("its card names are not distinct names")
            if data["w"].shape[-1] != 2 * len(names) + 1 or data["b"].shape != (
                    2 * len(names) + 1,):
                raise ValueError(f"its head does not fit its {len(names)} card names")
            offsets, blobs = data["offsets"], data["blobs"]
            examples = []
            for i, (label, source) in enumerate(zip(meta["labels"], meta["sources"],
                                                    strict=True)):
                img = cv2.imdecode(blobs[offsets[i]:offsets[i + 1]], cv2.IMREAD_COLOR)
                if img is None:
                    raise ValueError(f"example {i} is not an image")
                examples.append(Example(img, label, source))
        except (ValueError, KeyError, IndexError, TypeError, UnicodeDecodeError) as exc:
            raise ModelError(f"{p}: damaged deck file ({exc})") from exc
        head = Head(data["w"].astype(np.float32), data["b"].astype(np.float32),
                    float(data["temperature"]), float(data["line"]))
        return cls(head, examples, meta.get("stats", {}), names, features, network,
                   str(meta.get("network_digest", "")), int(meta.get("photo_search", 0)))
