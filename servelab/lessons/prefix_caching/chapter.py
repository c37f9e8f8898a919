"""Chapter 04, prefix caching.

Its sizes at each profile, the figures it records and the two the class report plots
(``servelab.chapter``).
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.chapter import Chapter, Figures, figure
from servelab.sizes import Knobs, Profiles


@dataclass(frozen=True, kw_only=True)
class PrefixSizes(Knobs):
    """Chapter 04's knobs. The load (users x requests_per_user) runs load_runs times on each
    server."""

    prefix_tokens: int
    question_tokens: int
    answer_tokens: int
    users: int
    requests_per_user: int
    probe_requests: int
    samples: int
    sample_prompt_tokens: int
    sample_tokens: int
    load_runs: int


SIZES = Profiles(
    smoke=PrefixSizes(
        profile="smoke",
        prefix_tokens=384,
        question_tokens=16,
        answer_tokens=4,
        users=2,
        requests_per_user=1,
        probe_requests=2,
        samples=4,
        sample_prompt_tokens=384,
        sample_tokens=16,
        load_runs=2,
    ),
    cpu=PrefixSizes(
        profile="cpu",
        prefix_tokens=2000,
        question_tokens=16,
        answer_tokens=16,
        users=2,
        requests_per_user=2,
        probe_requests=4,
        samples=4,
        sample_prompt_tokens=512,
        sample_tokens=64,
        load_runs=3,
    ),
    gpu=PrefixSizes(
        profile="gpu",
        prefix_tokens=2000,
        question_tokens=16,
        answer_tokens=16,
        users=16,
        requests_per_user=4,
        probe_requests=4,
        samples=4,
        sample_prompt_tokens=2000,
        sample_tokens=128,
        load_runs=3,
    ),
)


@dataclass(frozen=True)
class PrefixCachingFigures(Figures):
    """Chapter 04's figures (``servelab.chapter.figure``)."""

    prompt_tokens_computed_cached: float = figure(
        "prompt tokens computed per request after the first, caching on (tokens)"
    )
    prompt_tokens_computed_uncached: float = figure(
        "prompt tokens computed per request after the first, caching off (tokens)"
    )
    ttft_ms_p50_cached: float = figure(
        "median time to first token, shared prefix, caching on (ms)", main=True
    )
    ttft_ms_p50_uncached: float = figure(
        "median time to first token, shared prefix, caching off (ms)", main=True
    )
    request_per_s_cached: float = figure("requests per second, caching on (req/s)")
    request_per_s_uncached: float = figure("requests per second, caching off (req/s)")
    hit_rate_cached: float = figure("prefix-cache hit rate the server counted, caching on (0-1)")
    peak_blocks_samples_cached: float = figure(
        "peak KV blocks held by n parallel samples, caching on (blocks)"
    )
    peak_blocks_identical_cached: float = figure(
        "peak KV blocks held by identical prompts, caching on (blocks)"
    )
    peak_blocks_different_cached: float = figure(
        "peak KV blocks held by different prompts, caching on (blocks)"
    )
    peak_blocks_samples_uncached: float = figure(
        "peak KV blocks held by n parallel samples, caching off (blocks)"
    )
    expected_blocks_shared: float = figure(
        "blocks the samples need if they share the prompt (blocks)"
    )
    expected_blocks_unshared: float = figure(
        "blocks the samples need if each keeps its own (blocks)"
    )


CHAPTER = Chapter(
    id="04-prefix-caching",
    sizes=SIZES,
    figures_record=PrefixCachingFigures,
)
