"""Chapters 01, the serving engine, and 02, continuous batching: both teach batching.

The sizes of each at each profile, the figures it records and the two the class report plots
(``servelab.chapter``).
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.chapter import Chapter, Figures, figure
from servelab.sizes import Knobs, Profiles


@dataclass(frozen=True, kw_only=True)
class ServingEngineSizes(Knobs):
    """Chapter 01's knobs: one user against ``users`` at once, ``sweeps`` times over."""

    users: int
    requests_per_user: int
    answer_tokens: int
    sweeps: int


ENGINE_SIZES = Profiles(
    smoke=ServingEngineSizes(profile="smoke", users=4, requests_per_user=1, answer_tokens=16,
                             sweeps=2),
    cpu=ServingEngineSizes(profile="cpu", users=16, requests_per_user=1, answer_tokens=96,
                           sweeps=3),
    gpu=ServingEngineSizes(profile="gpu", users=32, requests_per_user=2, answer_tokens=256,
                           sweeps=3),
)

@dataclass(frozen=True)
class ServingEngineFigures(Figures):
    """Chapter 01's figures (``servelab.chapter.figure``)."""

    steady_tok_s_one_user: float = figure(
        "output tokens per second, one user, steady state", main=True)
    steady_tok_s_all_users: float = figure(
        "total output tokens per second, every user at once, steady state")
    user_tok_s_all_users: float = figure(
        "output tokens per second each user saw, every user at once, steady state")
    batching_gain: float = figure(
        "total steady output with every user over one user's (×)", main=True)
    share_kept: float = figure("share of the single user's steady speed each user kept (0-1)")
    ttft_ms_p50_one_user: float = figure("median time to first token, one user (ms)")
    ttft_ms_p50_all_users: float = figure("median time to first token, every user at once (ms)")
    generated_tokens_client: float = figure("generated tokens the client counted (tokens)")
    generated_tokens_server: float = figure(
        "generated tokens the server's /metrics counted (tokens)")


SERVING_ENGINE = Chapter(
    id="01-serving-engine",
    sizes=ENGINE_SIZES,
    figures_record=ServingEngineFigures,
)


@dataclass(frozen=True, kw_only=True)
class BatchingSizes(Knobs):
    """Chapter 02's knobs: the sweep over ``levels``, and waves against continuous batching."""

    levels: list[int]
    input_tokens: int
    answer_tokens: int
    sweeps: int
    wave_size: int
    wave_requests: int
    short_tokens: tuple[int, int]
    long_tokens: tuple[int, int]
    long_share: float


BATCHING_SIZES = Profiles(
    smoke=BatchingSizes(profile="smoke", levels=[1, 4], input_tokens=32, answer_tokens=16, sweeps=2,
                        wave_size=4, wave_requests=8, short_tokens=(4, 8), long_tokens=(24, 32),
                        long_share=0.25),
    cpu=BatchingSizes(profile="cpu", levels=[1, 4, 8, 16, 32], input_tokens=16, answer_tokens=64,
                      sweeps=3, wave_size=16, wave_requests=64, short_tokens=(2, 8),
                      long_tokens=(160, 192), long_share=0.125),
    # The waves' answers are half the lengths first chosen, (8, 64) and (256, 512): stepped
    # through t4_count's T4 step line, the same requests give continuous batching the same
    # 2.6-3.0x over waves in each pass, and the waves take half the time (issue #63)
    gpu=BatchingSizes(profile="gpu", levels=[1, 2, 4, 8, 16, 32, 64], input_tokens=128,
                      answer_tokens=256, sweeps=3, wave_size=32, wave_requests=256,
                      short_tokens=(4, 32), long_tokens=(128, 256), long_share=0.125),
)

@dataclass(frozen=True)
class ContinuousBatchingFigures(Figures):
    """Chapter 02's figures (``servelab.chapter.figure``)."""

    steady_tok_s_at_1: float = figure("output tokens per second, one stream, steady state")
    top_users: float = figure("streams at the top of the sweep (count)")
    steady_tok_s_at_top: float = figure("total output tokens per second at the top, steady state")
    user_tok_s_at_top: float = figure(
        "output tokens per second each stream saw at the top, steady state")
    batching_gain: float = figure("steady total at the top over one stream's (×)", main=True)
    share_kept: float = figure("share of the single-stream speed each stream kept at the top (0-1)")
    bandwidth_gb_s: float = figure("memory bandwidth measured before the server started (GB/s)")
    weight_read_ms: float = figure("time one read of all weights takes at that bandwidth (ms)")
    matmul_gflop_s: float = figure("matrix-multiply rate in the server's dtype (GFLOP/s)")
    step_fixed_ms: float = figure("fitted part of a decoding step every sequence shares (ms)")
    step_per_sequence_ms: float = figure("fitted cost each sequence adds to a step (ms)")
    step_fit_r_squared: float = figure("R² of the step-time fit (0-1)")
    predicted_gain_low: float = figure(
        "gain at the top predicted before the sweep from bandwidth and FLOP/s, low end of the "
        "window (×)")
    predicted_gain_high: float = figure("the same prediction, high end of the window (×)")
    waves_s: float = figure("the same requests in static waves: duration (s)")
    continuous_s: float = figure("the same requests batched continuously: duration (s)")
    continuous_speedup: float = figure("waves' duration over the continuous batch's (×)", main=True)
    idle_share_waves: float = figure("share of slot time idle in waves (0-1)")
    idle_share_continuous: float = figure("share of slot time idle, continuous batching (0-1)")


CONTINUOUS_BATCHING = Chapter(
    id="02-continuous-batching",
    sizes=BATCHING_SIZES,
    figures_record=ContinuousBatchingFigures,
)
