"""Chapter 07, throughput against latency.

Its sizes at each profile, the figures it records and the two the class report plots
(``servelab.chapter``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from servelab.chapter import Chapter, Figures, figure
from servelab.sizes import Knobs, Profiles


@dataclass(frozen=True, kw_only=True)
class DeploymentsSizes(Knobs):
    """Chapter 07's knobs. The sweep's rates are ``rate_percents`` of the small cap's knee as
    the closed loop predicts it, then ``top_percent`` of the large cap's as the device's model
    predicts it (``rate_grid.RateGrid``); every run sends ``requests_per_rate`` and every rate
    and the mix are served ``repeats`` times. Each run is counted in its steady middle, the
    first and last tenth of its requests left out (``servelab.bench.middle``)."""

    rate_percents: list[int]
    top_percent: int
    requests_per_rate: int
    input_tokens: int
    output_tokens: int
    interactive_seqs: int
    batch_seqs: int
    ttft_slo_ms: int
    tpot_slo_ms: int
    repeats: int
    mix: dict[str, float]


SIZES = Profiles(
    smoke=DeploymentsSizes(
        profile="smoke",
        rate_percents=[60, 115],
        top_percent=125,
        requests_per_rate=20,
        input_tokens=16,
        output_tokens=4,
        interactive_seqs=4,
        batch_seqs=16,
        ttft_slo_ms=1000,
        tpot_slo_ms=1000,
        repeats=2,
        mix=dict(chat_rate=2.0, chat_requests=3, batch_requests=4, batch_max_tokens=16),
    ),
    # cpu: 4-token answers keep a request short (about half a second with 4 slots busy here).
    # 2 x 50 requests a rate took 1,036 s on this 2-core machine (while shared), past the 240 s
    # a chapter may take here, so a run sends 25: the 20 a steady middle needs
    # (bench.middle.MIDDLE_LEAST) and the tenth left out at each end.
    cpu=DeploymentsSizes(
        profile="cpu",
        rate_percents=[60, 85, 115],
        top_percent=125,
        requests_per_rate=25,
        input_tokens=16,
        output_tokens=4,
        interactive_seqs=4,
        batch_seqs=16,
        ttft_slo_ms=1000,
        tpot_slo_ms=250,
        repeats=2,
        mix=dict(chat_rate=2.0, chat_requests=6, batch_requests=8, batch_max_tokens=48),
    ),
    # gpu: 32-token answers put the small cap's knee near 16 req/s on a T4 and the large cap's
    # 32 slots near 35. The batch job of 64 64-token answers holds the small cap's 8 slots for
    # 8 rounds, 5.2-7.4 s by the T4 step line of env/gpu_contract/t4_count.py, past the 4 s its
    # 16 chat requests take to arrive (on average, at 4 a second), so on one server the chat
    # still queues behind the job (issue #63 item 2: 32 chat requests beside 64 of 128 tokens
    # took 78-105 s of mixed traffic by that count, these 34-45 s; t4-wait Colab 9.6-10.6 ->
    # 8.9-9.6 min).
    gpu=DeploymentsSizes(
        profile="gpu",
        rate_percents=[60, 85, 115],
        top_percent=125,
        requests_per_rate=50,
        input_tokens=128,
        output_tokens=32,
        interactive_seqs=8,
        batch_seqs=32,
        ttft_slo_ms=1000,
        tpot_slo_ms=100,
        repeats=2,
        mix=dict(chat_rate=4.0, chat_requests=16, batch_requests=64, batch_max_tokens=64),
    ),
)


@dataclass(frozen=True)
class ThroughputVsLatencyFigures(Figures):
    """Chapter 07's figures (``servelab.chapter.figure``)."""

    peak_tok_s_interactive: float = figure(
        "highest output tokens per second, the small max_num_seqs", main=True
    )
    peak_tok_s_batch: float = figure(
        "highest output tokens per second, the large max_num_seqs", main=True
    )
    ttft_ms_p99_interactive_at: Mapping[int, float] = figure(
        "99th-percentile time to first token at {n}% of the small cap's predicted knee, small "
        "max_num_seqs, steady middle (ms)",
        knob="rate_percents",
    )
    ttft_ms_p99_batch_at: Mapping[int, float] = figure(
        "99th-percentile time to first token at {n}% of the small cap's predicted knee, large "
        "max_num_seqs, steady middle (ms)",
        knob="rate_percents",
    )
    goodput_req_s_interactive_at: Mapping[int, float] = figure(
        "requests per second within the SLO at {n}% of the small cap's predicted knee, small "
        "max_num_seqs, steady middle",
        knob="rate_percents",
    )
    goodput_req_s_batch_at: Mapping[int, float] = figure(
        "requests per second within the SLO at {n}% of the small cap's predicted knee, large "
        "max_num_seqs, steady middle",
        knob="rate_percents",
    )
    served_req_s_interactive_top: float = figure(
        "requests per second the small max_num_seqs finished at the top rate, steady middle"
    )
    served_req_s_batch_top: float = figure(
        "requests per second the large max_num_seqs finished at the top rate, steady middle"
    )
    little_in_flight: float = figure(
        "requests in the server at once by Little's law, arrival rate x mean request time, one "
        "run of the small max_num_seqs"
    )
    engine_in_flight: float = figure(
        "requests running or waiting as the engine counted them, averaged over the same run's "
        "/metrics samples"
    )
    slot_rate_req_s: float = figure(
        "requests per second the small max_num_seqs can finish by Little's law, slots over a "
        "request's time with all busy, predicted before the sweep"
    )


CHAPTER = Chapter(
    id="07-throughput-vs-latency",
    sizes=SIZES,
    figures_record=ThroughputVsLatencyFigures,
)
