"""Properties of the goodput definition (servelab.bench.metrics.calculate) over any run: goodput
never exceeds the completed rate, the attainment is a share, a looser SLO never counts fewer
requests, and failed requests never count."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servelab.bench.client import RequestRecord
from servelab.bench.metrics import SLO_METRICS, calculate, decoded
from tests.support import record

PROPERTY = settings(max_examples=50, deadline=None, database=None)

seconds = st.floats(1e-4, 5.0)


@st.composite
def runs(draw: st.DrawFn) -> list[RequestRecord]:
    """Requests sent over a run, some of one token, some failed."""
    records = []
    for index in range(draw(st.integers(0, 8))):
        r = record(
            index, draw(st.floats(0.0, 10.0)), draw(st.lists(seconds, max_size=4)), draw(seconds)
        )
        if draw(st.booleans()) and draw(st.booleans()):
            r.error = "connection reset"
        records.append(r)
    return records


slos = st.dictionaries(st.sampled_from(SLO_METRICS), st.floats(0.0, 6000.0), min_size=1)
duration = st.floats(0.1, 100.0)


@PROPERTY
@given(runs(), duration, slos)
def test_goodput_never_exceeds_the_completed_rate_and_attainment_is_a_share(records, run_s, slo):
    row = calculate(records, run_s, slo)
    met = row["goodput_req_s"] * run_s
    assert met == round(met) or math.isclose(met, round(met), abs_tol=1e-9)
    assert 0 <= row["goodput_req_s"] <= row["request_per_s"]
    if row["completed"]:
        assert 0 <= row["slo_attainment"] <= 1
        assert math.isclose(row["slo_attainment"] * row["completed"], met, abs_tol=1e-9)
    else:
        assert math.isnan(row["slo_attainment"]) and row["goodput_req_s"] == 0


@PROPERTY
@given(runs(), duration, slos, st.floats(1.0, 10.0), st.sampled_from(SLO_METRICS))
def test_a_looser_or_shorter_slo_never_counts_fewer_requests(records, run_s, slo, loosen, drop):
    row = calculate(records, run_s, slo)
    looser = calculate(records, run_s, {name: limit * loosen for name, limit in slo.items()})
    assert looser["goodput_req_s"] >= row["goodput_req_s"]
    fewer = {name: limit for name, limit in slo.items() if name != drop}
    if fewer:
        assert calculate(records, run_s, fewer)["goodput_req_s"] >= row["goodput_req_s"]
    else:
        assert "goodput_req_s" not in calculate(records, run_s, fewer)


@PROPERTY
@given(runs(), duration, slos)
def test_failed_requests_count_in_neither_goodput_nor_attainment(records, run_s, slo):
    done = [r for r in records if r.ok]
    row, only_done = calculate(records, run_s, slo), calculate(done, run_s, slo)
    assert row["goodput_req_s"] == only_done["goodput_req_s"]
    assert row["slo_attainment"] == only_done["slo_attainment"] or (
        math.isnan(row["slo_attainment"]) and math.isnan(only_done["slo_attainment"])
    )


@PROPERTY
@given(runs(), duration)
def test_an_slo_at_the_slowest_request_is_met_by_all_and_one_below_the_fastest_by_none(
    records, run_s
):
    done = [r for r in records if r.ok]
    if not done:
        return
    slowest = {"ttft": max(r.ttft for r in done) * 1000, "e2e": max(r.e2e for r in done) * 1000}
    row = calculate(records, run_s, slowest)
    assert row["slo_attainment"] == 1 and row["goodput_req_s"] == row["request_per_s"]
    below = {"ttft": min(r.ttft for r in done) * 1000 / 2}
    assert calculate(records, run_s, below)["goodput_req_s"] == 0


@PROPERTY
@given(st.lists(seconds, min_size=1, max_size=6), duration)
def test_a_one_token_request_meets_any_tpot_target(ttfts, run_s):
    records = [record(index, 0.0, [], ttft) for index, ttft in enumerate(ttfts)]
    assert calculate(records, run_s, {"tpot": 0.0})["slo_attainment"] == 1


def _window_rate(records: list[RequestRecord], record: RequestRecord) -> float:
    """Every request's tokens that arrived while ``record`` decoded, per second of it."""
    first, end = record.first_token, record.end
    arrived = sum(1 for r in records if r.ok for at in r.token_times if first < at <= end)
    return arrived / (end - first)


@st.composite
def chunked_runs(draw: st.DrawFn) -> list[RequestRecord]:
    """Requests whose tokens may arrive several to a chunk (a gap of 0): a first chunk that
    carries many tokens, a client that read a burst late."""
    gaps = st.lists(st.one_of(st.just(0.0), seconds), max_size=6)
    return [
        record(index, draw(st.floats(0.0, 10.0)), draw(gaps), draw(seconds))
        for index in range(draw(st.integers(0, 6)))
    ]


@PROPERTY
@given(chunked_runs(), duration)
def test_no_user_decodes_faster_than_the_run_did_meanwhile(records, run_s):
    """Issue #66: a summary line read 925 tok/s per user beside 226 for the whole run."""
    row = calculate(records, max(run_s, 0.1))
    decoding = [r for r in records if r.ok and decoded(r) is not None]
    if not decoding:
        assert math.isnan(row["user_tok_s"])
        return
    rates = {r.planned.index: decoded(r)[0] / decoded(r)[1] for r in decoding}
    assert all(rates[r.planned.index] <= _window_rate(records, r) * (1 + 1e-9) for r in decoding)
    assert min(rates.values()) * (1 - 1e-9) <= row["user_tok_s"] <= max(rates.values()) * (1 + 1e-9)


def test_a_first_chunk_of_many_tokens_does_not_make_its_user_fast():
    """Eight tokens in the first chunk and one more 10 ms later: 100 tok/s, not TPOT's 800."""
    burst = record(0, 0.0, [0.0] * 7 + [0.01], ttft=0.5)
    row = calculate([burst], duration_s=1.0)
    assert 1 / (row["tpot_ms_mean"] / 1000) == pytest.approx(800)
    assert row["user_tok_s"] == pytest.approx(100)
