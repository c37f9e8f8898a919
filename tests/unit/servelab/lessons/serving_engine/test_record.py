"""servelab.lessons.serving_engine.record: chapter 01's figures from a real run's recorded
findings and made-up sweep rows."""

from __future__ import annotations

import pandas as pd

from course.paths import REPO_ROOT
from servelab.lessons import recorded
from servelab.lessons.serving_engine.chapter import CHAPTER
from servelab.lessons.serving_engine.record import ServingEngineRecord
from servelab.lessons.serving_engine.story import STORY

RUN = REPO_ROOT / "tests" / "snapshots" / CHAPTER.id / "avx512-bf16.json"


def test_chapter_01s_record_gives_every_declared_figure() -> None:
    run = recorded.load(RUN, STORY.kinds())
    one = pd.Series({"steady_output_tok_s": 7.0, "steady_user_tok_s": 7.0, "ttft_ms_p50": 90.0})
    many = pd.Series({"steady_output_tok_s": 77.0, "steady_user_tok_s": 4.8, "ttft_ms_p50": 400.0})
    record = ServingEngineRecord(
        one=one,
        many=many,
        found=run["found"],
        client_tokens=run["client_tokens"],
        server_tokens=4890.0,
    )
    figures = record.figures().by_name()
    assert record.chapter == "01-serving-engine"
    assert set(figures) == set(CHAPTER.figures)
    assert (figures["steady_tok_s_one_user"], figures["steady_tok_s_all_users"]) == (7.0, 77.0)
    assert (figures["user_tok_s_all_users"], figures["ttft_ms_p50_all_users"]) == (4.8, 400.0)
    assert figures["batching_gain"] == run["found"].gain
    assert (figures["generated_tokens_client"], figures["generated_tokens_server"]) == (
        4896.0,
        4890.0,
    )
