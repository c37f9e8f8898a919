"""servelab.bench.pace: the CPU's drift probe reads this CPU's copy bandwidth and matrix-multiply
rate, and refuses to probe no times (the drift it feeds: lessons/when_not_to/test_drift.py)."""

from __future__ import annotations

import pytest

from servelab.bench.pace import probe_cpu


def test_a_probe_reads_this_cpu_and_refuses_none():
    with pytest.raises(ValueError, match="at least once"):
        probe_cpu(0)
    pace = probe_cpu(2)
    assert pace.bandwidth_gb_s.n == 2 and pace.bandwidth_gb_s.low > 0
    assert pace.gflops.low > 0
    assert "GB/s" in str(pace) and "GFLOP/s" in str(pace)
