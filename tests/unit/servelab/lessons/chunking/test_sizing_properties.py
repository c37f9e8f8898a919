"""More properties of the chunk-budget sizing (servelab.lessons.chunking.sizing), beside
test_sizing_bounds_properties.py (bounds, blocks, and the budget's growth with the rate and
the pause): what the bounds and the block do, the floor of 0 (a budget of 0 where the usual
step fills the pause, as ``chunk_tokens`` documents), units, and the users' length growing with
their speed and the spacing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from servelab.lessons.chunking.sizing import (
    DocumentBound,
    budget_for,
    chunk_tokens,
    document_for,
    paused_tokens,
    spacing_for,
    user_tokens_for,
)

PROPERTY = settings(max_examples=60, deadline=None, database=None, derandomize=True)

rate = st.floats(1e-3, 1e6)  # prefill tokens a second
pause = st.floats(1e-3, 1e5)  # ms
step = st.floats(0.0, 1e5)  # ms
block = st.integers(1, 512)
# Floors from 0 (the edge: nothing raises the budget) up; ceilings at or above them.
floor = st.integers(0, 4096)
room = st.integers(0, 10**6)


@PROPERTY
@given(rate, pause, step, floor, floor, room, room, block)
def test_the_floor_and_the_ceiling_only_clamp(tok_s, pause_ms, step_ms, s1, s2, r1, r2, size):
    """A higher floor raises the budget to it and no further; a higher ceiling lets it rise up to
    what the pause buys and no further (both ceilings at or above both floors)."""
    (s1, s2), (r1, r2) = sorted((s1, s2)), sorted((r1, r2))
    low = budget_for(tok_s, pause_ms, step_ms, s1, s2 + r1, size)
    assert budget_for(tok_s, pause_ms, step_ms, s2, s2 + r1, size) == max(s2, low)
    high = budget_for(tok_s, pause_ms, step_ms, s1, s2 + r2, size)
    assert low == max(s1, min(s2 + r1, high)) and low <= high


@PROPERTY
@given(
    st.floats(10.0, 1e5), st.floats(1.0, 2000.0), st.floats(0.0, 1000.0), st.integers(0, 64), block
)
def test_rounding_to_blocks_only_ever_lowers_the_budget_by_less_than_a_block(
    tok_s, pause_ms, step_ms, smallest, size
):
    """Budgets of up to about 200,000 tokens, far below the ceiling, so that the rounding shows."""
    largest = 10**9
    tokens = int(chunk_tokens(tok_s, pause_ms, step_ms))
    whole = budget_for(tok_s, pause_ms, step_ms, smallest, largest, 1)  # block 1: no rounding
    blocked = budget_for(tok_s, pause_ms, step_ms, smallest, largest, size)
    assert whole == max(smallest, tokens)
    assert whole - size < blocked <= whole
    if tokens >= max(size, smallest):  # neither floored nor under a block: whole blocks
        assert blocked % size == 0
    elif tokens > smallest:  # under a block: not rounded to none
        assert blocked == tokens


@PROPERTY
@given(rate, pause, step, floor, room, block)
def test_the_budget_is_never_negative_and_zero_only_on_a_zero_floor(
    tok_s, pause_ms, step_ms, smallest, extra, size
):
    budget = budget_for(tok_s, pause_ms, step_ms, smallest, smallest + extra, size)
    assert budget >= 0
    if budget == 0:
        assert smallest == 0
        assert chunk_tokens(tok_s, pause_ms, step_ms) < 1 or smallest + extra == 0


@PROPERTY
@given(rate, pause, st.floats(0.0, 10.0), floor, room, block)
def test_once_the_usual_step_fills_the_pause_the_budget_is_the_floor(
    tok_s, pause_ms, over, smallest, extra, size
):
    step_ms = pause_ms * (1 + over)  # the usual step alone as long as the pause or longer
    assert chunk_tokens(tok_s, pause_ms, step_ms) == 0
    assert budget_for(tok_s, pause_ms, step_ms, smallest, smallest + extra, size) == smallest


def test_a_zero_floor_gives_a_zero_budget_where_the_step_fills_the_pause():
    """The documented edge: ``chunk_tokens`` is 0 "where the usual step alone is as long as the
    pause", and ``budget_for`` keeps it between its bounds, 0 among them. The pages pass a floor
    of a token per sequence (``smallest=2 * USERS``), so they never reach it."""
    assert budget_for(1000.0, 50.0, 50.0, smallest=0, largest=2048, block=16) == 0
    assert budget_for(1000.0, 50.0, 49.5, smallest=0, largest=2048, block=16) == 0  # 0.5 token
    assert budget_for(1000.0, 50.0, 49.0, smallest=0, largest=2048, block=16) == 1


@PROPERTY
@given(rate, pause, step, st.integers(-30, 30))
def test_chunk_tokens_scale_with_the_rate_and_the_clock(tok_s, pause_ms, step_ms, power):
    """A rate twice as high buys twice the tokens; pause and step in another unit of time, the
    rate in the matching one, buy the same. Powers of two: exact in floating point."""
    scale = 2.0**power
    tokens = chunk_tokens(tok_s, pause_ms, step_ms)
    assert chunk_tokens(tok_s * scale, pause_ms, step_ms) == tokens * scale
    assert chunk_tokens(tok_s / scale, pause_ms * scale, step_ms * scale) == tokens


@PROPERTY
@given(rate, pause, floor, room)
def test_the_bound_names_what_set_the_documents_length(tok_s, pause_ms, smallest, more):
    document = document_for(tok_s, pause_ms, smallest, smallest + more)
    bound = DocumentBound.of(paused_tokens(tok_s, pause_ms), document)
    assert (bound is DocumentBound.RATE) == (paused_tokens(tok_s, pause_ms) == document)
    assert bound is not DocumentBound.LEAST or document == smallest
    assert bound is not DocumentBound.LONGEST or document == smallest + more


@PROPERTY
@given(rate, pause, floor, floor, room, room)
def test_the_documents_floor_and_ceiling_only_clamp(tok_s, pause_ms, s1, s2, r1, r2):
    (s1, s2), (r1, r2) = sorted((s1, s2)), sorted((r1, r2))
    low = document_for(tok_s, pause_ms, s1, s2 + r1)
    assert low >= 0
    assert document_for(tok_s, pause_ms, s2, s2 + r1) == max(s2, low)
    high = document_for(tok_s, pause_ms, s1, s2 + r2)
    assert low == max(s1, min(s2 + r1, high)) and low <= high


@PROPERTY
@given(st.floats(1e-6, 1e4), st.integers(0, 6000), st.integers(0, 6000))
def test_a_higher_spacing_floor_never_brings_documents_closer(read_s, f1, f2):
    low, high = sorted((f1 / 10, f2 / 10))
    assert 0 <= spacing_for(read_s, low) <= spacing_for(read_s, high)


@PROPERTY
@given(
    st.floats(1e-3, 1e4),
    st.floats(1e-3, 1e4),
    st.floats(0.0, 600.0),
    st.integers(1, 20),
    st.floats(0.0, 600.0),
    st.floats(0.0, 600.0),
    floor,
    room,
)
def test_faster_users_or_wider_spacing_never_ask_for_fewer_tokens(
    u1, u2, arrival_s, documents, g1, g2, smallest, extra
):
    (u1, u2), (g1, g2) = sorted((u1, u2)), sorted((g1, g2))
    limits = (smallest, smallest + extra)
    tokens = user_tokens_for(u1, arrival_s, documents, g1, *limits)
    assert tokens >= 0
    assert tokens <= user_tokens_for(u2, arrival_s, documents, g1, *limits)
    assert tokens <= user_tokens_for(u1, arrival_s, documents, g2, *limits)
