"""Chapter 07's opening on made-up runs: percentiles, Little's law against the engine's count, and
which part of the SLO the late requests missed (servelab.lessons.throughput_vs_latency:
serving_metrics, metrics_findings and metrics_words)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from servelab.bench.client import PlannedRequest, RequestRecord
from servelab.bench.frames import Result
from servelab.lessons.throughput_vs_latency import metrics_findings
from servelab.lessons.throughput_vs_latency.metrics_findings import MetricsFindings
from servelab.lessons.throughput_vs_latency.metrics_words import metrics_text
from servelab.lessons.throughput_vs_latency.serving_metrics import percentile_table
from servelab.lessons.throughput_vs_latency.thresholds import TAIL_REQUESTS

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
    rows = [] if in_flight is None else [
        {"t_s": t, "running": in_flight, "waiting": 0.0} for t in np.arange(0.5, 5.0, every_s)]
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


def test_a_queue_that_grows_all_run_is_named():
    # Arrivals every 0.5 s, each request waiting 0.5 s longer than the one before.
    records = [_request(i, 0.5 * i, 0.2 + 0.5 * i, 0.2) for i in range(10)]
    found = MetricsFindings.of(Result(None, records, 15.0, slo=SLO), SLO)
    assert found.arrival_rate == pytest.approx(2.0) and found.passing_rate == pytest.approx(1.0)
    assert not found.steady
    steady = metrics_text(MetricsFindings.of(_run(in_flight=2.0), SLO))
    text = metrics_text(found)
    assert "2.00 requests/s" in text and "2.00 requests/s" not in steady  # the drawn rate, named


# λ × W is 10 / 5.5 = 1.82. A count of 1.0 sampled 5 times has a standard error of
# √(1.0 / 5) = 0.45 (a Poisson count's variance, its samples agreeing), so the 0.82 gap is 1.8
# errors: within the sampling. Sampled 45 times the error is 0.15 and the gap 5.5 of them.
LITTLE = [(4.0, 0.1, False, True, False), (1.0, 0.1, False, True, True),
          (1.0, 1.0, False, False, None), (None, 1.0, None, False, None)]


@pytest.mark.parametrize(("in_flight", "every_s", "agrees", "beyond", "client_more"), LITTLE)
def test_little_says_when_it_cannot_be_checked_or_does_not_hold(in_flight, every_s, agrees,
                                                                 beyond, client_more):
    found = MetricsFindings.of(_run(in_flight, every_s=every_s), SLO)
    text = metrics_text(found)
    assert found.little_agrees is agrees
    if in_flight is not None:
        assert found.beyond_sampling is beyond
        assert f"{found.gap_error:.2f}" in text and f"{found.little_gap:.2f}" in text
        assert f"{found.engine_in_flight:.2f}" in text
    if client_more is not None:
        assert found.client_saw_more is client_more
    outside = f"{found.outside_engine_ms:,.0f} ms" if beyond else None
    assert (outside is not None and outside in text) is bool(client_more)
    texts = {metrics_text(MetricsFindings.of(_run(flight, every_s=every), SLO))
             for flight, every, *_ in LITTLE}
    assert len(texts) == len(LITTLE)


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


def test_a_short_run_is_told_that_its_p99_is_its_worst():
    found = MetricsFindings.of(_run(2.0), SLO)
    assert not found.tail_described
    assert "With 10 requests, 1%" in metrics_text(found)
    with pytest.raises(ValueError):
        MetricsFindings.of(Result(None, [_request(0, 0.0, 0.1, 0.1)], 1.0), SLO)


def test_a_p99_describes_a_tail_only_past_the_named_count_of_requests():
    found = MetricsFindings.of(_run(2.0), SLO)
    assert found.requests < TAIL_REQUESTS and not found.tail_described
    assert "1%" in metrics_text(found)
    many = dataclasses.replace(found, requests=TAIL_REQUESTS, met=TAIL_REQUESTS)
    assert many.tail_described and "1%" not in metrics_text(many)
