"""servelab.lessons.chunked_prefill.record: chapter 06's figures from one real run's recorded
findings and a comparison table's two rows."""

from __future__ import annotations

import pandas as pd

from course.paths import REPO_ROOT
from servelab.lessons import recorded
from servelab.lessons.chunked_prefill.chapter import CHAPTER
from servelab.lessons.chunked_prefill.record import ChunkingRecord
from servelab.lessons.chunked_prefill.story import STORY

RUN = REPO_ROOT / "tests" / "snapshots" / CHAPTER.id / "avx512-bf16.json"


def row(gap_ms: float, p50_ms: float, p99_ms: float, ttft_s: float) -> pd.Series:
    return pd.Series(
        {
            "users_longest_gap_ms": gap_ms,
            "users_itl_ms_p50": p50_ms,
            "users_itl_ms_p99": p99_ms,
            "document_ttft_s": ttft_s,
        }
    )


def test_the_record_gives_every_declared_figure_from_its_findings() -> None:
    run = recorded.load(RUN, STORY.kinds())
    plan = run["findings"].plan
    record = ChunkingRecord(
        prefill=run["prefill"],
        plan=plan,
        first=row(1156.0, 90.0, 700.0, 1.2),
        second=row(300.0, 95.0, 250.0, 2.5),
    )
    figures = record.figures().by_name()
    assert record.chapter == "06-chunked-prefill"
    assert set(figures) == set(CHAPTER.figures)
    assert figures["step_budget_tokens"] == plan.budget == 51
    assert figures["chunks"] == plan.chunks
    assert figures["prefill_tok_s"] == run["prefill"].tok_s
    assert (figures["longest_pause_ms_one_step"], figures["longest_pause_ms_chunked"]) == (
        1156.0,
        300.0,
    )
    assert (figures["itl_ms_p50_one_step"], figures["itl_ms_p99_chunked"]) == (90.0, 250.0)
    assert (figures["document_ttft_s_one_step"], figures["document_ttft_s_chunked"]) == (1.2, 2.5)
