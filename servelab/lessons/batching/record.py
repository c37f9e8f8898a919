"""Chapters 01's and 02's findings as result records: the figures the grader reads, by declared
name (``servelab.results.record_results``)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from servelab.bench.bandwidth import Ceiling
from servelab.lessons.batching.chapter import (
    CONTINUOUS_BATCHING,
    SERVING_ENGINE,
    ContinuousBatchingFigures,
    ServingEngineFigures,
)
from servelab.lessons.batching.findings import BatchFindings
from servelab.lessons.batching.roofline import Roofline
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.batching.waves_findings import WavesFindings


@dataclass(frozen=True)
class ServingEngineRecord:
    """Chapter 01: the sweep's rows at one user and at the most (``one``, ``many``), what
    batching found, and the tokens generated as the client and the server counted them."""

    one: pd.Series
    many: pd.Series
    found: BatchFindings
    client_tokens: float
    server_tokens: float

    chapter = SERVING_ENGINE.id

    def figures(self) -> ServingEngineFigures:
        """Chapter 01's figures."""
        one, many, found = self.one, self.many, self.found
        return ServingEngineFigures(
            steady_tok_s_one_user=one["steady_output_tok_s"],
            steady_tok_s_all_users=many["steady_output_tok_s"],
            user_tok_s_all_users=many["steady_user_tok_s"],
            batching_gain=found.gain,
            share_kept=found.kept,
            ttft_ms_p50_one_user=one["ttft_ms_p50"],
            ttft_ms_p50_all_users=many["ttft_ms_p50"],
            generated_tokens_client=self.client_tokens,
            generated_tokens_server=self.server_tokens,
        )


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

    chapter = CONTINUOUS_BATCHING.id

    def figures(self) -> ContinuousBatchingFigures:
        """Chapter 02's figures."""
        found, limit, fit, here, found_waves = (self.found, self.limit, self.fit, self.here,
                                                self.found_waves)
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
