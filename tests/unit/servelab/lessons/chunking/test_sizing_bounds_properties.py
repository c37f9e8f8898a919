"""Properties of the chunk-budget sizing (servelab.lessons.chunking.sizing) over its
whole input range, beside the examples of test_findings.py: the budget stays within its
bounds, ends on a block, grows with the pause and the rate, and never buys a longer step than
the pause unless the floor asks for it; the document, spacing and users' lengths likewise."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servelab.lessons.chunking.sizing import (
    DOCUMENT_PAUSES,
    SPACING_MARGIN,
    BudgetPlan,
    Reading,
    Sizing,
    budget_for,
    chunk_tokens,
    document_for,
    spacing_for,
    user_tokens_for,
)
from servelab.lessons.chunking.thresholds import HITCH_CHUNK_SHARE

PROPERTY = settings(max_examples=60, deadline=None, database=None)

rate = st.floats(1e-3, 1e6)  # prefill tokens a second
pause = st.floats(1e-3, 1e5)  # ms
step = st.floats(0.0, 1e5)  # ms
block = st.integers(1, 512)


@st.composite
def bounds(draw: st.DrawFn) -> tuple[int, int]:
    """``smallest`` (one token or more: a step holds at least one sequence) <= ``largest``."""
    smallest = draw(st.integers(1, 4096))
    return smallest, smallest + draw(st.integers(0, 10**6))


@PROPERTY
@given(rate, pause, step)
def test_chunk_tokens_fill_the_pause_beyond_the_usual_step(tok_s, pause_ms, step_ms):
    tokens = chunk_tokens(tok_s, pause_ms, step_ms)
    assert tokens >= 0
    assert (tokens == 0) == (step_ms >= pause_ms)
    if tokens > 0:
        assert step_ms + 1000 * tokens / tok_s == pytest.approx(pause_ms, rel=1e-9)


@PROPERTY
@given(rate, rate, pause, pause, step, step)
def test_chunk_tokens_grow_with_the_rate_and_the_pause_and_shrink_with_the_step(
    r1, r2, p1, p2, s1, s2
):
    (r1, r2), (p1, p2), (s1, s2) = sorted((r1, r2)), sorted((p1, p2)), sorted((s1, s2))
    assert chunk_tokens(r1, p1, s2) <= chunk_tokens(r2, p2, s1)


@PROPERTY
@given(rate, pause, step, bounds(), block)
def test_the_budget_is_within_bounds_on_a_block_and_not_over_the_pause_unless_floored(
    tok_s, pause_ms, step_ms, limits, size
):
    smallest, largest = limits
    budget = budget_for(tok_s, pause_ms, step_ms, smallest, largest, size)
    wanted = chunk_tokens(tok_s, pause_ms, step_ms)
    assert smallest <= budget <= largest
    assert budget <= wanted or budget == smallest
    if smallest < budget < largest:  # not clamped: the pause's tokens, to whole blocks
        if budget >= size:
            assert budget % size == 0
        assert wanted - size < budget <= wanted
        assert budget >= min(size, math.floor(wanted))


@PROPERTY
@given(rate, rate, pause, pause, step, step, bounds(), block)
def test_the_budget_grows_with_the_pause_and_the_rate_and_shrinks_with_the_step(
    r1, r2, p1, p2, s1, s2, limits, size
):
    (r1, r2), (p1, p2), (s1, s2) = sorted((r1, r2)), sorted((p1, p2)), sorted((s1, s2))
    assert budget_for(r1, p1, s2, *limits, size) <= budget_for(r2, p2, s1, *limits, size)


@PROPERTY
@given(st.floats(-1e6, 0.0), st.floats(-1e5, 0.0), st.integers(-512, 0), st.floats(-1e5, -1e-9))
def test_the_budget_refuses_a_rate_pause_block_or_step_out_of_range(tok_s, pause_ms, size, step_ms):
    for args in ((tok_s, 100.0, 0.0), (1000.0, pause_ms, 0.0), (1000.0, 100.0, step_ms)):
        with pytest.raises(ValueError):
            budget_for(*args, 1, 8192, 16)
    with pytest.raises(ValueError):
        budget_for(1000.0, 100.0, 0.0, 1, 8192, size)


@PROPERTY
@given(rate, pause, step, bounds(), block, st.integers(1, 10**6), st.integers(1, 10**6))
def test_a_plan_reads_its_document_in_the_fewest_chunks_and_names_what_set_its_budget(
    tok_s, pause_ms, step_ms, limits, size, document, first
):
    budget = budget_for(tok_s, pause_ms, step_ms, *limits, size)
    plan = BudgetPlan(
        first_budget=first,
        prefill_tok_s=tok_s,
        pause_ms=pause_ms,
        step_ms=step_ms,
        budget=budget,
        document_tokens=document,
        block=size,
    )
    assert plan.chunks * budget >= document > (plan.chunks - 1) * budget
    assert (plan.second_read is Reading.ONE_STEP) == (budget >= document) == (plan.chunks == 1)
    assert (plan.first_read is Reading.ONE_STEP) == (first >= document)
    assert plan.wanted_tokens == chunk_tokens(tok_s, pause_ms, step_ms)
    if plan.sizing is Sizing.FLOOR:
        assert budget == limits[0] > plan.wanted_tokens
    elif plan.sizing is Sizing.WHOLE:
        assert plan.chunks == 1
    else:
        assert plan.chunks >= 2 and budget <= plan.wanted_tokens
    read_ms = 1000.0 * budget / tok_s
    assert plan.hitch_ms == pytest.approx(step_ms + HITCH_CHUNK_SHARE * read_ms)
    assert step_ms < plan.hitch_ms <= step_ms + read_ms


@PROPERTY
@given(rate, pause, bounds())
def test_the_document_takes_its_pauses_to_read_in_one_step_within_bounds(tok_s, pause_ms, limits):
    smallest, largest = limits
    tokens = document_for(tok_s, pause_ms, smallest, largest)
    assert smallest <= tokens <= largest
    if smallest < tokens < largest:
        wanted = tok_s * DOCUMENT_PAUSES * pause_ms / 1000
        assert tokens <= wanted < tokens + 1
    assert document_for(tok_s * 2, pause_ms, smallest, largest) >= tokens
    assert document_for(tok_s, pause_ms * 2, smallest, largest) >= tokens


@PROPERTY
@given(st.floats(1e-6, 1e4), st.floats(1e-6, 1e4), st.integers(0, 6000).map(lambda k: k / 10))
def test_the_spacing_is_the_margin_over_a_read_at_least_the_floor_to_a_tenth(
    read_s, later_s, smallest
):
    spacing = spacing_for(read_s, smallest)
    assert spacing >= smallest  # a floor in tenths, as the pages give it
    assert abs(spacing - max(smallest, SPACING_MARGIN * read_s)) <= 0.05 + 1e-9
    assert spacing == round(spacing, 1)
    assert spacing_for(max(read_s, later_s), smallest) >= spacing
    with pytest.raises(ValueError):
        spacing_for(-read_s, smallest)


@PROPERTY
@given(
    st.floats(1e-3, 1e4), st.floats(0.0, 600.0), st.integers(1, 20), st.floats(0.0, 600.0), bounds()
)
def test_users_last_past_the_last_document_within_bounds(
    tok_s, arrival_s, documents, spacing_s, limits
):
    smallest, largest = limits
    tokens = user_tokens_for(tok_s, arrival_s, documents, spacing_s, smallest, largest)
    assert smallest <= tokens <= largest
    until_s = arrival_s + documents * spacing_s
    if tokens < largest:  # not capped: still decoding when the last document is read
        assert tokens >= tok_s * until_s
    if smallest < tokens < largest:
        assert tokens - 1 < tok_s * until_s
    assert user_tokens_for(tok_s, arrival_s, documents + 1, spacing_s, *limits) >= tokens
    assert user_tokens_for(tok_s, arrival_s + 1, documents, spacing_s, *limits) >= tokens
    with pytest.raises(ValueError):
        user_tokens_for(tok_s, arrival_s, 0, spacing_s, *limits)


def test_the_spacing_is_at_least_a_floor_not_in_tenths():
    assert spacing_for(0.1, smallest=1.24) >= 1.24
