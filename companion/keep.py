"""What the referee's decisions leave behind, each kept by a subscriber of its own.

The referee appends every accepted event to the store (durably, first) and then tells its
subscribers (`Referee.subscribe`): the game record file that `--record` mirrors, the photo of each
scored trick, and the crops of the cards a person named at the table (the reader remembers them
for the night, vision.memory, and they join the deck: see vision.teach). None of them can
change the game.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .games.base import Moment
from .record import dumps, header_line
from .store import Store


@dataclass(frozen=True)
class Applied:
    """An event the referee accepted and stored."""

    game_id: int
    event: Any
    moment: Moment | None    # what it completed: a trick, a contest
    frame: Any = None        # the camera's newest frame (BGR), if there is a camera


@dataclass(frozen=True)
class Learned:
    """A person named a card the camera saw: its crop and its right label."""

    game_id: int
    label: str
    crop: Any                # BGR context crop (vision.teach.context_crop)
    read_as: str | None = None  # the card the camera read it as, surely (None: unsure)


@dataclass(frozen=True)
class Started:
    """A new game began."""

    game_id: int


Notice = Applied | Learned | Started
Listener = Callable[[Notice], None]


class RecordMirror:
    """The game record file (`--record`), kept equal to the store: appended per event, written
    whole at a new game or a restart (to a temporary file beside it, synced, then renamed: a
    kill leaves the old record or the new one, never half of one). When a write fails the store
    still holds the event: the failure is said (OSError naming the file) and the next event
    rewrites the record whole."""

    def __init__(self, path: str | Path, store: Store) -> None:
        self.path = Path(path)
        self.store = store
        self._stale = False

    def rewrite(self, game_id: int | None) -> None:
        if game_id is None:
            return
        game = self.store.game_of(game_id).name
        lines = [header_line(game), *(dumps(e, game) for e in self.store.events(game_id))]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        try:
            with tmp.open("w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except OSError:
            tmp.unlink(missing_ok=True)
            raise
        self._stale = False

    def __call__(self, notice: Notice) -> None:
        try:
            if isinstance(notice, Started) or (isinstance(notice, Applied) and self._stale):
                self.rewrite(notice.game_id)
            elif isinstance(notice, Applied):
                line = dumps(notice.event, self.store.game_of(notice.game_id).name)
                with self.path.open("a", encoding="utf-8") as handle:
                    handle.write(line + "\n")
        except OSError as err:
            self._stale = True
            raise OSError(f"the record {self.path} cannot be written: {err.strerror}") from err


class TrickPhotos:
    """Every scored trick (contest, mission) keeps a photo of the table (evidence for "who
    played the 23?")."""

    def __init__(self, folder: str | Path, store: Store) -> None:
        self.folder = Path(folder)
        self.store = store

    def __call__(self, notice: Notice) -> None:
        if not isinstance(notice, Applied) or notice.moment is None or notice.frame is None:
            return
        import cv2

        moment = notice.moment
        relative = Path(str(notice.game_id)) / f"{moment.photo_stem}.jpg"
        path = self.folder / relative
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            written = cv2.imwrite(str(path), notice.frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
        except (OSError, cv2.error) as err:
            raise OSError(f"the trick photo {path} cannot be written: {err}") from err
        if not written:  # OpenCV says only False (a full disk, a folder it cannot write)
            raise OSError(f"the trick photo {path} cannot be written")
        self.store.add_photo(notice.game_id, *moment.photo_key, relative.as_posix())


class Remembered:
    """The cards people named, remembered by the reader in use (vision.memory): for the rest
    of the night it reads them surely when they come back, and the table is not asked again."""

    def __init__(self, reader: Callable[[], Any]) -> None:
        self.reader = reader  # the reader in use now (None: none; one without a memory
        # remembers nothing: vision.read.Reader.remember)

    def __call__(self, notice: Notice) -> None:
        if not isinstance(notice, Learned) or notice.crop is None:
            return
        reader = self.reader()
        if reader is not None:
            reader.remember(notice.crop, notice.label, notice.read_as)


class CorrectionCrops:
    """The crops of cards people named: `<folder>/<game>/<label>-<n>.png`. The next start (or
    `teach --add-corrections`) adds them to the deck."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def __call__(self, notice: Notice) -> None:
        if not isinstance(notice, Learned) or notice.crop is None:
            return
        import cv2

        folder = self.folder / str(notice.game_id)
        folder.mkdir(parents=True, exist_ok=True)
        n = sum(1 for _ in folder.glob(f"{notice.label}-*.png")) + 1
        cv2.imwrite(str(folder / f"{notice.label}-{n}.png"), notice.crop)
