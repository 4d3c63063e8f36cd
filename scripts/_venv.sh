# Sourced by serve.sh and test.sh: make .venv and install the project into it,
# reinstalling only when pyproject.toml changed since the last install.
# Usage: ensure_venv ""   (runtime)   or   ensure_venv dev   (with test tools)

ensure_venv() {
    local extras="$1"
    local root venv python spec stamp
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    venv="$root/.venv"
    python="${PYTHON:-python3}"

    if [ ! -x "$venv/bin/python" ]; then
        if ! command -v "$python" >/dev/null 2>&1; then
            echo "error: $python not found; install Python 3.11 or newer" >&2
            return 1
        fi
        if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
            echo "error: $("$python" --version 2>&1) is too old; Dingo Online needs Python 3.11+" \
                 "(set PYTHON=/path/to/python3.11)" >&2
            return 1
        fi
        echo "Creating $venv"
        "$python" -m venv "$venv" || {
            echo "error: could not create a venv (on Debian/Ubuntu: apt-get install python3-venv)" >&2
            return 1
        }
    fi

    spec="."
    [ -n "$extras" ] && spec=".[$extras]"
    stamp="$venv/.installed-${extras:-base}"
    # A dev install includes the runtime one, so it satisfies both.
    if ! cmp -s "$root/pyproject.toml" "$stamp" && ! cmp -s "$root/pyproject.toml" "$venv/.installed-dev"; then
        echo "Installing $spec into $venv"
        (cd "$root" && "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$spec")
        cp "$root/pyproject.toml" "$stamp"
    fi

    export VIRTUAL_ENV="$venv"
    export PATH="$venv/bin:$PATH"
    cd "$root"
}
