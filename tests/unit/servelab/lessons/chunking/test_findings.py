"""servelab.lessons.chunking: sizing and findings (the log, the compare table and the words: their
own files)."""

from __future__ import annotations

import dataclasses

import matplotlib
import matplotlib.pyplot
import pytest

from servelab.bench.prefill import PrefillFit
from servelab.bench.spread import Spread
from servelab.lessons.chunked_prefill.forecast_words import alone_line, document_line, spacing_line
from servelab.lessons.chunking.findings import ReadAlone, ReadingRuns, TradeFindings
from servelab.lessons.chunking.sizing import (
    BudgetPlan,
    DocumentLoad,
    Reading,
    Sizing,
    budget_for,
    document_for,
    read_alone_s,
    spacing_for,
    user_tokens_for,
)
from servelab.lessons.chunking.words import _cost_text, effect_text
from servelab.lessons.compare import Compared, Shown
from servelab.lessons.serving_many_users.words import load_line

matplotlib.use("Agg")


def test_budget_is_the_pause_at_the_measured_rate_in_whole_blocks():
    assert budget_for(1000.0, 150, step_ms=0.0, smallest=8, largest=2000, block=16) == 144
    # the CPU engine's blocks
    assert budget_for(1000.0, 150, step_ms=0.0, smallest=8, largest=2000, block=128) == 128
    assert budget_for(1000.0, 1, step_ms=0.0, smallest=8, largest=2000, block=16) == 8
    assert budget_for(30.0, 400, step_ms=0.0, smallest=8, largest=2000, block=16) == 12
    assert budget_for(100_000.0, 150, step_ms=0.0, smallest=8, largest=2000, block=16) == 2000
    with pytest.raises(ValueError):
        budget_for(0.0, 150, step_ms=0.0, smallest=8, largest=2000, block=16)


def _row(
    longest,
    p99,
    after,
    p50,
    ttft,
    n=3,
    done=30.0,
    users=4,
    queued=0,
    share=0.005,
    hitches=1.0,
    first=float("nan"),
    last=float("nan"),
):
    """A setting's row of ``compare`` over ``n`` runs: each figure 10 % either side of its
    median, the users' own runs 5 % either side of ``done`` (over ``users`` runs)."""
    row = {
        "users_itl_ms_p50": p50,
        "documents_queued": queued,
        **Spread(done, 0.95 * done, 1.05 * done, users).columns("users_done_s"),
    }
    for key, median in (
        ("users_longest_gap_ms", longest),
        ("itl_ms_p99_after_arrival", after),
        ("document_ttft_s", ttft),
        ("users_itl_ms_p99", p99),
        ("hitch_share", share),
        ("hitches_per_document", hitches),
        ("first_hitch_ms", first),
        ("last_hitch_ms", last),
    ):
        row |= Spread(median, 0.9 * median, 1.1 * median, n).columns(key)
    return row


PLAN = BudgetPlan(
    first_budget=4096,
    prefill_tok_s=2500,
    pause_ms=150,
    step_ms=0.0,
    budget=368,
    document_tokens=2000,
    block=16,
)
WHOLE = _row(800, 150, 700, 31, 5.0)


def findings(
    chunked: dict[str, float], whole: dict[str, float] = WHOLE, plan: BudgetPlan = PLAN
) -> TradeFindings:
    return TradeFindings.from_runs(chunked=chunked, whole=whole, plan=plan)


def test_the_findings_read_the_two_rows_and_their_ratios():
    found = findings(_row(300, 200, 1000, 31, 6.0))
    assert found.whole == ReadingRuns.of(WHOLE)  # one record a reading, each from its own row
    pause = found.whole.pause
    assert (pause.median, pause.low, pause.high, pause.n) == pytest.approx((800, 720, 880, 3))
    assert found.whole.pause_s == pytest.approx(0.8) and found.pause_runs == 3
    assert (found.usual_gap_ms, found.whole.pooled.median, found.chunked.pooled.median) == (
        31,
        150,
        200,
    )
    assert (found.whole.wait.median, found.chunked.wait.median) == pytest.approx((5.0, 6.0))
    assert found.pause_over_usual == pytest.approx(300 / 31)
    assert found.wait_ratio == pytest.approx(1.2)
    assert (PLAN.chunks, PLAN.first_chunks, PLAN.wanted_tokens) == (6, 1, 375)


@pytest.mark.parametrize(
    ("chunked", "plan", "verdict"),
    [
        (_row(300, 200, 1000, 31, 6.0), PLAN, Shown.STRONG),
        (_row(700, 200, 1000, 31, 6.0), PLAN, Shown.NONE),  # ranges overlap
        (_row(540, 200, 1000, 31, 6.0), PLAN, Shown.NONE),  # apart, not by the bar
        (_row(300, 200, 1000, 31, 6.0, n=1), PLAN, Shown.UNTOLD),
        (_row(300, 200, 1000, 31, 6.0), dataclasses.replace(PLAN, budget=2000), None),
    ],
)
def test_pause_verdicts(chunked, plan, verdict):
    assert findings(chunked, plan=plan).pause_verdict is verdict


@pytest.mark.parametrize(
    ("after", "verdict"),
    [
        (1000, Shown.REVERSED),
        (250, Shown.STRONG),
        (500, Shown.WEAK),
        (650, Shown.UNTOLD),
    ],
)
def test_tail_verdicts_while_a_document_is_read(after, verdict):
    assert findings(_row(300, 100, after, 31, 6.0)).tail_verdict is verdict


def test_documents_are_spaced_from_the_read_alone():
    fit = PrefillFit(fixed_ms=100.0, tok_s=1000.0, short_tokens=500, long_tokens=4000)
    assert read_alone_s(fit, 4000) == pytest.approx(4.1)
    assert spacing_for(4.1, smallest=3.0) == pytest.approx(8.2)
    assert spacing_for(0.2, smallest=1.5) == 1.5
    with pytest.raises(ValueError, match="must be positive"):
        spacing_for(0.0, smallest=1.5)


def test_users_ask_for_enough_tokens_to_outlast_the_last_document():
    # 3 documents 24 s apart from 1.5 s: the users must still decode at 1.5 + 3 * 24 = 73.5 s
    assert user_tokens_for(15.0, 1.5, 3, 24.0, smallest=320, largest=8000) == 1103
    assert user_tokens_for(15.0, 1.5, 3, 2.5, smallest=320, largest=8000) == 320
    assert user_tokens_for(400.0, 1.5, 3, 24.0, smallest=320, largest=8000) == 8000
    with pytest.raises(ValueError, match="must be positive"):
        user_tokens_for(0.0, 1.5, 3, 24.0, smallest=320, largest=8000)


def test_the_chunked_cost_is_the_arithmetic_of_the_reads_alone():
    alone = ReadAlone(one_step_s=3.6, chunked_s=6.0)
    found = TradeFindings.from_runs(
        chunked=_row(300, 200, 1000, 31, 7.5), whole=WHOLE, plan=PLAN, alone=alone
    )
    text = effect_text(found)
    assert found.alone_cost is Shown.STRONG
    assert "3.60 s" in text and "6.00 s in 6 chunks" in text
    assert "+2.40 s" in text and "+400 ms a chunk" in text
    assert found.wait_extra_s == pytest.approx(2.5) and "2.50 s." in text
    assert found.chunk_alone_ms == pytest.approx(1000) and "1,000 ms" in text  # 6.0 s / 6
    assert found.chunk_planned_ms == pytest.approx(147, abs=0.5) and "147 ms" in text
    alone_missing = findings(_row(300, 200, 1000, 31, 7.5))
    assert alone_missing.alone_cost is None and alone_missing.chunk_alone_ms is None
    missing = effect_text(alone_missing)
    assert "+400 ms" not in missing and "2.50 s." not in missing
    assert not any(char.isdigit() for char in _cost_text(alone_missing))
    assert ReadAlone.of(
        PrefillFit(0.0, 1000.0, 500, 4000), PrefillFit(50.0, 800.0, 500, 4000), 4000
    ) == ReadAlone(4.0, pytest.approx(5.05))


@pytest.mark.parametrize(
    ("ttft", "plan", "verdict"),
    [
        (6.5, PLAN, Compared.HIGHER),
        (4.0, PLAN, Compared.LOWER),
        (5.1, PLAN, Compared.UNTOLD),
        (6.5, dataclasses.replace(PLAN, budget=2000), None),
    ],
)
def test_wait_verdicts(ttft, plan, verdict):
    assert findings(_row(300, 100, 250, 31, ttft), plan=plan).wait_verdict is verdict


@pytest.mark.parametrize(
    ("plan", "first", "sizing"),
    [
        (PLAN, Reading.ONE_STEP, Sizing.TARGET),
        (BudgetPlan(512, 2500, 150, 0.0, 368, 2000, 16), Reading.CHUNKS, Sizing.TARGET),
        (BudgetPlan(4096, 20, 150, 0.0, 8, 2000, 16), Reading.ONE_STEP, Sizing.FLOOR),
        (BudgetPlan(4096, 50_000, 150, 0.0, 2000, 2000, 16), Reading.ONE_STEP, Sizing.WHOLE),
    ],
)
def test_plan_verdicts(plan, first, sizing):
    assert (plan.first_read, plan.sizing) == (first, sizing)


def test_the_document_is_sized_to_a_few_pauses_at_the_measured_rate():
    # 4,000 tok/s (bf16 on AMX) and a 400 ms target: 4,800 tokens, 1.2 s in one step.
    assert document_for(4000.0, 400.0, smallest=600, largest=8128) == 4800
    # A slow CPU keeps the size table's floor; a fast one stops at the context.
    assert document_for(100.0, 400.0, smallest=600, largest=8128) == 600
    assert document_for(40_000.0, 400.0, smallest=600, largest=8128) == 8128
    with pytest.raises(ValueError, match="must be positive"):
        document_for(0.0, 400.0, smallest=600, largest=8128)


def _load(**chosen: int) -> DocumentLoad:
    """Documents of 4,000 tokens read alone in 4.1 s (0.1 s fixed, 1,000 tok/s)."""
    return DocumentLoad.spaced(
        PrefillFit(100.0, 1000.0, 500, 4000),
        3.0,
        users=4,
        user_tokens=64,
        document_tokens=4000,
        arrival_s=2.0,
        documents=3,
        **chosen,
    )


def test_a_load_is_spaced_from_the_document_alone_and_sends_only_what_it_chose():
    load = _load()
    assert (load.read_s, load.spacing_s) == (pytest.approx(4.1), 8.2)
    assert load.options == {
        "users": 4,
        "user_max_tokens": 64,
        "document_tokens": 4000,
        "arrival": 2.0,
        "documents": 3,
        "spacing": 8.2,
        "progress": False,
    }
    assert _load(input_tokens=32, seed=2).options["seed"] == 2


def test_a_lasting_load_keeps_its_users_decoding_past_the_last_document():
    load = _load().lasting(10.0, largest=1000)
    assert load.user_tokens == user_tokens_for(10.0, 2.0, 3, 8.2, smallest=64, largest=1000)
    assert _load().lasting(0.1, largest=1000).user_tokens == 64  # at least what it asked


def test_the_sizing_lines_name_the_figures_they_follow_from():
    fit = PrefillFit(100.0, 1000.0, 500, 4000)
    load = _load()
    assert document_line(fit, 4000, 150).startswith("4000 tokens alone: ")
    assert "3 x" in document_line(fit, 4000, 150) and "150 ms" in document_line(fit, 4000, 150)
    # 3 × 150 ms at 1,000 tok/s is 450 tokens: the line says which bound set the length, if any
    sized, floor, ceiling = (document_line(fit, tokens, 150) for tokens in (450, 4000, 300))
    assert "450 tokens" in floor and floor.endswith("4000 tokens") and "450 tokens" in sized
    assert len({sized, floor, ceiling}) == 3 and ceiling.endswith("300 tokens")
    spacing = spacing_line(load, fit, 3.0)
    assert all(figure in spacing for figure in ("4.10 s", "8.2 s", "2 x", "3.0 s"))
    line = load_line(load, 12.34)
    assert all(
        figure in line for figure in ("4.10 s", "8.2 s", "12.3 tok/s", "4 users", "64 tokens")
    )
    plan = BudgetPlan(
        first_budget=8192,
        prefill_tok_s=1000.0,
        pause_ms=150.0,
        step_ms=50.0,
        budget=1000,
        document_tokens=4000,
        block=16,
    )
    line = alone_line(ReadAlone(4.1, 4.5), plan)
    assert all(figure in line for figure in ("4000 tokens", "4 chunks", "4.50 s", "4.10 s"))
    assert line.index("4.50 s") < line.index("4.10 s")
