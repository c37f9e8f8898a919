"""The chapter-specific helpers of chapters 05-07 (servelab.lessons), without an engine."""

from __future__ import annotations

import pytest

from servelab.bench.prompts import WordPrompts
from servelab.bench.workloads import MixedTraffic
from servelab.lessons.chunking.chunked_prefill import chunking_state

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


def test_mixed_traffic_splits_the_same_requests():
    workload = MixedTraffic(chat_requests=3, batch_requests=2, chat_input_tokens=4,
                            batch_input_tokens=4)
    both = workload.plan(WordPrompts())
    chat = MixedTraffic(chat_requests=3, batch_requests=2, chat_input_tokens=4,
                        batch_input_tokens=4, parts="chat").plan(WordPrompts())
    batch = MixedTraffic(chat_requests=3, batch_requests=2, chat_input_tokens=4,
                         batch_input_tokens=4, parts="batch").plan(WordPrompts())
    assert [p.role for p in both] == ["user"] * 3 + ["batch"] * 2
    assert chat + batch == both
    assert all(p.arrival == 0.0 for p in batch)
    with pytest.raises(ValueError, match="parts must be one of"):
        MixedTraffic(parts="everything")
    with pytest.raises(ValueError, match="chat_rate must be positive"):
        MixedTraffic(chat_rate=0)
