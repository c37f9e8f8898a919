"""Properties of the spread comparison (servelab.bench.spread) over its whole input range,
beside the examples of test_spread.py: what ``Spread.of`` keeps, and that ``below`` is a strict
order that never judges a single measurement."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from servelab.bench.spread import Spread

PROPERTY = settings(max_examples=60, deadline=None, database=None)

# Measured figures: latencies, rates, shares; finite, and negative ones allowed where the logic
# does not care.
value = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False)
measured = st.floats(min_value=0.0, max_value=1e6, allow_nan=False)
values = st.lists(value, min_size=1, max_size=8)


runs = st.integers(1, 5)


@st.composite
def spreads(draw: st.DrawFn, n: st.SearchStrategy[int] = runs) -> Spread:
    """A spread as ``Spread.of`` makes it, from ``n`` measured values."""
    size = draw(n)
    return Spread.of(draw(st.lists(measured, min_size=size, max_size=size)))


@PROPERTY
@given(values, st.lists(st.just(math.nan), max_size=3), st.randoms())
def test_of_keeps_the_median_inside_the_range_and_ignores_nans(kept, nans, random):
    mixed = kept + nans
    random.shuffle(mixed)
    spread = Spread.of(mixed)
    assert spread == Spread.of(kept) == Spread.of(sorted(kept))
    assert (spread.low, spread.high, spread.n) == (min(kept), max(kept), len(kept))
    assert spread.low <= spread.median <= spread.high
    assert Spread.in_row(spread.columns("figure"), "figure") == spread


@PROPERTY
@given(st.lists(st.just(math.nan), max_size=4))
def test_of_refuses_nothing_but_nans(nans):
    try:
        Spread.of(nans)
    except ValueError:
        return
    raise AssertionError("a spread of no measured value")


@PROPERTY
@given(spreads(), spreads())
def test_below_is_irreflexive_antisymmetric_and_above_mirrors_it(a, b):
    assert not a.below(a) and not a.above(a)
    assert not (a.below(b) and b.below(a))
    assert a.above(b) == b.below(a)
    if a.below(b):
        assert a.median < b.median and a.high < b.low
        assert a.n >= 2 and b.n >= 2


@PROPERTY
@given(spreads(), spreads(), spreads())
def test_below_is_transitive(a, b, c):
    if a.below(b) and b.below(c):
        assert a.below(c)


@PROPERTY
@given(spreads(n=st.just(1)), spreads())
def test_one_measurement_is_never_below_or_above_anything(one, other):
    assert not one.below(other) and not other.below(one)
    assert not one.above(other) and not other.above(one)


@PROPERTY
@given(st.lists(measured, min_size=2, max_size=5), st.lists(measured, min_size=2, max_size=5))
def test_below_is_exactly_every_run_lower_than_every_other_run(xs, ys):
    assert Spread.of(xs).below(Spread.of(ys)) == (max(xs) < min(ys))


@PROPERTY
@given(spreads(), st.integers(0, 3))
def test_span_is_one_number_exactly_when_both_ends_round_to_it(spread, digits):
    low, high = f"{spread.low:,.{digits}f}", f"{spread.high:,.{digits}f}"
    span = spread.span(digits)
    assert ("–" in span) == (low != high)
    assert span.split("–") == ([low] if low == high else [low, high])
    assert float(low.replace(",", "")) <= float(high.replace(",", ""))


@PROPERTY
@given(spreads(), st.integers(0, 3), st.sampled_from(["", " ms", " tok/s"]))
def test_with_range_starts_with_the_median_and_gives_a_range_only_for_several_runs(
    spread, digits, unit
):
    median = f"{spread.median:,.{digits}f}{unit}"
    text = spread.with_range(digits, unit)
    if spread.n < 2:
        assert text == median
    elif "–" in spread.span(digits):
        assert text == f"{median} ({spread.span(digits)})"
    else:
        alike = "both alike" if spread.n == 2 else f"all {spread.n} alike"
        assert text == f"{median} ({alike})"
