#!/usr/bin/env bash
# One command: set up everything, then run every test (lint, types, unit, property,
# training smoke run, browser tests in headless Chromium). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup-env.sh --test

echo "== ruff"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
echo "== mypy engine/"
.venv/bin/mypy
echo "== pytest"
.venv/bin/pytest "$@"
