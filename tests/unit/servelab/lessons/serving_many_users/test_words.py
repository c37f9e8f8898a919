"""servelab.lessons.serving_many_users.words: every branch of chapter 00's text, on made-up
numbers."""

from __future__ import annotations

import pandas as pd
import pytest

from servelab.bench.spread import Spread
from servelab.engines.vllm_server import Capacity
from servelab.lessons.batching.findings import BatchFindings
from servelab.lessons.chunking.findings import TradeFindings
from servelab.lessons.chunking.sizing import BudgetPlan
from servelab.lessons.compare import Compared, Placed, Shown
from servelab.lessons.paging.findings import PagingFindings
from servelab.lessons.prefix.reuse_findings import ReuseFindings
from servelab.lessons.serving_many_users.findings import LessonFindings
from servelab.lessons.serving_many_users.words import (
    _first_token_text,
    _wait_words,
    batching_text,
    paging_text,
    prediction_beside_list_text,
    prefix_text,
    summary_text,
)


def found(single: float, top: float) -> BatchFindings:
    """One stream's steady total against 32 streams' (whole-run totals a little lower)."""
    return BatchFindings.from_sweep(
        pd.DataFrame(
            {
                "concurrency": [1, 32],
                "output_tok_s": [single * 0.8, top * 0.7],
                "steady_output_tok_s": [single, top],
            }
        )
    )


BATCHING = [
    (100, 2000, Shown.STRONG, ["**20.0×**", "| 62% |", "| 62.5 |", "38%"]),
    (40, 300, Shown.WEAK, ["**7.5×**", "| 23% |", "4.3×"]),
    (40, 50, Shown.NONE, ["**1.2×**", "50 against 40 tok/s"]),
]


@pytest.mark.parametrize(("single", "top", "verdict", "figures"), BATCHING)
def test_batching_text_words_each_verdict(
    single: float, top: float, verdict: Shown, figures: list[str]
) -> None:
    batch = found(single, top)
    assert batch.verdict is verdict and not batch.within_noise
    text = batching_text(batch)
    assert all(figure in text for figure in figures), text
    assert batch.basis in text
    assert "100 to 2,000 tok/s" in text and "32 streams (20×)" in text
    assert len({batching_text(found(s, t)) for s, t, _, _ in BATCHING}) == len(BATCHING)


def test_a_loss_the_sweeps_ranges_still_cover_is_not_called_a_loss() -> None:
    """Chapter 00's float32 recording: 42% kept at the medians, sweeps from 6 to 16 tok/s alone
    and 120 to 254 together, said to lose more than the lesson's users."""

    def swept(single: list[float], top: list[float]) -> BatchFindings:
        runs = {"concurrency": [1, 32]}
        for key in ("output_tok_s", "steady_output_tok_s"):
            runs |= {
                key: [sorted(single)[1], sorted(top)[1]],
                f"{key}_low": [min(single), min(top)],
                f"{key}_high": [max(single), max(top)],
                f"{key}_n": [3, 3],
            }
        return BatchFindings.from_sweep(pd.DataFrame(runs))

    wide, tight = swept([6, 16, 16], [120, 215, 254]), swept([15, 16, 17], [195, 205, 215])
    assert wide.verdict is tight.verdict is Shown.WEAK
    assert wide.short_untold and not tight.short_untold
    assert "23%" in batching_text(wide) and "132%" in batching_text(wide)
    assert batching_text(tight).removesuffix("\n\n</details>").endswith("than on the lesson's GPU.")


def probe(computed: list[float], cached: list[float], ttft_ms: list[float]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "request": range(1, len(computed) + 1),
            "ttft_ms": ttft_ms,
            "computed": computed,
            "from cache": cached,
        }
    )


CONTROL = probe([2016, 2016, 2016], [0, 0, 0], [4000, 4100, 3900])


def reuse(
    computed: list[float],
    cached: list[float],
    ttft_ms: list[float],
    control: pd.DataFrame = CONTROL,
) -> ReuseFindings:
    return ReuseFindings.from_probe(probe(computed, cached, ttft_ms), control)


def test_prefix_reuse_shown_and_first_token_sooner() -> None:
    found_reuse = reuse([2016, 16, 16], [0, 2000, 2000], [4000, 200, 200])
    assert found_reuse.reused and found_reuse.ttft_verdict is Shown.STRONG
    text = prefix_text(found_reuse)
    assert "**2,016**" in text and "**16**" in text and "**20.0×** sooner" in text
    assert "95%" in text
    assert "instead of **4,000 ms**" in text  # thousands grouped, as the ranges beside them are


def test_prefix_reuse_shown_but_first_token_not_much_sooner() -> None:
    found_reuse = reuse([2016, 16, 16], [0, 2000, 2000], [4000, 3500, 3500])
    assert found_reuse.ttft_verdict is Shown.WEAK
    text = prefix_text(found_reuse)
    assert "1.1× sooner" in text and "**1.1×**" not in text


def test_prefix_reuse_shown_but_first_tokens_inside_the_noise() -> None:
    wide = reuse([2016, 16, 16], [0, 2000, 2000], [4000, 200, 3950])
    assert wide.ttft_verdict not in (Shown.STRONG, Shown.WEAK) and not wide.sooner
    overlapping = prefix_text(wide)
    assert "200–3,950 ms" in overlapping and "**" not in _first_token_text(wide)
    one_each = reuse([2016, 16], [0, 2000], [4000, 200], CONTROL[:2])
    assert not one_each.sooner
    assert _first_token_text(one_each) != _first_token_text(wide)
    lesson = LessonFindings(found(100, 2000), one_each, chunks(gaps(300, 7.0), gaps(4500, 5.0)))
    prefix_line = summary_text(lesson, "").splitlines()[1]
    assert "16 tokens" in prefix_line and "× sooner" not in prefix_line


def test_prefix_reuse_not_shown() -> None:
    none = reuse([2016, 2016, 2016], [0, 0, 0], [4000, 4000, 4000])
    assert not none.reused
    text = prefix_text(none)
    assert "**2,016**" in text and "×" not in text  # no first token set beside it


def gaps(longest_ms: float, ttft_s: float) -> dict[str, float]:
    """A row of ``chunking.measuring.compare`` over three runs, 10 % either side."""
    row = {
        "users_itl_ms_p50": 30.0,
        "documents_queued": 0,
        "first_hitch_ms": float("nan"),
        "last_hitch_ms": float("nan"),
        **Spread(20.0, 19.0, 21.0, 3).columns("users_done_s"),
    }
    for key, median in (
        ("users_longest_gap_ms", longest_ms),
        ("document_ttft_s", ttft_s),
        ("itl_ms_p99_after_arrival", 100.0),
        ("users_itl_ms_p99", 70.0),
        ("hitch_share", 0.005),
        ("hitches_per_document", 1.0),
    ):
        row |= Spread(median, 0.9 * median, 1.1 * median, 3).columns(key)
    return row


# 96-token slices of a 2,000-token document, sized for 100 ms pauses.
PLAN = BudgetPlan(
    first_budget=8192,
    prefill_tok_s=960,
    pause_ms=100,
    step_ms=0.0,
    budget=96,
    document_tokens=2000,
    block=16,
)


def chunks(chunked: dict[str, float], whole: dict[str, float]) -> TradeFindings:
    return TradeFindings.from_runs(chunked=chunked, whole=whole, plan=PLAN)


def test_the_prediction_is_quoted_or_asked_for() -> None:
    assert "“10x, 20 tokens”" in prediction_beside_list_text(" 10x, 20 tokens ")
    assert "left `my_prediction` empty" in prediction_beside_list_text("  ")


def test_summary_when_every_effect_showed() -> None:
    lesson = LessonFindings(
        found(100, 2000),
        reuse([2016, 16, 16], [0, 2000, 2000], [4000, 190, 200]),
        chunks(gaps(300, 7.0), gaps(4500, 5.0)),
    )
    text = summary_text(lesson, prediction="a guess")
    lines = text.splitlines()
    assert lesson.batching.shown and "32 users" in lines[0] and "20.0×" in lines[0]
    assert "62%" in lines[0]
    assert lesson.reuse.reused and lesson.reuse.sooner
    assert "16 tokens" in lines[1] and "2,016;" in lines[1] and "20.5× sooner" in lines[1]
    assert lesson.chunking.pause_verdict is Shown.STRONG
    assert "4.50 s" in lines[2] and "0.30 s" in lines[2] and "3 runs" in lines[2]
    assert lesson.chunking.wait_verdict is Compared.HIGHER
    assert _wait_words(lesson.chunking) in lines[2] and "7.00 s" in lines[2]
    overlapping = chunks(gaps(300, 5.2), gaps(4500, 5.0))
    sooner = chunks(gaps(300, 3.0), gaps(4500, 5.0))
    assert overlapping.wait_verdict is Compared.UNTOLD and sooner.wait_verdict is Compared.LOWER
    waits = [_wait_words(lesson.chunking), _wait_words(overlapping), _wait_words(sooner)]
    assert "5.20 s" in waits[1] and "3.00 s" in waits[2]
    assert len({wait.split(", after")[0].split(" after")[0] for wait in waits}) == 3
    for chunking, wait in zip((overlapping, sooner), waits[1:], strict=True):
        again = LessonFindings(lesson.batching, lesson.reuse, chunking)
        assert wait in summary_text(again, "")
    assert "“a guess”" in text


def test_summary_when_no_effect_showed() -> None:
    lesson = LessonFindings(
        found(40, 50),
        ReuseFindings.from_probe(CONTROL, CONTROL),
        chunks(gaps(4000, 5.0), gaps(4500, 5.0)),
    )
    assert not lesson.batching.shown and not lesson.reuse.reused
    assert lesson.chunking.pause_verdict is not Shown.STRONG
    lines = summary_text(lesson, prediction="").splitlines()
    assert "(1.2× at 32 users)" in lines[0]
    assert not any(char.isdigit() for char in lines[1])  # no reuse, no figures
    assert "(4.50 s" in lines[2] and "4.00 s" in lines[2] and "runs a side" not in lines[2]


def test_paging_evidence_sets_what_ran_beside_what_the_log_said_fits() -> None:
    # 46,592 tokens are 364 blocks of 128, 363 for sequences: 5 contexts of 64 blocks.
    capacity = Capacity(kv_cache_tokens=46_592, max_model_len=8192, max_concurrency=5.69)

    def text(load: object) -> str:
        return paging_text(PagingFindings.from_run(capacity, 128, 80, load))

    loads = [
        pd.DataFrame({"running_max": [1.0, 16.0, 32.0]}),
        pd.DataFrame({"running_max": [1.0, 4.0]}),
        pd.DataFrame({"x": [1]}),
    ]
    verdicts = [PagingFindings.from_run(capacity, 128, 80, load).ran_verdict for load in loads]
    assert verdicts[0] is Placed.ABOVE and verdicts[1] is not Placed.ABOVE
    assert verdicts[2] is None
    many, few, unsampled = (text(load) for load in loads)
    assert "**5.7** requests" in many and "**32** sequences" in many
    assert "most 4 ran" in few and "**4**" not in few
    assert len({many, few, unsampled}) == 3 and "32" not in unsampled
