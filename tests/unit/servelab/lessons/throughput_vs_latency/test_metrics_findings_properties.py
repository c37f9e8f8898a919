"""Properties of the SLO count chapter 07's opening words (servelab.lessons.throughput_vs_latency
.metrics_findings.MetricsFindings) over any run, beside bench/test_metrics_properties.py, which
holds
goodput's definition (servelab.bench.metrics.calculate) itself: the page's count of requests
within the SLO is that definition's, its attainment a share, monotone as the SLO loosens, failed
requests never counted, and every late request named by a part it missed, an ``e2e`` part
included."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from servelab.bench.client import RequestRecord
from servelab.bench.frames import Result
from servelab.bench.metrics import calculate, meets_slo, tpot
from servelab.lessons.throughput_vs_latency.metrics_findings import MetricsFindings
from tests.support import record

# Each example builds the page's findings two or three times (pandas, about 20 ms each).
PROPERTY = settings(max_examples=20, deadline=None, database=None, derandomize=True)
FEWER = settings(PROPERTY, max_examples=12)

seconds = st.floats(1e-4, 5.0)


@st.composite
def runs(draw: st.DrawFn) -> list[RequestRecord]:
    """Requests sent over a run, two or more completed, some of one token, some failed."""
    records = []
    for index in range(draw(st.integers(2, 8))):
        r = record(
            index, draw(st.floats(0.0, 10.0)), draw(st.lists(seconds, max_size=4)), draw(seconds)
        )
        if index >= 2 and draw(st.booleans()):
            r.error = "connection reset"
        records.append(r)
    return records


@st.composite
def with_slos(draw: st.DrawFn) -> tuple[list[RequestRecord], dict[str, float]]:
    """A run and the page's SLO: a first token and a pace for the later tokens, either or both
    (ms), each limit any or exactly one request's own figure (the edge: met, not missed)."""
    records = draw(runs())
    slo = {}
    for name in draw(st.sets(st.sampled_from(["ttft", "tpot"]), min_size=1)):
        measured = [r.ttft * 1000 if name == "ttft" else (tpot(r) or 0.0) * 1000 for r in records]
        slo[name] = draw(st.floats(0.0, 6000.0) | st.sampled_from(measured))
    return records, slo


def _found(records: list[RequestRecord], slo: dict[str, float]) -> MetricsFindings:
    return MetricsFindings.of(Result(None, records, 20.0, slo=slo), slo)


@PROPERTY
@given(with_slos())
def test_the_pages_count_is_goodputs_over_completed_requests_each_late_one_missing_a_part(run):
    records, slo = run
    found = _found(records, slo)
    done = [r for r in records if r.ok]
    row = calculate(records, 20.0, slo)
    assert found.requests == len(done) == row["completed"]
    assert found.met == sum(meets_slo(r, slo) for r in done)
    assert found.attainment == row["slo_attainment"]
    assert 0 <= found.attainment <= 1
    assert found.all_met == (found.attainment == 1)
    # Failed requests never count: the same findings without them.
    only_done = _found(done, slo)
    assert (found.requests, found.met, found.missed_ttft, found.missed_tpot) == (
        only_done.requests,
        only_done.met,
        only_done.missed_ttft,
        only_done.missed_tpot,
    )
    # Every late request missed a part of the SLO, and no part was missed by more than were late.
    late = found.requests - found.met
    assert max(found.missed_ttft, found.missed_tpot) <= late
    assert late <= found.missed_ttft + found.missed_tpot
    assert found.missed_ttft == 0 or "ttft" in slo
    assert found.missed_tpot == 0 or "tpot" in slo


@FEWER
@given(with_slos(), st.floats(1.0, 10.0), st.sampled_from(["ttft", "tpot"]))
def test_a_looser_or_shorter_slo_never_counts_fewer_within_it(run, loosen, drop):
    records, slo = run
    found = _found(records, slo)
    looser = _found(records, {name: limit * loosen for name, limit in slo.items()})
    assert looser.met >= found.met
    assert looser.missed_ttft <= found.missed_ttft and looser.missed_tpot <= found.missed_tpot
    fewer = {name: limit for name, limit in slo.items() if name != drop}
    if fewer:
        assert _found(records, fewer).met >= found.met


def test_an_e2e_part_counts_on_the_page_as_in_goodput():
    records = [record(0, 0.0, [0.5, 0.5], 0.1), record(1, 1.0, [0.5, 0.5], 0.1)]  # 1.1 s each
    slo = {"ttft": 500.0, "e2e": 1000.0}
    assert calculate(records, 20.0, slo)["slo_attainment"] == 0
    assert _found(records, slo).met == 0
