#!/bin/sh
# Install the Tightrope table companion on Raspberry Pi OS (Bookworm or later).
#   sudo sh systemd/install.sh            install (or upgrade) and start the service
#   sh systemd/install.sh --dry-run       print every step, change nothing
# Run it from a checkout of the project.
set -eu

PREFIX=/opt/tightrope-companion
CONFIG_DIR=/etc/tightrope
SERVICE=tightrope-companion
DRY_RUN=0
for arg in "$@"; do
    case "$arg" in
        --dry-run) DRY_RUN=1 ;;
        -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown option $arg" >&2; exit 2 ;;
    esac
done

SRC=$(cd "$(dirname "$0")/.." && pwd)

step() {
    # Print a step; run it unless this is a dry run.
    echo "+ $*"
    if [ "$DRY_RUN" -eq 0 ]; then
        "$@"
    fi
}

if [ "$DRY_RUN" -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run as root (sudo sh systemd/install.sh), or with --dry-run" >&2
    exit 1
fi

# 1. System packages: the camera stack, NumPy, OpenCV and GPIO come from Raspberry Pi OS, not
#    from pip: picamera2's compiled parts are built against the system's NumPy.
step apt-get update
step apt-get install -y python3-venv python3-picamera2 python3-lgpio python3-gpiozero \
    python3-opencv python3-numpy

# 2. A service user in the groups that may use the camera and the GPIO pins.
if ! id tightrope >/dev/null 2>&1; then
    step useradd --system --home-dir /var/lib/tightrope --shell /usr/sbin/nologin tightrope
fi
step usermod -a -G video,gpio tightrope

# 3. The package in a venv that also sees the system's picamera2 and lgpio.
step mkdir -p "$PREFIX"
step cp -r "$SRC/companion" "$SRC/vision" "$SRC/hardware" "$SRC/web" "$SRC/docs" \
    "$SRC/pyproject.toml" "$SRC/README.md" "$PREFIX/"
#    From pip: the dependencies of pyproject.toml that step 1 did not take from apt.
FROM_APT="numpy opencv-python-headless gpiozero"
PIP_DEPS=$(python3 -c '
import re, sys, tomllib
apt = set(sys.argv[2].split())
deps = tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]
print(" ".join(d for d in deps if re.split(r"[<>=!~ \[;]", d)[0].lower() not in apt))
' "$SRC/pyproject.toml" "$FROM_APT")
step python3 -m venv --system-site-packages "$PREFIX/venv"
# shellcheck disable=SC2086  # one word per requirement
step "$PREFIX/venv/bin/pip" install --quiet $PIP_DEPS
step "$PREFIX/venv/bin/pip" install --quiet --no-deps "$PREFIX"

# 4. The config (kept on upgrade) and the data folder.
step mkdir -p "$CONFIG_DIR"
if [ ! -f "$CONFIG_DIR/config.toml" ]; then
    step cp "$SRC/systemd/config.toml" "$CONFIG_DIR/config.toml"
fi
step chown -R root:tightrope "$CONFIG_DIR"
step chmod 0640 "$CONFIG_DIR/config.toml"

# 5. The service: enable at boot and (re)start now.
step install -m 0644 "$SRC/systemd/$SERVICE.service" "/etc/systemd/system/$SERVICE.service"
step systemctl daemon-reload
step systemctl enable "$SERVICE"
step systemctl restart "$SERVICE"

echo "The scoresheet is on http://$(hostname).local:8000/ — set the host PIN there first."
