"""Chapter 03, paged attention.

Its sizes at each profile, the figures it records and the two the class report plots
(``servelab.chapter``).
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.chapter import Chapter, Figures, figure
from servelab.sizes import Knobs, Profiles


@dataclass(frozen=True, kw_only=True)
class PagingSizes(Knobs):
    """Chapter 03's knobs. Each load runs ``repeats`` times on its server, so the two times have
    ranges."""

    users: int
    prompt_tokens: int
    answer_tokens: int
    context_limit: int
    small_context: int
    repeats: int


SIZES = Profiles(
    smoke=PagingSizes(
        profile="smoke",
        users=4,
        prompt_tokens=120,
        answer_tokens=24,
        context_limit=1024,
        small_context=256,
        repeats=2,
    ),
    cpu=PagingSizes(
        profile="cpu",
        users=32,
        prompt_tokens=120,
        answer_tokens=96,
        context_limit=8192,
        small_context=2048,
        repeats=3,
    ),
    gpu=PagingSizes(
        profile="gpu",
        users=64,
        prompt_tokens=120,
        answer_tokens=180,
        context_limit=8192,
        small_context=2048,
        repeats=3,
    ),
)


@dataclass(frozen=True)
class PagedAttentionFigures(Figures):
    """Chapter 03's figures (``servelab.chapter.figure``)."""

    kv_bytes_per_token: float = figure("KV-cache bytes one token takes (bytes)")
    block_tokens: float = figure("tokens in one KV-cache block (tokens)")
    cache_tokens: float = figure("KV-cache tokens the engine reported (tokens)")
    requests_fit_reserved: float = figure(
        "requests that fit reserving the context limit each (count)"
    )
    requests_fit_paged: float = figure(
        "requests that fit in blocks allocated as needed (count)", main=True
    )
    running_max_roomy: float = figure("most sequences running at once in the roomy cache (count)")
    kv_usage_peak_roomy: float = figure("peak KV-cache usage in the roomy cache (0-1)", main=True)
    tokens_per_sequence_at_peak: float = figure(
        "KV tokens held per running sequence at that peak (tokens)"
    )
    running_max_cramped: float = figure(
        "most sequences running at once in a third of the room (count)"
    )
    waiting_max_cramped: float = figure(
        "most requests waiting at once in a third of the room (count)"
    )
    preemptions_cramped: float = figure("preemptions in a third of the room (count)")


CHAPTER = Chapter(
    id="03-paged-attention",
    sizes=SIZES,
    figures_record=PagedAttentionFigures,
)
