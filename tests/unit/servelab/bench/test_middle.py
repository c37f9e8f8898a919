"""servelab.bench.middle: an open-loop run's figures with its first and last tenth left out."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from servelab.bench.client import RequestRecord
from servelab.bench.middle import MIDDLE_LEAST, finished_mid, middle
from servelab.bench.workloads import PlannedRequest


def record(
    index: int, sent: float, first: float, end: float, tokens: int = 11, error: str | None = None
) -> RequestRecord:
    return RequestRecord(
        PlannedRequest(index=index, user=index, prompt="p", max_tokens=tokens),
        sent=sent,
        first_token=first,
        end=end,
        output_tokens=tokens,
        error=error,
    )


def test_a_saturated_run_finishes_at_its_busy_rate_in_the_middle_not_over_its_ends():
    # 40 requests sent at once; the first finishes after 10 s (filling up), the rest one a second
    runs = [record(i, 0.0, 0.5, 10.0 + i) for i in range(40)]
    assert math.isclose(finished_mid(runs), 1.0)
    assert len(runs) / max(r.end for r in runs) < 0.85  # over the whole run it reads lower


def test_the_middle_attainment_leaves_out_the_first_and_last_sends_and_names_each_target():
    # the first 10 % of sends are quick and the last 10 % too; the middle misses the first token
    runs = [record(i, float(i), i + (0.1 if i < 4 or i >= 36 else 5.0), i + 6.0) for i in range(40)]
    row = middle(runs, {"ttft": 1000, "tpot": 1000})
    assert row["slo_attainment_mid"] == 0.0
    assert row["slo_attainment_mid_ttft"] == 0.0 and row["slo_attainment_mid_tpot"] == 1.0


def test_a_failed_request_meets_no_target_and_a_short_run_has_no_middle():
    runs = [
        record(i, float(i), i + 0.1, i + 1.0, error="boom" if i == 20 else None) for i in range(40)
    ]
    assert middle(runs, {"ttft": 1000})["slo_attainment_mid_ttft"] == 31 / 32
    short = runs[: MIDDLE_LEAST - 1]
    assert all(math.isnan(v) for v in middle(short, {"ttft": 1000}).values())
    assert math.isnan(middle(runs, None)["slo_attainment_mid"])


@given(st.integers(MIDDLE_LEAST, 80), st.floats(0.05, 5), st.floats(0, 100), st.floats(0, 100))
def test_the_middle_rate_ignores_how_long_the_ends_took(
    count: int, gap: float, filling: float, draining: float
):
    """Requests finishing every ``gap`` seconds finish 1/gap a second in the middle, however long
    the first tenth took to fill the server and the last tenth to drain it."""
    ends = [10.0 + i * gap for i in range(count)]
    cut = count // 10
    ends = (
        [e - filling for e in ends[:cut]]
        + ends[cut : count - cut]
        + [e + draining for e in ends[count - cut :]]
    )
    rate = finished_mid([record(i, -200.0, -199.0, end) for i, end in enumerate(ends)])
    assert math.isclose(rate, 1 / gap, rel_tol=1e-9)
