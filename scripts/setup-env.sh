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
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".${extras}"
  touch "$stamp"
fi
