#!/usr/bin/env bash
# Start Dingo Online at http://localhost:8000 (SQLite file ./dingo.db by default).
# First run creates .venv and installs the project; later runs start at once.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
ensure_venv ""
dingo migrate
exec dingo serve --no-migrate "$@"
