#!/usr/bin/env bash
# Creates .venv and installs setupcam. Safe to run again: it installs only what is
# missing. `--test` also installs the test and training tools (pytest, ruff, mypy,
# Playwright, torch's CPU wheel) and Chromium for the browser tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode=${1:-run}
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setupcam: creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi

if [ "$mode" = "--test" ]; then
  bash scripts/apt-packages.sh --with-browser
else
  bash scripts/apt-packages.sh
fi

extras=""
[ "$mode" = "--test" ] && extras="[dev,train]"
stamp=".venv/.setupcam-installed${extras}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setupcam: installing Python packages${extras:+ with $extras} (first run only; a few minutes)"
  # pip's and setuptools' notices (an editable install's backend warning) go to a log,
  # shown only if the install fails.
  log=.venv/pip-install.log
  if ! { .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip &&
         .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".${extras}"; } \
       >"$log" 2>&1; then
    cat "$log" >&2
    echo "setupcam: installing the Python packages failed (the log above is in $log)" >&2
    exit 1
  fi
  touch "$stamp"
fi
