"""servelab.bench.frames: a run's requests and tokens as DataFrames, its summary and its one line,
and the most requests in flight at once."""

from __future__ import annotations

import pytest

from servelab.bench.client import RequestRecord
from servelab.bench.frames import Result, max_in_flight
from servelab.bench.workloads import ClosedLoop
from tests.support import record


def test_max_in_flight_counts_overlapping_requests() -> None:
    rs = [
        record(0, 0.0, [0.1], ttft=0.1),
        record(1, 0.05, [0.1], ttft=0.1),
        record(2, 0.3, [0.1], ttft=0.1),
    ]
    assert max_in_flight(rs) == 2
    back_to_back = record(3, rs[0].closed, [0.1], ttft=0.1)
    assert max_in_flight([rs[0], back_to_back]) == 1


def _result(records: list[RequestRecord]) -> Result:
    server_rows = [
        {
            "t_s": t,
            "scrape_s": 0.01,
            "running": r,
            "waiting": w,
            "kv_cache_usage": k,
            "prefix_cache_queries": q,
            "prefix_cache_hits": h,
            "preemptions": 0.0,
            "prompt_tokens": q,
            "generation_tokens": 0.0,
        }
        for t, r, w, k, q, h in [(0.0, 0, 0, 0.0, 100, 10), (1.0, 3, 1, 0.2, 300, 110)]
    ]
    return Result(
        workload=ClosedLoop(users=4), records=records, duration_s=2.0, server_rows=server_rows
    )


def test_result_frames_and_summary(records: list[RequestRecord]) -> None:
    result = _result(records)
    requests = result.requests
    assert list(requests["itl_count"]) == [3, 5, 0, 2]
    assert (requests["ttft_s"] <= requests["e2e_s"]).all()
    tokens = result.tokens
    assert len(tokens) == sum(r.output_tokens for r in records)
    assert tokens.groupby("request")["position"].max().tolist() == [3, 5, 0, 2]
    summary = result.summary()
    assert summary["prefix_cache_hit_rate"] == pytest.approx(100 / 200)
    assert summary["max_in_flight"] == 4
    assert str(result).startswith("closed loop: 4/4 ok in 2.0 s")
