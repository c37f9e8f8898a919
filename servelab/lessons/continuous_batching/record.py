"""Chapter 02's findings as one result record: the figures the grader reads, by declared name
(``servelab.results.record_results``)."""

from __future__ import annotations

from dataclasses import dataclass

from servelab.bench.bandwidth import Ceiling
from servelab.lessons.batching.findings import BatchFindings
from servelab.lessons.batching.roofline import Roofline
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.batching.waves_findings import WavesFindings
from servelab.lessons.continuous_batching.chapter import CHAPTER, ContinuousBatchingFigures


@dataclass(frozen=True)
class ContinuousBatchingRecord:
    """Chapter 02: what batching found at ``top`` users, the single-stream ceiling (``limit``)
    and the time to read the weights once, the matrix speed measured (FLOP/s), the step-time
    fit, the roofline's prediction here and waves against continuous batching."""

    found: BatchFindings
    top: int
    limit: Ceiling
    weight_read_ms: float
    flops: float
    fit: StepFit
    here: Roofline
    found_waves: WavesFindings

    chapter = CHAPTER.id

    def figures(self) -> ContinuousBatchingFigures:
        """Chapter 02's figures."""
        found, limit, fit, here, found_waves = (
            self.found,
            self.limit,
            self.fit,
            self.here,
            self.found_waves,
        )
        return ContinuousBatchingFigures(
            steady_tok_s_at_1=found.single_total,
            top_users=self.top,
            steady_tok_s_at_top=found.top_total,
            user_tok_s_at_top=found.top_each,
            batching_gain=found.gain,
            share_kept=found.kept,
            bandwidth_gb_s=limit.bandwidth_gb_s,
            weight_read_ms=self.weight_read_ms,
            matmul_gflop_s=self.flops / 1e9,
            step_fixed_ms=fit.fixed_ms,
            step_per_sequence_ms=fit.per_sequence_ms,
            step_fit_r_squared=fit.r_squared,
            predicted_gain_low=here.gain_low,
            predicted_gain_high=here.gain_high,
            waves_s=found_waves.static_s.median,
            continuous_s=found_waves.continuous_s.median,
            continuous_speedup=found_waves.speedup,
            idle_share_waves=found_waves.idle_static,
            idle_share_continuous=found_waves.idle_continuous,
        )
