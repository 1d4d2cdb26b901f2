#!/usr/bin/env bash
# One command: set up everything and run every test (lint, types, unit, property, browser).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup-env.sh

echo "== ruff"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
echo "== mypy engine/"
.venv/bin/mypy
echo "== pytest"
.venv/bin/pytest "$@"
