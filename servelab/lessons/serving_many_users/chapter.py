"""Chapter 00, serving many users: the lesson in one notebook.

Its sizes at each profile, the figures it records and the two the class report plots
(``servelab.chapter``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from servelab.chapter import Chapter, Figures, figure
from servelab.sizes import Knobs, Profiles


@dataclass(frozen=True, kw_only=True)
class OverviewSizes(Knobs):
    """Chapter 00's knobs: the crowd's levels, the shared prefix, a long document among decoding
    users."""

    levels: list[int]
    requests_per_user: int
    input_tokens: int
    answer_tokens: int
    sweeps: int
    prefix_tokens: int
    question_tokens: int
    probe_requests: int
    decode_users: int
    user_tokens: int
    document_tokens: int
    arrival_s: float
    documents: int
    spacing_s: float
    chunk_pause_ms: int
    runs: int


SIZES = Profiles(
    smoke=OverviewSizes(
        profile="smoke",
        levels=[1, 4],
        requests_per_user=1,
        input_tokens=32,
        answer_tokens=16,
        sweeps=2,
        prefix_tokens=500,
        question_tokens=16,
        probe_requests=3,
        decode_users=2,
        user_tokens=96,
        document_tokens=600,
        arrival_s=0.5,
        documents=2,
        spacing_s=0.5,
        chunk_pause_ms=250,
        runs=2,
    ),
    cpu=OverviewSizes(
        profile="cpu",
        levels=[1, 4, 8, 16, 32],
        requests_per_user=1,
        input_tokens=32,
        answer_tokens=48,
        sweeps=3,
        prefix_tokens=2000,
        question_tokens=16,
        probe_requests=4,
        decode_users=4,
        user_tokens=160,
        document_tokens=1200,
        arrival_s=1.5,
        documents=2,
        spacing_s=2.5,
        chunk_pause_ms=250,
        runs=3,
    ),
    gpu=OverviewSizes(
        profile="gpu",
        levels=[1, 2, 4, 8, 16, 32],
        requests_per_user=2,
        input_tokens=64,
        answer_tokens=128,
        sweeps=3,
        prefix_tokens=2000,
        question_tokens=16,
        probe_requests=4,
        decode_users=16,
        user_tokens=768,
        document_tokens=7000,
        arrival_s=1.5,
        documents=3,
        spacing_s=1.5,
        chunk_pause_ms=50,
        runs=3,
    ),
)


@dataclass(frozen=True)
class ServingManyUsersFigures(Figures):
    """Chapter 00's figures (``servelab.chapter.figure``)."""

    total_tok_s_at: Mapping[int, float] = figure(
        "output tokens per second of the whole run, {n} users at once", knob="levels"
    )
    user_tok_s_at: Mapping[int, float] = figure(
        "output tokens per second each user saw, {n} users at once", knob="levels"
    )
    batching_gain: float = figure(
        "total output at the top concurrency over one user's (×)", main=True
    )
    share_kept: float = figure(
        "share of the single-stream speed each batched user kept (0-1)", main=True
    )
    prompt_tokens_computed_with_reuse: float = figure(
        "prompt tokens computed per request after the first, prefix reuse on (tokens)"
    )
    prompt_tokens_computed_without_reuse: float = figure(
        "prompt tokens computed per request after the first, prefix reuse off (tokens)"
    )
    ttft_ms_with_reuse: float = figure("time to first token after the first request, reuse on (ms)")
    ttft_ms_without_reuse: float = figure(
        "time to first token after the first request, reuse off (ms)"
    )
    longest_pause_ms_one_piece: float = figure(
        "users' longest gap between tokens, the long prompt prefilled in one step (ms)"
    )
    longest_pause_ms_sliced: float = figure(
        "users' longest gap between tokens, the long prompt prefilled in slices (ms)"
    )
    document_ttft_s_one_piece: float = figure("the long prompt's time to first token, one step (s)")
    document_ttft_s_sliced: float = figure("the long prompt's time to first token, in slices (s)")
    step_budget_tokens: float = figure("tokens per step the sliced run allowed (tokens)")


CHAPTER = Chapter(
    id="00-serving-many-users",
    sizes=SIZES,
    figures_record=ServingManyUsersFigures,
)
