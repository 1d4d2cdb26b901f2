#!/usr/bin/env bash
# One command: set up (first run only) and run the live app on the simulated table.
# Extra arguments go to `setupcam demo` (e.g. --port 8000).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup-env.sh
exec .venv/bin/setupcam demo "$@"
