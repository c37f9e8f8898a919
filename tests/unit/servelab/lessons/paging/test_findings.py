"""servelab.lessons.paging.findings: each verdict of the paging records, on made-up runs."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from servelab.engines.vllm_server import Capacity
from servelab.lessons.compare import Compared, Placed
from servelab.lessons.paging.findings import (
    AdmissionFindings,
    PagingFindings,
    SqueezeFindings,
    StepBudget,
    TokenCost,
    sample_gap,
)
from servelab.lessons.paging.kv import RequestFit, kv_shape

NAN = math.nan
# 14,336 tokens in blocks of 128 are 112, one kept back: 111 for sequences.
CAPACITY = Capacity(kv_cache_tokens=14_336, max_model_len=8192, max_concurrency=1.75)


def test_one_token_costs_what_the_shape_says(tmp_path) -> None:
    (tmp_path / "config.json").write_text(
        '{"num_hidden_layers": 30, "num_attention_heads": 9, "num_key_value_heads": 3,'
        ' "hidden_size": 576, "dtype": "bfloat16"}'
    )
    cost = TokenCost.of(kv_shape(str(tmp_path)), 8192, 300)
    assert cost.bytes_per_token == 23_040 and cost.dtype == "bfloat16"
    assert cost.context_mib == pytest.approx(180.0)
    assert cost.request_mib == pytest.approx(300 * 23_040 / 2**20)


@pytest.mark.parametrize(
    ("load", "verdict"),
    [
        ({"running_max": 32.0}, Placed.ABOVE),
        ({"running_max": 1.0}, Placed.INSIDE),
        ({"running_max": NAN}, None),
        ({}, None),
        # chapter 00 passes its sweep: the most over the levels counts
        (pd.DataFrame({"running_max": [1.0, 16.0, 32.0]}), Placed.ABOVE),
        (pd.DataFrame({"output_tok_s": [1.0, 2.0]}), None),
    ],
)
def test_the_running_count_is_judged_against_full_reservation(load, verdict) -> None:
    assert PagingFindings.from_run(CAPACITY, 128, 300, load).ran_verdict is verdict


def test_the_verdict_counts_whole_contexts_not_the_engines_fraction() -> None:
    # 2.9 full contexts by the engine's count, but 2 in whole blocks: 3 running is past it.
    capacity = Capacity(kv_cache_tokens=3 * 8192 - 512, max_model_len=8192, max_concurrency=2.94)
    paging = PagingFindings.from_run(capacity, 128, 300, {"running_max": 3.0})
    assert paging.fit.reserved == 2 and paging.ran_verdict is Placed.ABOVE


def test_paging_gains_only_when_blocks_fit_more() -> None:
    assert PagingFindings.from_run(CAPACITY, 128, 300, {}).paging_gain
    whole = PagingFindings.from_run(CAPACITY, 128, 8192, {})
    assert not whole.paging_gain and whole.fit.held_factor == 1.0


def test_the_held_factor_is_not_the_ratio_of_rounded_counts() -> None:
    # 111 blocks: 1.73 contexts of 64 blocks, so 1 reserved; 37 requests of 3 blocks paged.
    paging = PagingFindings.from_run(CAPACITY, 128, 300, {})
    assert paging.fit.full_contexts == pytest.approx(111 / 64)
    assert paging.fit.held_factor == pytest.approx(64 / 3)
    assert paging.counts_ratio == 37 and paging.counts_ratio_off
    # 128 blocks hold 2 contexts exactly and 64 requests of 2 blocks: the ratio is the factor.
    exact = Capacity(kv_cache_tokens=129 * 128, max_model_len=8192, max_concurrency=2.0)
    even = PagingFindings.from_run(exact, 128, 256, {})
    assert even.counts_ratio == 32 and not even.counts_ratio_off


def test_the_sampling_gap_is_the_median_between_samples() -> None:
    assert sample_gap(pd.DataFrame({"t_s": [0.0, 0.25, 0.5, 1.5]})) == pytest.approx(0.25)
    assert math.isnan(sample_gap(pd.DataFrame({"t_s": [0.0]})))


@pytest.mark.parametrize(
    ("cramped", "waited", "preempted", "completed"),
    [
        ({"waiting_max": 24, "preemptions": 5, "failed": 0}, True, True, True),
        ({"waiting_max": 3, "preemptions": 0, "failed": 2}, True, False, False),
        ({"waiting_max": 0, "preemptions": 0}, False, False, True),  # no failures counted
    ],
)
def test_the_squeeze(cramped, waited, preempted, completed) -> None:
    squeeze = SqueezeFindings.from_runs(
        [{"duration_s": 20.0}], [{"running_max": 8, "duration_s": 61.0, **cramped}], sample_s=0.25
    )
    assert (squeeze.waited, squeeze.preempted, squeeze.all_completed) == (
        waited,
        preempted,
        completed,
    )


def test_the_squeeze_keeps_the_most_any_run_showed_and_every_failure() -> None:
    runs = [
        {"running_max": 8, "waiting_max": 3, "preemptions": 0, "failed": 1, "duration_s": 60.0},
        {"running_max": 6, "waiting_max": 9, "preemptions": 4, "duration_s": 62.0},
    ]
    squeeze = SqueezeFindings.from_runs([{"duration_s": 20.0}] * 2, runs, sample_s=0.25)
    assert (squeeze.running, squeeze.waiting, squeeze.preemptions, squeeze.failed) == (8, 9, 4, 1)
    assert (squeeze.cramped_s.median, squeeze.cramped_s.n) == (61.0, 2)
    with pytest.raises(ValueError, match="at least one run of each load"):
        SqueezeFindings.from_runs([], runs, sample_s=0.25)


# roomy runs 19-21 s; the small cache's runs at these times (a 10% bar on the medians)
@pytest.mark.parametrize(
    ("cramped_s", "duration"),
    [
        ((22.5, 23.0, 23.5), Compared.HIGHER),  # apart, 15% slower
        ((21.4, 21.9, 22.4), Compared.ALIKE),  # apart, but under 10% slower
        ((20.5, 30.0, 31.0), Compared.UNTOLD),  # 50% slower at the median, but the ranges overlap
        ((18.0, 19.0, 20.0), Compared.ALIKE),  # faster, within the band
        ((14.0, 15.0, 16.0), Compared.LOWER),  # sooner, apart: the roomy cache's fuller steps
        ((23.0,), Compared.UNTOLD),  # one run has no range
    ],
)
def test_the_squeeze_took_longer_only_with_ranges_apart_and_past_the_bar(
    cramped_s, duration
) -> None:
    cramped = [
        {"running_max": 8, "waiting_max": 3, "preemptions": 0, "duration_s": seconds}
        for seconds in cramped_s
    ]
    roomy = [{"duration_s": seconds} for seconds in (19.0, 20.0, 21.0)]
    squeeze = SqueezeFindings.from_runs(roomy, cramped, sample_s=0.25)
    assert squeeze.duration is duration
    assert squeeze.took_longer is (duration is Compared.HIGHER)
    assert squeeze.time_ratio == pytest.approx(sorted(cramped_s)[len(cramped_s) // 2] / 20.0)


ROOMY_FIT = RequestFit(blocks=123, block=128, context_limit=8192, request_tokens=300)  # 41
SMALL_FIT = RequestFit(blocks=27, block=128, context_limit=2048, request_tokens=300)  # 9
STEP = StepBudget(budget=2048, prompt_tokens=120, prompts=32)  # 17 a step, 2 steps


def _admission(roomy=None, cramped=None, step=STEP) -> AdmissionFindings:
    squeeze = SqueezeFindings.from_runs(
        [{"duration_s": 10.0}],
        [
            {"waiting_max": 0, "duration_s": 10.0}
            | (cramped or {"running_max": 8, "preemptions": 0})
        ],
        sample_s=0.25,
    )
    return AdmissionFindings.from_runs(
        roomy or {"waiting_max": 0, "running_max": 1}, ROOMY_FIT, squeeze, SMALL_FIT, step=step
    )


@pytest.mark.parametrize(
    ("roomy", "held"),
    [
        ({"waiting_max": 13, "running_max": 20}, True),
        ({"waiting_max": 0, "running_max": 20}, False),  # nobody waited
        ({"waiting_max": 13, "running_max": 41}, False),  # they waited because the cache was full
    ],
)
def test_the_step_budget_held_requests_back(roomy, held) -> None:
    admission = _admission(roomy=roomy)
    assert admission.budget_held is held


@pytest.mark.parametrize(
    ("step", "one_step"),
    [
        (STEP, False),
        (StepBudget(budget=8192, prompt_tokens=120, prompts=32), True),
        (StepBudget(budget=3840, prompt_tokens=120, prompts=32), True),  # exactly
    ],
)
def test_the_budget_counts_the_steps_the_prompts_take(step, one_step) -> None:
    assert step.one_step is one_step and (step.steps == 1) is one_step


def test_the_budgets_arithmetic() -> None:
    assert (STEP.per_step, STEP.total_tokens, STEP.steps) == (17, 3840, 2)
    assert STEP.left_waiting == STEP.prompts - 17


@pytest.mark.parametrize(
    ("cramped", "seen", "optimistic", "preempted"),
    [
        ({"running_max": 14, "preemptions": 3}, True, True, True),
        ({"running_max": 14, "preemptions": 0}, True, True, False),
        # the samples missed the peak, but a preemption proves the blocks were overpromised
        ({"running_max": 9, "preemptions": 16}, False, True, True),
        ({"running_max": 9, "preemptions": 0}, False, False, False),
    ],
)
def test_optimistic_admission(cramped, seen, optimistic, preempted) -> None:
    admission = _admission(cramped=cramped)
    assert (admission.seen_past_fit, admission.optimistic, admission.preempted) == (
        seen,
        optimistic,
        preempted,
    )


def test_the_small_caches_block_arithmetic() -> None:
    # 27 blocks; a 120-token prompt takes 1 block, a 300-token request 3.
    admission = _admission()
    assert (admission.cramped_fit, admission.prompt_blocks, admission.admitted_on_prompts) == (
        9,
        1,
        27,
    )
