"""servelab.lessons.dials.findings: each verdict of the sweep and context-limit records."""

from __future__ import annotations

import pandas as pd
import pytest

from servelab.bench.spread import Spread
from servelab.engines.vllm_server import Capacity
from servelab.lessons.dials.findings import (
    SWEEP_SPREADS,
    ContextFindings,
    MedianVerdict,
    Movement,
    SweepFindings,
    movement,
)
from servelab.lessons.dials.runs import OverLong, StartRefusal
from tests.support import repeated

BEFORE = Spread(100.0, 98.0, 102.0, 3)


@pytest.mark.parametrize(("after", "moved"), [
    (Spread(112.0, 110.0, 114.0, 3), Movement.ROSE),
    (Spread(88.0, 86.0, 90.0, 3), Movement.FELL),
    (Spread(109.0, 107.0, 111.0, 3), Movement.SAME),
    (Spread(91.0, 89.0, 93.0, 3), Movement.SAME),
    (Spread(130.0, 101.0, 140.0, 3), Movement.UNCLEAR),  # 30 % up, one run inside BEFORE's
    (Spread(70.0, 69.0, 99.0, 3), Movement.UNCLEAR),
    (Spread(130.0, 130.0, 130.0, 1), Movement.UNCLEAR),  # one run: no range to weigh
])
def test_a_latency_moves_past_ten_percent_and_its_runs_spread(after, moved) -> None:
    assert movement(BEFORE, after) is moved


def sweep(output, p99, medians=None) -> SweepFindings:
    frame = pd.DataFrame({"output_tok_s": output, "tpot_ms_p99": [35, 60, 90][:len(output)],
                          "latency_s_p99": p99},
                         index=pd.Index([1, 12, 24][:len(output)], name="max_num_seqs"))
    if medians is not None:
        frame["latency_s_p50"] = medians
    return SweepFindings.from_sweep(repeated(frame, SWEEP_SPREADS))


def test_the_throughput_gain_shows_at_its_bar_beyond_the_spread() -> None:
    assert sweep([30, 100, 36], [9.0, 3.0, 2.0]).shows_gain
    assert not sweep([30, 100, 35], [9.0, 3.0, 2.0]).shows_gain   # 1.17× at the top
    frame = pd.DataFrame({"output_tok_s": [30.0, 60.0], "tpot_ms_p99": [35.0, 60.0],
                          "latency_s_p99": [9.0, 3.0]},
                         index=pd.Index([1, 24], name="max_num_seqs"))
    assert not SweepFindings.from_sweep(frame).shows_gain  # 2× in one run a level
    wide = repeated(frame, SWEEP_SPREADS, spread=0.4)  # 2×, but 18-42 against 36-84 tok/s
    assert not SweepFindings.from_sweep(wide).shows_gain


def test_the_best_level_in_between() -> None:
    assert sweep([30, 200, 260], [9.0, 2.0, 2.5]).best_in_between
    assert not sweep([30, 200, 260], [9.0, 3.0, 2.5]).best_in_between
    assert not sweep([30, 200, 260], [9.0, 2.4, 2.5]).best_in_between  # inside the spread


@pytest.mark.parametrize(("medians", "verdict"), [
    (None, MedianVerdict.NOT_MEASURED),
    ([8.0, 2.0, 1.5], MedianVerdict.SHORTEST_AT_TOP),
    ([8.0, 2.0, 2.1], MedianVerdict.NEAR_SHORTEST),
    ([8.0, 2.0, 2.5], MedianVerdict.LONGER_AGAIN),
])
def test_the_median_from_arrival(medians, verdict) -> None:
    found = sweep([30, 120, 180], [16.0, 3.0, 2.6], medians)
    assert found.median_verdict is verdict
    assert (found.low, found.high, found.arrival_sooner) == (1, 24, pytest.approx(16 / 2.6))
    assert found.passes == 3


SMALL = Capacity(kv_cache_tokens=2560, max_model_len=2048, max_concurrency=1.25)
REFUSAL = StartRefusal(4096, 0.09, 0.05, 2560)


def context(**changes) -> ContextFindings:
    args = dict(refusal=REFUSAL, refused_context=4096, over_long=OverLong(2100, 16, 2048, "no"),
                capacity=SMALL, short_only={"running_max": 8, "preemptions": 0,
                                            "e2e_ms_p99": 6000.0},
                mixed={"running_max": 9, "preemptions": 4, "e2e_ms_p99": 14000.0},
                short_requests=8, long_requests=2)
    return ContextFindings.from_runs(**(args | changes))


def test_what_the_limit_decided() -> None:
    found = context()
    assert found.refused and found.ran_past_engine_count and found.crowded_out
    assert (found.long_context, found.short_p99_mixed_s) == (2048, 14.0)
    quiet = context(refusal=None, short_only={"running_max": 1, "preemptions": 4,
                                              "e2e_ms_p99": 6000.0})
    assert not (quiet.refused or quiet.ran_past_engine_count or quiet.crowded_out)
