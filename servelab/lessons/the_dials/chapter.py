"""Chapter 05, the serving dials.

Its sizes at each profile, the figures it records and the two the class report plots
(``servelab.chapter``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from servelab.chapter import Chapter, Figures, figure
from servelab.sizes import Knobs, Profiles


@dataclass(frozen=True, kw_only=True)
class DialsSizes(Knobs):
    """Chapter 05's knobs. ``burst`` is above the largest level in every profile, so requests
    queue at each level."""

    sweeps: int
    levels: list[int]
    burst: int
    input_tokens: int
    output_tokens: int
    tp_users: int
    cache_tokens: int
    long_context: int
    refused_context: int
    short_requests: int
    long_requests: int
    short_input_tokens: int
    long_input_tokens: int
    mixed_output_tokens: int


SIZES = Profiles(
    smoke=DialsSizes(
        profile="smoke",
        sweeps=2,
        levels=[1, 4],
        burst=8,
        input_tokens=32,
        output_tokens=8,
        tp_users=4,
        cache_tokens=1536,
        long_context=1024,
        refused_context=2048,
        short_requests=4,
        long_requests=1,
        short_input_tokens=32,
        long_input_tokens=600,
        mixed_output_tokens=160,
    ),
    cpu=DialsSizes(
        profile="cpu",
        sweeps=3,
        levels=[1, 4, 12, 24],
        burst=32,
        input_tokens=32,
        output_tokens=12,
        tp_users=16,
        cache_tokens=2560,
        long_context=2048,
        refused_context=4096,
        short_requests=8,
        long_requests=2,
        short_input_tokens=32,
        long_input_tokens=600,
        mixed_output_tokens=128,
    ),
    # The burst's prompts and answers a quarter of the lengths first chosen, (128, 64): a
    # burst's prompt reading and its decoding shrink alike, so under t4_count's T4 step line
    # every ratio the sweep reads (output, p99 time per token and p99 from arrival, 64 against
    # 1 sequence a step) is what it was, but for the burst's 0.1 s of arrivals, and the
    # one-at-a-time level, 96 answers in turn, takes a quarter of the time; the cpu profile
    # shows the same with 12-token answers. t4-wait
    # (issue #63 item 2): Colab 10.8-12.9 -> 7.9-8.7 min, Kaggle 13.6-15.8 -> 10.7-11.4
    gpu=DialsSizes(
        profile="gpu",
        sweeps=3,
        levels=[1, 4, 16, 64],
        burst=96,
        input_tokens=32,
        output_tokens=16,
        tp_users=16,
        cache_tokens=2560,
        long_context=2048,
        refused_context=4096,
        short_requests=8,
        long_requests=2,
        short_input_tokens=32,
        long_input_tokens=600,
        mixed_output_tokens=160,
    ),
)


@dataclass(frozen=True)
class TheDialsFigures(Figures):
    """Chapter 05's figures (``servelab.chapter.figure``)."""

    output_tok_s_at: Mapping[int, float] = figure(
        "output tokens per second of the burst, max_num_seqs={n}", knob="levels"
    )
    tpot_ms_p99_at: Mapping[int, float] = figure(
        "99th-percentile time per output token, max_num_seqs={n} (ms)", knob="levels"
    )
    latency_s_p99_at: Mapping[int, float] = figure(
        "99th-percentile arrival to last token, max_num_seqs={n} (s)", knob="levels"
    )
    small_cache_tokens: float = figure("KV-cache tokens of the small server (tokens)")
    preemptions_short_alone: float = figure("preemptions, short requests alone (count)")
    preemptions_beside_long: float = figure("preemptions, short requests beside long ones (count)")
    ttft_ms_p99_short_alone: float = figure(
        "99th-percentile time to first token, short requests alone (ms)", main=True
    )
    ttft_ms_p99_beside_long: float = figure(
        "99th-percentile time to first token, short requests beside long ones (ms)", main=True
    )


CHAPTER = Chapter(
    id="05-the-dials",
    sizes=SIZES,
    figures_record=TheDialsFigures,
)
