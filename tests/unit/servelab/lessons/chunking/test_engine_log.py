"""servelab.lessons.chunking.engine_log: whether the engine's start-up log says chunking is on, off,
or nothing (each engine version's own log: tests/unit/test_engine_compat.py)."""

from __future__ import annotations

from servelab.lessons.chunking.engine_log import chunking_state

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
