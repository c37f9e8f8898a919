#!/usr/bin/env bash
# The test job: lint, then every test (real engine, real model), stopping no later than CI allows.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check .
exec .venv/bin/python -m pytest --timeout=1500 "$@"
