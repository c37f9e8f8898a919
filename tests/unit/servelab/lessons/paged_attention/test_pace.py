"""servelab.lessons.paged_attention.pace and its words: chapter 03's roomy load against the step
line."""

from __future__ import annotations

import math

import pytest

from servelab.bench.spread import Spread
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.device_model.foretold import Foretold
from servelab.lessons.device_model.kept import StepLine
from servelab.lessons.paged_attention.pace import RoomyPace
from servelab.lessons.paged_attention.words import pace_forecast_text, pace_text

LINE = StepLine(StepFit(30.0, 1.0, 0.99), "02-continuous-batching", (1, 8, 32))
RUNS = [{"tpot_ms_p50": 60.0}, {"tpot_ms_p50": 66.0}, {"tpot_ms_p50": math.nan}]


def test_the_line_at_the_busiest_batch_is_set_beside_the_runs() -> None:
    pace = RoomyPace.of(LINE, 32.0, RUNS, 120, 96)
    assert pace.measured == Spread.of([60.0, 66.0]) and pace.predicted_ms == 62.0
    assert pace.foretold is Foretold.INSIDE and pace.gap_ms == pytest.approx(1.0)
    assert "62 ms" in pace_text(pace) and "62 ms" in pace_forecast_text(LINE, 32)
    [check] = pace.checks
    assert (check.predicted, check.measured) == (62.0, pace.measured)


@pytest.mark.parametrize(("batch", "gap"), [(10.0, 23.0), (60.0, -27.0)])
def test_a_miss_says_which_way_and_by_how_much(batch: float, gap: float) -> None:
    pace = RoomyPace.of(LINE, batch, RUNS, 120, 96)
    assert pace.foretold is Foretold.OFF and pace.gap_ms == pytest.approx(gap)
    assert pace.slower is (gap > 0) and pace.gap_size_ms == pytest.approx(abs(gap))
    text = pace_text(pace)
    assert f"{abs(gap):,.0f} ms" in text
    assert ("1,200" in text) is (gap > 0)  # a slower run names the prompts read beside it


def test_without_a_line_or_timings_nothing_is_checked() -> None:
    none = RoomyPace.of(None, 32.0, RUNS, 120, 96)
    assert none.predicted_ms is None and none.foretold is None and math.isnan(none.gap_ms)
    untimed = RoomyPace.of(LINE, 32.0, [{}], 120, 96)
    assert untimed.measured is None and untimed.foretold is None
    assert none.checks == () == untimed.checks
    assert pace_text(none) != pace_text(untimed) and "62 ms" in pace_text(untimed)
    assert RoomyPace.of(LINE, math.nan, RUNS, 120, 96).predicted_ms is None
    assert pace_forecast_text(None, 32) != pace_forecast_text(LINE, 32)
    assert RoomyPace.of(LINE, 32.0, RUNS, 120, 96).context_tokens == 216
