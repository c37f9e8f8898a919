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
    """Chapter 07's knobs. ``requests_per_rate[i]`` requests at ``rates[i]``; every rate and the
    mix are served ``repeats`` times. The top rate offers more requests at once than
    ``interactive_seqs``."""

    rates: list[int]
    requests_per_rate: list[int]
    input_tokens: int
    output_tokens: int
    metrics_rate: float
    metrics_requests: int
    interactive_seqs: int
    batch_seqs: int
    ttft_slo_ms: int
    tpot_slo_ms: int
    repeats: int
    mix: dict[str, float]


SIZES = Profiles(
    smoke=DeploymentsSizes(profile="smoke", rates=[2, 8], requests_per_rate=[2, 4], input_tokens=32,
                           output_tokens=8, metrics_rate=4, metrics_requests=6, interactive_seqs=4,
                           batch_seqs=64, ttft_slo_ms=1000, tpot_slo_ms=1000, repeats=2,
                           mix=dict(chat_rate=2.0, chat_requests=3, batch_requests=4,
                                    batch_max_tokens=16)),
    # cpu: 4 slots of ~1 s requests finish ~4 req/s, so 6 req/s already queues the small cap.
    cpu=DeploymentsSizes(profile="cpu", rates=[2, 6, 16], requests_per_rate=[4, 12, 12],
                         input_tokens=64, output_tokens=24, metrics_rate=1.5, metrics_requests=24,
                         interactive_seqs=4, batch_seqs=64, ttft_slo_ms=1000, tpot_slo_ms=250,
                         repeats=3,
                         mix=dict(chat_rate=2.0, chat_requests=6, batch_requests=8,
                                  batch_max_tokens=48)),
    # gpu: two repeats, and a batch job of 64 128-token answers, which still holds the small cap's
    # 8 slots for 8 rounds (about 14 s on a T4), past the 8 s its chat requests take to arrive:
    # under ten minutes on a free T4 (env/gpu_contract/t4_count.py), where 3 x 96 x 256 counted 14
    gpu=DeploymentsSizes(profile="gpu", rates=[2, 8, 32], requests_per_rate=[32, 64, 128],
                         input_tokens=128, output_tokens=128, metrics_rate=2, metrics_requests=128,
                         interactive_seqs=8, batch_seqs=128, ttft_slo_ms=1000, tpot_slo_ms=100,
                         repeats=2,
                         mix=dict(chat_rate=4.0, chat_requests=32, batch_requests=64,
                                  batch_max_tokens=128)),
)

@dataclass(frozen=True)
class ThroughputVsLatencyFigures(Figures):
    """Chapter 07's figures (``servelab.chapter.figure``)."""

    peak_tok_s_interactive: float = figure(
        "highest output tokens per second, the small max_num_seqs", main=True)
    peak_tok_s_batch: float = figure(
        "highest output tokens per second, the large max_num_seqs", main=True)
    ttft_ms_p99_interactive_at: Mapping[int, float] = figure(
        "99th-percentile time to first token at {n} req/s, small max_num_seqs (ms)", knob="rates")
    ttft_ms_p99_batch_at: Mapping[int, float] = figure(
        "99th-percentile time to first token at {n} req/s, large max_num_seqs (ms)", knob="rates")
    goodput_req_s_interactive_at: Mapping[int, float] = figure(
        "requests per second within the SLO at {n} req/s, small max_num_seqs", knob="rates")
    goodput_req_s_batch_at: Mapping[int, float] = figure(
        "requests per second within the SLO at {n} req/s, large max_num_seqs", knob="rates")
    little_in_flight: float = figure(
        "requests in the server at once by Little's law, arrival rate x mean request time, one "
        "run of the small max_num_seqs")
    engine_in_flight: float = figure(
        "requests running or waiting as the engine counted them, averaged over the same run's "
        "/metrics samples")
    slot_rate_req_s: float = figure(
        "requests per second the small max_num_seqs can finish by Little's law, slots over a "
        "request's time with all busy, predicted before the sweep")


CHAPTER = Chapter(
    id="07-throughput-vs-latency",
    sizes=SIZES,
    figures_record=ThroughputVsLatencyFigures,
)
