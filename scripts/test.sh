#!/usr/bin/env bash
# Run the whole test suite (arguments go to pytest, e.g. ./scripts/test.sh -k ops).
# Browser tests use Debian's /usr/bin/chromium; no browser is ever downloaded.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
ensure_venv dev
exec python -m pytest "$@"
