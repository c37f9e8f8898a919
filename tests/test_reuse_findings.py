"""servelab.lessons.prefix.reuse_findings: each verdict of the prefix-reuse records."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from servelab.bench.spread import Spread
from servelab.lessons.prefix.reuse_findings import LoadReuseFindings, ReuseFindings

NAN = math.nan


def probe(computed, ttft_ms=None) -> pd.DataFrame:
    frame = pd.DataFrame({"request": range(1, len(computed) + 1), "computed": computed,
                          "from cache": [2016 - c for c in computed]})
    return frame.assign(ttft_ms=ttft_ms) if ttft_ms is not None else frame


CONTROL = probe([2016, 2016, 2016], [4000, 4100, 3900])


@pytest.mark.parametrize(("on", "reused", "sooner"), [
    (probe([2016, 16, 16], [4000, 200, 200]), True, True),
    (probe([2016, 16, 16], [4000, 3500, 3500]), True, False),
    (probe([2016, 1100, 1100], [4000, 200, 200]), False, True),  # half the control: not reuse
])
def test_reuse_and_a_sooner_first_token_are_judged_apart(on, reused, sooner) -> None:
    found = ReuseFindings.from_probe(on, CONTROL)
    assert (found.reused, found.sooner) == (reused, sooner)
    assert found.prompt_tokens == 2016 and found.first_computed == 2016


def test_a_probe_that_did_not_time_first_tokens_claims_nothing_sooner() -> None:
    found = ReuseFindings.from_probe(probe([2016, 96, 96]), probe([2016] * 3))
    assert found.reused and found.second_computed == 96
    assert math.isnan(found.ttft_on_ms) and not found.sooner


FAST, SLOW = Spread.of([80.0, 100.0, 130.0]), Spread.of([700.0, 900.0, 1100.0])


@pytest.mark.parametrize(("on", "sooner"), [
    (FAST, True),
    (Spread.of([100.0, 150.0, 750.0]), False),   # 6× at the median, the ranges overlap
    (Spread.of([600.0, 650.0, 690.0]), False),   # apart, but only 1.4× at the median
])
def test_the_load_is_sooner_only_beyond_the_noise(on, sooner) -> None:
    found = LoadReuseFindings.from_load(on, SLOW, {"prefix_cache_hit_rate": 0.7})
    assert found.sooner is sooner and found.hits_counted


def test_no_queries_means_no_hit_rate() -> None:
    found = LoadReuseFindings.from_load(FAST, SLOW, {"prefix_cache_hit_rate": NAN})
    assert not found.hits_counted
