"""When two repeated measurements differ by more than their noise (servelab.bench.spread)."""

from __future__ import annotations

import math

import pytest

from servelab.bench.spread import Spread


def test_a_spread_is_the_median_and_range_of_what_was_measured():
    spread = Spread.of([3.0, 1.0, math.nan, 2.0])
    assert (spread.median, spread.low, spread.high, spread.n) == (2.0, 1.0, 3.0, 3)
    assert spread.range_text(" ms") == "range 1–3 ms over 3 runs"
    assert spread.range_text(" s", counted="users") == "range 1–3 s over 3 users"
    alike = Spread(12.0, 11.8, 12.2, 3)
    assert alike.range_text(" ms") == "all 3 runs alike"
    assert alike.range_text(" s", counted="users") == "all 3 users alike"
    assert Spread(12.0, 12.0, 12.0, 1).range_text(" ms") == "range 12 ms over 1 run"
    assert alike.ranged and not Spread(12.0, 12.0, 12.0, 1).ranged
    pair = Spread(1.7, 1.68, 1.72, 2)  # chapter 10's float32 run printed "1.7 (all 2 alike)"
    assert pair.range_text(" s", 1) == "both runs alike"
    assert pair.with_range(1) == "1.7 (both alike)"
    assert alike.with_range() == "12 (all 3 alike)"
    assert Spread.in_row(spread.columns("pause"), "pause") == spread
    assert Spread.in_row({"pause": 5.0}, "pause") == Spread(5.0, 5.0, 5.0, 1)
    with pytest.raises(ValueError):
        Spread.of([math.nan])


def test_a_range_is_written_one_way_everywhere():
    spread = Spread(978.0, 961.4, 1034.0, 3)
    assert spread.span() == "961–1,034"
    assert spread.with_range() == "978 (961–1,034)"
    assert spread.with_range(1, " tokens/s") == "978.0 tokens/s (961.4–1,034.0)"
    assert Spread(5.0, 4.9, 5.1, 3).span() == "5"  # both ends round to one number
    assert Spread(5.0, 5.0, 5.0, 1).with_range(unit=" ms") == "5 ms"  # one run has no range
    assert Spread(5.0, 4.9, 5.1, 3).with_range(unit=" ms") == "5 ms (all 3 alike)"


@pytest.mark.parametrize(
    ("a", "b", "below"),
    [
        ([1, 2, 3], [4, 5, 6], True),  # apart
        ([1, 2, 4], [4, 5, 6], False),  # touching: the worst of one equals the best of the other
        ([1, 5, 3], [4, 5, 6], False),  # overlapping
        ([1], [4, 5, 6], False),  # one value has no range to weigh
    ],
)
def test_lower_only_when_the_ranges_are_apart(a, b, below):
    assert Spread.of(a).below(Spread.of(b)) is below
    assert Spread.of(b).above(Spread.of(a)) is below
