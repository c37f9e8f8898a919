#!/usr/bin/env bash
# The test job, at the `smoke` size: lint (ruff check and format, mypy, then lint-imports);
# nbval over every instructor source, each chapter top to bottom against the real engine with its
# answer key, each kept as it ran (course.executed); the site built from those runs without
# running a chapter again (course.executed_site); then every test in `tests` (tests/unit,
# tests/tooling and tests/engine), the site and leak tests reading that site, where a missing site
# or page fails (issue #66 item 6). The executed full-size book is the main job (`make book`).
set -uo pipefail
cd "$(dirname "$0")/.."

# The engine lock is held for the whole job, so no other engine (a book build, a benchmark)
# shares the cores with the chapters and engine tests; never run this under flock yourself.
if [ -z "${RUN_TESTS_HOLDS_LOCK:-}" ]; then
  RUN_TESTS_HOLDS_LOCK=1 exec flock /tmp/servelab-engine.lock "$0" "$@"
fi

.venv/bin/ruff check . && .venv/bin/ruff format --check . || exit 1
.venv/bin/mypy || exit 1
.venv/bin/lint-imports --no-cache || exit 1

export SERVELAB_SIZE=${SERVELAB_SIZE:-smoke}
executed=_build/executed
rm -rf "$executed"
echo "tests: nbval at size '$SERVELAB_SIZE', every instructor source against vLLM, kept in $executed"
SERVELAB_EXECUTED_DIR="$executed" .venv/bin/python -m pytest --timeout=1500 assignments/source \
  --nbval-lax --nbval-current-env --nbval-sanitize-with assignments/nbval-sanitize.cfg \
  --nbval-cell-timeout=900 "$@"
nbval=$?

echo "tests: the site built from what nbval ran (python -m course.executed_site $executed)"
site=$(.venv/bin/python -m course.executed_site "$executed" | tail -n 1)
built=$?
site=${site:-$executed/no-site}  # a failed build leaves the site tests nothing to read: they fail

echo "tests: every test in tests/, the site tests reading $site"
SERVELAB_SITE_DIR="$site" SERVELAB_REQUIRE_SITE=1 .venv/bin/python -m pytest --timeout=1500 \
  tests "$@"
tests=$?

echo "tests: nbval exit $nbval, site build exit $built, tests exit $tests"
[ "$nbval" -eq 0 ] && [ "$built" -eq 0 ] && [ "$tests" -eq 0 ]
