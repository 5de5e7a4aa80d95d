"""The typefaces the simulator prints card numerals in, and which of them training may see.

A deck at a game night is printed in some typeface we never rendered, so the reader is trained on
hundreds of real ones (Debian's font packages; `python -m vision.train.setup` installs them) and
measured on others it never saw. Fonts are grouped into *groups* of one design: a family and its
widths and weights, plus metric clones that are the same design under another name (Arimo,
Liberation Sans and Nimbus Sans are one Helvetica). Each group falls into one split by a stable
hash of its name:

- ``train``: the models learn from these;
- ``calib``: never trained on; the reader's confidence line is fitted on them;
- ``test``: never trained or tuned on: the unseen-design figures are measured on them.

Fonts from the npm registry's Fontsource packages (a `fontsource` folder, `vision.train.fontsource`)
are training's only: they widen the ``train`` split tenfold and are never drawn for ``calib`` or
``test``, which stay Debian's held-out designs (a registry family whose group falls there is not
drawn at all).

A font counts only if it draws ten distinct digits (not its missing-glyph box). Fonts whose digits
are pictures (dingbats, stars, blocks) are left out by name. The scan is cached per font file.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import numpy as np

Split = Literal["train", "calib", "test"]
SPLITS: tuple[Split, ...] = ("train", "calib", "test")
# The npm registry's fonts (vision.train.fontsource) lie outside fontconfig's folders: with their
# 2,099 WOFF2 files under /usr/share/fonts, Chromium aborted at start ("SkFontMgr_FontConfig
# Interface: Not implemented") and took the browser tests down on a machine set up for training.
REGISTRY_FONTS = Path("/usr/share/tightrope-companion/fonts")
FONT_DIRS = (Path("/usr/share/fonts"), REGISTRY_FONTS)
# Where the fonts are looked for instead (folders joined by os.pathsep): the tests name the
# fonts `make test` installs, so that a design drawn from a seed is the same on every machine.
FONT_DIRS_ENV = "TIGHTROPE_FONT_DIRS"
SCAN_VERSION = 2
FONT_SUFFIXES = (".ttf", ".otf", ".woff2", ".woff")
REGISTRY_FOLDER = "fontsource"  # fonts under a folder of this name: training only

# Display fonts of the Aenigma collection ("... BRK") are drawn less often than text faces: a
# printed deck is far likelier to use a book or signage face.
DISPLAY_SHARE = 0.2
_TRIES = 200  # fonts tried for one that draws a deck's letters

# digits that are pictures, letters or unreadable shapes
_BLOCKED = {
    "?holes brk", "90 stars brk", "binary brk", "binary x brk", "bit blocks ttf brk",
    "code of life brk", "d050000l", "db layer 2 brk", "db layer 3 brk", "db layer 4 brk",
    "dseg7 7seggchan", "faux snow brk", "head-ding maker brk",
    "line dings brk", "lynx brk", "symmetry brk", "vertigo 2 brk", "vertigo brk",
    "skull capz brk", "xerox malfunction brk", "noto nastaliq urdu", "entangled layer b brk",
    "spheroids brk", "spheroids x brk", "double bogey brk", "circulate brk", "mishmash 4x4o brk",
    "standard symbols ps", "noto sans symbols", "noto sans symbols2", "bitstream charter",
}
# metric clones and renamed copies: one design, one group
_CLONES = {
    "arimo": "helvetica", "liberation sans": "helvetica", "nimbus sans": "helvetica",
    "freesans": "helvetica", "aerial": "helvetica", "sans uralic": "helvetica",
    "liberation sans narrow": "helvetica", "nimbus sans narrow": "helvetica",
    "tinos": "times", "liberation serif": "times", "nimbus roman": "times", "freeserif": "times",
    "tymes": "times", "roman uralic": "times",
    "cousine": "courier", "liberation mono": "courier", "nimbus mono ps": "courier",
    "freemono": "courier", "mono uralic": "courier",
    "p052": "palatino", "palladio uralic": "palatino",
    "urw bookman": "bookman", "bookman uralic": "bookman",
    "c059": "schoolbook", "schoolbook uralic": "schoolbook",
    "urw gothic": "avantgarde", "gothic uralic": "avantgarde",
    "z003": "chancery", "chancery uralic": "chancery",
    "carlito": "calibri", "caladea": "cambria",
    "cmu serif": "computer modern", "cmu sans serif": "computer modern",
    "cmu typewriter text": "computer modern", "cmu bright": "computer modern",
    "cmu concrete": "computer modern", "cmu classical serif": "computer modern",
    "cmu serif upright italic": "computer modern", "cmu serif extra": "computer modern",
    "cmu sans serif demi condensed": "computer modern",
    "cmu typewriter text variable width": "computer modern",
}


# one design under several first words
_STEMS = {"ocr": "ocr-a", "ocra": "ocr-a", "dseg": "dseg", "veranda": "verana"}


class FontError(ValueError):
    """No usable fonts where they were looked for."""


@dataclass(frozen=True)
class Font:
    path: str
    family: str
    style: str
    group: str
    display: bool  # a display face (Aenigma "BRK"), drawn less often
    registry: bool = False  # from the npm registry (Fontsource): drawn for training only

    @property
    def split(self) -> Split:
        return split_of(self.group)

    @property
    def drawn_for(self) -> Split | None:
        """The split that draws this font (None: no split does)."""
        split = self.split
        return None if self.registry and split != "train" else split


def group_of(family: str) -> str:
    """The design a family belongs to: its clone group, else its first word ("Noto Sans
    Bengali" and "Noto Serif" are both "noto": one designer's digits, kept on one side)."""
    name = family.strip().lower()
    if name in _CLONES:
        return _CLONES[name]
    first = name.replace("-", " ").replace("_", " ").split()[0] if name else name
    stem = re.sub(r"(gs|condensed|alta?|mono|bold|italic|\d+)+$", "", first)
    return _STEMS.get(stem, stem) if len(stem) > 2 else first


def split_of(group: str) -> Split:
    """Stable split of a design group: about 72 % train, 10 % calib, 18 % test."""
    h = int(hashlib.sha1(("tightrope-fonts:" + group).encode()).hexdigest()[:8], 16) % 100
    return "train" if h < 72 else "calib" if h < 82 else "test"


def _cache_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tightrope-companion" / "fonts.json"


def font_dirs() -> tuple[Path, ...]:
    """The folders the simulator's fonts come from: $TIGHTROPE_FONT_DIRS, else the system's."""
    named = os.environ.get(FONT_DIRS_ENV, "")
    return tuple(Path(d) for d in named.split(os.pathsep) if d) or FONT_DIRS


def _font_files(dirs: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for d in dirs:
        if d.is_dir():
            out += [p for p in d.rglob("*") if p.suffix.lower() in FONT_SUFFIXES]
    return sorted(out)


def _digits_ok(path: Path) -> tuple[str, str] | None:
    """(family, style) if the font draws ten distinct digits, else None."""
    from PIL import ImageFont

    try:
        font = ImageFont.truetype(str(path), 64)
        family, style = font.getname()
        ok = _distinct_glyphs(font, "0123456789")
    except (OSError, ValueError):  # a damaged file, or a hinting program FreeType gives up on
        return None
    return (str(family), str(style)) if ok else None


@functools.lru_cache(maxsize=4096)
def draws(path: str, chars: str) -> bool:
    """Whether the font draws each of `chars` as a shape of its own (a deck's letters: a font
    chosen for its digits may lack them, or draw them all as its missing-glyph box)."""
    from PIL import ImageFont

    try:
        return _distinct_glyphs(ImageFont.truetype(path, 64), chars)
    except (OSError, ValueError):
        return False


def _distinct_glyphs(font, chars: str) -> bool:  # noqa: ANN001 - a PIL font object
    """Every one of `chars` drawn, none the missing-glyph box, no two alike."""
    shapes = [_ink_shape(font, ch) for ch in chars]
    if any(g is None for g in shapes):
        return False
    box = _ink_shape(font, "\ue000")  # a private-use code point: the missing-glyph box, if any
    if box is not None and any(float(np.abs(g - box).mean()) < 0.02 for g in shapes):
        return False
    closest = min((float(np.abs(shapes[i] - shapes[j]).mean())
                   for i in range(len(shapes)) for j in range(i + 1, len(shapes))), default=1.0)
    return closest >= 0.04


def _ink_shape(font, ch: str) -> np.ndarray | None:  # noqa: ANN001 - a PIL font object
    """A character's ink cropped and scaled to 24 x 32, flattened (None when next to none)."""
    import cv2
    from PIL import Image, ImageDraw

    im = Image.new("L", (120, 120), 0)
    ImageDraw.Draw(im).text((14, 8), ch, font=font, fill=255)
    a = np.asarray(im, np.float32) / 255
    ys, xs = np.nonzero(a > 0.3)
    if len(ys) < 10:
        return None
    g = a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    return cv2.resize(g, (24, 32), interpolation=cv2.INTER_AREA).ravel()


def scan(dirs: Iterable[Path] | None = None, cache: Path | None = None) -> list[Font]:
    """Every usable font under `dirs` (by default `font_dirs()`; cached by file path, size and
    modification time)."""
    cache = cache or _cache_file()
    try:
        known = json.loads(cache.read_text()) if cache.is_file() else {}
    except (OSError, ValueError):
        known = {}
    if known.get("version") != SCAN_VERSION:
        known = {"version": SCAN_VERSION, "files": {}}
    files: dict[str, dict] = known["files"]
    fonts: list[Font] = []
    changed = False
    for path in _font_files(font_dirs() if dirs is None else dirs):
        st = path.stat()
        key = str(path)
        entry = files.get(key)
        if entry is None or entry["stamp"] != [st.st_size, int(st.st_mtime)]:
            got = _digits_ok(path)
            entry = {"stamp": [st.st_size, int(st.st_mtime)], "name": list(got) if got else None}
            files[key] = entry
            changed = True
        if entry["name"] is None:
            continue
        family, style = entry["name"]
        if family.strip().lower() in _BLOCKED:
            continue
        fonts.append(Font(key, family, style, group_of(family),
                          family.rstrip().endswith("BRK"), REGISTRY_FOLDER in path.parts))
    if changed:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(known))
    return fonts


@functools.cache
def fonts_of(split: Split) -> tuple[Font, ...]:
    """The usable fonts of one split, from the system's font folders (FontError if none)."""
    fonts = tuple(f for f in scan() if f.drawn_for == split)
    if not fonts:
        raise FontError(f"no usable {split} fonts under {', '.join(map(str, font_dirs()))}: "
                        "install them with `python -m vision.train.setup`")
    return fonts


def pick_font(rng: np.random.Generator, split: Split, needs: str = "") -> Font:
    """A random font of the split: a design group first (a family with forty files is one
    design, like a family with one), then one of its fonts; a text face, or now and then a
    display face. With `needs`, one that draws those characters too (`draws`)."""
    for _ in range(_TRIES):
        font = _any_font(rng, split)
        if not needs or draws(font.path, needs):
            return font
    raise FontError(f"no {split} font drawing {needs!r} found in {_TRIES} tries")


def _any_font(rng: np.random.Generator, split: Split) -> Font:
    fonts = fonts_of(split)
    display = [f for f in fonts if f.display]
    text = [f for f in fonts if not f.display]
    pool = display if display and (not text or rng.random() < DISPLAY_SHARE) else text
    groups = sorted({f.group for f in pool})
    group = groups[int(rng.integers(len(groups)))]
    members = [f for f in pool if f.group == group]
    return members[int(rng.integers(len(members)))]


def summary() -> dict[str, dict[str, int]]:
    """Fonts and design groups per split (for the docs and the training log)."""
    out: dict[str, dict[str, int]] = {}
    fonts = scan()
    for split in SPLITS:
        mine = [f for f in fonts if f.drawn_for == split]
        out[split] = {"fonts": len(mine), "groups": len({f.group for f in mine}),
                      "text_groups": len({f.group for f in mine if not f.display})}
    return out


def as_json(font: Font) -> dict:
    return asdict(font)
