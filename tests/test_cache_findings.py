"""The findings records of chapters 00 and 03-05, verdict by verdict on made-up numbers (no
engine), and the device policy chapters 03 and 05 ask for instead of branching themselves."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from servelab.bench.spread import Spread
from servelab.engines.vllm_server import DEFAULT_CPU_KV_CACHE_GIB, Capacity
from servelab.hardware import Device
from servelab.lessons.dials.findings import (
    ContextFindings,
    MedianVerdict,
    Movement,
    SweepFindings,
    movement,
)
from servelab.lessons.dials.runs import (
    CPU_CACHE_GIBS,
    GPU_SHARES,
    MemoryDial,
    OverLong,
    StartRefusal,
    tensor_parallel_sizes,
)
from servelab.lessons.paging.capacity import CARDS, planning_cards
from servelab.lessons.paging.findings import (
    AdmissionFindings,
    PagingFindings,
    RanVerdict,
    SqueezeFindings,
    TokenCost,
)
from servelab.lessons.paging.kv import RequestFit, kv_shape
from servelab.lessons.prefix.reuse_findings import LoadReuseFindings, ReuseFindings
from servelab.lessons.prefix.sharing import SharingExpectation
from servelab.lessons.prefix.sharing_findings import SharingFindings, counted

NAN = math.nan
# 14,336 tokens in blocks of 128 are 112, one kept back: 111 for sequences.
CAPACITY = Capacity(kv_cache_tokens=14_336, max_model_len=8192, max_concurrency=1.75)
T4X2 = Device(kind="cuda", name="Tesla T4", count=2, memory_gib=15.0,
              compute_capability=(7, 5), reserved_gib=0.26)
CPU = Device(kind="cpu", name="x")


# -- what fits ---------------------------------------------------------------------------------
def test_a_cache_in_requests_reserved_and_paged() -> None:
    fit = RequestFit.of(14_336, 128, 8192, 300)
    assert (fit.blocks, fit.reserved, fit.paged, fit.request_held) == (111, 1, 37, 384)


def test_one_token_costs_what_the_shape_says(tmp_path) -> None:
    (tmp_path / "config.json").write_text(
        '{"num_hidden_layers": 30, "num_attention_heads": 9, "num_key_value_heads": 3,'
        ' "hidden_size": 576, "dtype": "bfloat16"}')
    cost = TokenCost.of(kv_shape(str(tmp_path)), 8192, 300)
    assert cost.bytes_per_token == 23_040 and cost.dtype == "bfloat16"
    assert cost.context_mib == pytest.approx(180.0)
    assert cost.request_mib == pytest.approx(300 * 23_040 / 2**20)


# -- paging ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("load", "verdict"), [
    ({"running_max": 32.0}, RanVerdict.PAST_RESERVATION),
    ({"running_max": 1.0}, RanVerdict.WITHIN_RESERVATION),
    ({"running_max": NAN}, RanVerdict.NOT_SAMPLED),
    ({}, RanVerdict.NOT_SAMPLED),
    # chapter 00 passes its sweep: the most over the levels counts
    (pd.DataFrame({"running_max": [1.0, 16.0, 32.0]}), RanVerdict.PAST_RESERVATION),
    (pd.DataFrame({"output_tok_s": [1.0, 2.0]}), RanVerdict.NOT_SAMPLED),
])
def test_the_running_count_is_judged_against_full_reservation(load, verdict) -> None:
    assert PagingFindings.from_run(CAPACITY, 128, 300, load).ran_verdict is verdict


def test_the_verdict_counts_whole_contexts_not_the_engines_fraction() -> None:
    # 2.9 full contexts by the engine's count, but 2 in whole blocks: 3 running is past it.
    capacity = Capacity(kv_cache_tokens=3 * 8192 - 512, max_model_len=8192,
                        max_concurrency=2.94)
    paging = PagingFindings.from_run(capacity, 128, 300, {"running_max": 3.0})
    assert paging.fit.reserved == 2 and paging.ran_verdict is RanVerdict.PAST_RESERVATION


def test_paging_gains_only_when_blocks_fit_more() -> None:
    assert PagingFindings.from_run(CAPACITY, 128, 300, {}).paging_gain
    whole = PagingFindings.from_run(CAPACITY, 128, 8192, {})
    assert not whole.paging_gain and whole.paged_factor == 1.0


@pytest.mark.parametrize(("cramped", "waited", "preempted", "completed"), [
    ({"waiting_max": 24, "preemptions": 5, "failed": 0}, True, True, True),
    ({"waiting_max": 3, "preemptions": 0, "failed": 2}, True, False, False),
    ({"waiting_max": 0, "preemptions": 0}, False, False, True),  # no failures counted
])
def test_the_squeeze(cramped, waited, preempted, completed) -> None:
    squeeze = SqueezeFindings.from_runs({"duration_s": 20.0},
                                        {"running_max": 8, "duration_s": 61.0, **cramped})
    assert (squeeze.waited, squeeze.preempted, squeeze.all_completed) == (
        waited, preempted, completed)


ROOMY_FIT = RequestFit(blocks=123, block=128, context_limit=8192, request_tokens=300)  # 41
SMALL_FIT = RequestFit(blocks=27, block=128, context_limit=2048, request_tokens=300)   # 9


@pytest.mark.parametrize(("roomy", "held"), [
    ({"waiting_max": 13, "running_max": 20}, True),
    ({"waiting_max": 0, "running_max": 20}, False),   # nobody waited
    ({"waiting_max": 13, "running_max": 41}, False),  # they waited because the cache was full
])
def test_the_step_budget_held_requests_back(roomy, held) -> None:
    admission = AdmissionFindings.from_runs(roomy, ROOMY_FIT,
                                            {"running_max": 8, "preemptions": 0}, SMALL_FIT)
    assert admission.budget_held is held


@pytest.mark.parametrize(("cramped", "optimistic", "preempted"), [
    ({"running_max": 14, "preemptions": 3}, True, True),
    ({"running_max": 14, "preemptions": 0}, True, False),
    ({"running_max": 9, "preemptions": 0}, False, False),
])
def test_optimistic_admission(cramped, optimistic, preempted) -> None:
    admission = AdmissionFindings.from_runs({"waiting_max": 0, "running_max": 1}, ROOMY_FIT,
                                            cramped, SMALL_FIT)
    assert (admission.optimistic, admission.preempted) == (optimistic, preempted)


# -- prefix reuse ------------------------------------------------------------------------------
def probe(computed, ttft_ms=None) -> pd.DataFrame:
    frame = pd.DataFrame({"request": range(1, len(computed) + 1), "computed": computed,
                          "from cache": [2016 - c for c in computed]})
    return frame.assign(ttft_ms=ttft_ms) if ttft_ms is not None else frame


CONTROL = probe([2016, 2016, 2016], [4000, 4100, 3900])


@pytest.mark.parametrize(("on", "reused", "sooner"), [
    (probe([2016, 16, 16], [4000, 200, 200]), True, True),
    (probe([2016, 16, 16], [4000, 3500, 3500]), True, False),
    (probe([2016, 1100, 1100], [4000, 200, 200]), False, True),  # half the control: not reuse
])
def test_reuse_and_a_sooner_first_token_are_judged_apart(on, reused, sooner) -> None:
    found = ReuseFindings.from_probe(on, CONTROL)
    assert (found.reused, found.sooner) == (reused, sooner)
    assert found.prompt_tokens == 2016 and found.first_computed == 2016


def test_a_probe_that_did_not_time_first_tokens_claims_nothing_sooner() -> None:
    found = ReuseFindings.from_probe(probe([2016, 96, 96]), probe([2016] * 3))
    assert found.reused and found.second_computed == 96
    assert math.isnan(found.ttft_on_ms) and not found.sooner


FAST, SLOW = Spread.of([80.0, 100.0, 130.0]), Spread.of([700.0, 900.0, 1100.0])


@pytest.mark.parametrize(("on", "sooner"), [
    (FAST, True),
    (Spread.of([100.0, 150.0, 750.0]), False),   # 6× at the median, the ranges overlap
    (Spread.of([600.0, 650.0, 690.0]), False),   # apart, but only 1.4× at the median
])
def test_the_load_is_sooner_only_beyond_the_noise(on, sooner) -> None:
    found = LoadReuseFindings.from_load(on, SLOW, {"prefix_cache_hit_rate": 0.7})
    assert found.sooner is sooner and found.hits_counted


def test_no_queries_means_no_hit_rate() -> None:
    found = LoadReuseFindings.from_load(FAST, SLOW, {"prefix_cache_hit_rate": NAN})
    assert not found.hits_counted


# -- shared blocks -----------------------------------------------------------------------------
EXPECT = SharingExpectation(4, 1000, 64, 128)  # shared 15 blocks, unshared 36


@pytest.mark.parametrize(("peaks", "shared", "twins", "different"), [
    ({"n4_on": 15.2, "n4_off": 35.8, "same_on": 15.0, "different_on": 36.1}, True, True, True),
    # 30 of 33 is over three quarters; 15 is more than a quarter off 30; 31 not a quarter above
    ({"n4_on": 30.0, "n4_off": 33.0, "same_on": 15.0, "different_on": 31.0}, False, False,
     False),
    # a peak of no blocks: the twins are judged within a quarter of one block
    ({"n4_on": 0.0, "n4_off": 36.0, "same_on": 0.2, "different_on": 36.0}, True, True, True),
])
def test_the_samples_share_blocks_and_the_controls_separate(peaks, shared, twins,
                                                            different) -> None:
    found = SharingFindings.from_peaks(peaks, {"n4_on": 2688.0, "n4_off": NAN}, EXPECT)
    assert (found.shared, found.twins_match, found.different_held_more) == (
        shared, twins, different)


def test_an_uncounted_counter_reads_none() -> None:
    assert (counted(NAN), counted(2688.0)) == ("none", "2,688")


# -- the dials ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("after", "moved"), [(112.0, Movement.ROSE), (88.0, Movement.FELL),
                                              (109.0, Movement.SAME), (91.0, Movement.SAME)])
def test_a_latency_moves_past_ten_percent(after, moved) -> None:
    assert movement(100.0, after) is moved


def sweep(output, p99, medians=None) -> SweepFindings:
    frame = pd.DataFrame({"output_tok_s": output, "tpot_ms_p99": [35, 60, 90][:len(output)],
                          "latency_s_p99": p99},
                         index=pd.Index([1, 12, 24][:len(output)], name="max_num_seqs"))
    if medians is not None:
        frame["latency_s_p50"] = medians
    return SweepFindings.from_sweep(frame)


def test_the_throughput_gain_shows_at_its_bar() -> None:
    assert sweep([30, 100, 36], [9.0, 3.0, 2.0]).shows_gain
    assert not sweep([30, 100, 35], [9.0, 3.0, 2.0]).shows_gain   # 1.17× at the top


def test_the_best_level_in_between() -> None:
    assert sweep([30, 200, 260], [9.0, 2.0, 2.5]).best_in_between
    assert not sweep([30, 200, 260], [9.0, 3.0, 2.5]).best_in_between


@pytest.mark.parametrize(("medians", "verdict"), [
    (None, MedianVerdict.NOT_MEASURED),
    ([8.0, 2.0, 1.5], MedianVerdict.SHORTEST_AT_TOP),
    ([8.0, 2.0, 2.1], MedianVerdict.NEAR_SHORTEST),
    ([8.0, 2.0, 2.5], MedianVerdict.LONGER_AGAIN),
])
def test_the_median_from_arrival(medians, verdict) -> None:
    found = sweep([30, 120, 180], [16.0, 3.0, 2.6], medians)
    assert found.median_verdict is verdict
    assert (found.low, found.high, found.arrival_sooner) == (1, 24, pytest.approx(16 / 2.6))


SMALL = Capacity(kv_cache_tokens=2560, max_model_len=2048, max_concurrency=1.25)
REFUSAL = StartRefusal(4096, 0.09, 0.05, 2560)


def context(**changes) -> ContextFindings:
    args = dict(refusal=REFUSAL, refused_context=4096, over_long=OverLong(2100, 16, 2048, "no"),
                capacity=SMALL, short_only={"running_max": 8, "preemptions": 0,
                                            "e2e_ms_p99": 6000.0},
                mixed={"running_max": 9, "preemptions": 4, "e2e_ms_p99": 14000.0},
                short_requests=8, long_requests=2)
    return ContextFindings.from_runs(**(args | changes))


def test_what_the_limit_decided() -> None:
    found = context()
    assert found.refused and found.ran_past_engine_count and found.crowded_out
    assert (found.long_context, found.short_p99_mixed_s) == (2048, 14.0)
    quiet = context(refusal=None, short_only={"running_max": 1, "preemptions": 4,
                                              "e2e_ms_p99": 6000.0})
    assert not (quiet.refused or quiet.ran_past_engine_count or quiet.crowded_out)


# -- device policy the notebooks ask for -----------------------------------------------------
def test_the_memory_dial_is_a_share_on_a_gpu_and_a_size_on_a_cpu() -> None:
    gpu = MemoryDial.for_device(T4X2)
    assert gpu.server_args == {"gpu_memory_utilization": 0.9}
    assert gpu.settings == GPU_SHARES
    # a tenth more of a 14.74 GiB card adds 1.474 GiB to the 3 GiB cache seen at 0.9
    assert gpu.cache_gib(0.8, 3.0) == pytest.approx(3.0 - 1.474)
    cpu = MemoryDial.for_device(CPU)
    assert cpu.server_args == {"kv_cache_gib": DEFAULT_CPU_KV_CACHE_GIB}
    assert cpu.settings == CPU_CACHE_GIBS and cpu.cache_gib(0.5, 3.0) == 0.5


def test_tensor_parallelism_runs_only_on_two_gpus() -> None:
    assert tensor_parallel_sizes(T4X2) == (1, 2)
    assert tensor_parallel_sizes(Device(kind="cuda", name="Tesla T4", memory_gib=15.0)) == ()
    assert tensor_parallel_sizes(CPU) == ()


def test_the_plan_adds_this_runtimes_gpu_as_a_third_card() -> None:
    assert planning_cards(CPU) == list(CARDS)
    cards = planning_cards(T4X2)
    assert cards[:2] == list(CARDS) and "(this runtime)" in cards[2].name
