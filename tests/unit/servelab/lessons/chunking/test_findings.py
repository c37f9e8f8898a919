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
from servelab.lessons.chunking import measuring
from servelab.lessons.chunking.engine_log import chunking_state
from servelab.lessons.chunking.findings import (
    ReadAlone,
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
    alone_line,
    document_line,
    effect_text,
    load_line,
    sizing_text,
    spacing_line,
    story,
)
from servelab.lessons.compare import Compared, Placed, Shown
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
    assert shown["users' longest pause (ms)"] == "600 (all 2 alike)"
    assert shown["document's first token (s)"] == "0.60 (all 2 alike)"
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
    pause = found.pause_whole
    assert (pause.median, pause.low, pause.high, pause.n) == pytest.approx((800, 720, 880, 3))
    assert (found.usual_gap_ms, found.pooled_whole.median, found.pooled_chunked.median) == (
        31, 150, 200)
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


@pytest.mark.parametrize(("chunked", "verdict", "says"), [
    (_row(200, 100, 250, 31, 6.0), Placed.INSIDE, "came within 1.5× of the target"),
    (_row(300, 100, 250, 31, 6.0), Placed.ABOVE, "over 1.5× the 150 ms"),  # 270 > 225
    (_row(80, 100, 250, 31, 6.0), Placed.BELOW, "a larger budget would still"),  # 88
])
def test_the_chunked_pauses_are_held_against_their_target(chunked, verdict, says):
    found = findings(chunked)
    assert found.target_verdict is verdict
    assert says in effect_text(found)


@pytest.mark.parametrize(("share_whole", "share_chunked", "says"), [
    (0.005, 0.03, "missed the long stalls and counted the short hitches"),
    (0.005, 0.008, "neither run's pooled p99 saw its pauses"),
    (0.02, 0.03, "both runs' pooled p99 counts their hitches"),
    (0.02, 0.008, "saw the one-step stalls and missed the chunked hitches"),
])
def test_the_pooled_p99_sees_the_hitches_only_past_one_gap_in_a_hundred(share_whole,
                                                                         share_chunked, says):
    whole = _row(800, 150, 700, 31, 5.0, share=share_whole)
    found = findings(_row(300, 400, 250, 31, 6.0, share=share_chunked), whole=whole)
    text = effect_text(found)
    assert says in text and "99th-percentile gap was 150 ms (range 135–165 ms over 3 runs)" in text
    assert "hitches (gaps of 74 ms or longer" in text  # no usual step, half of 147 ms
    assert "400 ms (range 360–440 ms over 3 runs) with chunks: higher with chunks" in text
    assert found.pooled_verdict is Shown.REVERSED


@pytest.mark.parametrize(("last", "growth", "says"), [
    (400.0, Shown.STRONG, "Within a document the hitches grew: a chunked document's first "
                              "hitch took 250 ms"),
    (260.0, Shown.NONE, "the ranges do not say the later ones cost more"),
    (float("nan"), None, "each user had 1 hitch in one step and 6 hitches with chunks"),
])
def test_the_chunk_hitches_are_counted_and_their_growth_judged(last, growth, says):
    found = findings(_row(300, 200, 250, 31, 6.0, hitches=6, first=250.0, last=last))
    assert found.hitch_growth is growth and says in effect_text(found)


@pytest.mark.parametrize(("chunked", "verdict", "says"), [
    (_row(700, 200, 250, 31, 6.0), Shown.NONE, "makes no case for chunking"),
    (_row(300, 200, 250, 31, 6.0, users=1), Shown.UNTOLD, "cannot say whether chunking"),
    (_row(300, 200, 250, 31, 6.0, done=36.0), Shown.WEAK, "a trade for them"),
    (_row(300, 200, 1000, 31, 6.0), Shown.WEAK, "tail while a document was read got worse"),
    (_row(300, 200, 250, 31, 6.0, done=31.0), Shown.STRONG,
     "chunking was the better deal for the users"),
])
def test_the_better_deal_needs_a_shorter_pause_and_no_longer_user_runs(chunked, verdict, says):
    found = findings(chunked)
    assert found.deal_verdict is verdict
    text = effect_text(found)
    assert says in text and "Each user's own run took 30.0 s" in text
    assert ("better deal for the users" in text) == (verdict is Shown.STRONG)


def test_documents_that_queue_behind_another_are_counted_and_said():
    rows = pd.DataFrame({"sent_s": [1.0, 4.0, 7.0], "ttft_s": [3.5, 2.0, 9.0]})
    assert documents_queued(rows) == 1  # the second came at 4.0, the first's token at 4.5
    assert documents_queued(rows.iloc[[0, 2]]) == 0
    queued = effect_text(findings(_row(300, 200, 250, 31, 6.5, queued=2)))
    assert "with chunks 2 documents arrived before the one ahead" in queued
    apart = effect_text(findings(_row(300, 200, 250, 31, 6.5)))
    assert "none of these waits includes queueing" in apart


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
    assert "3.60 s in one step and 6.00 s in 6 chunks: +2.40 s, +400 ms a chunk" in text
    assert "medians above differ by 2.50 s" in text
    assert "a chunk took 1,000 ms on average" in text  # 6.0 s over 6 chunks
    assert "gives 147 ms for its reading" in text  # 368 tokens at 2,500 tok/s
    alone_missing = effect_text(findings(_row(300, 200, 1000, 31, 7.5)))
    assert "cannot say how much of the later first token is chunking's own cost" in alone_missing
    assert "cannot say where the extra time went" in alone_missing
    assert ReadAlone.of(PrefillFit(0.0, 1000.0, 500, 4000), PrefillFit(50.0, 800.0, 500, 4000),
                        4000) == ReadAlone(4.0, pytest.approx(5.05))


@pytest.mark.parametrize(("alone", "verdict", "says"), [
    (ReadAlone(3.6, 6.0), Shown.STRONG, "+2.40 s, +400 ms a chunk"),
    (ReadAlone(3.6, 3.0), Shown.NONE, "no slower in chunks, so these reads show no cost"),
    # one step alone past every one-step read beside the users (4.5-5.5 s): disturbed
    (ReadAlone(5.8, 4.0), Shown.UNTOLD, "took 5.80 s in one step, longer than any of "
                                                "its reads beside the users (range 4.50–5.50"),
    (None, None, "did not read the document alone in chunks"),
])
def test_the_reads_alone_weigh_chunkings_cost_only_when_undisturbed(alone, verdict, says):
    found = TradeFindings.from_runs(chunked=_row(300, 200, 1000, 31, 7.5), whole=WHOLE,
                                    plan=PLAN, alone=alone)
    text = effect_text(found)
    assert found.alone_cost is verdict and says in text
    assert ("ms a chunk" in text) == (verdict is Shown.STRONG)


def test_the_sizing_says_whether_the_budget_was_rounded_to_blocks():
    rounded = sizing_text(PLAN)  # 375 tokens bought, 368 in blocks of 16
    assert "buys 375 tokens. Rounded down to whole blocks of 16 tokens" in rounded
    # a step with a chunk is the usual step and the chunk: 50 ms of it leaves 100 ms to read in
    assert dataclasses.replace(PLAN, step_ms=50.0).wanted_tokens == pytest.approx(250)
    assert budget_for(2500.0, 150, step_ms=50.0, smallest=8, largest=2000, block=16) == 240
    assert "leaves no time to read a chunk in" in sizing_text(
        dataclasses.replace(PLAN, step_ms=200.0))
    # the CPU engine's 128-token block is more than the 116 tokens the target buys
    small = BudgetPlan(first_budget=8192, prefill_tok_s=291, pause_ms=400, step_ms=0.0,
                       budget=116, document_tokens=600, block=128)
    text = sizing_text(small)
    assert "less than one of this engine's 128-token blocks, so it is not rounded" in text
    assert "budget is 116 tokens" in text and "Rounded" not in text
    floor = sizing_text(dataclasses.replace(small, prefill_tok_s=100))
    assert "buys 40 tokens" in floor and "every sequence it may hold" in floor


def test_the_sizing_names_the_rate_once_when_given_the_fit_it_came_from():
    fit = PrefillFit(fixed_ms=130.0, tok_s=1500.0, short_tokens=64, long_tokens=2016)
    text = sizing_text(dataclasses.replace(PLAN, prefill_tok_s=fit.tok_s), fit=fit)
    assert text.startswith("This device: prefill 1,500 prompt tokens/s after a fixed 130 ms")
    assert "(fitted from 64- and 2,016-token prompts). A step that carries a chunk" in text
    assert text.count("1,500") == 1 and "Alone, the document" not in text


def test_the_effect_text_is_the_storys_middle_in_two_paragraphs():
    found = findings(_row(300, 200, 1000, 31, 6.5))
    users, document = effect_text(found).split("\n\n")
    page = story(found, "")
    assert users in page and document in page and "up to 6 shorter ones" in users
    assert "1.3× as long" in document
    assert "s for a first token in one step (range" in document  # the first run's read, named


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
    text = story(findings(_row(300, 200, 1000, 31, 6.5)), "a long pause")
    assert "a long pause" in text and "368-token chunks" in text
    assert "up to 6 shorter ones" in text and "did not make the stream even" in text
    assert "1.3× as long" in text and "read the document in a single step" in text
    assert "was the better deal" not in text and "a trade for them here" in text
    assert "on by default" in text and "`--no-enable-chunked-prefill` turns it off" in text
    assert "`--long-prefill-token-threshold`" in text and "always" not in text


def test_story_06_says_when_the_run_cannot_tell():
    text = story(findings(_row(300, 100, 650, 31, 5.1, n=1)), "")
    assert "cannot say whether chunking shortened" in text
    assert "cannot tell the two waits apart" in text and "capped" not in text
    assert "You left the prediction empty" in text


def test_story_06_words_the_plan_it_was_given():
    chunks_first = BudgetPlan(512, 2500, 150, 0.0, 368, 2000, 16)
    text = story(findings(_row(300, 100, 250, 31, 6.0), plan=chunks_first), "")
    assert "even the first run read it in 4 chunks" in text
    assert "the better deal for the users" in text
    unsplit = BudgetPlan(4096, 50_000, 150, 0.0, 2000, 2000, 16)
    text = story(findings(_row(300, 100, 250, 31, 6.0), plan=unsplit), "")
    assert "cannot split it" in text and "not chunking" in text and "capped" not in text
    floor = BudgetPlan(4096, 20, 150, 0.0, 8, 2000, 16)
    assert "longer than aimed for" in story(
        findings(_row(300, 100, 250, 31, 6.0), plan=floor), "")


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
    assert document_line(fit, 4000, 150).endswith("so the document is 4000 tokens, 3 x the "
                                                   "150 ms pause target at that rate")
    assert spacing_line(load, fit, 3.0).endswith(
        "4.10 s to the first token, so every run's documents come 8.2 s apart (2 x that, at "
        "least 3.0 s)")
    assert load_line(load, 12.34) == ("The document alone: 4.10 s to its first token, so the "
                                      "documents come 8.2 s apart; at 12.3 tok/s each, the 4 "
                                      "users ask for 64 tokens.")
    plan = BudgetPlan(first_budget=8192, prefill_tok_s=1000.0, pause_ms=150.0, step_ms=50.0,
                      budget=1000, document_tokens=4000, block=16)
    assert alone_line(ReadAlone(4.1, 4.5), plan) == (
        "4000 tokens alone in 4 chunks: 4.50 s to the first token (in one step: 4.10 s)")
