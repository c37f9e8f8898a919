"""servelab.lessons.device_model.foretold: a predicted number against the runs' spread."""

from __future__ import annotations

import pytest

from servelab.bench.spread import Spread
from servelab.lessons.device_model.foretold import BookChecks, Checked, Foretold, foretold


@pytest.mark.parametrize(("predicted", "verdict"), [
    (150.0, Foretold.INSIDE), (140.0, Foretold.INSIDE), (190.0, Foretold.CLOSE),
    (125.0, Foretold.CLOSE), (300.0, Foretold.OFF), (110.0, Foretold.OFF),
])
def test_a_prediction_is_inside_close_or_off(predicted: float, verdict: Foretold) -> None:
    assert foretold(predicted, Spread(160.0, 140.0, 170.0, 3)) is verdict


def test_the_closing_table_counts_each_verdict_in_chapter_order() -> None:
    measured = Spread(160.0, 140.0, 170.0, 3)
    checks = [Checked("09-past-one-machine", "copies", " ms", 300.0, measured),
              Checked("03-paged-attention", "pace", " ms", 150.0, measured),
              Checked("04-prefix-caching", "cached", " ms", 190.0, measured)]
    book = BookChecks.of(checks)
    assert [check.chapter[:2] for check in book.checks] == ["03", "04", "09"]
    assert [book.count(found) for found in Foretold] == [1, 1, 1] and book.chapters == 3
    assert BookChecks.of([]).chapters == 0


@pytest.mark.parametrize(("low", "high", "scattered"), [(140.0, 170.0, False),
                                                        (100.0, 170.0, True)])
def test_runs_that_spread_past_the_closeness_bar_are_scattered(low: float, high: float,
                                                               scattered: bool) -> None:
    check = Checked("09-past-one-machine", "one server", " ms", 77.0, Spread(160.0, low, high, 3))
    assert check.scattered is scattered
