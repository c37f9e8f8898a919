"""servelab.lessons.compare: the one comparison of two spreads. Alike within the band; higher or
lower past it only with the runs' ranges apart; otherwise, or with one run a side, not told
apart. The band drawn as a factor (``compare_by``) or as points (``compare_points``) gives the
same verdicts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared, compare, compare_by, compare_points

FAST, SLOW = Spread(100.0, 90.0, 110.0, 3), Spread(160.0, 150.0, 170.0, 3)
OVERLAPPING = Spread(160.0, 105.0, 170.0, 3)
ONE_RUN = Spread(100.0, 100.0, 100.0, 1)


@pytest.mark.parametrize(
    ("a", "b", "verdict"),
    [
        (FAST, SLOW, Compared.LOWER),
        (SLOW, FAST, Compared.HIGHER),
        (FAST, OVERLAPPING, Compared.UNTOLD),  # medians apart, ranges touching
        (ONE_RUN, SLOW, Compared.UNTOLD),  # one value has no range to weigh
        (FAST, FAST, Compared.ALIKE),
    ],
)
def test_past_the_band_only_with_the_ranges_apart(a: Spread, b: Spread, verdict: Compared) -> None:
    assert compare(a, b) is verdict


def test_a_band_counts_close_medians_alike_either_way() -> None:
    near = Spread(105.0, 104.0, 106.0, 3)
    assert compare(FAST, near, alike=0.1) is compare(near, FAST, alike=0.1) is Compared.ALIKE
    assert compare(FAST, near, alike=0.01) is Compared.UNTOLD  # past it, but the ranges touch


def test_by_a_factor_needs_the_ranges_apart_and_the_factor_between_the_medians() -> None:
    assert compare_by(FAST, SLOW, 1.5) is Compared.LOWER
    assert compare_by(SLOW, FAST, 1.5) is Compared.HIGHER
    assert compare_by(FAST, SLOW, 1.7) is Compared.ALIKE  # apart, but 1.6x is short of it
    assert compare_by(FAST, OVERLAPPING, 1.5) is Compared.UNTOLD
    assert compare_by(ONE_RUN, SLOW, 1.5) is Compared.UNTOLD


def test_by_points_draws_the_band_in_the_figures_own_unit() -> None:
    share_a, share_b = Spread(0.95, 0.94, 0.96, 3), Spread(0.80, 0.78, 0.82, 3)
    assert compare_points(share_a, share_b, 0.1) is Compared.HIGHER
    assert compare_points(share_a, share_b, 0.2) is Compared.ALIKE


@st.composite
def positive_spreads(draw: st.DrawFn) -> Spread:
    """A spread of one to five positive measurements (times, rates)."""
    size = draw(st.integers(1, 5))
    return Spread.of(draw(st.lists(st.floats(1e-3, 1e6), min_size=size, max_size=size)))


@settings(max_examples=60, deadline=None, database=None)
@given(positive_spreads(), positive_spreads(), st.floats(1.0, 10.0), st.floats(1.0, 10.0))
def test_a_factor_asks_more_than_the_ranges_and_weakens_as_it_falls(
    a: Spread, b: Spread, f: float, g: float
) -> None:
    low, high = sorted((f, g))
    if compare_by(a, b, high) is Compared.LOWER:
        assert a.below(b) and b.median >= high * a.median
        assert compare_by(a, b, low) is Compared.LOWER
    assert (compare_by(a, b, f) is Compared.HIGHER) == (compare_by(b, a, f) is Compared.LOWER)
    # A factor of 1 asks nothing beyond the ranges apart.
    assert (compare_by(a, b, 1.0) is Compared.LOWER) == a.below(b)
