#!/usr/bin/env bash
# The test job: lint, build the executed book (the main job, which runs every chapter on the real
# engine), then every test, with the site tests required to find that build.
set -uo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check . || exit 1

echo "tests: building the executed book (every chapter runs against vLLM)"
started=$SECONDS
.venv/bin/jupyter-book build --all -W . > _build-book.log 2>&1
built=$?
echo "tests: book build exited $built after $((SECONDS - started)) s (log: _build-book.log)"
if [ "$built" != 0 ]; then
  tail -60 _build-book.log
  tail -n 80 _build/html/reports/*.log 2>/dev/null
fi

SERVELAB_REQUIRE_SITE=1 .venv/bin/python -m pytest --timeout=1500 "$@"
tested=$?
[ "$built" = 0 ] && exit "$tested"
echo "tests: failing because the book build failed"
exit 1
