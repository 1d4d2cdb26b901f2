#!/usr/bin/env bash
# Creates .venv and installs setupcam with its test tools. Safe to run again: it
# only installs what is missing. Sourced by scripts/test.sh and scripts/demo.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setupcam: creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi

# Debian fonts give the simulator more tile art; install them once when we are root.
if [ -x scripts/apt-packages.sh ]; then
  bash scripts/apt-packages.sh
fi

stamp=.venv/.setupcam-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setupcam: installing Python packages (first run only)"
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".[dev]"
  touch "$stamp"
fi
