"""Chapter 07's findings as one result record: the figures the grader reads, by declared name
(``servelab.results.record_results``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from servelab.bench.spread import Spread
from servelab.chapter import per_level
from servelab.lessons.throughput_vs_latency.chapter import CHAPTER, ThroughputVsLatencyFigures
from servelab.lessons.throughput_vs_latency.metrics_findings import MetricsFindings
from servelab.lessons.throughput_vs_latency.rate_grid import RateGrid
from servelab.lessons.throughput_vs_latency.slot_rate import SlotRate
from servelab.lessons.throughput_vs_latency.sweep_findings import RateSweepFindings


@dataclass(frozen=True)
class DeploymentsRecord:
    """The two settings' rate sweeps (``interactive``, ``batch``: one row per rate) and what
    they found, the metrics run's findings, the rate the slots predict and the grid of rates
    set from it."""

    sweeps: RateSweepFindings
    interactive: pd.DataFrame
    batch: pd.DataFrame
    found_metrics: MetricsFindings
    slot_rate: SlotRate
    grid: RateGrid

    chapter = CHAPTER.id

    def figures(self) -> ThroughputVsLatencyFigures:
        """Chapter 07's figures (one of each sweep column per rate)."""
        sweeps, interactive, batch = self.sweeps, self.interactive, self.batch
        found_metrics, slot_rate = self.found_metrics, self.slot_rate
        percents = self.grid.percents  # the placed rates, lowest first; the top rate after
        placed = len(percents)
        return ThroughputVsLatencyFigures(
            peak_tok_s_interactive=sweeps.small.peak,
            peak_tok_s_batch=sweeps.large.peak,
            ttft_ms_p99_interactive_at=per_level(percents, interactive["ttft_ms_p99"][:placed]),
            ttft_ms_p99_batch_at=per_level(percents, batch["ttft_ms_p99"][:placed]),
            goodput_req_s_interactive_at=per_level(percents, interactive["goodput_req_s"][:placed]),
            goodput_req_s_batch_at=per_level(percents, batch["goodput_req_s"][:placed]),
            served_req_s_interactive_top=_top(sweeps.small.served),
            served_req_s_batch_top=_top(sweeps.large.served),
            little_in_flight=found_metrics.little_in_flight,
            engine_in_flight=found_metrics.engine_in_flight,
            slot_rate_req_s=slot_rate.rate,
        )


def _top(served: tuple[Spread, ...]) -> float:
    """The median requests a second finished at the top rate (NaN: no steady table)."""
    return served[-1].median if served else math.nan
