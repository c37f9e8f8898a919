"""servelab.lessons.capacity_plan.pace_try_words: a try states the batch, the measured time per
token with its range and the target, and its verdict; without a try the page says what set the
dial instead."""

from __future__ import annotations

import pytest

from servelab.bench.spread import Spread
from servelab.lessons.capacity_plan.pace_try import PaceTry
from servelab.lessons.capacity_plan.pace_try_words import VERDICTS, pace_try_text
from servelab.lessons.compare import Placed
from tests.unit.servelab.lessons.capacity_plan.test_pace_try import plan


@pytest.mark.parametrize(
    "tpot",
    [Spread(30.0, 28.0, 39.0, 10), Spread(45.0, 41.0, 50.0, 10), Spread(38.0, 30.0, 44.0, 10)],
)
def test_a_try_states_its_numbers_and_the_verdict_they_give(tpot: Spread) -> None:
    tried = PaceTry(batch=10, measured=4, tpot_ms=tpot, line_ms=40.0, target_ms=40.0)
    text = pace_try_text(plan(largest_measured=4), tried)
    assert f"{tpot.median:.1f} ms" in text and tpot.span(1) in text and "40.0 ms" in text
    assert VERDICTS[tried.against_target].format(batch=10, measured=4) in text


def test_without_a_try_the_page_names_what_set_the_dial() -> None:
    by_time = pace_try_text(plan(largest_measured=16), None)
    by_cache = pace_try_text(plan(largest_measured=16, requests_cached=6), None)
    assert "10" in by_time and "16" in by_time
    assert "6" in by_cache and by_cache != by_time
    assert set(VERDICTS) == set(Placed)
