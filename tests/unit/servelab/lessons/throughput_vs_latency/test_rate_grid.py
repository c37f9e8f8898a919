"""servelab.lessons.throughput_vs_latency.rate_grid: the sweep's rates around the predicted
knees."""

from __future__ import annotations

import dataclasses

import pytest

from servelab.lessons.throughput_vs_latency.rate_grid import TOP_WITHOUT_MODEL, RateGrid


def _grid(large_knee: float | None = 12.0) -> RateGrid:
    return RateGrid(
        small_knee=4.0,
        large_knee=large_knee,
        large_slots=16,
        percents=(60, 85, 115),
        top_percent=125,
        requests=50,
        repeats=2,
    )


def test_the_rates_sit_around_the_small_knee_and_the_top_past_the_large_one() -> None:
    grid = _grid()
    assert grid.placed == (2.4, 3.4, 4.6)
    assert grid.top == 15.0 and grid.top_from_model
    assert grid.rates == [2.4, 3.4, 4.6, 15.0]
    assert grid.read_closely == 3.4  # the highest placed rate below the knee
    assert (grid.per_rate, grid.trimmed) == (100, 5)
    assert grid.trim_s(2.5) == pytest.approx(2.0)


@pytest.mark.parametrize("large_knee", [None, 3.0])
def test_without_a_large_knee_above_the_placed_rates_the_top_is_a_multiple(large_knee) -> None:
    grid = _grid(large_knee)
    assert not grid.top_from_model
    assert grid.top == pytest.approx(4.6 * TOP_WITHOUT_MODEL)
    assert grid.rates == sorted(grid.rates)


def test_the_nearest_rate_says_how_small_a_miss_the_grid_would_show() -> None:
    assert _grid().nearest_percent_off == 15  # 85% and 115% of the small knee
    assert dataclasses.replace(_grid(), percents=(50, 96, 140)).nearest_percent_off == 4
