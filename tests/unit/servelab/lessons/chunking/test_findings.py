"""servelab.lessons.chunking: sizing, the log, the compare table, findings, text."""

from __future__ import annotations

import dataclasses

import matplotlib
import matplotlib.pyplot
import pandas as pd
import pytest

from servelab import plots
from servelab.bench.frames import Result
from servelab.bench.prefill import PrefillFit
from servelab.bench.spread import Spread
from servelab.lessons.chunked_prefill.forecast_words import alone_line, document_line, spacing_line
from servelab.lessons.chunking import measuring
from servelab.lessons.chunking.engine_log import chunking_state
from servelab.lessons.chunking.findings import (
    ReadAlone,
    ReadingRuns,
    TradeFindings,
)
from servelab.lessons.chunking.measuring import compare, compare_view, documents_queued, run_figures
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
from servelab.lessons.chunking.words import (
    _cost_text,
    _deal_text,
    _document_text,
    _pooled_text,
    _queue_text,
    _reading_tail_text,
    _target_text,
    effect_text,
    sizing_text,
    story,
)
from servelab.lessons.compare import Compared, Placed, Shown
from servelab.lessons.serving_many_users.words import load_line
from servelab.tables import readable
from tests.support import record as _record

matplotlib.use("Agg")


def _interferer_result(stall: float) -> Result:
    users = [_record(i, 0.0, [0.03, 0.03, stall, 0.03], ttft=0.1) for i in range(2)]
    document = _record(2, 0.15, [0.03], ttft=stall, role="interferer", prompt=1000)
    return Result(workload=None, records=[*users, document], duration_s=1.0)


def test_budget_is_the_pause_at_the_measured_rate_in_whole_blocks():
    assert budget_for(1000.0, 150, step_ms=0.0, smallest=8, largest=2000, block=16) == 144
    # the CPU engine's blocks
    assert budget_for(1000.0, 150, step_ms=0.0, smallest=8, largest=2000, block=128) == 128
    assert budget_for(1000.0, 1, step_ms=0.0, smallest=8, largest=2000, block=16) == 8
    assert budget_for(30.0, 400, step_ms=0.0, smallest=8, largest=2000, block=16) == 12
    assert budget_for(100_000.0, 150, step_ms=0.0, smallest=8, largest=2000, block=16) == 2000
    with pytest.raises(ValueError):
        budget_for(0.0, 150, step_ms=0.0, smallest=8, largest=2000, block=16)


def test_compare_gives_each_setting_the_range_over_its_runs_and_the_plot_draws_them():
    runs = {"whole": [_interferer_result(0.8), _interferer_result(0.6)],
            "chunked": [_interferer_result(0.2), _interferer_result(0.3), _interferer_result(0.25)]}
    table = compare(runs, hitch_ms=60.0)
    pause = Spread.in_row(table.loc["whole"], "users_longest_gap_ms")
    assert (pause.median, pause.low, pause.high, pause.n) == pytest.approx((700, 600, 800, 2))
    assert Spread.in_row(table.loc["chunked"], "document_ttft_s").n == 3
    assert table.loc["whole", "users_done_s_high"] == pytest.approx(0.1 + 0.09 + 0.8)
    assert (table["documents_queued"] == 0).all()
    # one hitch a user: 1 of 4 gaps, 60 ms or longer
    assert table.loc["whole", "hitches_per_document"] == 1
    assert table.loc["whole", "hitch_share"] == pytest.approx(0.25)
    assert table.loc["chunked", "first_hitch_ms"] == pytest.approx(250)
    figure = plots.itl_over_time({label: results[0] for label, results in runs.items()},
                                 title="t")
    assert len(figure.axes) == 2 and all(ax.get_ylabel() for ax in figure.axes)
    matplotlib.pyplot.close("all")


def _row(longest, p99, after, p50, ttft, n=3, done=30.0, users=4, queued=0, share=0.005,
         hitches=1.0, first=float("nan"), last=float("nan")):
    """A setting's row of ``compare`` over ``n`` runs: each figure 10 % either side of its
    median, the users' own runs 5 % either side of ``done`` (over ``users`` runs)."""
    row = {"users_itl_ms_p50": p50, "documents_queued": queued,
           **Spread(done, 0.95 * done, 1.05 * done, users).columns("users_done_s")}
    for key, median in (("users_longest_gap_ms", longest), ("itl_ms_p99_after_arrival", after),
                        ("document_ttft_s", ttft), ("users_itl_ms_p99", p99),
                        ("hitch_share", share), ("hitches_per_document", hitches),
                        ("first_hitch_ms", first), ("last_hitch_ms", last)):
        row |= Spread(median, 0.9 * median, 1.1 * median, n).columns(key)
    return row


def test_compare_gives_each_documents_pause_its_own_window_and_the_spread():
    users = [_record(i, 0.0, [0.03] * 3 + [0.5] + [0.03] * 20 + [0.7] + [0.03] * 20, ttft=0.1)
             for i in range(2)]
    documents = [_record(2, 0.15, [0.03], ttft=0.5, role="interferer"),
                 _record(3, 0.8, [0.03], ttft=0.7, role="interferer"),
                 _record(4, 9.0, [0.03], ttft=0.2, role="interferer")]  # the users are done
    run = Result(None, [*users, *documents], 10.0)
    figures = run_figures(run, window_s=0.7, hitch_ms=100.0)
    assert figures["users_longest_gap_ms"] == pytest.approx(600)  # 500 and 700: the median
    assert figures["document_ttft_s"] == pytest.approx(0.6)
    assert figures["hitches_per_document"] == 1
    row = compare({"run": [run, run]}, hitch_ms=100.0).iloc[0]
    shown = readable(compare_view(row.to_frame().T)).T["run"]
    assert shown[shown.index[0]] == "600 (both alike)"
    assert "pause" in shown.index[0] and "(ms)" in shown.index[0]
    assert shown["document's first token (s)"] == "0.60 (both alike)"
    assert not any("_n" in name or "lowest" in name for name in shown.index)  # no counts shown
    late = [_record(2, 9.0, [0.03], ttft=0.2, role="interferer")]
    with pytest.raises(RuntimeError, match="no user was still decoding"):
        compare({"late": [Result(None, [*users, *late], 10.0)]}, hitch_ms=100.0)


PLAN = BudgetPlan(first_budget=4096, prefill_tok_s=2500, pause_ms=150, step_ms=0.0,
                  budget=368, document_tokens=2000, block=16)
WHOLE = _row(800, 150, 700, 31, 5.0)


def findings(chunked: dict[str, float], whole: dict[str, float] = WHOLE,
             plan: BudgetPlan = PLAN) -> TradeFindings:
    return TradeFindings.from_runs(chunked=chunked, whole=whole, plan=plan)


def test_the_findings_read_the_two_rows_and_their_ratios():
    found = findings(_row(300, 200, 1000, 31, 6.0))
    assert found.whole == ReadingRuns.of(WHOLE)  # one record a reading, each from its own row
    pause = found.whole.pause
    assert (pause.median, pause.low, pause.high, pause.n) == pytest.approx((800, 720, 880, 3))
    assert found.whole.pause_s == pytest.approx(0.8) and found.pause_runs == 3
    assert (found.usual_gap_ms, found.whole.pooled.median, found.chunked.pooled.median) == (
        31, 150, 200)
    assert (found.whole.wait.median, found.chunked.wait.median) == pytest.approx((5.0, 6.0))
    assert found.pause_over_usual == pytest.approx(300 / 31)
    assert found.wait_ratio == pytest.approx(1.2)
    assert (PLAN.chunks, PLAN.first_chunks, PLAN.wanted_tokens) == (6, 1, 375)


@pytest.mark.parametrize(("chunked", "plan", "verdict"), [
    (_row(300, 200, 1000, 31, 6.0), PLAN, Shown.STRONG),
    (_row(700, 200, 1000, 31, 6.0), PLAN, Shown.NONE),  # ranges overlap
    (_row(540, 200, 1000, 31, 6.0), PLAN, Shown.NONE),  # apart, not by the bar
    (_row(300, 200, 1000, 31, 6.0, n=1), PLAN, Shown.UNTOLD),
    (_row(300, 200, 1000, 31, 6.0), dataclasses.replace(PLAN, budget=2000),
     None),
])
def test_pause_verdicts(chunked, plan, verdict):
    assert findings(chunked, plan=plan).pause_verdict is verdict


@pytest.mark.parametrize(("after", "verdict"), [
    (1000, Shown.REVERSED), (250, Shown.STRONG), (500, Shown.WEAK),
    (650, Shown.UNTOLD),
])
def test_tail_verdicts_while_a_document_is_read(after, verdict):
    assert findings(_row(300, 100, after, 31, 6.0)).tail_verdict is verdict


TARGETS = [(_row(200, 100, 250, 31, 6.0), Placed.INSIDE),
           (_row(300, 100, 250, 31, 6.0), Placed.ABOVE),  # 270 > 225
           (_row(80, 100, 250, 31, 6.0), Placed.BELOW)]  # 88


@pytest.mark.parametrize(("chunked", "verdict"), TARGETS)
def test_the_chunked_pauses_are_held_against_their_target(chunked, verdict):
    found = findings(chunked)
    assert found.target_verdict is verdict
    said = _target_text(found)
    assert said in effect_text(found) and "150 ms" in said
    assert "1.5×" in said
    digits = {Placed.INSIDE: None, Placed.ABOVE: 1, Placed.BELOW: 2}[verdict]
    assert digits is None or f"({found.pause_over_target:.{digits}f}×" in said
    assert len({_target_text(findings(row)) for row, _ in TARGETS}) == len(TARGETS)


SHARES = [((0.005, 0.03), (False, True)), ((0.005, 0.008), (False, False)),
          ((0.02, 0.03), (True, True)), ((0.02, 0.008), (True, False))]


def _pooled(shares: tuple[float, float]) -> TradeFindings:
    whole = _row(800, 150, 700, 31, 5.0, share=shares[0])
    return findings(_row(300, 400, 250, 31, 6.0, share=shares[1]), whole=whole)


@pytest.mark.parametrize(("shares", "counted"), SHARES)
def test_the_pooled_p99_sees_the_hitches_only_past_one_gap_in_a_hundred(shares, counted):
    found = _pooled(shares)
    assert found.p99_counts_hitches == counted
    text = effect_text(found)
    assert "150 ms" in text and "135–165 ms" in text
    assert "74 ms" in text  # the hitch bar: no usual step, half of 147 ms
    assert "400 ms" in text and "360–440 ms" in text
    assert f"{shares[0]:.1%}" in text and f"{shares[1]:.1%}" in text
    assert found.pooled_verdict is Shown.REVERSED
    assert len({_pooled_text(_pooled(other)) for other, _ in SHARES}) == len(SHARES)


@pytest.mark.parametrize(("last", "growth", "figures"), [
    (400.0, Shown.STRONG, ("250 ms", "400 ms")),
    (260.0, Shown.NONE, ("250 ms", "260 ms")),
    (float("nan"), None, ()),
])
def test_the_chunk_hitches_are_counted_and_their_growth_judged(last, growth, figures):
    found = findings(_row(300, 200, 250, 31, 6.0, hitches=6, first=250.0, last=last))
    text = effect_text(found)
    assert found.hitch_growth is growth and "1 hitch" in text and "6 hitches" in text
    assert all(figure in text for figure in figures)
    grew, flat = (effect_text(findings(_row(300, 200, 250, 31, 6.0, hitches=6, first=250.0,
                                            last=ms))) for ms in (400.0, 260.0))
    assert grew.replace("400 ms", "260 ms").replace("360–440", "234–286") != flat


DEALS = [(_row(700, 200, 250, 31, 6.0), Shown.NONE, (False, False)),
         (_row(300, 200, 250, 31, 6.0, users=1), Shown.UNTOLD, (False, False)),
         (_row(300, 200, 250, 31, 6.0, done=36.0), Shown.WEAK, (True, False)),
         (_row(300, 200, 1000, 31, 6.0), Shown.WEAK, (False, True)),
         (_row(300, 200, 250, 31, 6.0, done=31.0), Shown.STRONG, (False, False))]


@pytest.mark.parametrize(("chunked", "verdict", "costs"), DEALS)
def test_the_better_deal_needs_a_shorter_pause_and_no_longer_user_runs(chunked, verdict, costs):
    """``costs``: whether the users' runs took longer, and whether the tail got worse."""
    found = findings(chunked)
    assert found.deal_verdict is verdict
    assert (found.runs_longer, found.tail_verdict is Shown.REVERSED) == costs
    said, text = _deal_text(found), effect_text(found)
    assert said in text and "| 30.0 (" in text  # the runs' figures in the table beside it
    assert f"| {chunked['users_done_s']:.1f} (" in text
    assert len({_deal_text(findings(row)) for row, _, _ in DEALS}) == len(DEALS)


def test_documents_that_queue_behind_another_are_counted_and_said():
    rows = pd.DataFrame({"sent_s": [1.0, 4.0, 7.0], "ttft_s": [3.5, 2.0, 9.0]})
    assert documents_queued(rows) == 1  # the second came at 4.0, the first's token at 4.5
    assert documents_queued(rows.iloc[[0, 2]]) == 0
    queued = findings(_row(300, 200, 250, 31, 6.5, queued=2))
    assert (queued.whole.queued, queued.chunked.queued) == (0, 2)
    assert "chunks 2 documents" in _document_text(queued)
    apart = findings(_row(300, 200, 250, 31, 6.5))
    assert (apart.whole.queued, apart.chunked.queued) == (0, 0)
    assert "documents arrived" not in _document_text(apart)
    assert _document_text(apart) != _document_text(queued)


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
    found = TradeFindings.from_runs(chunked=_row(300, 200, 1000, 31, 7.5), whole=WHOLE,
                                    plan=PLAN, alone=alone)
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
    assert ReadAlone.of(PrefillFit(0.0, 1000.0, 500, 4000), PrefillFit(50.0, 800.0, 500, 4000),
                        4000) == ReadAlone(4.0, pytest.approx(5.05))


ALONE = [(ReadAlone(3.6, 6.0), Shown.STRONG, ("+2.40 s", "+400 ms")),
         (ReadAlone(3.6, 3.0), Shown.NONE, ("3.60 s", "3.00 s", "2.50 s")),
         # one step alone past every one-step read beside the users (4.5-5.5 s): disturbed
         (ReadAlone(5.8, 4.0), Shown.UNTOLD, ("5.80 s", "4.50–5.50 s")),
         (None, None, ())]


def _alone(alone: ReadAlone | None) -> TradeFindings:
    return TradeFindings.from_runs(chunked=_row(300, 200, 1000, 31, 7.5), whole=WHOLE,
                                   plan=PLAN, alone=alone)


@pytest.mark.parametrize(("alone", "verdict", "figures"), ALONE)
def test_the_reads_alone_weigh_chunkings_cost_only_when_undisturbed(alone, verdict, figures):
    found = _alone(alone)
    said = _cost_text(found)
    assert found.alone_cost is verdict and said in effect_text(found)
    assert all(figure in said for figure in figures)
    assert ("ms a chunk" in said) == (verdict is Shown.STRONG)
    assert len({_cost_text(_alone(other)) for other, _, _ in ALONE}) == len(ALONE)


def test_the_sizing_says_whether_the_budget_was_rounded_to_blocks():
    rounded = sizing_text(PLAN)  # 375 tokens bought, 368 in blocks of 16
    assert PLAN.wanted_tokens == pytest.approx(375) and PLAN.sizing is Sizing.TARGET
    assert "375 tokens" in rounded and "16 tokens" in rounded and "368" in rounded
    # a step with a chunk is the usual step and the chunk: 50 ms of it leaves 100 ms to read in
    assert dataclasses.replace(PLAN, step_ms=50.0).wanted_tokens == pytest.approx(250)
    assert budget_for(2500.0, 150, step_ms=50.0, smallest=8, largest=2000, block=16) == 240
    slow_step = dataclasses.replace(PLAN, step_ms=200.0)
    assert PLAN.leaves_read_time and not PLAN.under_a_block
    assert not slow_step.leaves_read_time and "375 tokens" not in sizing_text(slow_step)
    assert sizing_text(slow_step) != rounded
    # the CPU engine's 128-token block is more than the 116 tokens the target buys
    small = BudgetPlan(first_budget=8192, prefill_tok_s=291, pause_ms=400, step_ms=0.0,
                       budget=116, document_tokens=600, block=128)
    text = sizing_text(small)
    assert small.under_a_block and "128-token" in text
    assert "116 tokens" in text and "Rounded" not in text
    floor_plan = dataclasses.replace(small, prefill_tok_s=100)
    floor = sizing_text(floor_plan)
    assert floor_plan.sizing is Sizing.FLOOR and "40 tokens" in floor


def test_the_sizing_names_the_rate_once_when_given_the_fit_it_came_from():
    fit = PrefillFit(fixed_ms=130.0, tok_s=1500.0, short_tokens=64, long_tokens=2016)
    text = sizing_text(dataclasses.replace(PLAN, prefill_tok_s=fit.tok_s), fit=fit)
    assert str(fit) in text and "1,500 prompt tokens/s" in text and "130 ms" in text
    assert "2,016-token" in text
    assert text.count("1,500") == 1 and "Alone, the document" not in text


def test_the_effect_text_is_the_storys_middle_in_two_passages():
    found = findings(_row(300, 200, 1000, 31, 6.5))
    users, document = effect_text(found).split("</details>\n\n")
    page = story(found, "")
    assert users in page and document in page
    lead, backing = users.split("<details>")  # the finding first, what backs it folded
    assert "| 300 (" in lead and "users' gaps" in backing and "users' gaps" not in lead
    assert found.tail_verdict is Shown.REVERSED and _reading_tail_text(found) in users
    assert found.wait_verdict is Compared.HIGHER and "1.3×" in document
    assert "6.50 s" in document and "5.00 s" in document  # each run's read, named


@pytest.mark.parametrize(("ttft", "plan", "verdict"), [
    (6.5, PLAN, Compared.HIGHER), (4.0, PLAN, Compared.LOWER),
    (5.1, PLAN, Compared.UNTOLD),
    (6.5, dataclasses.replace(PLAN, budget=2000), None),
])
def test_wait_verdicts(ttft, plan, verdict):
    assert findings(_row(300, 100, 250, 31, ttft), plan=plan).wait_verdict is verdict


@pytest.mark.parametrize(("plan", "first", "sizing"), [
    (PLAN, Reading.ONE_STEP, Sizing.TARGET),
    (BudgetPlan(512, 2500, 150, 0.0, 368, 2000, 16), Reading.CHUNKS, Sizing.TARGET),
    (BudgetPlan(4096, 20, 150, 0.0, 8, 2000, 16), Reading.ONE_STEP, Sizing.FLOOR),
    (BudgetPlan(4096, 50_000, 150, 0.0, 2000, 2000, 16), Reading.ONE_STEP, Sizing.WHOLE),
])
def test_plan_verdicts(plan, first, sizing):
    assert (plan.first_read, plan.sizing) == (first, sizing)


def test_story_06_words_a_capped_pause_with_a_worse_tail():
    found = findings(_row(300, 200, 1000, 31, 6.5))
    text = story(found, "a long pause")
    assert "a long pause" in text and "368-token chunks" in text
    assert found.tail_verdict is Shown.REVERSED and _reading_tail_text(found) in text
    assert found.deal_verdict is Shown.WEAK and _deal_text(found) in text
    assert found.wait_verdict is Compared.HIGHER and "1.3×" in text
    assert "on by default" in text and "`--no-enable-chunked-prefill` turns it off" in text
    assert "`--long-prefill-token-threshold`" in text and "always" not in text


def test_story_06_says_when_the_run_cannot_tell():
    found = findings(_row(300, 100, 650, 31, 5.1, n=1))
    text = story(found, "")
    assert found.pause_verdict is Shown.UNTOLD and found.wait_verdict is Compared.UNTOLD
    assert "pause shrank" not in text and "×" not in _document_text(found)
    assert text != story(found, "a long pause") and "a long pause" not in text


def test_story_06_words_the_plan_it_was_given():
    chunks_first = BudgetPlan(512, 2500, 150, 0.0, 368, 2000, 16)
    found = findings(_row(300, 100, 250, 31, 6.0), plan=chunks_first)
    text = story(found, "")
    assert chunks_first.first_read is Reading.CHUNKS and "4 chunks" in text
    assert found.deal_verdict is Shown.STRONG and _deal_text(found) in text
    unsplit = BudgetPlan(4096, 50_000, 150, 0.0, 2000, 2000, 16)
    text = story(findings(_row(300, 100, 250, 31, 6.0), plan=unsplit), "")
    assert "cannot split it" in text and "not chunking" in text and "pause shrank" not in text
    floor = BudgetPlan(4096, 20, 150, 0.0, 8, 2000, 16)
    assert floor.sizing is Sizing.FLOOR
    assert sizing_text(floor) in story(findings(_row(300, 100, 250, 31, 6.0), plan=floor), "")


def test_the_document_is_sized_to_a_few_pauses_at_the_measured_rate():
    # 4,000 tok/s (bf16 on AMX) and a 400 ms target: 4,800 tokens, 1.2 s in one step.
    assert document_for(4000.0, 400.0, smallest=600, largest=8128) == 4800
    # A slow CPU keeps the size table's floor; a fast one stops at the context.
    assert document_for(100.0, 400.0, smallest=600, largest=8128) == 600
    assert document_for(40_000.0, 400.0, smallest=600, largest=8128) == 8128
    with pytest.raises(ValueError, match="must be positive"):
        document_for(0.0, 400.0, smallest=600, largest=8128)


CHUNKED_LOG = """\
INFO [core.py:133] Initializing a V1 LLM engine (v0.32.0) with config: model='m', \
enable_prefix_caching=True, enable_chunked_prefill=True, pooler_config=None
INFO [scheduler.py:307] Chunked prefill is enabled with max_num_batched_tokens=256.
"""
UNCHUNKED_LOG = """\
WARNING 11-30 03:17:54 [arg_utils.py:3005] This model does not officially support disabling \
chunked prefill. Disabling this manually may cause the engine to crash or produce incorrect outputs.
INFO [core.py:133] Initializing a V1 LLM engine (v0.32.0) with config: model='m', \
enable_chunked_prefill=False, pooler_config=None
"""


def test_chunking_state_reads_budget_when_on():
    state = chunking_state(CHUNKED_LOG)
    assert (state.enabled, state.budget, state.warning) == (True, 256, None)
    assert state.splits(2000)
    assert not state.splits(200)


def test_chunking_state_reads_warning_when_off():
    state = chunking_state(UNCHUNKED_LOG)
    assert state.enabled is False
    assert not state.splits(2000)
    assert state.warning.startswith("This model does not officially support disabling")
    assert "OFF" in state.describe()


def test_chunking_state_of_a_silent_log_is_unknown():
    state = chunking_state("nothing here")
    assert state.enabled is None
    assert not state.splits(10_000)
    assert "does not say" in state.describe()


def _load(**chosen: int) -> DocumentLoad:
    """Documents of 4,000 tokens read alone in 4.1 s (0.1 s fixed, 1,000 tok/s)."""
    return DocumentLoad.spaced(PrefillFit(100.0, 1000.0, 500, 4000), 3.0, users=4,
                               user_tokens=64, document_tokens=4000, arrival_s=2.0,
                               documents=3, **chosen)


def test_a_load_is_spaced_from_the_document_alone_and_sends_only_what_it_chose():
    load = _load()
    assert (load.read_s, load.spacing_s) == (pytest.approx(4.1), 8.2)
    assert load.options == {"users": 4, "user_max_tokens": 64, "document_tokens": 4000,
                            "arrival": 2.0, "documents": 3, "spacing": 8.2, "progress": False}
    assert _load(input_tokens=32, seed=2).options["seed"] == 2


def test_a_lasting_load_keeps_its_users_decoding_past_the_last_document():
    load = _load().lasting(10.0, largest=1000)
    assert load.user_tokens == user_tokens_for(10.0, 2.0, 3, 8.2, smallest=64, largest=1000)
    assert _load().lasting(0.1, largest=1000).user_tokens == 64  # at least what it asked


def test_the_budget_plan_reads_the_step_of_the_first_run_and_the_engine_block(monkeypatch):
    monkeypatch.setattr(measuring.kv, "engine_block_size", lambda url: 16)
    monkeypatch.setattr(measuring, "usual_gap_ms", lambda result: 50.0)
    server = type("Running", (), {"url": "http://x"})()
    plan = measuring.budget_plan(server, _interferer_result(0.5),
                                 PrefillFit(0.0, 1000.0, 500, 4000), 4000, pause_ms=150.0,
                                 first_budget=8192, smallest=8, largest=2000)
    assert (plan.step_ms, plan.block, plan.budget) == (50.0, 16, 96)
    assert plan.budget == budget_for(1000.0, 150.0, step_ms=50.0, smallest=8, largest=2000,
                                     block=16)


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
    assert all(figure in line for figure in ("4.10 s", "8.2 s", "12.3 tok/s", "4 users",
                                             "64 tokens"))
    plan = BudgetPlan(first_budget=8192, prefill_tok_s=1000.0, pause_ms=150.0, step_ms=50.0,
                      budget=1000, document_tokens=4000, block=16)
    line = alone_line(ReadAlone(4.1, 4.5), plan)
    assert all(figure in line for figure in ("4000 tokens", "4 chunks", "4.50 s", "4.10 s"))
    assert line.index("4.50 s") < line.index("4.10 s")


def test_queued_documents_are_counted_with_their_noun():
    """A float32 run of chapter 00 printed "In the one-step run 0 and with chunks 1 documents
    arrived"."""
    found = findings(_row(300, 100, 250, 31, 6.0))
    assert found.whole.queued == found.chunked.queued == 0
    queued = dataclasses.replace(found, chunked=dataclasses.replace(found.chunked, queued=1))
    said = _queue_text(queued)
    assert "run no document" in said and "chunks 1 document arrived" in said
    assert said.strip() in _document_text(queued)


def test_the_reads_beside_the_users_are_set_against_the_reads_alone():
    # chunked 7.5 s beside the users against 6.0 s alone, over 6 chunks: +250 ms a chunk
    stepped = dataclasses.replace(PLAN, step_ms=250.0)
    found = TradeFindings.from_runs(chunked=_row(300, 200, 1000, 31, 7.5), whole=WHOLE,
                                    plan=stepped, alone=ReadAlone(3.6, 6.0))
    assert found.load_extra_s == (pytest.approx(1.4), pytest.approx(1.5))
    assert found.load_chunk_ms == pytest.approx(250.0) and found.load_chunk_is_a_step
    assert "+250 ms a chunk" in effect_text(found)
    slow = dataclasses.replace(found, plan=dataclasses.replace(PLAN, step_ms=50.0))
    assert not slow.load_chunk_is_a_step and _cost_text(slow) != _cost_text(found)
    assert _alone(None).load_chunk_ms is None and not _alone(None).load_chunk_is_a_step


def test_the_pooled_p99_is_set_against_the_longest_pause():
    # both runs' hitches over 1 in 100 gaps: the p99 (150, 200 ms) against the pauses (800, 400)
    found = findings(_row(400, 200, 1000, 31, 6.0, share=0.05), whole=_row(800, 150, 700, 31,
                                                                              5.0, share=0.05))
    assert found.p99_counts_hitches == (True, True)
    assert found.pooled_to_pause == (pytest.approx(150 / 800), pytest.approx(0.5))
    assert all(share in effect_text(found) for share in ("19%", "50%"))
