#!/bin/sh
# Debian packages the tests use, installed where missing: chromium (the browser tests drive it
# through Playwright), shellcheck (the installer is checked with it), and the only fonts the tests
# print decks in (tests/conftest.py): DejaVu and Liberation, and Goudy Bookletter (a serif of
# the fonts no model was trained on).
set -e
missing=""
if ! command -v chromium >/dev/null 2>&1 && [ -z "${TIGHTROPE_CHROMIUM:-}" ]; then
    missing="$missing chromium"
fi
if ! command -v shellcheck >/dev/null 2>&1; then
    missing="$missing shellcheck"
fi
if [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]; then
    missing="$missing fonts-dejavu-core"
fi
if [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf ]; then
    missing="$missing fonts-dejavu-extra"
fi
if [ ! -f /usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf ]; then
    missing="$missing fonts-liberation"
fi
if [ ! -f /usr/share/fonts/opentype/sortsmill/GoudyBookletter1911.otf ]; then
    missing="$missing fonts-goudybookletter"
fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
echo "installing Debian's$missing for the tests"
$SUDO apt-get update -qq
# shellcheck disable=SC2086  # the package names are meant to split
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
