"""servelab.lessons.paged_attention.record: chapter 03's figures from one real run's recorded
findings."""

from __future__ import annotations

import pandas as pd

from course.paths import REPO_ROOT
from servelab.lessons import recorded
from servelab.lessons.paged_attention.chapter import CHAPTER
from servelab.lessons.paged_attention.record import PagingRecord
from servelab.lessons.paged_attention.story import STORY

RUN = REPO_ROOT / "tests" / "snapshots" / CHAPTER.id / "avx512-bf16.json"


def test_the_record_gives_every_declared_figure_from_its_findings() -> None:
    run = recorded.load(RUN, STORY.kinds())
    busiest = pd.Series({"kv_cache_usage": 0.42, "num_requests_running": 32.0})
    record = PagingRecord(
        cost=run["cost"], paging=run["paging"], busiest=busiest, squeeze=run["squeeze"]
    )
    figures = record.figures().by_name()
    assert record.chapter == "03-paged-attention"
    assert set(figures) == set(CHAPTER.figures)
    assert figures["kv_usage_peak_roomy"] == 0.42
    assert figures["kv_bytes_per_token"] == run["cost"].bytes_per_token == 23_040
    assert figures["requests_fit_paged"] == run["paging"].fit.paged
    assert figures["preemptions_cramped"] == run["squeeze"].preemptions == 17.0
