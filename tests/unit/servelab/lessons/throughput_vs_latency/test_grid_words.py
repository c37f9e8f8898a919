"""servelab.lessons.throughput_vs_latency.grid_words: the rate grid's account of its rates, its
requests and the counted middle."""

from __future__ import annotations

from servelab.lessons.throughput_vs_latency.grid_words import grid_text
from servelab.lessons.throughput_vs_latency.rate_grid import RateGrid


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


def test_the_words_name_the_rates_the_requests_and_the_counted_middle() -> None:
    text = grid_text(_grid())
    assert "2.4, 3.4 and 4.6 req/s" in text and "15 req/s" in text
    assert "(100 requests" in text and "(5 requests" in text  # a rate's, and trimmed a side
    assert "15%" in text  # the nearest rate's distance from the knee
    assert grid_text(_grid(None)) != text
