"""servelab.lessons.throughput_vs_latency.metrics_words: chapter 07's opening worded on made-up
runs: a queue that grew all run, Little's law where it cannot be checked or does not hold, and what
a p99 of few requests describes."""

from __future__ import annotations

import dataclasses

import pytest

from servelab.bench.frames import Result
from servelab.lessons.throughput_vs_latency.metrics_findings import MetricsFindings
from servelab.lessons.throughput_vs_latency.metrics_words import metrics_text
from servelab.lessons.throughput_vs_latency.thresholds import TAIL_REQUESTS
from tests.unit.servelab.lessons.throughput_vs_latency.test_serving_metrics import (
    SLO,
    _request,
    _run,
)


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
LITTLE = [
    (4.0, 0.1, False, True, False),
    (1.0, 0.1, False, True, True),
    (1.0, 1.0, False, False, None),
    (None, 1.0, None, False, None),
]


@pytest.mark.parametrize(("in_flight", "every_s", "agrees", "beyond", "client_more"), LITTLE)
def test_little_says_when_it_cannot_be_checked_or_does_not_hold(
    in_flight, every_s, agrees, beyond, client_more
):
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
    texts = {
        metrics_text(MetricsFindings.of(_run(flight, every_s=every), SLO))
        for flight, every, *_ in LITTLE
    }
    assert len(texts) == len(LITTLE)


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
