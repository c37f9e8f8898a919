"""Properties of chapter 10's plan (servelab.lessons.capacity_plan.plan) over its whole input range,
beside the examples of test_plan.py: the dial meets the pace target and one more
sequence would not (where time binds), the KV cache holds the batch, the knee is Little's law at
that batch, and the servers cover the target with none to spare."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servelab.lessons.batching.steps import StepFit
from servelab.lessons.capacity_plan.plan import Bound, Brief, CapacityPlan

PROPERTY = settings(max_examples=120, deadline=None, database=None)

briefs = st.builds(
    Brief,
    rate_req_s=st.floats(0.01, 1e5),
    prompt_tokens=st.integers(0, 8192),
    answer_tokens=st.integers(1, 8192),
    tpot_factor=st.floats(1.0, 20.0),
    ttft_factor=st.floats(1.0, 20.0),
    share=st.floats(0.01, 1.0),
)
plans = st.builds(
    CapacityPlan,
    brief=briefs,
    step=st.builds(
        StepFit,
        fixed_ms=st.floats(0.01, 1e4),
        per_sequence_ms=st.floats(0.0, 1e3),
        r_squared=st.just(1.0),
    ),
    prompt_ms=st.floats(0.0, 1e4),
    first_token_ms=st.floats(0.01, 1e5),
    kv_tokens=st.integers(1, 10**8),
    kv_bytes_per_token=st.integers(1, 10**6),
    largest_measured=st.none() | st.integers(1, 1024),
)


@PROPERTY
@given(plans)
def test_the_dial_meets_every_bound_and_one_more_sequence_breaks_the_one_that_set_it(plan):
    batch = plan.max_num_seqs
    assert batch >= 1
    if plan.by_time is not None and batch > 1:
        assert plan.pace_ms(batch) <= plan.tpot_target_ms * (1 + 1e-9)
    if plan.bound is Bound.TIME and plan.by_time is not None and plan.by_time > 1:
        assert plan.pace_ms(batch + 1) > plan.tpot_target_ms * (1 - 1e-9)
    if plan.bound is Bound.MEMORY and plan.by_memory > 1:
        assert batch * plan.brief.tokens_per_request <= plan.kv_tokens
    if plan.largest_measured is not None:
        assert batch <= plan.largest_measured


@PROPERTY
@given(plans)
def test_the_knee_is_littles_law_and_the_servers_cover_the_target_with_none_to_spare(plan):
    assert plan.rate_req_s * plan.request_s == pytest.approx(plan.max_num_seqs)
    assert plan.replicas * plan.rate_req_s >= plan.brief.rate_req_s * (1 - 1e-9)
    assert (plan.replicas - 1) * plan.rate_req_s < plan.brief.rate_req_s * (1 + 1e-9)


@PROPERTY
@given(plans, st.floats(1.01, 10.0))
def test_a_slower_prompt_never_raises_the_knee(plan, slower):
    from dataclasses import replace

    worse = replace(plan, prompt_ms=plan.prompt_ms * slower + 1.0)
    assert worse.max_num_seqs <= plan.max_num_seqs
    assert worse.rate_req_s <= plan.rate_req_s * (1 + 1e-9) or math.isclose(
        worse.rate_req_s, plan.rate_req_s
    )


@PROPERTY
@given(plans, st.floats(1.0, 1e5))
def test_the_first_token_holds_the_slot_and_a_slower_one_lowers_the_knee(plan, added_ms):
    from dataclasses import replace

    assert plan.request_s == pytest.approx(plan.first_token_ms / 1000 + plan.answer_s)
    slower = replace(plan, first_token_ms=plan.first_token_ms + added_ms)
    assert slower.max_num_seqs == plan.max_num_seqs  # the first token sets no bound
    assert slower.request_s == pytest.approx(plan.request_s + added_ms / 1000)
    assert slower.rate_req_s < plan.rate_req_s
