"""servelab.bench.bandwidth: the device probes, the dtype they compute in, when they run, and
the bytes of weights a decoding step reads."""

from __future__ import annotations

import pytest

from servelab.bench import bandwidth


@pytest.mark.tooling  # a child process, as the probes get on a GPU
def test_the_probes_a_gpu_runs_in_a_child_process_run_there() -> None:
    bandwidth_gb_s, flops = bandwidth._in_child("probe_limits", ("cpu", "float32"), "cpu")
    assert bandwidth_gb_s > 0.1 and flops > 1e6
