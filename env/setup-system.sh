#!/usr/bin/env bash
# System packages the tests need: Debian's chromium for the real-browser test of the built site.
set -euo pipefail
if command -v chromium >/dev/null; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "setup: chromium is missing and apt-get is not usable here; the browser test will fail" >&2
  exit 0
fi
echo "setup: installing Debian's chromium for the browser test"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
