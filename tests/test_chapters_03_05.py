"""Helpers of chapters 03-05 on made-up numbers: KV arithmetic, block tables, workloads, the
start-up refusal parser, and the interpretation text rendered from findings records (each
record's verdicts are tested on their own in ``test_cache_findings.py``)."""

from __future__ import annotations

import json

import matplotlib
import pandas as pd
import pytest

from servelab.bench.prompts import WordPrompts
from servelab.bench.spread import Spread
from servelab.engines.vllm_server import Capacity
from servelab.lessons.dials import words as dials_words
from servelab.lessons.dials.findings import ContextFindings, SweepFindings
from servelab.lessons.dials.runs import MixedLengths, OverLong, start_refusal
from servelab.lessons.paging import words as paging_words
from servelab.lessons.paging.findings import (
    AdmissionFindings,
    PagingFindings,
    SqueezeFindings,
    TokenCost,
)
from servelab.lessons.paging.kv import RequestFit, blocks_for, kv_shape, usable_blocks
from servelab.lessons.prefix import words as prefix_words
from servelab.lessons.prefix.reuse_findings import LoadReuseFindings, ReuseFindings
from servelab.lessons.prefix.sharing import IdenticalPrompts, SharingExpectation
from servelab.lessons.prefix.sharing_findings import SharingFindings
from servelab.plots.block_table import Holder, block_table, plot_block_table

matplotlib.use("Agg")

SMOL = {"num_hidden_layers": 30, "num_attention_heads": 9, "num_key_value_heads": 3,
        "hidden_size": 576, "dtype": "bfloat16"}


@pytest.fixture
def model_dir(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(SMOL))
    return str(tmp_path)


# -- KV arithmetic ------------------------------------------------------------------------------
def test_kv_bytes_follow_the_served_dtype(model_dir):
    # 2 (key and value) x 30 layers x 3 KV heads x 64 dims x 2 bytes
    assert kv_shape(model_dir).bytes_per_token == 23_040
    assert kv_shape(model_dir, "auto").bytes_per_token == 23_040
    assert kv_shape(model_dir, "half").bytes_per_token == 23_040
    assert kv_shape(model_dir, "float32").bytes_per_token == 46_080
    assert kv_shape(model_dir, None).dtype == "bfloat16"
    with pytest.raises(ValueError, match="unknown KV cache dtype"):
        kv_shape(model_dir, "int3")


def test_kv_shape_converts_tokens_and_gib(model_dir):
    shape = kv_shape(model_dir)
    assert shape.tokens_in(23_040 * 10 + 5) == 10
    assert shape.gib_for(2**30 // 23_040) == pytest.approx(1.0, rel=1e-4)
    assert "23,040 bytes" in shape.formula()


def test_usable_blocks_leave_out_the_held_back_block():
    assert usable_blocks(1280, 128) == 9
    assert usable_blocks(100, 128) == 0


def test_blocks_round_up():
    assert blocks_for(300, 128) == 3
    assert blocks_for(256, 128) == 2
    assert blocks_for(0, 16) == 0
    with pytest.raises(ValueError):
        blocks_for(10, 0)


# -- block tables -------------------------------------------------------------------------------
def test_block_table_without_sharing_interleaves_growth():
    table = block_table([Holder("a", 300), Holder("b", 100)], 128)
    assert table.rows == {"a": [0, 2, 3], "b": [1]}
    assert table.fill == {"a": 44, "b": 100}
    assert table.used == table.unshared == 4
    assert not table.shared


def test_block_table_shares_only_full_prompt_blocks():
    holders = [Holder(f"s{i}", 1000 + 64, shared_tokens=1000) for i in range(4)]
    table = block_table(holders, 128)
    assert len(table.shared) == 7                     # 1000 // 128 full blocks
    assert table.used == 7 + 4 * 2                    # each keeps 2 of its own
    assert table.unshared == 4 * 9
    assert all(row[:7] == list(range(7)) for row in table.rows.values())
    expect = SharingExpectation(4, 1000, 64, 128)
    assert (expect.shared, expect.unshared) == (table.used, table.unshared)


def test_a_prompt_that_fills_its_last_block_shares_one_block_less():
    # 256 tokens are two full blocks of 128, but a later sample reuses at most 255 of them:
    # its second block is computed again and held by each of the four.
    expect = SharingExpectation(4, 256, 16, 128)
    assert (expect.reusable_tokens, expect.shared_blocks) == (255, 1)
    assert expect.shared == 1 + 4 * 2 and expect.unshared == 4 * 3
    table = block_table([Holder(f"s{i}", 272, shared_tokens=expect.reusable_tokens)
                         for i in range(4)], 128)
    assert table.used == expect.shared


def test_block_table_figure_draws(tmp_path):
    figure = plot_block_table([Holder("x", 200, 130), Holder("y", 150, 130)], 16, title="t")
    assert len(figure.axes) == 2
    with pytest.raises(ValueError):
        block_table([], 16)


# -- workloads and parsers ----------------------------------------------------------------------
def test_identical_prompts_share_one_prompt():
    plan = IdenticalPrompts(4, 12, 8, seed=3).plan(WordPrompts())
    assert len({p.prompt for p in plan}) == 1
    assert [p.user for p in plan] == [0, 1, 2, 3]
    assert all(p.temperature == 1.0 for p in plan)


def test_mixed_lengths_sends_long_first_and_marks_them():
    plan = MixedLengths(3, 2, 8, 40, 16, seed=1).plan(WordPrompts())
    assert [p.role for p in plan] == ["long", "long", "user", "user", "user"]
    assert all(p.arrival == 0.0 for p in plan)
    alone = MixedLengths(3, 0, 8, 40, 16).plan(WordPrompts())
    assert [p.role for p in alone] == ["user"] * 3
    with pytest.raises(ValueError):
        MixedLengths(0, 1, 8, 40, 16)


REFUSAL_LOG = """ERROR ... ValueError: To serve at least one request with the model's max seq
len (4096), (0.09 GiB KV cache is needed, which is larger than the available KV cache memory
(0.05 GiB). Based on the available memory, the estimated maximum model length is 2560. Try
increasing `gpu_memory_utilization` ..."""


def test_start_refusal_is_parsed_from_a_wrapped_log():
    refusal = start_refusal(REFUSAL_LOG)
    assert (refusal.max_model_len, refusal.needed_gib, refusal.available_gib,
            refusal.estimate) == (4096, 0.09, 0.05, 2560)
    assert start_refusal("CUDA out of memory") is None


# -- prose: chapter 03 --------------------------------------------------------------------------
# 14,336 tokens are 111 usable blocks of 128: one 8,192-token context (64 blocks) or 37
# 300-token requests (3 blocks each).
CAPACITY = Capacity(kv_cache_tokens=14_336, max_model_len=8192, max_concurrency=1.75)
COST = TokenCost(bytes_per_token=23_040, dtype="bfloat16", context_limit=8192,
                 request_tokens=300, context_mib=180.0, request_mib=6.6)
ROOMY = {"running_max": 32.0, "waiting_max": 0.0, "duration_s": 20.0}
CRAMPED = {"running_max": 8.0, "waiting_max": 24.0, "preemptions": 5.0, "duration_s": 61.0,
           "failed": 0.0}


def _paging(capacity=CAPACITY, roomy=ROOMY, cramped=CRAMPED, request_tokens=300):
    paging = PagingFindings.from_run(capacity, 128, request_tokens, roomy,
                                     tokens_per_sequence=290.0)
    return paging_words.paging_text(paging, COST, SqueezeFindings.from_runs(roomy, cramped))


def test_paging_text_when_everything_shows():
    text = _paging()
    assert "**37**" in text and "**37×**" in text and "**180 MiB**" in text
    assert "**32** sequences ran at once" in text
    assert "preempted **5** times" in text and "**61 s**" in text
    assert "Every request still completed" in text


def test_paging_text_reports_failures():
    text = _paging(cramped=dict(CRAMPED, failed=2.0))
    assert "2 requests failed" in text and "still completed" not in text


def test_paging_text_without_gain_load_or_squeeze():
    # A 2,048-token context in 512 tokens' cache: one fits reserved, and one paged.
    tight = Capacity(kv_cache_tokens=2048 + 128, max_model_len=2048, max_concurrency=1.06)
    text = _paging(capacity=tight, roomy={"running_max": 1.0, "duration_s": 5.0},
                   cramped={"running_max": 4.0, "waiting_max": 0.0, "preemptions": 0.0,
                            "duration_s": 5.0}, request_tokens=2000)
    assert "no gain at these sizes" in text
    assert "did not show paging's gain" in text
    assert "squeeze did not show" in text


def test_paging_text_waits_without_preemption():
    text = _paging(cramped=dict(CRAMPED, waiting_max=3.0, preemptions=0.0))
    assert "no sequence was preempted" in text


def test_prediction_echo_with_and_without_a_guess():
    paging = PagingFindings.from_run(CAPACITY, 128, 300, ROOMY)
    empty = paging_words.paging_prediction("  ", paging)
    assert "left the prediction empty" in empty and "37 did (37× as many)" in empty
    two = Capacity(kv_cache_tokens=2 * 8192 + 16, max_model_len=8192, max_concurrency=2.0)
    said = paging_words.paging_prediction("ten times", PagingFindings.from_run(two, 16, 300, ROOMY))
    assert "You predicted: *ten times*" in said and "2 requests fit" in said


def test_admission_text_explains_waiting_beside_room_and_running_past_the_fit():
    roomy = RequestFit(blocks=123, block=128, context_limit=8192, request_tokens=300)  # 41
    small = RequestFit(blocks=27, block=128, context_limit=2048, request_tokens=300)   # 9
    admission = AdmissionFindings.from_runs({"waiting_max": 13, "running_max": 20}, roomy,
                                            {"running_max": 14, "preemptions": 3}, small)
    text = paging_words.admission_text(admission)
    assert "up to **13** requests waited while at most 20 ran, though 41 would fit" in text
    assert "**14** ran at once, more than the 9 whole requests" in text
    assert "its 3 preemptions" in text
    quiet = AdmissionFindings.from_runs({"waiting_max": 0, "running_max": 20}, roomy,
                                        {"running_max": 8, "preemptions": 0}, small)
    assert paging_words.admission_text(quiet) == ""


# -- prose: chapter 04 --------------------------------------------------------------------------
def _cost(computed, cached):
    return pd.DataFrame({"request": range(1, len(computed) + 1), "computed": computed,
                         "from cache": cached})


ON = {"ttft_ms_p50": 100.0, "prefix_cache_hit_rate": 0.7}
UNCOUNTED = {"ttft_ms_p50": 800.0, "prefix_cache_hit_rate": float("nan")}
FAST, SLOW = Spread.of([80.0, 100.0, 130.0, 90.0]), Spread.of([700.0, 900.0, 1100.0, 800.0])
REUSED = ReuseFindings.from_probe(_cost([2016, 96, 96], [0, 1920, 1920]),
                                  _cost([2016] * 3, [0] * 3))


def test_reuse_text_when_reuse_and_speed_show():
    text = prefix_words.reuse_text(REUSED, LoadReuseFindings.from_load(FAST, SLOW, ON))
    assert "each later one **96**" in text and "**8.9×** sooner" in text
    assert "range 80–130 ms over 4 with caching" in text and "hit rate of **70%**" in text


@pytest.mark.parametrize("on", [
    Spread.of([700.0, 800.0, 850.0, 900.0]),   # about the same
    Spread.of([100.0, 150.0, 200.0, 750.0]),   # far apart at the median, one slow request
])
def test_reuse_text_when_the_load_cannot_tell(on):
    same = ReuseFindings.from_probe(_cost([2016] * 3, [0] * 3), _cost([2016] * 3, [0] * 3))
    text = prefix_words.reuse_text(same, LoadReuseFindings.from_load(on, SLOW, UNCOUNTED))
    assert "did not show the reuse" in text
    assert "cannot say the cache made first tokens sooner" in text and "sooner (" not in text
    assert "no prefix-cache queries" in text


def test_reuse_prediction_reports_the_second_request():
    text = prefix_words.reuse_prediction("", REUSED, LoadReuseFindings.from_load(FAST, SLOW, ON))
    assert "computed 96 of its 2016 prompt tokens" in text and "8.9× sooner" in text


EXPECT = SharingExpectation(4, 1000, 64, 128)  # shared 15 blocks, unshared 36


def test_sharing_text_when_all_controls_separate():
    text = prefix_words.sharing_text(SharingFindings.from_peaks(
        {"n4_on": 15.2, "n4_off": 35.8, "same_on": 15.0, "different_on": 36.1},
        {"n4_on": 2688, "n4_off": float("nan")}, EXPECT))
    assert "need **15** blocks" in text and "**36** if not" in text
    assert "only when prefix caching was on" in text
    assert "counted 2,688 prompt tokens found in the cache, against none" in text
    assert "treats the samples as separate requests" in text
    assert "nothing to share" in text


def test_sharing_text_when_controls_do_not_separate():
    text = prefix_words.sharing_text(SharingFindings.from_peaks(
        {"n4_on": 30.0, "n4_off": 33.0, "same_on": 15.0, "different_on": 31.0},
        {"n4_on": 0, "n4_off": 0}, EXPECT))
    assert "did not show the children sharing" in text
    assert "did not match" in text
    assert "did not separate them" in text


# -- prose: chapter 05 --------------------------------------------------------------------------
def _sweep(out, tpot, arrival):
    return SweepFindings.from_sweep(pd.DataFrame(
        {"output_tok_s": out, "tpot_ms_p99": tpot, "latency_s_p99": arrival},
        index=pd.Index([1, 64], name="max_num_seqs")))


def test_sweep_text_per_token_worse_backlog_better():
    text = dials_words.sweep_text(_sweep([30, 300], [35, 90], [34.1, 5.1]))
    assert "(**10.0×**)" in text
    assert "(p99) rose: **35 → 90 ms**" in text
    assert "(p99) fell: **34.1 → 5.1 s**, because" in text
    assert "This run shows it" in text


@pytest.mark.parametrize(("medians", "phrase"), [
    ([8.0, 2.0, 2.5], "shortest at 12 sequences (**2.0 s**) and longer again at 24 (**2.5 s**)"),
    ([8.0, 2.0, 2.1], "2.1 s at 24 sequences, within 10% of the shortest, 2.0 s at 12"),
    ([8.0, 2.0, 1.5], "1.5 s at 24 sequences, the shortest of any level"),
])
def test_sweep_text_weighs_the_median_from_arrival(medians, phrase):
    sweep = pd.DataFrame({"output_tok_s": [30, 120, 180], "tpot_ms_p99": [35, 60, 90],
                          "latency_s_p99": [16.0, 3.0, 2.6], "latency_s_p50": medians},
                         index=pd.Index([1, 12, 24], name="max_num_seqs"))
    text = dials_words.sweep_text(SweepFindings.from_sweep(sweep))
    assert phrase in text
    assert ("longer again" in text) == (medians[-1] > 1.1 * min(medians))


def test_sweep_text_when_nothing_moved():
    text = dials_words.sweep_text(_sweep([30, 31], [35, 36], [10.0, 10.2]))
    assert "did not show batching's throughput gain" in text
    assert "stayed about the same" in text
    assert "did not show here" in text
    assert "The median from arrival" not in text   # the sweep measured no medians


def test_sweep_text_names_a_best_level_in_the_middle():
    sweep = pd.DataFrame({"output_tok_s": [30, 200, 260], "tpot_ms_p99": [35, 60, 90],
                          "latency_s_p99": [9.0, 2.0, 2.5]},
                         index=pd.Index([1, 12, 24], name="max_num_seqs"))
    text = dials_words.sweep_text(SweepFindings.from_sweep(sweep))
    assert "It was shortest at 12 sequences (2.0 s), not at the most" in text
    assert "shortest at" not in dials_words.sweep_text(_sweep([30, 300], [35, 90], [34.1, 5.1]))


def test_sweep_text_when_both_latencies_rise():
    text = dials_words.sweep_text(_sweep([30, 100], [35, 90], [5.0, 9.0]))
    assert "(p99) rose: **5.0 → 9.0 s**." in text


SHORT = {"running_max": 8, "preemptions": 0, "e2e_ms_p99": 6000.0}
MIXED = {"running_max": 9, "preemptions": 4, "e2e_ms_p99": 14000.0}
REFUSAL = start_refusal(REFUSAL_LOG)
SMALL = Capacity(kv_cache_tokens=2560, max_model_len=2048, max_concurrency=1.25)
OVER = OverLong(2100, 16, 2048, "This model's maximum context length is 2048.")


def _context(**changes):
    args = dict(refusal=REFUSAL, refused_context=4096, over_long=OVER, capacity=SMALL,
                short_only=SHORT, mixed=MIXED, short_requests=8, long_requests=2)
    args.update(changes)
    return ContextFindings.from_runs(**args)


def test_context_text_when_everything_shows():
    text = dials_words.context_text(_context())
    assert "refused to start" in text and "2,560 tokens would fit" in text
    assert "was turned away" in text
    assert "room for **1.25** requests" in text and "**8** short requests ran at once" in text
    assert "preempted **4** times" in text and "**6.0 s** to **14.0 s**" in text


def test_a_refusal_about_the_room_left_is_explained():
    exact = OverLong(2048, 16, 2048, "max_tokens must be at least 1, got 0.")
    assert exact.room == 0 and exact.names_room
    text = dials_words.context_text(_context(over_long=exact))
    assert "“max_tokens must be at least 1, got 0.”" in text
    assert "speaks of 0 answer tokens, not the 16 asked for" in text
    assert OVER.room == 0 and not OVER.names_room
    assert "speaks of" not in dials_words.context_text(_context())


def test_context_text_when_nothing_shows():
    text = dials_words.context_text(_context(refusal=None, over_long=OverLong(2048, 16, 2048, None),
                                            mixed=dict(MIXED, preemptions=0)))
    assert "start-up rule is not shown here" in text
    assert "was not refused in this run" in text
    assert "did not show long conversations pushing short ones out" in text


def test_context_text_when_few_short_requests_ran():
    text = dials_words.context_text(_context(short_only=dict(SHORT, running_max=1)))
    assert "does not show more requests than that number" in text


def test_dials_prediction_names_both_parts():
    text = dials_words.dials_prediction("more", _sweep([30, 300], [35, 90], [34.1, 5.1]),
                                       _context())
    assert "output 10.0×" in text and "(p99) 0.15×" in text
    assert "preempted 4 times" in text and "14.0 s" in text
