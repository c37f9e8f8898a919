#!/usr/bin/env bash
# The test job: lint; build the executed book at the `smoke` size (the site tests read it); run
# every test, nbval over the instructor sources at the `smoke` size, and the GPU smoke command on
# the CPU. The full-size book is the main job (`make book`). Engine runs hold the engine lock.
set -uo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check . || exit 1

export SERVELAB_SIZE=${SERVELAB_SIZE:-smoke}
echo "tests: building the executed book at size '$SERVELAB_SIZE' (every chapter runs against vLLM)"
started=$SECONDS
.venv/bin/jupyter-book build --all -W . > _build-book.log 2>&1
built=$?
echo "tests: book build exited $built after $((SECONDS - started)) s (log: _build-book.log)"
bash env/chapter-times.sh _build-book.log
if [ "$built" != 0 ]; then
  tail -60 _build-book.log
  tail -n 80 _build/html/reports/*.log 2>/dev/null
fi

# One pytest run: the tests, then nbval over every instructor source (answer keys in place; the
# check cells' stored outputs are compared, so a key that fails its own hidden test fails here).
SERVELAB_REQUIRE_SITE=1 .venv/bin/python -m pytest --timeout=1500 \
  tests assignments/source --nbval-lax --nbval-current-env \
  --nbval-sanitize-with assignments/nbval-sanitize.cfg --nbval-cell-timeout=900 "$@"
tested=$?
[ "$built" = 0 ] && exit "$tested"
echo "tests: failing because the book build failed"
exit 1
