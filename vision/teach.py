"""Teach the reader the user's own deck edition from one photo per card.

The folder holds one photo per card lying on the table, named by the card's label
(`number-17.png`, `scoring-4.png`, `scoring-0-blue.png`, `scoring-0-red.png`; .jpg/.jpeg also
accepted). Each photo's card is found, warped to portrait and turned upright (the zero-shot
reader knows the layout: walker line / blue half on top). The 61 crops become the templates that
`vision.learn.capture` augments (size, light, glare, blur, noise, JPEG, detector error) to
fine-tune the zero-shot MLP; temperature and abstention line are calibrated on fresh augments.
The deck file is an .npz: the model arrays of `vision.read.Mlp` plus the templates (docs/teach.md).

The training machinery here is shared with the zero-shot training script: `capture` turns a clean
portrait face into what the reader sees after the real pipeline (the card shrunk to 62..165 px
wide, lit by a room lamp: gain, colour cast, gradient, shadow, glare; blurred, noisy,
JPEG-compressed; warped back with a slightly wrong quad, table bleeding in at the edges);
`train_mlp` is a plain numpy Adam MLP; `calibrate` picks the softmax temperature (least NLL) and
the abstention line (confidently-wrong rate <= target).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.cards import ALL_CARDS, CARD_H, CARD_W, CardId, CardLabelError, face_cached
from vision.detect import COVERED, find_cards, warp
from vision.read import FEAT_H, FEAT_W, N_CLASSES, REJECT, WARP_SIZE, Mlp, Reader, features

SKIN = [(120, 160, 215), (90, 130, 190), (60, 95, 150), (140, 175, 225), (45, 70, 110)]
TABLES = [(150, 190, 215), (60, 85, 115), (70, 120, 60), (125, 125, 120), (35, 35, 38)]


def _occlude_half(face: np.ndarray, cover: np.ndarray, rng: np.random.Generator,
                  blue: bool = True) -> np.ndarray:
    """A zero lying across half of a scoring card: one half shows part of the zero instead.
    Mostly as players lay it: a blue 0 over the card's blue (top) half, a red 0 over its red
    half, the zero's plain half on the card; then the red half of a card under a blue 0 and a
    red 0 differ only by their numerals (a 9 or a 6 against the 0)."""
    h = CARD_H // 2 + int(rng.integers(-12, 13))
    out = face.copy()
    if rng.random() < 0.8:
        over_top = blue
        src = cover
    else:
        over_top = rng.random() < 0.5
        src = cover if rng.random() < 0.5 else cover[::-1, ::-1]
    if over_top:
        out[:h] = src[CARD_H - h :]
    else:
        out[CARD_H - h :] = src[:h]
    return out


def _occlude_blob(face: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A finger or another card's corner over a small part of the card."""
    out = face.copy()
    cx, cy = rng.uniform(0, CARD_W), rng.choice([rng.uniform(0, 60), rng.uniform(248, CARD_H)])
    colour = SKIN[rng.integers(len(SKIN))] if rng.random() < 0.6 else (235, 240, 240)
    axes = (int(rng.uniform(20, 60)), int(rng.uniform(30, 90)))
    cv2.ellipse(out, (int(cx), int(cy)), axes, float(rng.uniform(0, 180)), 0, 360, colour, -1,
                cv2.LINE_AA)
    return out


def _covered_by_card(crop: np.ndarray, rng: np.random.Generator, lo: float = 0.08,
                     hi: float = 0.4) -> np.ndarray:
    """The crop as the pipeline paints it when another card lies over part of it: the part
    beyond that card's edge (a half-plane) or inside its corner (a quadrant) plain grey."""
    h, w = crop.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for _ in range(20):
        t = rng.uniform(0, 2 * np.pi)
        px, py = rng.uniform(0, w), rng.uniform(0, h)
        under = (xx - px) * np.cos(t) + (yy - py) * np.sin(t) > 0
        if rng.random() < 0.6:  # a corner: the quadrant between two edges at a right angle
            under &= (xx - px) * -np.sin(t) + (yy - py) * np.cos(t) > 0
        if lo <= under.mean() <= hi:
            out = crop.copy()
            out[under] = COVERED
            return out
    return crop


def _covered_half(crop: np.ndarray, rng: np.random.Generator, top: bool) -> np.ndarray:
    """A zero found lying across half of a scoring card: that half painted grey (its edge a
    little off the card's middle, a little turned)."""
    h, w = crop.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    line = h * (0.5 + rng.uniform(-0.06, 0.06)) + (xx - w / 2) * np.tan(rng.normal(0, 0.05))
    out = crop.copy()
    out[(yy < line) if top else (yy > line)] = COVERED
    return out


def _photometric(img: np.ndarray, rng: np.random.Generator, w_px: float) -> np.ndarray:
    f = img.astype(np.float32)
    h, w = f.shape[:2]
    gain = rng.uniform(0.55, 1.25) * rng.uniform(0.88, 1.12, size=3)
    f = f * gain + rng.uniform(-20, 20)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    ramp = (np.cos(ang) * xx / w + np.sin(ang) * yy / h) - 0.5
    f *= (1.0 + rng.uniform(-0.35, 0.35) * ramp)[..., None]
    if rng.random() < 0.25:  # a shadow edge across the card
        a2 = rng.uniform(0, 2 * np.pi)
        d = np.cos(a2) * (xx - rng.uniform(0, w)) + np.sin(a2) * (yy - rng.uniform(0, h))
        f *= (1.0 - rng.uniform(0.2, 0.5) / (1.0 + np.exp(-d / 2.0)))[..., None]
    if rng.random() < 0.3:  # glare: a bright washed-out spot
        gx, gy, s = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.1, 0.35) * w_px
        blob = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * s * s))
        f += (rng.uniform(80, 220) * blob)[..., None]
    if rng.random() < 0.5:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.3, 1.3))
    if rng.random() < 0.2:
        n = int(rng.integers(2, 8))
        k = np.zeros((n, n), np.float32)
        k[n // 2, :] = 1.0 / n
        rot = cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), rng.uniform(0, 180), 1.0)
        k = cv2.warpAffine(k, rot, (n, n))
        f = cv2.filter2D(f, -1, k / max(k.sum(), 1e-6))
    f += rng.normal(0, rng.uniform(0, 9), size=f.shape).astype(np.float32)
    out = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        q = int(rng.integers(35, 91))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def capture(face: np.ndarray, rng: np.random.Generator, table: tuple[int, int, int] | None = None,
            shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """What the reader gets for this face after the camera, the detector and the warp.

    `shift` moves the whole quad by that fraction of the card's width and height (a detector
    that got the card's extent wrong)."""
    w_px = rng.uniform(62, 165)
    sw, sh = max(8, round(w_px)), max(12, round(w_px * face.shape[0] / face.shape[1]))
    small = cv2.resize(face, (sw, sh), interpolation=cv2.INTER_AREA)
    pad = int((0.12 + max(abs(shift[0]), abs(shift[1]))) * sh) + 2
    if table is None:
        base = np.array(TABLES[rng.integers(len(TABLES))], np.float32)
        table = tuple(int(v) for v in np.clip(base + rng.normal(0, 15, 3), 0, 255))
    canvas = cv2.copyMakeBorder(small, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=table)
    canvas = _photometric(canvas, rng, w_px)
    quad = np.float32([[pad, pad], [pad + sw, pad], [pad + sw, pad + sh], [pad, pad + sh]])
    quad += np.float32([shift[0] * sw, shift[1] * sh])
    if rng.random() < 0.5:  # the detector's quad a little off as a whole: offset and scale
        centre = quad.mean(axis=0)
        quad = centre + (quad - centre) * rng.uniform(0.95, 1.05)
        quad += rng.uniform(-0.06, 0.06, size=2).astype(np.float32) * np.float32([sw, sh])
    quad += rng.normal(0, 0.012 * sw, size=(4, 2)).clip(-0.04 * sw, 0.04 * sw).astype(np.float32)
    dst = np.float32([[0, 0], [WARP_SIZE[0], 0], [WARP_SIZE[0], WARP_SIZE[1]], [0, WARP_SIZE[1]]])
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    return cv2.warpPerspective(canvas, m, WARP_SIZE, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def misaligned(face: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A crop whose quad is a third or more off the card: must be rejected, not read."""
    big = rng.uniform(0.38, 0.65) * rng.choice([-1.0, 1.0])
    small = rng.uniform(-0.2, 0.2)
    shift = (big, small) if rng.random() < 0.5 else (small, big)
    return capture(face, rng, shift=shift)


def reject_face(rng: np.random.Generator, paper: tuple[int, int, int] = (226, 238, 242)
                ) -> np.ndarray:
    """Something that is not a Tightrope card: blank card, foreign card, table, skin."""
    kind = rng.integers(4)
    img = np.empty((CARD_H, CARD_W, 3), np.uint8)
    if kind == 0:  # blank card (maybe a border)
        img[:] = paper
        if rng.random() < 0.7:
            cv2.rectangle(img, (7, 7), (CARD_W - 8, CARD_H - 8), (70, 60, 55), 2, cv2.LINE_AA)
    elif kind == 1:  # a card of another game: letters / symbols
        img[:] = paper
        text = str(rng.choice(["A", "K", "Q", "J", "?", "X", "W", "M", "#", "+", "AB", "Z"]))
        font = int(rng.choice([0, 1, 2, 3, 4]))
        cv2.putText(img, text, (30, 210), font, float(rng.uniform(3, 5)), (40, 30, 30),
                    int(rng.integers(4, 14)), cv2.LINE_AA)
    elif kind == 2:  # table texture (wood grain / cloth)
        base = np.array(TABLES[rng.integers(len(TABLES))], np.float32)
        grain = np.sin(np.arange(CARD_H, dtype=np.float32)[:, None] * rng.uniform(0.05, 0.4)
                       + rng.normal(0, 1, (1, CARD_W)).cumsum(axis=1) * 0.05)
        f = base + grain[..., None] * rng.uniform(0, 25) + rng.normal(0, 6, (CARD_H, CARD_W, 3))
        img[:] = np.clip(f, 0, 255).astype(np.uint8)
    else:  # skin: a hand filling the crop
        base = np.array(SKIN[rng.integers(len(SKIN))], np.float32)
        shade = np.linspace(rng.uniform(0.7, 1.1), rng.uniform(0.7, 1.1), CARD_H)[:, None, None]
        img[:] = np.clip(base * shade + rng.normal(0, 4, (CARD_H, CARD_W, 3)), 0, 255)
    return img


def card_sample(face_of: Callable[[CardId], np.ndarray], card_index: int, flip: bool,
                rng: np.random.Generator) -> np.ndarray:
    """One augmented crop of card ALL_CARDS[card_index], upright or turned 180 deg."""
    card = ALL_CARDS[card_index]
    face = face_of(card)
    # when the detector found the card lying over this one, the crop shows grey there instead
    grey_half: bool | None = None  # a zero over the crop's top (True) or bottom half
    grey_part = False  # another card over an edge or a corner of it
    if card.kind == "scoring" and card.value > 0 and rng.random() < 0.45:
        blue = rng.random() < 0.5
        if rng.random() < 0.5:
            zero = CardId("scoring", 0, "blue" if blue else "red")
            face = _occlude_half(face, face_of(zero), rng, blue)
        else:  # mostly a blue 0 over the blue (top) half; the crop may be upside down
            grey_half = (blue == (rng.random() < 0.8)) != flip
    elif rng.random() < 0.12:
        face = _occlude_blob(face, rng)
    else:
        grey_part = rng.random() < 0.2
    if flip:
        face = face[::-1, ::-1]
    crop = capture(face, rng)
    if grey_half is not None:
        return _covered_half(crop, rng, grey_half)
    return _covered_by_card(crop, rng) if grey_part else crop


def make_dataset(face_of: Callable[[CardId], np.ndarray], per_class: int, rng: np.random.Generator,
                 reject: int | None = None, progress: Callable[[int, int], None] | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels: per_class crops for each (card, orientation) class plus rejects."""
    n_rej = per_class * 8 if reject is None else reject
    jobs = [(c, o) for c in range(len(ALL_CARDS)) for o in (0, 1) for _ in range(per_class)]
    total = len(jobs) + n_rej
    x = np.empty((total, features(np.zeros((FEAT_H, FEAT_W, 3), np.uint8)).size), np.float32)
    y = np.empty(total, np.int64)
    for i, (c, o) in enumerate(jobs):
        x[i] = features(card_sample(face_of, c, bool(o), rng))
        y[i] = 2 * c + o
        if progress and i % 200 == 0:
            progress(i, total)
    for j in range(n_rej):
        if rng.random() < 0.15:  # number cards only: half a scoring card is legitimately readable
            card = ALL_CARDS[rng.integers(50)]
            face = face_of(card)
            crop = misaligned(face if rng.random() < 0.5 else face[::-1, ::-1], rng)
        else:
            crop = capture(reject_face(rng), rng)
        x[len(jobs) + j] = features(crop)
        y[len(jobs) + j] = REJECT
    if progress:
        progress(total, total)
    return x, y


def train_mlp(x: np.ndarray, y: np.ndarray, rng: np.random.Generator, hidden: int = 256,
              epochs: int = 30, lr: float = 2e-3, init: Mlp | None = None, wd: float = 1e-4,
              progress: Callable[[int, int], None] | None = None,
              n_classes: int = N_CLASSES) -> Mlp:
    """Softmax MLP with Adam; starts from `init` (fine-tuning) when given."""
    if init is not None:
        mu, sd = init.mu, init.sd
        params = [init.w1.copy(), init.b1.copy(), init.w2.copy(), init.b2.copy()]
    else:
        mu, sd = x.mean(axis=0), x.std(axis=0) + 1e-3
        d = x.shape[1]
        params = [
            (rng.normal(0, np.sqrt(2.0 / d), (d, hidden))).astype(np.float32),
            np.zeros(hidden, np.float32),
            (rng.normal(0, np.sqrt(1.0 / hidden), (hidden, n_classes))).astype(np.float32),
            np.zeros(n_classes, np.float32),
        ]
    xs = ((x - mu) / sd).astype(np.float32)
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    step, batch, n = 0, 128, len(xs)
    for ep in range(epochs):
        rate = lr * 0.5 * (1 + np.cos(np.pi * ep / epochs))  # cosine decay
        for idx in np.array_split(rng.permutation(n), max(1, n // batch)):
            w1, b1, w2, b2 = params
            xb = xs[idx]
            h = np.maximum(0.0, xb @ w1 + b1)
            z = h @ w2 + b2
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(idx)), y[idx]] -= 1.0
            p /= len(idx)
            gw2, gb2 = h.T @ p + wd * w2, p.sum(axis=0)
            gh = (p @ w2.T) * (h > 0)
            gw1, gb1 = xb.T @ gh + wd * w1, gh.sum(axis=0)
            step += 1
            for k, g in enumerate((gw1, gb1, gw2, gb2)):
                m[k] = 0.9 * m[k] + 0.1 * g
                v[k] = 0.999 * v[k] + 0.001 * g * g
                mh, vh = m[k] / (1 - 0.9**step), v[k] / (1 - 0.999**step)
                params[k] -= (rate * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        if progress:
            progress(ep + 1, epochs)
    return Mlp(mu.astype(np.float32), sd.astype(np.float32), *params)


def card_of_class(y: np.ndarray) -> np.ndarray:
    """Class index -> card index (-1 for the reject class)."""
    return np.where(y == REJECT, -1, y // 2)


def fit_temperature(model: Mlp, x: np.ndarray, y: np.ndarray) -> float:
    """The softmax temperature (of 40 between 0.3 and 5) with the least negative
    log-likelihood of the labels y on held-out features x."""
    logits = model.logits(x)
    best_t, best_nll = 1.0, np.inf
    for t in np.exp(np.linspace(np.log(0.3), np.log(5.0), 40)):
        z = logits / t
        z = z - z.max(axis=1, keepdims=True)
        nll = -(z[np.arange(len(y)), y] - np.log(np.exp(z).sum(axis=1))).mean()
        if nll < best_nll:
            best_t, best_nll = float(t), float(nll)
    return best_t


def calibrate(model: Mlp, x: np.ndarray, y: np.ndarray, max_wrong: float = 0.0005) -> dict:
    """Fit temperature (least NLL) and the abstention threshold on held-out data; returns stats."""
    best_t = fit_temperature(model, x, y)
    model.temperature = best_t
    p = model.proba(x)
    per_card = p[:, :REJECT].reshape(len(x), -1, 2).sum(axis=2)
    pred, conf = per_card.argmax(axis=1), per_card.max(axis=1)
    truth = card_of_class(y)
    is_card = truth >= 0
    accepted_wrong = (pred != truth) & (p[:, REJECT] < conf)
    thr = 0.5
    for t in np.linspace(0.3, 0.995, 140):
        if (accepted_wrong & (conf >= t)).mean() <= max_wrong:
            thr = float(t)
            break
    else:
        thr = 0.995
    model.threshold = thr
    ok = (pred == truth) & (conf >= thr) & (p[:, REJECT] < conf)
    return {
        "temperature": best_t,
        "threshold": thr,
        "right": float(ok[is_card].mean()),
        "wrong": float((accepted_wrong & (conf >= thr))[is_card].mean()),
        "reject_ok": float(((p[:, REJECT] >= conf) | (conf < thr))[~is_card].mean())
        if (~is_card).any() else 1.0,
    }


def styled_faces(styles: Sequence) -> Callable[[CardId], np.ndarray]:
    """face_of(card) drawing a random style from `styles` for each call."""
    state = np.random.default_rng(12345)

    def face_of(card: CardId) -> np.ndarray:
        return face_cached(card, styles[state.integers(len(styles))])

    return face_of


# --- teach ------------------------------------------------------------------------------------

IMAGE_EXTS = (".png", ".jpg", ".jpeg")
TEMPLATE_SIZE = (100, 154)  # stored templates (w, h): plenty for 62..165 px cards in frames
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


def card_crop(path: Path, reader: Reader) -> np.ndarray:
    """The upright portrait crop (CARD_H x CARD_W) of the one card in the photo."""
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise TeachError(f"{path.name}: cannot read the image")
    quads = find_cards(img)
    if not quads:
        raise TeachError(f"{path.name}: no card found in the photo")
    quad = max(quads, key=lambda q: cv2.contourArea(q.astype(np.float32)))
    crop = warp(img, quad, (CARD_W, CARD_H))
    _, turns = reader.read_oriented(crop)
    return np.ascontiguousarray(np.rot90(crop, -turns)) if turns else crop


def teach(folder: str | Path, out: str | Path, per_class: int = 60, epochs: int = 12,
          seed: int = 7, progress: Progress | None = None) -> dict:
    """Build a deck file from the photos; returns calibration statistics."""
    show = progress or (lambda stage, i, n: None)
    photos = collect_photos(folder)
    zero = Reader.zero_shot()
    templates: dict[CardId, np.ndarray] = {}
    for i, card in enumerate(ALL_CARDS):
        show("photos", i, len(ALL_CARDS))
        crop = card_crop(photos[card], zero)
        templates[card] = cv2.resize(crop, TEMPLATE_SIZE, interpolation=cv2.INTER_AREA)
    show("photos", len(ALL_CARDS), len(ALL_CARDS))
    rng = np.random.default_rng(seed)

    full = {c: cv2.resize(t, (CARD_W, CARD_H), interpolation=cv2.INTER_LINEAR)
            for c, t in templates.items()}  # augmentation works on canonical-size faces

    def face_of(card: CardId) -> np.ndarray:
        return full[card]

    x, y = make_dataset(face_of, per_class, rng, progress=lambda i, n: show("augment", i, n))
    xv, yv = make_dataset(face_of, max(4, per_class // 4), rng)
    model = train_mlp(x, y, rng, epochs=epochs, lr=1e-3, init=zero.model,
                      progress=lambda i, n: show("train", i, n))
    stats = calibrate(model, xv, yv)
    stack = np.stack([templates[c] for c in ALL_CARDS])
    out_path = Path(out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with open(out_path, "wb") as fh:  # np.savez would append .npz to a name without it
        model.save(fh, templates=stack, kind=np.array("deck"))
    return stats
