"""Chapter 02, continuous batching.

Its sizes at each profile and its figures (``servelab.chapter``).
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.chapter import Chapter, Figures, figure
from servelab.sizes import Knobs, Profiles


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


SIZES = Profiles(
    smoke=BatchingSizes(
        profile="smoke",
        levels=[1, 4],
        input_tokens=32,
        answer_tokens=16,
        sweeps=2,
        wave_size=4,
        wave_requests=8,
        short_tokens=(4, 8),
        long_tokens=(24, 32),
        long_share=0.25,
    ),
    cpu=BatchingSizes(
        profile="cpu",
        levels=[1, 4, 8, 16, 32],
        input_tokens=16,
        answer_tokens=64,
        sweeps=3,
        wave_size=16,
        wave_requests=64,
        short_tokens=(2, 8),
        long_tokens=(160, 192),
        long_share=0.125,
    ),
    # The waves' answers are half the lengths first chosen, (8, 64) and (256, 512): stepped
    # through t4_count's T4 step line, the same requests give continuous batching the same
    # 2.6-3.0x over waves in each pass, and the waves take half the time (issue #63). Six waves
    # a pass, not eight (issue #63 item 2): stepped the same way, each pass's 192 requests
    # (24 long) give 2.8-3.0x, and the chapter's t4-wait falls from 8.6-10.1 to 8.1-9.4 min
    gpu=BatchingSizes(
        profile="gpu",
        levels=[1, 2, 4, 8, 16, 32, 64],
        input_tokens=128,
        answer_tokens=256,
        sweeps=3,
        wave_size=32,
        wave_requests=192,
        short_tokens=(4, 32),
        long_tokens=(128, 256),
        long_share=0.125,
    ),
)


@dataclass(frozen=True)
class ContinuousBatchingFigures(Figures):
    """Chapter 02's figures (``servelab.chapter.figure``)."""

    steady_tok_s_at_1: float = figure("output tokens per second, one stream, steady state")
    top_users: float = figure("streams at the top of the sweep (count)")
    steady_tok_s_at_top: float = figure("total output tokens per second at the top, steady state")
    user_tok_s_at_top: float = figure(
        "output tokens per second each stream saw at the top, steady state"
    )
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
        "window (×)"
    )
    predicted_gain_high: float = figure("the same prediction, high end of the window (×)")
    waves_s: float = figure("the same requests in static waves: duration (s)")
    continuous_s: float = figure("the same requests batched continuously: duration (s)")
    continuous_speedup: float = figure("waves' duration over the continuous batch's (×)", main=True)
    idle_share_waves: float = figure("share of slot time idle in waves (0-1)")
    idle_share_continuous: float = figure("share of slot time idle, continuous batching (0-1)")


CHAPTER = Chapter(
    id="02-continuous-batching",
    sizes=SIZES,
    figures_record=ContinuousBatchingFigures,
)
