"""Config, frame sources, the camera pipeline and the Raspberry Pi installer."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.commands import CameraStatus, Seen
from companion.config import CameraConfig, ConfigError, load_config, parse_config
from companion.pipeline import Pipeline
from vision.sources import Backoff, CameraLost, FolderSource, SourceError, open_source

ROOT = Path(__file__).parent.parent


def test_config_defaults_and_values(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[paths]\ndata_dir = "/srv/t"\n[camera]\nfps = 15\nsource = "opencv:0"\n'
                    '[web]\nport = 8080\n[pins]\nok = 4\n')
    config = load_config(path)
    assert config.data_dir == Path("/srv/t") and config.camera.fps == 15.0
    assert config.port == 8080 and config.pins == {"ok": 4}
    assert config.zones_path == Path("/srv/t/zones.json")
    assert load_config(ROOT / "systemd" / "config.toml").camera == CameraConfig()


@pytest.mark.parametrize("text,message", [
    ("[web]\nport = 99999\n", "not a TCP port"),
    ("[web]\nport = \"80\"\n", "web.port must be a whole number"),
    ("[camera]\nfps = 0\n", "must be positive"),
    ("[camera]\nzoom = 2\n", "unknown setting camera.zoom"),
    ("[cameras]\n", "unknown setting config.cameras"),
    ("[paths\n", "not valid TOML"),
])
def test_bad_config_is_one_clear_line(tmp_path, text, message):
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        load_config(path)
    assert "\n" not in str(info.value)


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "none.toml")


def test_parse_config_rejects_bools_for_numbers():
    with pytest.raises(ConfigError, match="camera.width"):
        parse_config({"camera": {"width": True}})


def test_folder_source_reads_in_name_order(tmp_path):
    for i in (2, 0, 1):
        cv2.imwrite(str(tmp_path / f"frame_{i:03d}.png"), np.full((4, 4, 3), i, np.uint8))
    (tmp_path / "notes.txt").write_text("not a frame")
    source = open_source(str(tmp_path), CameraConfig(), fps=5)
    assert isinstance(source, FolderSource) and source.fps == 5
    source.open()
    values = []
    while (frame := source.read()) is not None:
        values.append(int(frame[0, 0, 0]))
    assert values == [0, 1, 2]


def test_bad_sources(tmp_path):
    with pytest.raises(SourceError, match="neither"):
        open_source(str(tmp_path / "nope"), CameraConfig())
    with pytest.raises(SourceError, match="opencv:N"):
        open_source("opencv:x", CameraConfig())
    empty = FolderSource(tmp_path)
    with pytest.raises(SourceError, match="no image files"):
        empty.open()


def test_backoff_doubles_to_a_ceiling():
    backoff = Backoff(1.0, 5.0)
    assert [backoff.next() for _ in range(5)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    backoff.reset()
    assert backoff.next() == 1.0


class FlakyCamera:
    """A live source that fails to open once, gives two frames, drops out, comes back."""

    live = True
    fps = 10.0

    def __init__(self) -> None:
        self.script = ["fail-open", "frame", "frame", "lost", "frame"]
        self.opened = False

    def open(self) -> None:
        if self.script and self.script[0] == "fail-open":
            self.script.pop(0)
            raise CameraLost("no camera")
        self.opened = True

    def read(self):
        step = self.script.pop(0) if self.script else "end"
        if step == "lost":
            raise CameraLost("cable pulled")
        if step == "end":
            return None
        return np.zeros((8, 8, 3), np.uint8)

    def close(self) -> None:
        self.opened = False


class CountingWatcher:
    moving: frozenset = frozenset()  # no hand over any zone

    def __init__(self) -> None:
        self.fed = 0

    def feed(self, frame):
        self.fed += 1
        return []


def test_pipeline_retries_a_lost_camera_with_backoff():
    messages, waits = [], []
    camera, watcher = FlakyCamera(), CountingWatcher()
    pipeline = Pipeline(camera, watcher, messages.append, sleep=waits.append, retry_s=0.5)
    pipeline.run()
    kinds = [(type(m).__name__, getattr(m, "ok", None)) for m in messages]
    assert kinds == [("CameraStatus", False), ("CameraStatus", True), ("Seen", None),
                     ("Seen", None), ("CameraStatus", False), ("CameraStatus", True),
                     ("Seen", None)]
    assert waits == [0.5, 0.5]  # the back-off was reset by the successful reopen
    assert watcher.fed == 3 and pipeline.ended.is_set()


def test_a_lost_camera_is_said_once_per_outage_on_the_terminal(capsys):
    camera = FlakyCamera()
    camera.script = ["fail-open"] * 4 + ["frame", "lost", "frame"]
    messages = []
    Pipeline(camera, CountingWatcher(), messages.append, sleep=lambda s: None).run()
    err = capsys.readouterr().err.splitlines()
    assert [line.split(":")[1].strip() for line in err] == [
        "camera lost", "the camera is back", "camera lost", "the camera is back"]
    assert sum(1 for m in messages if getattr(m, "ok", None) is False) == 5  # the page: each try


def test_pipeline_survives_a_failing_watcher(tmp_path, capsys):
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.zeros((4, 4, 3), np.uint8))

    class Broken:
        def feed(self, frame):
            raise RuntimeError("boom")

    messages = []
    pipeline = Pipeline(FolderSource(tmp_path), Broken(), messages.append, realtime=False)
    pipeline.run()
    assert len([m for m in messages if isinstance(m, Seen)]) == 3
    assert pipeline.failures == 3 and "boom" in capsys.readouterr().err
    assert not any(isinstance(m, CameraStatus) for m in messages)


def test_pipeline_times_recorded_frames_by_count(tmp_path):
    for i in range(4):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.zeros((4, 4, 3), np.uint8))
    messages = []
    Pipeline(FolderSource(tmp_path, fps=4), CountingWatcher(), messages.append,
             realtime=False).run()
    assert [m.t for m in messages] == [0.0, 0.25, 0.5, 0.75]


def test_installer_dry_run_and_shellcheck():
    out = subprocess.run(["sh", str(ROOT / "systemd" / "install.sh"), "--dry-run"],
                         capture_output=True, text=True, check=True).stdout
    for expected in ("apt-get install -y python3-venv python3-picamera2 python3-lgpio",
                     "venv --system-site-packages", "systemctl enable tightrope-companion",
                     "usermod -a -G video,gpio tightrope"):
        assert expected in out
    pip = next(line for line in out.splitlines() if "pip install --quiet" in line
               and "--no-deps" not in line).split()[4:]
    wanted = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    from_apt = {"numpy>=1.24", "opencv-python-headless>=4.8", "gpiozero>=2.0"}
    assert sorted(pip) == sorted(set(wanted) - from_apt)  # onnxruntime and segno come from pip
    if shutil.which("shellcheck"):
        subprocess.run(["shellcheck", str(ROOT / "systemd" / "install.sh")], check=True)


def test_unit_file_has_what_the_pi_needs():
    unit = (ROOT / "systemd" / "tightrope-companion.service").read_text()
    for line in ("Type=notify", "WatchdogSec=", "Restart=on-failure", "User=tightrope",
                 "SupplementaryGroups=video gpio", "StateDirectory=tightrope", "MemoryMax="):
        assert line in unit


def test_systemd_notifier_sends_ready_and_watchdog(tmp_path, monkeypatch):
    import socket

    from companion.service import SystemdNotifier

    path = tmp_path / "notify.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(path))
    server.settimeout(2)
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    monkeypatch.setenv("WATCHDOG_USEC", "2000000")
    notifier = SystemdNotifier()
    notifier.send("READY=1")
    notifier.tick()
    notifier.tick()  # within the interval: not sent again
    assert server.recv(64) == b"READY=1" and server.recv(64) == b"WATCHDOG=1"
    server.setblocking(False)
    with pytest.raises(BlockingIOError):
        server.recv(64)
    server.close()


def test_no_notify_socket_is_quiet(monkeypatch):
    from companion.service import SystemdNotifier

    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    notifier = SystemdNotifier()
    assert notifier.address == "" and notifier.interval == 0
    notifier.send("READY=1")  # off systemd: nothing to tell, nothing raised


def test_allowed_hosts_from_the_config(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[web]\nallowed_hosts = ["tightrope.lan", "192.168.1.9", "[fe80::1]"]\n')
    assert load_config(path).allowed_hosts == ("tightrope.lan", "192.168.1.9", "[fe80::1]")
    assert load_config(None).allowed_hosts == ()


@pytest.mark.parametrize("text,message", [
    ('[web]\nallowed_hosts = "pi"\n', "web.allowed_hosts must be a list"),
    ('[web]\nallowed_hosts = ["http://pi"]\n', "'http://pi' is not a host name"),
    ('[web]\nallowed_hosts = ["pi:8000"]\n', "'pi:8000' is not a host name"),
    ('[web]\nallowed_hosts = [3]\n', "3 is not a host name"),
    ("[web]\nport = 99999\n", "not a TCP port"),
    ("[paths\n", "not valid TOML"),
])
def test_a_bad_config_names_its_file(tmp_path, text, message):
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}") and "\n" not in str(info.value)


def test_a_binary_config_is_one_line_naming_it(tmp_path):
    path = tmp_path / "c.toml"
    path.write_bytes(b"\xff\xfe\x00garbage\x89PNG")
    with pytest.raises(ConfigError, match="c.toml is not"):
        load_config(path)


@pytest.mark.parametrize("game, body, message", [
    ("tightrope", '{"type": "passed", "seat": 1}', "unknown event type"),
    ("attacke", '{"type": "passed", "seat": 1}', "a setup file holds one game_started event"),
    ("solo", '{"type": "game_started", "players": ["Ana", "Ben"]}',
     "S2: Tightrope (solo) is for 1 player, not 2"),
    ("attacke", "{", "Expecting property name"),
])
def test_a_setup_file_is_read_for_its_game_or_refused_in_one_line(tmp_path, game, body, message):
    from companion.service import StartError, read_setup

    path = tmp_path / "setup.json"
    path.write_text(body)
    with pytest.raises(StartError, match=re.escape(message)) as err:
        read_setup(path, game)
    assert "\n" not in str(err.value)


def test_a_setup_file_of_attacke(tmp_path):
    from companion.games.attacke.rules import GameStarted
    from companion.service import read_setup

    path = tmp_path / "setup.json"
    path.write_text('{"type": "game_started", "players": ["Ana", "Ben"], "first_player": 1}')
    assert read_setup(path, "attacke") == GameStarted(("Ana", "Ben"), 1)
