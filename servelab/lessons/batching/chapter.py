"""Chapters 01, the serving engine, and 02, continuous batching: both teach batching.

The sizes of each at each profile, the figures it records and the two the class report plots
(``servelab.chapter``).
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.chapter import Chapter, Figure
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

SERVING_ENGINE = Chapter(
    id="01-serving-engine",
    sizes=ENGINE_SIZES,
    figures={
        "steady_tok_s_one_user": Figure("output tokens per second, one user, steady state"),
        "steady_tok_s_all_users": Figure("total output tokens per second, every user at once, "
                                         "steady state"),
        "user_tok_s_all_users": Figure("output tokens per second each user saw, every user at "
                                       "once, steady state"),
        "batching_gain": Figure("total steady output with every user over one user's (×)"),
        "share_kept": Figure("share of the single user's steady speed each user kept (0-1)"),
        "ttft_ms_p50_one_user": Figure("median time to first token, one user (ms)"),
        "ttft_ms_p50_all_users": Figure("median time to first token, every user at once (ms)"),
        "generated_tokens_client": Figure("generated tokens the client counted (tokens)"),
        "generated_tokens_server": Figure("generated tokens the server's /metrics counted "
                                          "(tokens)"),
    },
    main_figures=("batching_gain", "steady_tok_s_one_user"),
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

CONTINUOUS_BATCHING = Chapter(
    id="02-continuous-batching",
    sizes=BATCHING_SIZES,
    figures={
        "steady_tok_s_at_1": Figure("output tokens per second, one stream, steady state"),
        "top_users": Figure("streams at the top of the sweep (count)"),
        "steady_tok_s_at_top": Figure("total output tokens per second at the top, steady state"),
        "user_tok_s_at_top": Figure("output tokens per second each stream saw at the top, "
                                    "steady state"),
        "batching_gain": Figure("steady total at the top over one stream's (×)"),
        "share_kept": Figure("share of the single-stream speed each stream kept at the top "
                             "(0-1)"),
        "bandwidth_gb_s": Figure("memory bandwidth measured before the server started (GB/s)"),
        "weight_read_ms": Figure("time one read of all weights takes at that bandwidth (ms)"),
        "matmul_gflop_s": Figure("matrix-multiply rate in the server's dtype (GFLOP/s)"),
        "step_fixed_ms": Figure("fitted part of a decoding step every sequence shares (ms)"),
        "step_per_sequence_ms": Figure("fitted cost each sequence adds to a step (ms)"),
        "step_fit_r_squared": Figure("R² of the step-time fit (0-1)"),
        "predicted_gain_low": Figure("gain at the top predicted before the sweep from bandwidth "
                                     "and FLOP/s, low end of the window (×)"),
        "predicted_gain_high": Figure("the same prediction, high end of the window (×)"),
        "waves_s": Figure("the same requests in static waves: duration (s)"),
        "continuous_s": Figure("the same requests batched continuously: duration (s)"),
        "continuous_speedup": Figure("waves' duration over the continuous batch's (×)"),
        "idle_share_waves": Figure("share of slot time idle in waves (0-1)"),
        "idle_share_continuous": Figure("share of slot time idle, continuous batching (0-1)"),
    },
    main_figures=("batching_gain", "continuous_speedup"),
)
