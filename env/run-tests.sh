#!/usr/bin/env bash
# The test job: lint (ruff, mypy, then lint-imports), then one pytest run of every test and nbval over every
# instructor source, both at the `smoke` size. nbval executes each chapter top to bottom against the real engine with
# its answer key; the executed full-size book is the main job (`make book`), and the site tests
# read it when one is there (tests/tooling/test_site.py also builds and renders a throw-away
# chapter). `tests` holds every tier: tests/unit, tests/tooling and tests/engine.
set -uo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check . || exit 1
.venv/bin/mypy || exit 1
.venv/bin/lint-imports --no-cache || exit 1

export SERVELAB_SIZE=${SERVELAB_SIZE:-smoke}
echo "tests: pytest and nbval at size '$SERVELAB_SIZE' (chapters and engine tests run against vLLM)"
# The engine lock is held for the whole run, so no other engine (a book build, a benchmark)
# shares the cores with the chapters and engine tests; never run this under flock yourself.
exec flock /tmp/servelab-engine.lock .venv/bin/python -m pytest --timeout=1500 \
  tests assignments/source --nbval-lax --nbval-current-env \
  --nbval-sanitize-with assignments/nbval-sanitize.cfg --nbval-cell-timeout=900 "$@"
