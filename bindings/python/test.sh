#!/usr/bin/env bash
# Test the Python package: make (if absent) a venv at $HOME/.cache/redvote/pyvenv,
# install the package from this checkout with its test extras, run pytest
# (against throwaway redis-server processes the tests start themselves; set
# REDVOTE_SERVER=valkey-server to run them on Valkey). Extra arguments go to
# pytest. Exits non-zero when a test fails; prints the time taken.
set -uo pipefail
SECONDS=0
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$HOME/.cache/redvote/pyvenv"

finish() {
    local status=$1
    echo "bindings/python/test.sh: $([ "$status" -eq 0 ] && echo passed || echo FAILED) in ${SECONDS}s"
    exit "$status"
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

make_venv() {
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    python3 -m venv "$venv" >/dev/null 2>&1 && "$venv/bin/python" -m pip --version >/dev/null 2>&1
}

if ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
    echo "creating the venv $venv"
    if ! make_venv; then
        # Debian/Ubuntu ship venv's ensurepip separately
        echo "python3 -m venv failed: installing python3-venv (apt-get)"
        minor="$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
        as_root apt-get update -qq || finish 1
        as_root apt-get install -y -qq python3-venv || as_root apt-get install -y -qq "python${minor}-venv" || finish 1
        make_venv || { echo "python3 -m venv still fails"; finish 1; }
    fi
fi

if ! command -v "${REDVOTE_SERVER:-redis-server}" >/dev/null 2>&1; then
    echo "note: ${REDVOTE_SERVER:-redis-server} is not installed; the tests will fail until it is" \
         "(apt-get install -y redis-server)"
fi

cd "$here" || finish 1
"$venv/bin/python" -m pip install --disable-pip-version-check -q ".[test]" || finish 1
"$venv/bin/python" -m pytest -p no:cacheprovider "$@"
finish $?
