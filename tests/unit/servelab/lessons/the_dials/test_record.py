"""servelab.lessons.the_dials.record: chapter 05's figures from a sweep and a table by load, made
up, and one real run's recorded context findings."""

from __future__ import annotations

import pandas as pd
import pytest

from course.paths import REPO_ROOT
from servelab.engines.vllm_server import Capacity
from servelab.lessons import recorded
from servelab.lessons.the_dials.chapter import CHAPTER
from servelab.lessons.the_dials.record import DialsRecord
from servelab.lessons.the_dials.story import STORY
from servelab.results import expected_names

RUN = REPO_ROOT / "tests" / "snapshots" / CHAPTER.id / "avx512-bf16.json"


@pytest.mark.parametrize("profile", ["smoke", "cpu", "gpu"])
def test_the_record_gives_every_figure_its_profile_measures(profile: str) -> None:
    levels = CHAPTER.sizes.at(profile).levels
    sweep = pd.DataFrame(
        {
            "max_num_seqs": levels,
            "output_tok_s": [10.0 * n for n in levels],
            "tpot_ms_p99": [100.0 + n for n in levels],
            "latency_s_p99": [2.0 * n for n in levels],
        }
    ).set_index("max_num_seqs")
    by_load = pd.DataFrame(
        {"ttft_ms_p99": [80.0, 900.0]}, index=["short requests alone", "beside long ones"]
    )
    context = recorded.load(RUN, STORY.kinds())["context"]
    record = DialsRecord(
        sweep_table=sweep,
        small_capacity=Capacity(2048, 2048, 1.0),
        context=context,
        by_load=by_load,
    )
    figures = record.figures().by_name()
    assert record.chapter == "05-the-dials"
    assert set(figures) == expected_names(CHAPTER.id, profile)
    top = levels[-1]
    assert figures[f"output_tok_s_at_{top}"] == 10.0 * top
    assert figures[f"tpot_ms_p99_at_{top}"] == 100.0 + top
    assert figures[f"latency_s_p99_at_{top}"] == 2.0 * top
    assert (figures["ttft_ms_p99_short_alone"], figures["ttft_ms_p99_beside_long"]) == (80.0, 900.0)
    assert figures["small_cache_tokens"] == 2048
    assert figures["preemptions_beside_long"] == context.preemptions_mixed.median
