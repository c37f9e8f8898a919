"""Properties of one speed against another (servelab.lessons.when_not_to.against) over its whole
input range, beside the examples of test_findings.py: alike within ``ALIKE``, faster or
slower only past it with the ranges apart, never on one run a side, and the same verdict read
from either side, at the edges of the band too."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared, Placed, placed, placed_runs, placed_within
from servelab.lessons.thresholds import ALIKE
from servelab.lessons.when_not_to.against import Against

PROPERTY = settings(max_examples=80, deadline=None, database=None, derandomize=True)

# The edges of the band either way, a/b within [1 / (1 + ALIKE), 1 + ALIKE], and the edges the
# band had when it was drawn on a/b alone, [1 - ALIKE, 1 + ALIKE] (issue #66).
EDGES = (1 - ALIKE, 1 / (1 + ALIKE), 1.0, 1 + ALIKE, 1 / (1 - ALIKE))
MIRROR = {
    Compared.HIGHER: Compared.LOWER,
    Compared.LOWER: Compared.HIGHER,
    Compared.ALIKE: Compared.ALIKE,
    Compared.UNTOLD: Compared.UNTOLD,
}
# Float rounding of a ratio that lands on an edge.
ROUNDING = 1e-12

speed = st.floats(1e-3, 1e6)  # tokens a second
ratios = st.one_of(
    st.sampled_from(EDGES),
    st.sampled_from(EDGES).map(lambda r: r * 1.002),
    st.sampled_from(EDGES).map(lambda r: r * 0.998),
    st.floats(0.2, 5.0),
)


@st.composite
def spreads(draw: st.DrawFn, median: float, n: st.SearchStrategy[int] | None = None) -> Spread:
    """A spread around ``median``: one run (no range) or several, narrow or wide."""
    runs = draw(n if n is not None else st.sampled_from([1, 2, 3, 5]))
    if runs == 1:
        return Spread(median, median, median, 1)
    below, above = draw(st.floats(0.0, 0.3)), draw(st.floats(0.0, 0.3))
    return Spread(median, median * (1 - below), median * (1 + above), runs)


@st.composite
def pairs(draw: st.DrawFn, n: st.SearchStrategy[int] | None = None) -> tuple[Spread, Spread]:
    """Two speeds, the first ``ratio`` times the second, the ratio often at an edge."""
    b = draw(speed)
    return draw(spreads(b * draw(ratios), n)), draw(spreads(b, n))


@PROPERTY
@given(pairs())
def test_the_verdict_is_the_band_then_the_ranges(pair):
    a, b = pair
    against = Against(a, b)
    # the band as servelab.lessons.compare draws it: the medians within 1 + ALIKE either way
    alike = a.median <= b.median * (1 + ALIKE) and b.median <= a.median * (1 + ALIKE)
    verdict = against.compared
    assert (verdict is Compared.ALIKE) == alike
    assert (verdict is Compared.HIGHER) == (not alike and a.median > b.median and a.above(b))
    assert (verdict is Compared.LOWER) == (not alike and a.median < b.median and a.below(b))
    if against.compared is Compared.UNTOLD:
        assert not alike and not a.above(b) and not a.below(b)


@PROPERTY
@given(
    pairs(n=st.just(1))
    | pairs().map(lambda p: (Spread(p[0].median, p[0].median, p[0].median, 1), p[1]))
)
def test_one_run_a_side_is_alike_or_not_told_apart_never_faster_or_slower(pair):
    a, b = pair
    assert Against(a, b).compared in (Compared.ALIKE, Compared.UNTOLD)
    assert Against(b, a).compared in (Compared.ALIKE, Compared.UNTOLD)


@PROPERTY
@given(speed.flatmap(lambda s: spreads(s)))
def test_a_speed_is_alike_itself(a):
    assert Against(a, a).compared is Compared.ALIKE


@PROPERTY
@given(pairs(), st.integers(-20, 20))
def test_the_verdict_does_not_depend_on_the_unit(pair, power):
    """Both speeds scaled by a power of two (exact in floating point): the same verdict."""
    a, b = pair
    scale = 2.0**power

    def scaled(s: Spread) -> Spread:
        return Spread(s.median * scale, s.low * scale, s.high * scale, s.n)

    assert Against(scaled(a), scaled(b)).compared is Against(a, b).compared


@PROPERTY
@given(pairs())
def test_slower_one_way_is_faster_the_other(pair):
    a, b = pair
    if Against(a, b).compared is Compared.LOWER:
        assert Against(b, a).compared is Compared.HIGHER
    if Against(b, a).compared is Compared.LOWER:
        assert Against(a, b).compared is Compared.HIGHER


@PROPERTY
@given(pairs())
def test_either_side_reads_the_same_verdict(pair):
    """The band is the same from either side (it once was drawn on a/b alone, and a speed 1.11
    times another was faster while the other, 0.90 times it, read alike)."""
    a, b = pair
    assert Against(b, a).compared is MIRROR[Against(a, b).compared]


@PROPERTY
@given(speed, st.floats(1 / (1 + ALIKE) * (1 + ROUNDING), (1 + ALIKE) * (1 - ROUNDING)), st.data())
def test_within_the_narrower_band_both_sides_read_alike(b_tok_s, ratio, data):
    a, b = data.draw(spreads(b_tok_s * ratio)), data.draw(spreads(b_tok_s))
    assert Against(a, b).compared is Against(b, a).compared is Compared.ALIKE


def test_faster_one_way_is_slower_the_other_at_the_band_edge():
    fast, slow = Spread(111.0, 110.0, 112.0, 3), Spread(100.0, 99.0, 101.0, 3)
    assert Against(fast, slow).compared is Compared.HIGHER
    assert Against(slow, fast).compared is Compared.LOWER


@PROPERTY
@given(value=st.floats(-1e6, 1e6), low=st.floats(-1e6, 1e6), width=st.floats(0.0, 1e6))
def test_runs_of_one_value_are_placed_as_that_value(value: float, low: float, width: float) -> None:
    high = low + width
    assert placed_runs(Spread(value, value, value, 1), low, high) is placed(value, low, high)


@PROPERTY
@given(runs=spreads(100.0), low=st.floats(0.0, 300.0), width=st.floats(0.0, 300.0))
def test_runs_are_placed_past_a_window_only_where_every_run_is(
    runs: Spread, low: float, width: float
) -> None:
    high = low + width
    where = placed_runs(runs, low, high)
    assert (where is Placed.BELOW) is all(
        placed(v, low, high) is Placed.BELOW for v in (runs.low, runs.high)
    )
    assert (where is Placed.ABOVE) is all(
        placed(v, low, high) is Placed.ABOVE for v in (runs.low, runs.high)
    )


@PROPERTY
@given(
    value=st.floats(0.0, 300.0),
    spread=st.floats(0.0, 100.0),
    below=st.floats(0.0, 1.0),
    low=st.floats(0.0, 300.0),
    width=st.floats(0.0, 300.0),
)
def test_a_value_is_placed_within_only_where_its_bounds_agree(
    value: float, spread: float, below: float, low: float, width: float
) -> None:
    high = low + width
    bounds = (value - below * spread, value + (1 - below) * spread)
    where = placed_within(value, bounds, low, high)
    agree = {placed(edge, low, high) for edge in (*bounds, value)}
    assert (where is None) is (len(agree) > 1)
    assert where in (None, placed(value, low, high))
    assert placed_within(value, None, low, high) is placed(value, low, high)  # one run


@PROPERTY
@given(speed, ratios)
def test_times_is_the_larger_over_the_smaller_from_either_side(b: float, ratio: float) -> None:
    one, other = Spread.of([b * ratio]), Spread.of([b])
    forward, backward = Against(one, other), Against(other, one)
    assert forward.times >= 1 and abs(forward.times - backward.times) <= 1e-9 * forward.times
    assert forward.times in (forward.ratio, 1 / forward.ratio)
    assert forward.share_moved == abs(forward.ratio - 1)
