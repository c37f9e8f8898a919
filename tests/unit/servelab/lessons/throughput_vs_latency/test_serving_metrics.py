"""Chapter 07's opening on made-up runs: percentiles, Little's law against the engine's count, and
which part of the SLO the late requests missed (servelab.lessons.throughput_vs_latency:
serving_metrics and metrics_findings; what metrics_words says where: test_metrics_words.py)."""

from __future__ import annotations

import numpy as np
import pytest

from servelab.bench.client import PlannedRequest, RequestRecord
from servelab.bench.frames import Result
from servelab.lessons.throughput_vs_latency import metrics_findings
from servelab.lessons.throughput_vs_latency.metrics_findings import MetricsFindings
from servelab.lessons.throughput_vs_latency.metrics_words import metrics_text
from servelab.lessons.throughput_vs_latency.serving_metrics import percentile_table

SLO = {"ttft": 500.0, "tpot": 250.0}


def _request(index: int, sent: float, ttft: float, gap: float, tokens: int = 5) -> RequestRecord:
    record = RequestRecord(PlannedRequest(index=index, user=index, prompt="p", max_tokens=tokens))
    times = list(sent + ttft + gap * np.arange(tokens))
    record.sent, record.token_times, record.token_samples = sent, times, [0] * tokens
    record.first_token, record.end, record.closed = times[0], times[-1], times[-1] + 0.001
    record.prompt_tokens, record.output_tokens = 10, tokens
    return record


def _run(in_flight: float | None, slow_first: bool = False, every_s: float = 1.0) -> Result:
    """Ten requests, one every 0.5 s, each 1.0 s long (0.2 s to a first token, four gaps of
    0.2 s): λ = 2/s and W = 1 s, so Little's law says 2 in flight. The engine's count is
    sampled every ``every_s`` over 4.5 s."""
    records = [_request(i, 0.5 * i, 0.2, 0.2) for i in range(10)]
    if slow_first:
        records[3] = _request(3, 1.5, 0.9, 0.025)  # late first token, same length
    rows = (
        []
        if in_flight is None
        else [
            {"t_s": t, "running": in_flight, "waiting": 0.0} for t in np.arange(0.5, 5.0, every_s)
        ]
    )
    return Result(workload=None, records=records, duration_s=5.5, server_rows=rows, slo=SLO)


def test_little_holds_when_the_engine_counts_what_lambda_times_w_says():
    found = MetricsFindings.of(_run(in_flight=2.0), SLO)
    assert found.arrival_rate == pytest.approx(2.0) and found.mean_latency_s == pytest.approx(1.0)
    # Over the 5.5 s from the first send to the last token, 10 requests of 1 s each.
    assert found.little_in_flight == pytest.approx(10 / 5.5) and found.little_agrees
    assert found.steady
    # The tolerance is stated with the gap: |1.82 - 2.00| / 2.00 = 9%.
    assert found.little_gap_share == pytest.approx((2.0 - 10 / 5.5) / 2.0)
    text = metrics_text(found)
    assert "averaged 2.00" in text and "9% away" in text and "25%" in text
    assert "1.82" in text and "standard error" not in text


def test_the_sampling_error_is_the_samples_own_spread_where_it_exceeds_a_poisson_counts():
    steady = MetricsFindings.of(_run(1.0), SLO)
    assert steady.engine_error == pytest.approx(np.sqrt(1.0 / 5))
    assert steady.latency_error_s == pytest.approx(0.0, abs=1e-9)
    assert steady.gap_error == pytest.approx(steady.engine_error)
    wide = metrics_findings._count_error(np.array([0.0, 4.0, 0.0, 4.0]))
    assert wide == pytest.approx(np.sqrt(np.var([0, 4, 0, 4], ddof=1) / 4))
    assert np.isnan(metrics_findings._count_error(np.array([])))


def test_goodput_counts_what_met_both_parts_and_names_what_missed():
    met_all = MetricsFindings.of(_run(2.0), SLO)
    assert (met_all.met, met_all.attainment) == (10, 1.0)
    assert met_all.all_met and "10 of 10 requests" in metrics_text(met_all)
    late = MetricsFindings.of(_run(2.0, slow_first=True), SLO)
    assert (late.met, late.missed_ttft, late.missed_tpot) == (9, 1, 0) and not late.all_met
    assert "9 of 10 requests" in metrics_text(late) and "90%" in metrics_text(late)
    assert "1 waited" in metrics_text(late) and "0 streamed" in metrics_text(late)


def test_the_table_gives_percentiles_the_worst_one_and_the_slo():
    table = percentile_table(_run(2.0, slow_first=True), SLO)
    first = table.index[0]  # time to first token
    assert table.loc[first, "worst (ms)"] == pytest.approx(900.0)
    assert table.loc[first, "SLO (ms)"] == 500.0
    assert table.loc["gap between tokens", "worst (ms)"] == pytest.approx(200.0)
    assert np.isnan(table.loc["whole request", "SLO (ms)"])
    assert list(table.columns[:4]) == ["mean (ms)", "p50 (ms)", "p90 (ms)", "p99 (ms)"]
