#!/bin/sh
# The browser tests drive Debian's Chromium through Playwright; install it where it is missing.
set -e
if command -v chromium >/dev/null 2>&1 || [ -n "${TIGHTROPE_CHROMIUM:-}" ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
echo "installing Debian's chromium for the browser tests"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
