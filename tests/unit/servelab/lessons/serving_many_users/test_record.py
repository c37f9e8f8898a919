"""servelab.lessons.serving_many_users.record: chapter 00's figures from a made-up sweep and one
real run's recorded findings."""

from __future__ import annotations

import pandas as pd
import pytest

from course.paths import REPO_ROOT
from servelab.lessons import recorded
from servelab.lessons.serving_many_users.chapter import CHAPTER
from servelab.lessons.serving_many_users.record import OverviewRecord
from servelab.lessons.serving_many_users.story import STORY
from servelab.results import expected_names

RUN = REPO_ROOT / "tests" / "snapshots" / CHAPTER.id / "avx512-bf16.json"


@pytest.mark.parametrize("profile", ["smoke", "cpu", "gpu"])
def test_the_record_gives_every_figure_its_profile_measures(profile: str) -> None:
    run = recorded.load(RUN, STORY.kinds())
    levels = CHAPTER.sizes.at(profile).levels
    sweep = pd.DataFrame(
        {
            "concurrency": levels,
            "output_tok_s": [9.0 * n for n in levels],
            "user_tok_s": [9.0 - n / 8 for n in levels],
        }
    )
    reused, chunks = run["reuse"], run["findings"]
    record = OverviewRecord(
        sweep=sweep, found=run["found"], reused=reused, chunks=chunks, budget=64
    )
    figures = record.figures().by_name()
    assert record.chapter == "00-serving-many-users"
    assert set(figures) == expected_names(CHAPTER.id, profile)
    top = levels[-1]
    assert (figures[f"total_tok_s_at_{top}"], figures[f"user_tok_s_at_{top}"]) == (
        9.0 * top,
        9.0 - top / 8,
    )
    assert figures["ttft_ms_with_reuse"] == reused.ttft_on.median
    assert figures["longest_pause_ms_sliced"] == chunks.chunked.pause.median
    assert figures["document_ttft_s_one_piece"] == chunks.whole.wait.median
    assert figures["step_budget_tokens"] == 64
