"""Teach the reader a user's own deck from one photo of each card, and from the table's answers.

For each photo the card is found (vision.detect) and a crop around it is kept (`CONTEXT` times its
box, the card at twice the reader's size), turned upright by the zero-shot reader (the photo of a 6
is upright where it reads as a 6). Each card is then seen again the way a table changes it: at
other sizes, in other light, blurred, noisy, compressed, with glare, with another of the deck's
cards laid over part of it, in a box a little off, either way up. The reader network embeds
those crops, and the deck's head (its last layer) is fitted to them, pulled towards the zero-shot
head so that what the photos do not show stays as the general reader knows it. The head is
calibrated on other such crops, read the way `Reader.read` reads (both looks).

Corrections made at the table (a person named an unsure card) are crops of the same kind; they
join the deck's examples (`add_corrections`), and the head is fitted again.

Any game's deck: given its card names (`names`, from the application: vision knows no game), the
folder holds `card-<name>.png` for each, and the head has 2 classes a name and "no card". The
general reader knows none of those classes, so nothing is taken from it but its embedding and
its "no card" class: the photo is taken as upright (the user lays the card the right way up),
the head reads the crop's colours too (vision.colour), and it starts from zero
weights for the deck's cards, pulled back towards them (`foreign_prior`; measured against a start
at the crops' class means, docs/teach.md).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision.colour import HUE_BINS, colour_features
from vision.deck import (
    CONTEXT,
    CONTEXT_SIZE,
    TIGHTROPE,
    Deck,
    Example,
    Head,
    card_of_context,
    crop_in_context,
)
from vision.detect import Detection, Detector
from vision.geometry import READ_H, READ_W, Box, box_of_quad, rectify
from vision.network import ModelError, bundled
from vision.read import (
    GAMES_NETWORK,
    REJECT,
    Reader,
    _zero_shot_head,
    columns_of,
    fit_temperature,
    network_for,
    softmax,
)
from vision.types import ALL_CARDS, CardId, CardLabelError

NONE_LABEL = "none"                 # an example of no card (the photo's table)
IMAGE_EXTS = (".png", ".jpg", ".jpeg", ".bmp", ".webp")
FOREIGN_FEATURES = "colour"         # what a foreign deck's head reads besides the embedding
PHOTO_PADS = (1.0, 1.5, 2.0, 3.0)   # a photo is also looked at this much wider
# The card search's revision, kept in the decks it teaches (Deck.search); a deck cut by an older
# one may keep cards sideways: it is taught again from its photos. 1: every photo also looked at
# padded (before, only other games' photos); 2: the largest box near the middle lying upright;
# 3: each half of the card boxed across kept as no card
PHOTO_SEARCH = 3
MIDDLE = 0.3                        # a teach photo's card lies this near its middle (of its height)
PHOTO_PREFIX = "card-"              # a game's teach photo: card-<name>.png (Tightrope: its label)
PER_CARD, PER_CARD_CHECK = 40, 12   # augmented crops per example: to fit, to calibrate
PULL = 3e-3                         # how hard the head is pulled towards the zero-shot head
MAX_WRONG = 0.0005                  # confidently wrong reads allowed on the check crops
Progress = Callable[[str, int, int], None]


class TeachError(ValueError):
    """A teach folder that cannot make a deck (names the file)."""


def progress_bar(stream=sys.stderr, width: int = 30) -> Progress:
    """Plain-text progress bar on stderr: `stage [#####.....] i/n`."""

    def show(stage: str, i: int, n: int) -> None:
        filled = int(width * i / max(n, 1))
        end = "\n" if i >= n else ""
        print(f"\r{stage:<10} [{'#' * filled}{'.' * (width - filled)}] {i}/{n}", end=end,
              file=stream, flush=True)

    return show


def collect_photos(folder: str | Path) -> dict[CardId, Path]:
    """The teach folder's photos by card; TeachError naming the file for anything amiss."""
    root = Path(folder)
    if not root.is_dir():
        raise TeachError(f"teach folder {root} does not exist or is not a folder")
    found: dict[CardId, Path] = {}
    for p in sorted(root.iterdir()):
        if p.suffix.lower() not in IMAGE_EXTS:
            continue
        try:
            card = CardId.from_label(p.stem)
        except CardLabelError as exc:
            raise TeachError(f"{p.name}: not a card name (expected e.g. number-17.png)") from exc
        if card in found:
            raise TeachError(f"{p.name}: a second photo of {card.label} ({found[card].name})")
        found[card] = p
    missing = [c.label for c in ALL_CARDS if c not in found]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise TeachError(f"missing photo {root / (missing[0] + '.png')}{more}")
    return found


def collect_named_photos(folder: str | Path, names: tuple[str, ...]) -> dict[str, Path]:
    """A game's teach folder: `card-<name>.png` for each of its card names, by name;
    TeachError naming the file for anything amiss."""
    root = Path(folder)
    if not root.is_dir():
        raise TeachError(f"teach folder {root} does not exist or is not a folder")
    known = set(names)
    found: dict[str, Path] = {}
    for p in sorted(root.iterdir()):
        if p.suffix.lower() not in IMAGE_EXTS:
            continue
        name = p.stem[len(PHOTO_PREFIX):] if p.stem.startswith(PHOTO_PREFIX) else None
        if name not in known:
            raise TeachError(f"{p.name}: not a card of this deck (expected "
                             f"{PHOTO_PREFIX}<name>.png, e.g. {PHOTO_PREFIX}{names[0]}.png)")
        assert name is not None
        if name in found:
            raise TeachError(f"{p.name}: a second photo of {name} ({found[name].name})")
        found[name] = p
    missing = [n for n in names if n not in found]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise TeachError(f"missing photo {root / (PHOTO_PREFIX + missing[0] + '.png')}{more}")
    return found


def _find_padded(img: np.ndarray, detector: Detector, pad: float) -> list[Detection]:
    """The detector's boxes in the photo laid in the middle of a frame `pad` times its size
    (the border its own edge pixels), in the photo's coordinates."""
    if pad <= 1.0:
        return detector.find(img)
    h, w = img.shape[:2]
    py, px = round(h * (pad - 1) / 2), round(w * (pad - 1) / 2)
    wide = cv2.copyMakeBorder(img, py, py, px, px, cv2.BORDER_REPLICATE)
    return [Detection(Box(d.box.cx - px, d.box.cy - py, d.box.w, d.box.h, d.box.angle), d.score)
            for d in detector.find(wide)]


def context_crop(frame: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The crop kept for teaching: the card in the middle, CONTEXT times its box around it."""
    box = box_of_quad(quad)
    wide = Box(box.cx, box.cy, box.w * CONTEXT, box.h * CONTEXT, box.angle)
    return rectify(frame, wide.quad(), CONTEXT_SIZE)


def upright(context: np.ndarray, card: CardId, zero: Reader) -> np.ndarray:
    """The context crop turned so that the card's printed top is on top."""
    crop = card_of_context(context)
    q0, _, _, _ = zero.probabilities([crop])
    i = ALL_CARDS.index(card)
    if q0[0, 2 * i + 1] > q0[0, 2 * i]:
        return np.ascontiguousarray(context[::-1, ::-1])
    return context


def _card_box(img: np.ndarray, detector: Detector) -> Box | None:
    """The box of the one card in a teach photo. The detector was trained on cards a seventh of
    the frame's height; a card photographed close it boxes badly, and often across: a box along
    the card's width, smaller than the card (the example would show the card sideways, cut). So
    the photo is also searched shrunk into wider frames of its own edge pixels (PHOTO_PADS), and
    the largest box near the middle that lies upright wins. A card printed in two halves
    (Attacke's) the detector may box only as two cards lying across: two such boxes side by side
    stand for the card."""
    h, w = img.shape[:2]
    centre = np.array([w / 2, h / 2])
    found = [d for pad in PHOTO_PADS for d in _find_padded(img, detector, pad)
             if np.hypot(*(np.array(d.box.centre) - centre)) < MIDDLE * min(w, h)]
    if not found:
        return None
    boxes = [d.box for d in found]
    boxes += [whole for i, a in enumerate(boxes) for b in boxes[i + 1:]
              if (whole := _halves(a, b)) is not None]
    # the card lies about upright, as docs/teach.md asks (or upside down): its long axis nearer
    # the photo's vertical than its horizontal
    upright = [b for b in boxes if abs(b.angle - math.pi / 2) < math.pi / 4]
    return max(upright or boxes, key=lambda b: b.w * b.h)


def _halves(a: Box, b: Box) -> Box | None:
    """The card of which two boxes lying across are the halves (side by side, alike), or None."""
    if abs((a.angle - b.angle + math.pi / 2) % math.pi - math.pi / 2) > 0.2 or not (
            0.85 < a.w / b.w < 1.18):
        return None
    u = np.array([math.cos(a.angle), math.sin(a.angle)])  # the boxes' long axis
    d = np.array([b.cx - a.cx, b.cy - a.cy])
    along, side = abs(float(d @ u)), abs(float(d @ np.array([-u[1], u[0]])))
    w = (a.w + b.w) / 2
    if along > 0.3 * w or not 0.8 * w < side < 1.3 * w:
        return None
    return Box((a.cx + b.cx) / 2, (a.cy + b.cy) / 2, (a.h + b.h) / 2, side + w,
               (a.angle + math.pi / 2) % math.pi)


def photo_examples(path: Path, card: CardId | str, detector: Detector, zero: Reader,
                   rng: np.random.Generator) -> list[Example]:
    """The card's example (and, as no card, two of the photo's bare table and the card's halves
    boxed across) from one teach photo: a Tightrope card turned upright by the zero-shot
    reader, another game's card (its name) as photographed (the user lays it the right way up;
    the box's quad puts its top towards the photo's)."""
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise TeachError(f"{path.name}: cannot read the image")
    h, w = img.shape[:2]
    best = _card_box(img, detector)
    if best is None:
        raise TeachError(f"{path.name}: no card found in the photo")
    context = context_crop(img, best.quad())
    if isinstance(card, CardId):
        out = [Example(upright(context, card, zero), card.label)]
    else:
        out = [Example(context, card)]
    b = best
    for _ in range(60):
        if len(out) == 3:
            break
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        if math.hypot(cx - b.cx, cy - b.cy) < 1.3 * b.h:
            continue
        other = Box(float(cx), float(cy), b.w, b.h, float(rng.uniform(0, math.pi)))
        out.append(Example(context_crop(img, other.quad()), NONE_LABEL))
    return out + [Example(context_crop(img, half.quad()), NONE_LABEL) for half in b.halves()]


# --- augmentation ------------------------------------------------------------------------------


def _photometric(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    x = crop.astype(np.float32)
    x *= rng.normal(1.0, 0.08, 3)[None, None, :]                 # white balance
    mean = x.mean()
    x = (x - mean) * math.exp(rng.normal(0, 0.2)) + mean * math.exp(rng.normal(0, 0.25))
    if rng.random() < 0.4:  # a shadow or the lamp's fall-off across the card
        ys, xs = np.mgrid[0:READ_H, 0:READ_W].astype(np.float32)
        a = rng.uniform(0, 2 * math.pi)
        ramp = ((xs - READ_W / 2) * math.cos(a) + (ys - READ_H / 2) * math.sin(a)) / READ_H
        x *= (1.0 + rng.uniform(0.2, 0.7) * ramp)[..., None]
    if rng.random() < 0.15:  # glare
        cy, cx = rng.uniform(0, READ_H), rng.uniform(0, READ_W)
        ys, xs = np.mgrid[0:READ_H, 0:READ_W].astype(np.float32)
        r = rng.uniform(5, 20)
        g = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * r * r))[..., None]
        x += (270 - x) * g * rng.uniform(0.5, 1.0)
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.4, 1.2))
    x += rng.normal(0, rng.uniform(0, 6), x.shape)
    out = np.clip(x + 0.5, 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def _laid_over(crop: np.ndarray, other: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Another card of the deck laid over part of this one (a pile, a zero across a value card)."""
    out = crop.copy()
    h, w = crop.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.normal(0, 15)), 1.0)
    m[:, 2] = m[:, 2] + rng.choice([-1, 1], 2) * rng.uniform([0.5 * w, 0.45 * h],
                                                             [0.9 * w, 0.85 * h])
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, (w, h))
    moved = cv2.warpAffine(other, m, (w, h))
    out[mask > 127] = moved[mask > 127]
    return out


def augmented(examples: list[Example], labels: list[int], per_example: int,
              rng: np.random.Generator, progress: Callable[[int, int], None] | None = None,
              reject: int = REJECT) -> tuple[list[np.ndarray], np.ndarray]:
    """Crops of each example as a table changes it, and their classes (orientation included;
    `reject` is the deck's "no card" class)."""
    faces = [card_of_context(e.image) for e in examples if e.label != NONE_LABEL]
    crops, classes = [], []
    for k, (ex, label) in enumerate(zip(examples, labels, strict=True)):
        for _ in range(per_example):
            small = float(np.exp(rng.uniform(np.log(0.42), 0.0)))  # 54..128 px card widths
            s = 3.0 if rng.random() < 0.1 else 1.0
            dx, dy = (float(v) for v in rng.normal(0, 0.035 * s, 2))
            crop = crop_in_context(ex.image, small, dx, dy, math.exp(rng.normal(0, 0.035 * s)),
                                   math.radians(rng.normal(0, 2.5 * s)))
            if label != reject and faces and rng.random() < 0.2:
                crop = _laid_over(crop, faces[int(rng.integers(len(faces)))], rng)
            crop = _photometric(crop, rng)
            cls = label
            if rng.random() < 0.5:
                crop = np.ascontiguousarray(crop[::-1, ::-1])
                cls = label if label == reject else label ^ 1
            crops.append(crop)
            classes.append(cls)
        if progress is not None:
            progress(k + 1, len(examples))
    return crops, np.array(classes, np.int64)


# --- fitting -----------------------------------------------------------------------------------


def class_of(label: str, names: tuple[str, ...] = TIGHTROPE) -> int:
    """The head's class of an example's label (its upright class; "no card" last)."""
    if label == NONE_LABEL:
        return 2 * len(names)
    if names == TIGHTROPE:
        return 2 * ALL_CARDS.index(CardId.from_label(label))
    if label not in names:
        raise TeachError(f"{label!r} is not a card of this deck")
    return 2 * names.index(label)


def foreign_prior(width: int, names: tuple[str, ...], network: str) -> Head:
    """Where a deck of another game's cards starts: the games reader's own classes of them
    (`network` GAMES_NETWORK), or, on the Tightrope reader, which never knew them, zero weights
    for its cards (the fit's pull towards the start is then an L2 penalty) and that reader's own
    "no card" class (measured against a start at the crops' class means, docs/teach.md: 71 %
    against 62 % of Attacke cards read right, 22 % against 20 % of playing cards, on designs of
    the calib split). The colour features' weights start at zero."""
    zero = _zero_shot_head(network)
    w = np.zeros((width, 2 * len(names) + 1), np.float32)
    b = np.zeros(2 * len(names) + 1, np.float32)
    cols = columns_of(bundled(network).meta["classes"], names) if network == GAMES_NETWORK \
        else None
    if cols is not None:
        w[:zero.w.shape[0]], b[:] = zero.w[:, cols], zero.b[cols]
    else:
        w[:zero.w.shape[0], -1], b[-1] = zero.w[:, REJECT], zero.b[REJECT]
    return Head(w, b, 1.0, 0.5)


def embed_looks(reader: Reader, crops: list[np.ndarray], batch: int = 256,
                features: str = "") -> tuple[np.ndarray, np.ndarray]:
    """The reader's embeddings of each crop as cut, and turned round (with `features` "colour",
    the crop's colours after them: what such a deck's head reads, vision.read.deck_input)."""
    cut, turned = [], []
    for i in range(0, len(crops), batch):
        part = crops[i:i + batch]
        e = reader.forward(part)[1]
        if features == "colour":
            colours = colour_features(np.stack(part))
            e = np.concatenate([e, np.concatenate([colours, colours])], axis=1)
        cut.append(e[:len(part)])
        turned.append(e[len(part):])
    if not cut:
        width = 128 + (HUE_BINS + 1 if features == "colour" else 0)
        return np.zeros((0, width), np.float32), np.zeros((0, width), np.float32)
    return np.concatenate(cut), np.concatenate(turned)


def fit_head(x: np.ndarray, y: np.ndarray, prior: Head, steps: int = 300,
             progress: Callable[[int, int], None] | None = None) -> Head:
    """Softmax regression on embeddings, started at and pulled towards the zero-shot head."""
    w, b = prior.w.astype(np.float64).copy(), prior.b.astype(np.float64).copy()
    w0, b0 = w.copy(), b.copy()
    m = [np.zeros_like(w), np.zeros_like(b)]
    v = [np.zeros_like(w), np.zeros_like(b)]
    onehot = np.eye(w.shape[1])[y]
    lr, beta1, beta2 = 0.01, 0.9, 0.999
    for t in range(1, steps + 1):
        p = softmax(x @ w + b)
        g = (p - onehot) / len(x)
        grads = [x.T @ g + 2 * PULL * (w - w0), g.sum(axis=0) + 2 * PULL * (b - b0)]
        for k, (param, grad) in enumerate(zip((w, b), grads, strict=True)):
            m[k] = beta1 * m[k] + (1 - beta1) * grad
            v[k] = beta2 * v[k] + (1 - beta2) * grad ** 2
            param -= lr * (m[k] / (1 - beta1 ** t)) / (np.sqrt(v[k] / (1 - beta2 ** t)) + 1e-8)
        if progress is not None and (t % 20 == 0 or t == steps):
            progress(t, steps)
    return Head(w.astype(np.float32), b.astype(np.float32), 1.0, 0.5)


def calibrate(reader: Reader, crops: list[np.ndarray], y: np.ndarray) -> dict:
    """Fit the deck head's temperature and line on check crops read as `Reader.read` does;
    returns what it measured there."""
    from vision.read import per_card, reading_of, turned_round

    assert reader.deck is not None
    head, names = reader.deck.head, reader.deck.names
    k = len(names)
    n = len(crops)
    e_cut, e_turned = embed_looks(reader, crops, features=reader.deck.features)
    z_cut, z_turned = e_cut @ head.w + head.b, e_turned @ head.w + head.b
    both = np.concatenate([z_cut, turned_round_logits(z_turned)])
    yy = np.concatenate([y, y])
    head.temperature = fit_temperature(both, yy)
    p_cut, p_turned = softmax(z_cut / head.temperature), softmax(z_turned / head.temperature)
    q = np.sqrt(p_cut * turned_round(p_turned))
    q /= q.sum(axis=1, keepdims=True)
    agree = per_card(p_cut).argmax(axis=1) == per_card(turned_round(p_turned)).argmax(axis=1)
    truth = np.where(y == 2 * k, k, y // 2)
    cards = per_card(q)
    best = cards[:, :k].argmax(axis=1)
    conf = cards[np.arange(n), best]
    wrong = agree & (best != truth) & (conf > cards[:, k])
    allowed = int(MAX_WRONG * n)
    ranked = np.sort(conf[wrong])[::-1]
    head.line = float(max(0.5, min(0.9999, ranked[allowed] + 1e-6))) if len(ranked) > allowed \
        else 0.5
    as_names = None if reader.deck.tightrope else names
    reads = [reading_of(q[i], bool(agree[i]), head.line, as_names) for i in range(n)]
    must = truth < k
    right = sum(1 for r, t, mu in zip(reads, truth, must, strict=True)
                if mu and r.reading.sure and names.index(str(r.reading.label)) == t)
    sure_wrong = sum(1 for r, t, mu in zip(reads, truth, must, strict=True)
                     if mu and r.reading.sure and names.index(str(r.reading.label)) != t)
    return {"right": right / max(1, int(must.sum())), "wrong": sure_wrong / max(1, int(must.sum())),
            "threshold": head.line, "temperature": head.temperature, "checked": int(must.sum())}


def turned_round_logits(z: np.ndarray) -> np.ndarray:
    from vision.read import turned_round

    return turned_round(z)


def fit_deck(examples: list[Example], seed: int = 7, progress: Progress | None = None,
             names: tuple[str, ...] = TIGHTROPE, search: int = PHOTO_SEARCH
             ) -> tuple[Deck, dict]:
    """A deck of the cards `names` (Tightrope's by default) fitted to its examples (cut from
    their photos by card search revision `search`), calibrated on other crops of them."""
    show = progress or (lambda stage, i, n: None)
    rng = np.random.default_rng(seed)
    names = tuple(names)
    network = network_for(names)
    reader = Reader(bundled(network), names=names if network == GAMES_NETWORK else TIGHTROPE)
    reject = 2 * len(names)
    labels = [class_of(e.label, names) for e in examples]
    crops, y = augmented(examples, labels, PER_CARD, rng,
                         lambda i, n: show("augment", i, n), reject)
    features = "" if names == TIGHTROPE else FOREIGN_FEATURES
    x = embed_looks(reader, crops, features=features)[0]
    prior = _zero_shot_head() if names == TIGHTROPE else foreign_prior(x.shape[1], names, network)
    head = fit_head(x, y, prior, progress=lambda i, n: show("fit", i, n))
    deck = Deck(head, list(examples), names=names, features=features, network=network,
                digest=reader.network.digest, search=search)
    check, yc = augmented(examples, labels, PER_CARD_CHECK, np.random.default_rng(seed + 1),
                          reject=reject)
    show("check", 0, 1)
    stats = calibrate(Reader(deck=deck), check, yc)
    show("check", 1, 1)
    deck.stats = stats
    return deck, stats


def teach(folder: str | Path, out: str | Path, seed: int = 7, progress: Progress | None = None,
          names: tuple[str, ...] | list[str] | None = None) -> dict:
    """Build a deck file from the teach folder's photos; returns what the check crops showed.
    `names`: another game's card names (its folder holds `card-<name>.png` each); None (or
    Tightrope's labels) is the Tightrope deck (`number-17.png`...)."""
    show = progress or (lambda stage, i, n: None)
    deck_names = TIGHTROPE if names is None else _deck_names(names)
    detector, zero = Detector(), Reader.zero_shot()
    rng = np.random.default_rng(seed)
    examples: list[Example] = []
    if deck_names == TIGHTROPE:
        photos = collect_photos(folder)
        for i, card in enumerate(ALL_CARDS):
            show("photos", i, len(ALL_CARDS))
            examples += photo_examples(photos[card], card, detector, zero, rng)
    else:
        named = collect_named_photos(folder, deck_names)
        for i, name in enumerate(deck_names):
            show("photos", i, len(deck_names))
            examples += photo_examples(named[name], name, detector, zero, rng)
    show("photos", len(deck_names), len(deck_names))
    deck, stats = fit_deck(examples, seed, progress, deck_names)
    _save(deck, out)
    return stats


def up_to_date(path: str | Path, names: tuple[str, ...]) -> bool:
    """Whether the deck file exists and was taught these names on the network `teach` would use
    now (a deck of Attacke's cards taught before the games reader was bundled was not), its
    examples cut from the photos by the card search of now."""
    try:
        deck = Deck.load(path)
    except ModelError:
        return False
    network = network_for(tuple(names))
    return deck.names == tuple(names) and deck.network == network and \
        deck.digest == bundled(network).digest and deck.search >= PHOTO_SEARCH


def _deck_names(names: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """A game's card names as a deck's class list; TeachError for an unusable list."""
    out = tuple(names)
    if not out or len(set(out)) != len(out) or not all(
            isinstance(n, str) and n and n == n.strip() and "/" not in n for n in out):
        raise TeachError("a deck's card names must be distinct, non-empty file-name parts")
    if NONE_LABEL in out:
        raise TeachError(f"{NONE_LABEL!r} cannot be a card name (it names no card)")
    return out


def label_of_correction(stem: str, names: tuple[str, ...] = TIGHTROPE) -> str | None:
    """The card name of a correction crop's file stem `<name>-<anything>` (or the bare name):
    the longest of the deck's names that the stem is or starts with before a '-' (names may
    hold '-' themselves: `shield-10-2` is shield-10, `red-5-3` red-5); None when none fits."""
    fits = [n for n in names if stem == n or stem.startswith(n + "-")]
    return max(fits, key=len) if fits else None


def correction_examples(folder: str | Path, names: tuple[str, ...] | list[str] | None = None
                        ) -> list[Example]:
    """The crops kept when a person named a card at the table: `<label>-<anything>.png`, the
    label one of `names` (None: the Tightrope labels)."""
    root = Path(folder)
    if not root.is_dir():
        raise TeachError(f"corrections folder {root} does not exist or is not a folder")
    deck_names = TIGHTROPE if names is None else tuple(names)
    out = []
    for p in sorted(root.rglob("*")):
        if p.suffix.lower() not in IMAGE_EXTS:
            continue
        label = label_of_correction(p.stem, deck_names)
        if label is None:
            continue
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is None or img.shape[:2] != (CONTEXT_SIZE[1], CONTEXT_SIZE[0]):
            continue
        out.append(Example(img, label, "correction"))
    return out


def add_corrections(corrections: str | Path, out: str | Path, deck_path: str | Path | None = None,
                    seed: int = 7, progress: Progress | None = None,
                    names: tuple[str, ...] | list[str] | None = None) -> dict:
    """The deck (or, with none, the zero-shot reader) with the table's corrections added. The
    deck's card names are the deck's; without a deck, `names` (None: Tightrope's)."""
    base: list[Example] = []
    deck_names = TIGHTROPE if names is None else _deck_names(names)
    search = PHOTO_SEARCH
    if deck_path is not None:
        try:
            old = Deck.load(deck_path)
        except ModelError as exc:
            raise TeachError(str(exc)) from exc
        base, deck_names = [e for e in old.examples if e.source != "correction"], old.names
        search = old.search
    found = correction_examples(corrections, deck_names)
    if not found:
        raise TeachError(f"no corrections in {corrections}")
    deck, stats = fit_deck(base + found, seed, progress, deck_names, search)
    deck.stats = {**stats, "corrections": len(found)}
    _save(deck, out)
    return deck.stats


def refit(deck_path: str | Path, out: str | Path, seed: int = 7,
          progress: Progress | None = None) -> dict:
    """The deck fitted again from the examples it keeps (its photos' and the table's crops), on
    the bundled network: after the companion's reader was trained again."""
    try:
        deck = Deck.load(deck_path)
    except ModelError as exc:
        raise TeachError(str(exc)) from exc
    if not any(e.label != NONE_LABEL for e in deck.examples):
        raise TeachError(f"{deck_path} keeps no examples to fit it from: teach it again")
    fitted, stats = fit_deck(deck.examples, seed, progress, deck.names, deck.search)
    corrections = sum(e.source == "correction" for e in deck.examples)
    fitted.stats = {**stats, **({"corrections": corrections} if corrections else {})}
    _save(fitted, out)
    return fitted.stats


def drop_corrections(deck_path: str | Path, out: str | Path, seed: int = 7,
                     progress: Progress | None = None) -> dict | None:
    """The deck without the table's corrections, fitted again on the rest; None when the deck
    held nothing else (then no deck is written: the zero-shot reader reads again)."""
    try:
        deck = Deck.load(deck_path)
    except ModelError as exc:
        raise TeachError(str(exc)) from exc
    base = [e for e in deck.examples if e.source != "correction"]
    if not base:
        return None
    if len(base) < len(deck.examples):
        deck, _ = fit_deck(base, seed, progress, deck.names, deck.search)  # the new check's
    _save(deck, out)
    return deck.stats


def _save(deck: Deck, out: str | Path) -> None:
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    deck.save(path)
