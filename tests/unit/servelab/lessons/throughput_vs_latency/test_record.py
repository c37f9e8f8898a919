"""servelab.lessons.throughput_vs_latency.record: chapter 07's figures from made-up rate tables and
one real run's recorded findings."""

from __future__ import annotations

import pandas as pd
import pytest

from course.paths import REPO_ROOT
from servelab.lessons import recorded
from servelab.lessons.throughput_vs_latency.chapter import CHAPTER
from servelab.lessons.throughput_vs_latency.rate_grid import RateGrid
from servelab.lessons.throughput_vs_latency.record import DeploymentsRecord
from servelab.lessons.throughput_vs_latency.story import STORY
from servelab.results import expected_names

RUN = REPO_ROOT / "tests" / "snapshots" / CHAPTER.id / "avx512-bf16.json"


def rate_table(rates: list[float], ttft_ms: float, goodput: float) -> pd.DataFrame:
    """A rate table's columns the record reads, one row per rate."""
    return pd.DataFrame(
        {
            "rate": rates,
            "ttft_ms_p99": [ttft_ms * rate for rate in rates],
            "goodput_req_s": [goodput * rate for rate in rates],
        }
    )


@pytest.mark.parametrize("profile", ["smoke", "cpu", "gpu"])
def test_the_record_gives_every_figure_its_profile_measures(profile: str) -> None:
    run = recorded.load(RUN, STORY.kinds())
    sizes = CHAPTER.sizes.at(profile)
    grid = RateGrid(
        small_knee=4.0,
        large_knee=10.0,
        large_slots=sizes.batch_seqs,
        percents=tuple(sizes.rate_percents),
        top_percent=sizes.top_percent,
        requests=sizes.requests_per_rate,
        repeats=sizes.repeats,
    )
    record = DeploymentsRecord(
        sweeps=run["sweeps"],
        interactive=rate_table(grid.rates, 10.0, 0.5),
        batch=rate_table(grid.rates, 100.0, 0.25),
        found_metrics=run["metrics"],
        slot_rate=run["slot_rate"],
        grid=grid,
    )
    figures = record.figures().by_name()
    assert record.chapter == "07-throughput-vs-latency"
    assert set(figures) == expected_names(CHAPTER.id, profile)
    last, rate = grid.percents[-1], grid.placed[-1]  # the top rate has no percent of its own
    assert figures[f"ttft_ms_p99_interactive_at_{last}"] == 10.0 * rate
    assert figures[f"ttft_ms_p99_batch_at_{last}"] == 100.0 * rate
    assert figures[f"goodput_req_s_interactive_at_{last}"] == 0.5 * rate
    assert figures[f"goodput_req_s_batch_at_{last}"] == 0.25 * rate
    assert figures["peak_tok_s_batch"] == run["sweeps"].large.peak
    assert figures["engine_in_flight"] == run["metrics"].engine_in_flight
    assert figures["slot_rate_req_s"] == run["slot_rate"].rate
