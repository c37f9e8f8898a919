"""servelab.lessons.capacity_plan.pace_try: the time bound is tried only where the largest
measured batch stopped the plan short of it, never past the cache, and a try is read against
the brief's target by every request's time per token."""

from __future__ import annotations

import pytest

from servelab.bench.spread import Spread
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.capacity_plan.pace_try import PaceTry, untried_pace_bound
from servelab.lessons.capacity_plan.plan import Bound, Brief, CapacityPlan
from servelab.lessons.compare import Placed

# A step of 20 + 2·B ms and a target of 40 ms a token: the time bound is 10 sequences.
BRIEF = Brief(
    rate_req_s=30,
    prompt_tokens=0,
    answer_tokens=100,
    tpot_factor=40 / 22,
    ttft_factor=1.0,
    share=0.9,
)


def plan(largest_measured: int | None, requests_cached: int = 100) -> CapacityPlan:
    return CapacityPlan(
        BRIEF,
        StepFit(20.0, 2.0, 1.0),
        prompt_ms=0.0,
        first_token_ms=200.0,
        kv_tokens=requests_cached * BRIEF.tokens_per_request,
        kv_bytes_per_token=2**20,
        largest_measured=largest_measured,
    )


def test_the_time_bound_is_tried_where_the_measured_batch_stopped_short_of_it() -> None:
    short = plan(largest_measured=4)
    assert (short.bound, short.max_num_seqs, short.by_time) == (Bound.MEASURED, 4, 10)
    assert untried_pace_bound(short) == 10
    assert untried_pace_bound(plan(largest_measured=4, requests_cached=6)) == 6  # the cache


@pytest.mark.parametrize(
    "found", [plan(largest_measured=16), plan(None), plan(largest_measured=16, requests_cached=6)]
)
def test_nothing_is_tried_where_the_time_bound_or_the_cache_set_the_dial(found) -> None:
    assert found.bound in (Bound.TIME, Bound.MEMORY)
    assert untried_pace_bound(found) is None


@pytest.mark.parametrize(
    ("tpot", "placed"),
    [
        (Spread(30.0, 28.0, 39.0, 10), Placed.BELOW),  # every request within 40 ms
        (Spread(45.0, 41.0, 50.0, 10), Placed.ABOVE),  # none
        (Spread(38.0, 30.0, 44.0, 10), Placed.INSIDE),  # some
    ],
)
def test_a_try_is_read_by_every_requests_time_per_token(tpot: Spread, placed: Placed) -> None:
    tried = PaceTry(batch=10, measured=4, tpot_ms=tpot, line_ms=40.0, target_ms=40.0)
    assert tried.against_target is placed
    assert tried.line_off == pytest.approx(tpot.median / 40.0 - 1)
