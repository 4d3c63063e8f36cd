#!/usr/bin/env bash
# Run the whole test suite: ruff and mypy --strict, then pytest. Arguments go to pytest
# and skip the linters (./scripts/test.sh -k ops runs just those tests).
# Browser tests use Debian's /usr/bin/chromium; no browser is ever downloaded.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
ensure_venv dev
if [ "$#" -eq 0 ]; then
    echo "ruff check app tests bench"
    ruff check app tests bench
    echo "mypy --strict app"
    mypy app
    # The whole suite on every core, up to four (pytest-xdist): each test already has its
    # own databases, Redis key prefix, ports and files, and on two cores it takes about
    # 60% of the time of one process.
    set -- --numprocesses=auto --maxprocesses=4
fi
exec python -m pytest "$@"
