"""What the table taught: the crops of cards people named when the companion asked (kept per
game in `<data dir>/corrections/<game>/<label>-<n>.png` by keep.CorrectionCrops), and the deck
they join. They are learned at a start (in the background: the table is watched with the old
deck meanwhile) and the host can forget them from the Setup page."""

from __future__ import annotations

import shutil
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

UseDeck = Callable[[Path | None], None]  # read with this deck from now on (None: zero-shot)


class Lessons:
    def __init__(self, folder: Path, deck: Path, out: Path, use_deck: UseDeck) -> None:
        self.folder = folder      # the crops
        self.deck = deck          # the deck in use (configured, or the one taught here)
        self.out = out            # where a deck with (or without) the crops is written
        self.use_deck = use_deck
        self._lock = threading.Lock()
        self.busy = ""            # "learning" or "forgetting" while a background run works

    def crops(self) -> list[Path]:
        return sorted(self.folder.rglob("*.png")) if self.folder.is_dir() else []

    def summary(self) -> dict[str, Any]:
        crops = self.crops()
        return {"crops": len(crops), "games": len({p.parent for p in crops}),
                "busy": self.busy}

    def learn(self) -> threading.Thread | None:
        """Crops newer than the deck join it (a new deck file in `out`)."""
        crops = self.crops()
        if not crops or self._newer_than(max(p.stat().st_mtime for p in crops)):
            return None
        return self._run("learning", self._learn)

    def _newer_than(self, t: float) -> bool:
        """Is the deck in use newer than time t: the deck learned here (unless the configured
        deck was taught again since), else the configured one?"""
        mtime = {p: p.stat().st_mtime for p in (self.deck, self.out) if p.is_file()}
        learned = self.out in mtime and mtime[self.out] >= mtime.get(self.deck, 0.0)
        used = self.out if learned else self.deck
        return used in mtime and mtime[used] >= t

    def forget(self) -> threading.Thread | None:
        """Delete the crops; a deck that learned them is fitted again without them."""
        shutil.rmtree(self.folder, ignore_errors=True)
        if not self.out.is_file():
            return None
        return self._run("forgetting", self._forget)

    def _learn(self) -> None:
        from vision.teach import add_corrections

        add_corrections(self.folder, self.out, self.deck if self.deck.is_file() else None)
        self.use_deck(self.out)

    def _forget(self) -> None:
        from vision.teach import drop_corrections

        if drop_corrections(self.out, self.out) is None:  # it held nothing but the crops
            self.out.unlink(missing_ok=True)
            self.use_deck(self.deck if self.deck.is_file() else None)
        else:
            self.use_deck(self.out)

    def _run(self, what: str, work: Callable[[], None]) -> threading.Thread | None:
        with self._lock:
            if self.busy:
                return None
            self.busy = what

        def run() -> None:
            from vision.teach import TeachError

            try:
                work()
            except (TeachError, OSError, ValueError) as err:
                print(f"tightrope-companion: {what} the table's corrections failed: {err}",
                      file=sys.stderr, flush=True)
            finally:
                self.busy = ""

        thread = threading.Thread(target=run, name=what, daemon=True)
        thread.start()
        return thread
