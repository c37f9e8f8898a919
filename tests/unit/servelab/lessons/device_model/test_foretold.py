"""servelab.lessons.device_model.foretold: a predicted number against the runs' spread."""

from __future__ import annotations

import pytest

from servelab.bench.spread import Spread
from servelab.lessons.device_model.foretold import BookChecks, Checked, Foretold, foretold


@pytest.mark.parametrize(
    ("predicted", "verdict"),
    [
        (150.0, Foretold.INSIDE),
        (140.0, Foretold.INSIDE),
        (190.0, Foretold.CLOSE),
        (125.0, Foretold.CLOSE),
        (300.0, Foretold.OFF),
        (110.0, Foretold.OFF),
    ],
)
def test_a_prediction_is_inside_close_or_off(predicted: float, verdict: Foretold) -> None:
    assert foretold(predicted, Spread(160.0, 140.0, 170.0, 3)) is verdict


def test_the_closing_table_counts_each_verdict_in_chapter_order() -> None:
    measured = Spread(160.0, 140.0, 170.0, 3)
    checks = [
        Checked("09-past-one-machine", "copies", " ms", 300.0, measured),
        Checked("03-paged-attention", "pace", " ms", 150.0, measured),
        Checked("04-prefix-caching", "cached", " ms", 190.0, measured),
    ]
    book = BookChecks.of(checks)
    assert [check.chapter[:2] for check in book.checks] == ["03", "04", "09"]
    assert [book.count(found) for found in Foretold] == [1, 1, 1, 0] and book.chapters == 3
    assert BookChecks.of([]).chapters == 0


@pytest.mark.parametrize(
    ("low", "high", "unplaced"), [(140.0, 170.0, False), (100.0, 170.0, False), (84.0, 172.0, True)]
)
def test_runs_spread_over_half_their_median_place_no_prediction(
    low: float, high: float, unplaced: bool
) -> None:
    for predicted in (77.0, 150.0):  # outside the runs, and inside them
        check = Checked(
            "09-past-one-machine", "one server", " ms", predicted, Spread(143.0, low, high, 3)
        )
        assert (check.foretold is Foretold.UNPLACED) is unplaced


def test_an_off_prediction_is_told_low_or_high_of_the_runs() -> None:
    runs = Spread(160.0, 140.0, 170.0, 3)
    high, low = (Checked("05-the-dials", "pace", " ms", p, runs) for p in (300.0, 110.0))
    assert (high.off_low, high.off_high, low.off_low, low.off_high) == (True, False, False, True)
    inside = Checked("05-the-dials", "pace", " ms", 150.0, runs)
    assert not (inside.off_low or inside.off_high)


def test_a_chapter_showing_the_table_before_its_record_replaces_what_it_kept_before() -> None:
    runs = Spread(10.0, 9.0, 11.0, 3)
    earlier = Checked("10-capacity-plan", "knee", " req/s", 50.0, runs)
    other = Checked("03-paged-attention", "time per token", " ms", 10.0, runs)
    now = Checked("10-capacity-plan", "knee", " req/s", 10.0, runs)
    kept = BookChecks.of([earlier, other])
    assert kept.replacing("10-capacity-plan", [now]).checks == (other, now)
    assert kept.replacing("10-capacity-plan", []).checks == (other,)  # nothing to check now
