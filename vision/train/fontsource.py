"""Typefaces from the npm registry: Google's font families as Fontsource packages (`@fontsource/*`).

Debian's font packages give some 110 design groups of text faces for training; Google's library,
published on the npm registry by the Fontsource project, adds about 1,500 families (sans, serif,
slab, handwriting, monospace and display faces, OFL-licensed). Only the Latin files of the regular
and bold weights are kept (WOFF2, which Pillow's FreeType reads), one folder a family, with the
package's metadata and licence.

They are for training only: `vision.sim.fonts` never draws them for the `calib` or `test` splits,
so the unseen-design sets stay Debian's held-out typefaces, and a registry family whose design
group falls there is not drawn at all. `fontsource.txt` lists the families asked for (Google
Fonts' Latin families of 2024, without barcodes, icons and symbol fonts).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import sys
import tarfile
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from vision.sim.fonts import REGISTRY_FOLDER, REGISTRY_FONTS

FAMILIES = Path(__file__).with_name("fontsource.txt")
REGISTRY = os.environ.get("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org").rstrip("/")
DEST = REGISTRY_FONTS / REGISTRY_FOLDER  # not under /usr/share/fonts: see vision.sim.fonts
WEIGHTS = (400, 700)  # regular and bold, or the nearest the family has
TIMEOUT = 60


class FetchError(RuntimeError):
    """A package that could not be fetched or did not hold what it should."""


def family_ids() -> list[str]:
    return [line.strip() for line in FAMILIES.read_text().splitlines() if line.strip()]


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=TIMEOUT) as response:  # noqa: S310 - https only
        return response.read()


def _verified(blob: bytes, integrity: str) -> bytes:
    """The tarball, checked against the registry's sha512 integrity string."""
    algo, _, want = integrity.partition("-")
    if algo != "sha512":
        raise FetchError(f"unknown integrity {algo}")
    if base64.b64encode(hashlib.sha512(blob).digest()).decode() != want:
        raise FetchError("the tarball does not match its integrity")
    return blob


def nearest_weights(have: list[int]) -> list[int]:
    """Of the weights a family has, the ones nearest regular and bold (each once)."""
    if not have:
        return []
    return sorted({min(have, key=lambda w: (abs(w - want), w)) for want in WEIGHTS})


def fetch(family: str, dest: Path = DEST) -> int:
    """Fetch one family into dest/<family>; the number of font files written (0: it was there
    already, or it has no Latin regular style)."""
    folder = dest / family
    if (folder / "metadata.json").is_file():
        return 0
    try:
        doc = json.loads(_get(f"{REGISTRY}/@fontsource/{family}/latest"))
        blob = _verified(_get(doc["dist"]["tarball"]), doc["dist"]["integrity"])
    except (urllib.error.URLError, KeyError, ValueError, OSError) as exc:
        raise FetchError(f"@fontsource/{family}: {exc}") from exc
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
        def member(name: str) -> bytes | None:
            try:
                f = tar.extractfile(f"package/{name}")
            except KeyError:
                return None
            return f.read() if f is not None else None

        meta_raw = member("metadata.json")
        if meta_raw is None:
            raise FetchError(f"@fontsource/{family}: no metadata.json")
        meta = json.loads(meta_raw)
        if "latin" not in meta.get("subsets", []) or "normal" not in meta.get("styles", []):
            return 0
        files = {}
        for weight in nearest_weights([int(w) for w in meta.get("weights", [])]):
            name = f"{family}-latin-{weight}-normal.woff2"
            data = member(f"files/{name}")
            if data is not None:
                files[name] = data
        licence = member("LICENSE")
    if not files:
        return 0
    tmp = folder.with_name(folder.name + ".tmp")
    tmp.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (tmp / name).write_bytes(data)
    if licence is not None:
        (tmp / "LICENSE").write_bytes(licence)
    (tmp / "metadata.json").write_bytes(meta_raw)  # last: a folder with it is complete
    tmp.replace(folder)
    return len(files)


def fetch_all(dest: Path = DEST, workers: int = 8) -> tuple[int, list[str]]:
    """Fetch every listed family (those already there are kept): (font files written, the
    families that failed, each with why)."""
    dest.mkdir(parents=True, exist_ok=True)
    ids = family_ids()
    written, failed = 0, []

    def one(family: str) -> tuple[int, str | None]:
        try:
            return fetch(family, dest), None
        except FetchError as exc:
            return 0, str(exc)

    with ThreadPoolExecutor(workers) as pool:
        for k, (n, why) in enumerate(pool.map(one, ids), 1):
            written += n
            if why:
                failed.append(why)
            if k % 100 == 0 or k == len(ids):
                print(f"  fontsource: {k}/{len(ids)} families, {written} files, "
                      f"{len(failed)} failed", file=sys.stderr, flush=True)
    return written, failed


if __name__ == "__main__":
    n, bad = fetch_all(Path(sys.argv[1]) if len(sys.argv) > 1 else DEST)
    for why in bad:
        print(f"fontsource: {why}", file=sys.stderr)
    print(f"fontsource: {n} font files written")
