"""Both supported engine versions, without a GPU: vLLM 0.32 (the CPU engine, fixtures captured
from a real server here) and vLLM 0.11.2 (the GPU engine, fixtures rendered by its own released
code; see tests/fixtures/README.md). Every parser of logs and metrics runs on both."""

from __future__ import annotations

import psutil
import pytest

from servelab.bench.bandwidth import measure_bandwidth


@pytest.mark.tooling  # the probe runs in a child process
def test_the_bandwidth_probe_can_run_in_a_child_process():
    """The GPU probe runs in a child so vLLM's card is not shared with the notebook; the same
    path, on the CPU, returns a bandwidth and leaves no child behind."""
    before = {child.pid for child in psutil.Process().children()}
    assert measure_bandwidth("cpu", 8 * 2**20, 2, isolated=True) > 0.1
    assert {child.pid for child in psutil.Process().children()} == before
    with pytest.raises(ValueError, match="'cpu' or 'cuda'"):
        measure_bandwidth("tpu")
