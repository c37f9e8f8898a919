"""Properties of the KV block arithmetic (servelab.lessons.paging.kv) over its whole input range,
beside the examples of test_kv.py: blocks cover a sequence with less than one block to spare,
the engine's null block is kept back, and a cache holds whole requests, never a fraction."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from servelab.hardware import DTYPE_BYTES
from servelab.lessons.paging.kv import KVShape, RequestFit, blocks_for, usable_blocks

PROPERTY = settings(max_examples=80, deadline=None, database=None)

# Token counts far past any context: blocks_for divides in whole numbers.
tokens = st.integers(0, 2**64)
block = st.integers(1, 4096)
shapes = st.builds(
    KVShape,
    layers=st.integers(1, 128),
    kv_heads=st.integers(1, 128),
    head_dim=st.integers(1, 512),
    dtype=st.sampled_from(sorted(DTYPE_BYTES)),
)


@PROPERTY
@given(tokens, block)
def test_blocks_for_is_the_fewest_blocks_that_hold_the_tokens(count, size):
    blocks = blocks_for(count, size)
    assert blocks * size >= count > (blocks - 1) * size or count == blocks == 0
    assert blocks_for(count + 1, size) >= blocks


@PROPERTY
@given(st.integers(0, 10**9), st.integers(0, 10**9), block)
def test_two_sequences_never_take_fewer_blocks_than_both_together(a, b, size):
    assert (
        blocks_for(a + b, size)
        <= blocks_for(a, size) + blocks_for(b, size)
        <= (blocks_for(a + b, size) + 1)
    )


@PROPERTY
@given(st.integers(-(10**6), 10**6), st.integers(-4096, 4096))
def test_blocks_for_refuses_negative_tokens_and_empty_blocks(count, size):
    assume(count < 0 or size <= 0)
    with pytest.raises(ValueError):
        blocks_for(count, size)


@PROPERTY
@given(st.integers(0, 10**12), block)
def test_usable_blocks_keeps_one_block_back_and_never_goes_negative(cache, size):
    usable = usable_blocks(cache, size)
    assert usable >= 0
    assert (usable + 1) * size <= cache or usable == 0
    assert usable + 1 >= cache // size
    assert usable_blocks(cache + size, size) == (usable + 1 if cache >= size else 0)
    assert usable_blocks(cache + 1, size) >= usable


@st.composite
def fits(draw: st.DrawFn) -> RequestFit:
    """A cache and a request no longer than the context limit."""
    size = draw(block)
    limit = draw(st.integers(1, 10**6))
    return RequestFit.of(draw(st.integers(0, 10**9)), size, limit, draw(st.integers(0, limit)))


@PROPERTY
@given(fits())
def test_a_cache_holds_whole_requests_and_paging_never_holds_fewer(fit):
    for count, each in ((fit.reserved, fit.context_blocks), (fit.paged, fit.request_blocks)):
        assert count * each <= fit.blocks < (count + 1) * each
    assert fit.paged >= fit.reserved
    assert fit.reserved <= fit.full_contexts < fit.reserved + 1
    assert fit.held_factor >= 1
    assert fit.request_blocks >= 1


@PROPERTY
@given(fits())
def test_a_finished_request_holds_its_tokens_in_whole_blocks(fit):
    held = fit.request_held
    assert held % fit.block == 0
    assert fit.request_tokens <= held < fit.request_tokens + fit.block
    assert held <= fit.context_blocks * fit.block


@PROPERTY
@given(st.integers(0, 10**12), block, st.integers(1, 10**6), st.integers(0, 10**6))
def test_request_fit_of_counts_the_cache_without_the_null_block(cache, size, limit, request):
    assert RequestFit.of(cache, size, limit, request).blocks == usable_blocks(cache, size)


@PROPERTY
@given(shapes, st.integers(0, 10**7))
def test_bytes_per_token_and_the_gib_and_token_conversions_agree(shape, count):
    assert shape.bytes_per_token == (
        shape.layers * shape.kv_heads * shape.head_dim * 2 * DTYPE_BYTES[shape.dtype]
    )
    assert shape.tokens_in(shape.gib_for(count) * 2**30) == count
    assert shape.tokens_in(shape.mib_for(count) * 2**20) == count
    assert shape.mib_for(count) == shape.gib_for(count) * 1024


@PROPERTY
@given(shapes, st.floats(0.0, 2.0**50))
def test_tokens_in_is_the_most_tokens_that_fit(shape, cache):
    count = shape.tokens_in(cache)
    assert count * shape.bytes_per_token <= cache < (count + 1) * shape.bytes_per_token
    assert shape.gib_for(count) * 2**30 <= cache


def test_blocks_for_beyond_float_precision():
    """It divided in floating point once, and past 2**53 tokens the quotient rounded."""
    assert blocks_for(2**53 + 1, 1) == 2**53 + 1
    assert blocks_for(2**60 + 1, 2**7) == 2**53 + 1
