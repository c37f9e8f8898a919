"""How fast this CPU runs right now, probed with no server running: the machine's own drift.

A shared 2-core machine's speed can change over minutes — a pure loop on both cores varied by
about ±15% from one 10 s window to the next on one such machine, with under 0.2% of its time
reported stolen — so a gap between two engines that ran minutes apart may be the machine's, not
the engines'. Chapter 08 probes the CPU before its first engine and after each one: the copy
bandwidth single-stream decoding is bound by, and the float32 matrix-multiply rate, each a few
times so that every moment has a range of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.bench.bandwidth import matmul_flops, measure_bandwidth
from servelab.bench.spread import Spread

PROBES = 3  # probes per moment: enough for a range, about 3 s on a 2-core CPU


@dataclass(frozen=True)
class CpuPace:
    """The CPU at one moment: copy bandwidth (GB/s) and float32 matrix multiply (GFLOP/s)."""

    bandwidth_gb_s: Spread
    gflops: Spread

    def __str__(self) -> str:
        return (
            f"copy bandwidth {self.bandwidth_gb_s.with_range(1)} GB/s, float32 matrix "
            f"multiply {self.gflops.with_range()} GFLOP/s"
        )


def probe_cpu(probes: int = PROBES) -> CpuPace:
    """This CPU's pace now, each figure the spread of ``probes`` probes. Call it with no server
    running: a probe beside an engine measures what the engine leaves over."""
    if probes < 1:
        raise ValueError("probe at least once")
    return CpuPace(
        Spread.of(measure_bandwidth("cpu", isolated=False) for _ in range(probes)),
        Spread.of(matmul_flops("cpu", "float32") / 1e9 for _ in range(probes)),
    )
