"""servelab.engines.llama_parallel_server: llama.cpp's own server with parallel slots.

The engine test starts the real ``llama-server`` (and, for contrast, the binding's server) on the
offline model's GGUF; run it under the engine lock:
    flock /tmp/servelab-engine.lock .venv/bin/python -m pytest \
        tests/engine/servelab/engines/test_llama_parallel_server.py
"""

from __future__ import annotations

import os

import pandas as pd
import pytest

import servelab.bench as bench
from servelab.bench.prompts import WordPrompts
from servelab.engines.llama_parallel_server import LlamaCppParallelServer
from servelab.engines.llama_server import LlamaCppServer
from servelab.engines.llama_server_build import cached_server


def decoding_windows(result: bench.Result) -> pd.DataFrame:
    """Each request's first and last token, in the order the first tokens came."""
    requests = result.requests
    assert requests["error"].isna().all(), requests["error"].tolist()
    return requests.sort_values("first_token_s")[["first_token_s", "end_s"]]


def all_decoding_at_once(windows: pd.DataFrame) -> bool:
    """Every request had its first token before any request had its last."""
    return bool(windows["first_token_s"].max() < windows["end_s"].min())


def one_after_another(windows: pd.DataFrame) -> bool:
    """Each request's first token came only after the one before it had its last."""
    firsts, ends = windows["first_token_s"].to_numpy(), windows["end_s"].to_numpy()
    return bool((firsts[1:] >= ends[:-1]).all())


CROWD = 4


LlamaServer = LlamaCppParallelServer | LlamaCppServer


def closed_loop(server: LlamaServer, users: int, max_tokens: int, seed: int) -> bench.Result:
    """Driven as chapter 08 drives the binding: word prompts (neither llama.cpp server has
    vLLM's /tokenize), no /metrics sampling."""
    return bench.closed_loop(
        server,
        users=users,
        max_tokens=max_tokens,
        seed=seed,
        prompts=WordPrompts(),
        metrics_interval=None,
        progress=False,
    )


def crowd_windows(server: LlamaServer) -> pd.DataFrame:
    """A crowd of ``CROWD`` users after one request that is not measured; the server's whole
    process group is gone afterwards."""
    with server:
        group = server.pid
        closed_loop(server, users=1, max_tokens=4, seed=99)
        windows = decoding_windows(closed_loop(server, users=CROWD, max_tokens=48, seed=0))
    assert group is not None and not server.running
    with pytest.raises(ProcessLookupError):
        os.killpg(group, 0)
    return windows


@pytest.mark.engine
@pytest.mark.skipif(cached_server() is None, reason="needs llama-server: env/build-llama-cpp.sh")
def test_a_crowd_decodes_together_on_slots_and_in_turn_on_the_binding():
    slots = LlamaCppParallelServer(parallel=CROWD, slot_context=512)
    windows = crowd_windows(slots)
    assert all_decoding_at_once(windows), windows
    # the same crowd on llama-cpp-python's server: one answer after another
    binding = crowd_windows(LlamaCppServer(n_ctx=512))
    assert one_after_another(binding), binding
