"""When two repeated measurements differ by more than their noise (servelab.bench.spread)."""

from __future__ import annotations

import math

import pytest

from servelab.bench.spread import Spread


def test_a_spread_is_the_median_and_range_of_what_was_measured():
    spread = Spread.of([3.0, 1.0, math.nan, 2.0])
    assert (spread.median, spread.low, spread.high, spread.n) == (2.0, 1.0, 3.0, 3)
    assert spread.range_text(" ms") == "range 1–3 ms over 3"
    assert Spread.in_row(spread.columns("pause"), "pause") == spread
    assert Spread.in_row({"pause": 5.0}, "pause") == Spread(5.0, 5.0, 5.0, 1)
    with pytest.raises(ValueError):
        Spread.of([math.nan])


@pytest.mark.parametrize(("a", "b", "below"), [
    ([1, 2, 3], [4, 5, 6], True),     # apart
    ([1, 2, 4], [4, 5, 6], False),    # touching: the worst of one equals the best of the other
    ([1, 5, 3], [4, 5, 6], False),    # overlapping
    ([1], [4, 5, 6], False),          # one value has no range to weigh
])
def test_lower_only_when_the_ranges_are_apart(a, b, below):
    assert Spread.of(a).below(Spread.of(b)) is below
    assert Spread.of(b).above(Spread.of(a)) is below
