"""servelab.lessons.overview.words: every branch of chapter 00's text, on made-up numbers."""

from __future__ import annotations

import pandas as pd
import pytest

from servelab.bench.spread import Spread
from servelab.engines.vllm_server import Capacity
from servelab.lessons.batching.findings import BatchFindings
from servelab.lessons.chunking.findings import TradeFindings
from servelab.lessons.chunking.sizing import BudgetPlan
from servelab.lessons.overview.findings import LessonFindings
from servelab.lessons.overview.words import (
    batching_text,
    paging_text,
    prediction_beside_list_text,
    prefix_text,
    summary_text,
)
from servelab.lessons.paging.findings import PagingFindings
from servelab.lessons.prefix.reuse_findings import ReuseFindings


def found(single: float, top: float) -> BatchFindings:
    """One stream's steady total against 32 streams' (whole-run totals a little lower)."""
    return BatchFindings.from_sweep(pd.DataFrame({
        "concurrency": [1, 32], "output_tok_s": [single * 0.8, top * 0.7],
        "steady_output_tok_s": [single, top]}))


@pytest.mark.parametrize(("single", "top", "phrases"), [
    (100, 2000, ["**20.0×**", "**62%**", "**62.5 tok/s**", "gave up 38% of its speed",
                 "while every user was decoding"]),
    (40, 300, ["**7.5×**", "**23%**", "lost more than in the lesson", "about 4.3× as long"]),
    (40, 50, ["only **1.2×**", "did not show the gain from batching", "50 against 40 tok/s"]),
])
def test_batching_text_words_each_verdict(single: float, top: float,
                                          phrases: list[str]) -> None:
    text = batching_text(found(single, top))
    assert all(phrase in text for phrase in phrases), text
    assert "The lesson's GPU goes from 100 to 2,000 tok/s with 32 streams (20×)" in text


def probe(computed: list[float], cached: list[float], ttft_ms: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"request": range(1, len(computed) + 1), "ttft_ms": ttft_ms,
                         "computed": computed, "from cache": cached})


CONTROL = probe([2016, 2016, 2016], [0, 0, 0], [4000, 4100, 3900])


def reuse(computed: list[float], cached: list[float], ttft_ms: list[float],
          control: pd.DataFrame = CONTROL) -> ReuseFindings:
    return ReuseFindings.from_probe(probe(computed, cached, ttft_ms), control)


def test_prefix_reuse_shown_and_first_token_sooner() -> None:
    text = prefix_text(reuse([2016, 16, 16], [0, 2000, 2000], [4000, 200, 200]))
    assert "**2,016**" in text and "only **16**" in text and "**20.0×** sooner" in text
    assert "removed 95% of the wait" in text
    assert "instead of **4,000 ms**" in text  # thousands grouped, as the ranges beside them are


def test_prefix_reuse_shown_but_first_token_not_much_sooner() -> None:
    text = prefix_text(reuse([2016, 16, 16], [0, 2000, 2000], [4000, 3500, 3500]))
    assert "only 1.1× sooner" in text and "most of the wait was not" in text


def test_prefix_reuse_shown_but_first_tokens_inside_the_noise() -> None:
    overlapping = prefix_text(reuse([2016, 16, 16], [0, 2000, 2000], [4000, 200, 3950]))
    assert "the ranges overlap, so this run cannot tell" in overlapping
    assert "range 200–3,950 ms over 2 with reuse" in overlapping
    one_each = reuse([2016, 16], [0, 2000], [4000, 200], CONTROL[:2])
    assert "one later request a side gives no range" in prefix_text(one_each)
    lesson = LessonFindings(found(100, 2000), one_each, chunks(gaps(300, 7.0), gaps(4500, 5.0)))
    assert "first token not sooner beyond the spread" in summary_text(lesson, "")


def test_prefix_reuse_not_shown() -> None:
    text = prefix_text(reuse([2016, 2016, 2016], [0, 0, 0], [4000, 4000, 4000]))
    assert "did not show the cached prefix" in text


def gaps(longest_ms: float, ttft_s: float) -> dict[str, float]:
    """A row of ``chunking.measuring.compare`` over three runs, 10 % either side."""
    row = {"users_itl_ms_p50": 30.0, "documents_queued": 0, "first_hitch_ms": float("nan"),
           "last_hitch_ms": float("nan"), **Spread(20.0, 19.0, 21.0, 3).columns("users_done_s")}
    for key, median in (("users_longest_gap_ms", longest_ms), ("document_ttft_s", ttft_s),
                        ("itl_ms_p99_after_arrival", 100.0), ("users_itl_ms_p99", 70.0),
                        ("hitch_share", 0.005), ("hitches_per_document", 1.0)):
        row |= Spread(median, 0.9 * median, 1.1 * median, 3).columns(key)
    return row


# 96-token slices of a 2,000-token document, sized for 100 ms pauses.
PLAN = BudgetPlan(first_budget=8192, prefill_tok_s=960, pause_ms=100, step_ms=0.0, budget=96,
                  document_tokens=2000, block=16)


def chunks(chunked: dict[str, float], whole: dict[str, float]) -> TradeFindings:
    return TradeFindings.from_runs(chunked=chunked, whole=whole, plan=PLAN)


def test_the_prediction_is_quoted_or_asked_for() -> None:
    assert "“10x, 20 tokens”" in prediction_beside_list_text(" 10x, 20 tokens ")
    assert "left `my_prediction` empty" in prediction_beside_list_text("  ")


def test_summary_when_every_effect_showed() -> None:
    lesson = LessonFindings(found(100, 2000),
                            reuse([2016, 16, 16], [0, 2000, 2000], [4000, 190, 200]),
                            chunks(gaps(300, 7.0), gaps(4500, 5.0)))
    text = summary_text(lesson, prediction="a guess")
    lines = text.splitlines()
    assert lines[0] == ("- **Batching:** 32 users got 20.0× the total of one user, each at 62% "
                        "of its speed.")
    assert "computed 16 tokens instead of 2,016" in lines[1]
    assert "20.5× sooner (ranges apart)" in lines[1]
    assert "from 4.50 s to 0.30 s (medians over 3 runs a side" in lines[2]
    assert "came later, after 7.00 s in slices against 5.00 s in one step" in lines[2]
    overlapping = LessonFindings(lesson.batching, lesson.reuse,
                                 chunks(gaps(300, 5.2), gaps(4500, 5.0)))
    assert ("came after 5.20 s in slices against 5.00 s in one step, ranges overlapping: "
            "no cost this run can tell") in summary_text(overlapping, "")
    sooner = LessonFindings(lesson.batching, lesson.reuse,
                            chunks(gaps(300, 3.0), gaps(4500, 5.0)))
    assert "came sooner, after 3.00 s in slices against 5.00 s in one step" in summary_text(
        sooner, "")
    assert "“a guess”" in text


def test_summary_when_no_effect_showed() -> None:
    lesson = LessonFindings(found(40, 50), ReuseFindings.from_probe(CONTROL, CONTROL),
                            chunks(gaps(4000, 5.0), gaps(4500, 5.0)))
    text = summary_text(lesson, prediction="")
    assert "not shown in this run (1.2× at 32 users)" in text
    assert "no reuse showed" in text
    assert "did not show a shorter pause beyond its spread (4.50 s in one step, 4.00 s" in text


def test_paging_evidence_sets_what_ran_beside_what_the_log_said_fits() -> None:
    # 46,592 tokens are 364 blocks of 128, 363 for sequences: 5 contexts of 64 blocks.
    capacity = Capacity(kv_cache_tokens=46_592, max_model_len=8192, max_concurrency=5.69)

    def text(load: object) -> str:
        return paging_text(PagingFindings.from_run(capacity, 128, 80, load))

    many = text(pd.DataFrame({"running_max": [1.0, 16.0, 32.0]}))
    assert "**5.7** requests" in many and "Yet **32** sequences ran at once" in many
    assert "does not show what paging adds" in text(pd.DataFrame({"running_max": [1.0, 4.0]}))
    assert "no running count" in text(pd.DataFrame({"x": [1]}))
