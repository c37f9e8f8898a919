"""servelab.lessons.prefix.reuse_findings: each verdict of the prefix-reuse records."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from servelab.bench.spread import Spread
from servelab.lessons.compare import Shown
from servelab.lessons.prefix.reuse_findings import (
    LoadReuseFindings,
    ReuseFindings,
)

NAN = math.nan


def probe(computed, ttft_ms=None) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "request": range(1, len(computed) + 1),
            "computed": computed,
            "from cache": [2016 - c for c in computed],
        }
    )
    return frame.assign(ttft_ms=ttft_ms) if ttft_ms is not None else frame


CONTROL = probe([2016, 2016, 2016], [4000, 4100, 3900])


@pytest.mark.parametrize(
    ("on", "reused", "verdict"),
    [
        (probe([2016, 16, 16], [4000, 200, 210]), True, Shown.STRONG),
        # ranges apart, but 4000 / 3500 is less than TTFT_GAIN_SHOWN
        (probe([2016, 16, 16], [4000, 3500, 3510]), True, Shown.WEAK),
        # 2.5x at the medians, but one slow request with reuse reaches into the control's range
        (probe([2016, 16, 16], [4000, 200, 3950]), True, Shown.UNTOLD),
        (probe([2016, 1100, 1100], [4000, 200, 200]), False, Shown.STRONG),  # not reuse
    ],
)
def test_reuse_and_a_sooner_first_token_are_judged_apart(on, reused, verdict) -> None:
    found = ReuseFindings.from_probe(on, CONTROL)
    assert (found.reused, found.ttft_verdict) == (reused, verdict)
    assert found.sooner is (verdict is Shown.STRONG)
    assert found.prompt_tokens == 2016 and found.first_computed == 2016
    assert found.ttft_off == Spread(4000.0, 3900.0, 4100.0, 2)  # the requests after the first
    assert not found.ttft_one_a_side


def test_one_later_request_a_side_has_no_range_to_judge() -> None:
    found = ReuseFindings.from_probe(probe([2016, 16], [4000, 100]), probe([2016] * 2, [4000] * 2))
    assert found.ttft_gain == 40 and found.ttft_verdict is Shown.UNTOLD
    assert found.ttft_one_a_side and not found.several_later


def test_a_probe_that_did_not_time_first_tokens_claims_nothing_sooner() -> None:
    found = ReuseFindings.from_probe(probe([2016, 96, 96]), probe([2016] * 3))
    assert found.reused and found.second_computed == 96 and found.several_later
    assert found.ttft_on is None and math.isnan(found.ttft_gain)
    assert found.ttft_verdict is None and not found.sooner and not found.ttft_one_a_side


FAST, SLOW = Spread.of([80.0, 100.0, 130.0]), Spread.of([700.0, 900.0, 1100.0])


@pytest.mark.parametrize(
    ("on", "sooner"),
    [
        (FAST, True),
        (Spread.of([100.0, 150.0, 750.0]), False),  # 6× at the median, the ranges overlap
        (Spread.of([600.0, 650.0, 690.0]), False),  # apart, but only 1.4× at the median
    ],
)
def test_the_load_is_sooner_only_beyond_the_noise(on, sooner) -> None:
    found = LoadReuseFindings(on, SLOW, 0.7)
    assert found.sooner is sooner and found.hits_counted


def test_the_load_is_judged_over_its_runs_medians() -> None:
    runs = [
        {"ttft_ms_p50": ttft, "prefix_cache_hit_rate": rate}
        for ttft, rate in ((90.0, 0.7), (110.0, NAN), (100.0, 0.8))
    ]
    found = LoadReuseFindings.from_runs(
        runs, [{"ttft_ms_p50": 900.0, "prefix_cache_hit_rate": NAN}] * 2
    )
    assert (found.on.median, found.on.n, found.off.n) == (100.0, 3, 2)
    assert found.hit_rate == pytest.approx(0.75)  # the runs that counted queries
    assert not LoadReuseFindings.from_runs(runs[1:2], runs[1:2]).hits_counted
