"""servelab.lessons.chunking.words: chapter 06's words on made-up findings: the pauses against their
target, the hitches, the better deal, the sizing and the story's passages."""

from __future__ import annotations

import dataclasses

import pytest

from servelab.bench.prefill import PrefillFit
from servelab.lessons.chunking.findings import ReadAlone, TradeFindings
from servelab.lessons.chunking.sizing import BudgetPlan, Reading, Sizing, budget_for
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
from tests.unit.servelab.lessons.chunking.test_findings import PLAN, WHOLE, _row, findings

TARGETS = [
    (_row(200, 100, 250, 31, 6.0), Placed.INSIDE),
    (_row(300, 100, 250, 31, 6.0), Placed.ABOVE),  # 270 > 225
    (_row(80, 100, 250, 31, 6.0), Placed.BELOW),
]  # 88


SHARES = [
    ((0.005, 0.03), (False, True)),
    ((0.005, 0.008), (False, False)),
    ((0.02, 0.03), (True, True)),
    ((0.02, 0.008), (True, False)),
]


def _pooled(shares: tuple[float, float]) -> TradeFindings:
    whole = _row(800, 150, 700, 31, 5.0, share=shares[0])
    return findings(_row(300, 400, 250, 31, 6.0, share=shares[1]), whole=whole)


DEALS = [
    (_row(700, 200, 250, 31, 6.0), Shown.NONE, (False, False)),
    (_row(300, 200, 250, 31, 6.0, users=1), Shown.UNTOLD, (False, False)),
    (_row(300, 200, 250, 31, 6.0, done=36.0), Shown.WEAK, (True, False)),
    (_row(300, 200, 1000, 31, 6.0), Shown.WEAK, (False, True)),
    (_row(300, 200, 250, 31, 6.0, done=31.0), Shown.STRONG, (False, False)),
]


ALONE = [
    (ReadAlone(3.6, 6.0), Shown.STRONG, ("+2.40 s", "+400 ms")),
    (ReadAlone(3.6, 3.0), Shown.NONE, ("3.60 s", "3.00 s", "2.50 s")),
    # one step alone past every one-step read beside the users (4.5-5.5 s): disturbed
    (ReadAlone(5.8, 4.0), Shown.UNTOLD, ("5.80 s", "4.50–5.50 s")),
    (None, None, ()),
]


def _alone(alone: ReadAlone | None) -> TradeFindings:
    return TradeFindings.from_runs(
        chunked=_row(300, 200, 1000, 31, 7.5), whole=WHOLE, plan=PLAN, alone=alone
    )


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


@pytest.mark.parametrize(
    ("last", "growth", "figures"),
    [
        (400.0, Shown.STRONG, ("250 ms", "400 ms")),
        (260.0, Shown.NONE, ("250 ms", "260 ms")),
        (float("nan"), None, ()),
    ],
)
def test_the_chunk_hitches_are_counted_and_their_growth_judged(last, growth, figures):
    found = findings(_row(300, 200, 250, 31, 6.0, hitches=6, first=250.0, last=last))
    text = effect_text(found)
    assert found.hitch_growth is growth and "1 hitch" in text and "6 hitches" in text
    assert all(figure in text for figure in figures)
    grew, flat = (
        effect_text(findings(_row(300, 200, 250, 31, 6.0, hitches=6, first=250.0, last=ms)))
        for ms in (400.0, 260.0)
    )
    assert grew.replace("400 ms", "260 ms").replace("360–440", "234–286") != flat


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
    small = BudgetPlan(
        first_budget=8192,
        prefill_tok_s=291,
        pause_ms=400,
        step_ms=0.0,
        budget=116,
        document_tokens=600,
        block=128,
    )
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
    found = TradeFindings.from_runs(
        chunked=_row(300, 200, 1000, 31, 7.5), whole=WHOLE, plan=stepped, alone=ReadAlone(3.6, 6.0)
    )
    assert found.load_extra_s == (pytest.approx(1.4), pytest.approx(1.5))
    assert found.load_chunk_ms == pytest.approx(250.0) and found.load_chunk_is_a_step
    assert "+250 ms a chunk" in effect_text(found)
    slow = dataclasses.replace(found, plan=dataclasses.replace(PLAN, step_ms=50.0))
    assert not slow.load_chunk_is_a_step and _cost_text(slow) != _cost_text(found)
    assert _alone(None).load_chunk_ms is None and not _alone(None).load_chunk_is_a_step


def test_the_pooled_p99_is_set_against_the_longest_pause():
    # both runs' hitches over 1 in 100 gaps: the p99 (150, 200 ms) against the pauses (800, 400)
    found = findings(
        _row(400, 200, 1000, 31, 6.0, share=0.05), whole=_row(800, 150, 700, 31, 5.0, share=0.05)
    )
    assert found.p99_counts_hitches == (True, True)
    assert found.pooled_to_pause == (pytest.approx(150 / 800), pytest.approx(0.5))
    assert all(share in effect_text(found) for share in ("19%", "50%"))
