"""Chapter 01, a serving engine.

Its sizes at each profile and its figures (``servelab.chapter``).
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


SIZES = Profiles(
    smoke=ServingEngineSizes(
        profile="smoke", users=4, requests_per_user=1, answer_tokens=16, sweeps=2
    ),
    cpu=ServingEngineSizes(
        profile="cpu", users=16, requests_per_user=1, answer_tokens=96, sweeps=3
    ),
    gpu=ServingEngineSizes(
        profile="gpu", users=32, requests_per_user=2, answer_tokens=256, sweeps=3
    ),
)


@dataclass(frozen=True)
class ServingEngineFigures(Figures):
    """Chapter 01's figures (``servelab.chapter.figure``)."""

    steady_tok_s_one_user: float = figure(
        "output tokens per second, one user, steady state", main=True
    )
    steady_tok_s_all_users: float = figure(
        "total output tokens per second, every user at once, steady state"
    )
    user_tok_s_all_users: float = figure(
        "output tokens per second each user saw, every user at once, steady state"
    )
    batching_gain: float = figure(
        "total steady output with every user over one user's (×)", main=True
    )
    share_kept: float = figure("share of the single user's steady speed each user kept (0-1)")
    ttft_ms_p50_one_user: float = figure("median time to first token, one user (ms)")
    ttft_ms_p50_all_users: float = figure("median time to first token, every user at once (ms)")
    generated_tokens_client: float = figure("generated tokens the client counted (tokens)")
    generated_tokens_server: float = figure(
        "generated tokens the server's /metrics counted (tokens)"
    )


CHAPTER = Chapter(
    id="01-serving-engine",
    sizes=SIZES,
    figures_record=ServingEngineFigures,
)
