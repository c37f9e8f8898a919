"""Chapter 06, chunked prefill.

Its sizes at each profile, the figures it records and the two the class report plots
(``servelab.chapter``).
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.chapter import Chapter, Figures, figure
from servelab.sizes import Knobs, Profiles


@dataclass(frozen=True, kw_only=True)
class ChunkingSizes(Knobs):
    """Chapter 06's knobs. ``spacing_s`` is the least time between a run's documents: the page
    spaces them further, from how long one takes alone, and the users decode long enough to
    outlast them. Each server is started ``runs`` times, the two in turn, and measured once a
    start."""

    users: int
    user_tokens: int
    document_tokens: int
    pause_ms: int
    arrival_s: float
    documents: int
    spacing_s: float
    max_model_len: int
    runs: int


SIZES = Profiles(
    smoke=ChunkingSizes(
        profile="smoke",
        users=2,
        user_tokens=64,
        document_tokens=160,
        pause_ms=400,
        arrival_s=0.5,
        documents=2,
        spacing_s=0.4,
        max_model_len=1024,
        runs=2,
    ),
    cpu=ChunkingSizes(
        profile="cpu",
        users=4,
        user_tokens=200,
        document_tokens=600,
        pause_ms=400,
        arrival_s=1.0,
        documents=2,
        spacing_s=3.0,
        max_model_len=8192,
        runs=3,
    ),
    gpu=ChunkingSizes(
        profile="gpu",
        users=16,
        user_tokens=512,
        document_tokens=2000,
        pause_ms=40,
        arrival_s=1.5,
        documents=3,
        spacing_s=1.5,
        max_model_len=4096,
        runs=3,
    ),
)


@dataclass(frozen=True)
class ChunkedPrefillFigures(Figures):
    """Chapter 06's figures (``servelab.chapter.figure``)."""

    prefill_tok_s: float = figure("prefill rate of the document alone, fixed cost apart (tokens/s)")
    step_budget_tokens: float = figure("tokens per step the chunked run allowed (tokens)")
    chunks: float = figure("chunks the document was read in (count)")
    longest_pause_ms_one_step: float = figure(
        "users' longest gap, document in one step (ms)", main=True
    )
    longest_pause_ms_chunked: float = figure(
        "users' longest gap, document in chunks (ms)", main=True
    )
    itl_ms_p50_one_step: float = figure("users' median gap between tokens, one step (ms)")
    itl_ms_p99_one_step: float = figure("users' 99th-percentile gap, one step (ms)")
    itl_ms_p99_chunked: float = figure("users' 99th-percentile gap, chunks (ms)")
    document_ttft_s_one_step: float = figure("the document's time to first token, one step (s)")
    document_ttft_s_chunked: float = figure("the document's time to first token, chunks (s)")


CHAPTER = Chapter(
    id="06-chunked-prefill",
    sizes=SIZES,
    figures_record=ChunkedPrefillFigures,
)
