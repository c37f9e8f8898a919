"""servelab.bench.runner: a run shown without a progress bar ends on the line the bar would show
(the runs against a live server: tests/engine/servelab/test_bench_engine.py)."""

from __future__ import annotations

from servelab.bench import runner
from servelab.bench.client import RequestRecord


def test_a_run_without_a_bar_ends_on_the_line_a_bar_would_show(
    records: list[RequestRecord],
) -> None:
    line = runner.final_line("closed loop", records, 2.0)
    done = sum(r.ok for r in records)
    assert line == f"closed loop: {done}/{len(records)} req in 2.0 s ({done / 2:.2f} req/s)"
