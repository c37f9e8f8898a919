"""What one open-loop run of chapter 07's opening says about the serving metrics: percentiles,
Little's law against the engine's own count of requests in flight, and the SLO's parts.

``MetricsFindings`` computes every figure; ``metrics_words`` words it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from servelab.bench.frames import Result
from servelab.bench.metrics import TTFT_MS_P50, TTFT_MS_P99, meets_slo
from servelab.lessons.throughput_vs_latency.thresholds import (
    LITTLE_AGREES,
    LITTLE_SAMPLING,
    TAIL_REQUESTS,
)


def _count_error(samples: np.ndarray) -> float:
    """The standard error of the mean of ``samples`` of a count of requests in flight. Their
    variance is taken as at least their mean, a Poisson count's, since a few samples can
    happen to agree; NaN without samples."""
    if not len(samples):
        return math.nan
    variance = samples.var(ddof=1) if len(samples) > 1 else 0.0
    return math.sqrt(max(float(variance), float(samples.mean())) / len(samples))


@dataclass(frozen=True)
class MetricsFindings:
    """What one open-loop run says about the metrics (times in seconds unless named)."""

    requests: int
    arrival_rate: float  # the arrivals this run actually drew, per second
    window_s: float  # from the first send to the last token of the run
    mean_latency_s: float  # W: the mean whole-request time, send to last token
    engine_in_flight: float  # the engine's running + waiting, averaged over its samples
    engine_samples: int
    engine_error: float  # the standard error of that average (NaN: no samples)
    latency_error_s: float  # the standard error of the mean whole-request time
    ttft_p50_ms: float
    ttft_p99_ms: float
    ttft_worst_ms: float
    met: int  # requests within every part of the SLO
    missed_ttft: int
    missed_tpot: int
    slo: Mapping[str, float]

    @classmethod
    def of(cls, result: Result, slo: Mapping[str, float]) -> MetricsFindings:
        requests = result.requests
        done = requests[requests["ok"].astype(bool)]
        if len(done) < 2:
            raise ValueError(f"the metrics need two completed requests or more: {result}")
        sent = np.sort(done["sent_s"].to_numpy())
        span = float(sent[-1] - sent[0])
        server = result.server
        inside = server[(server["t_s"] >= sent[0]) & (server["t_s"] <= done["end_s"].max())]
        counts = (inside["running"] + inside["waiting"]).dropna()
        latencies = done["e2e_s"].to_numpy(dtype=float)
        late_ttft = done["ttft_s"] * 1000.0 > slo.get("ttft", math.inf)
        late_tpot = done["tpot_s"].fillna(0.0) * 1000.0 > slo.get("tpot", math.inf)
        summary = result.summary()
        return cls(
            requests=len(done),
            arrival_rate=(len(sent) - 1) / span if span > 0 else math.nan,
            window_s=float(done["end_s"].max() - sent[0]),
            mean_latency_s=float(done["e2e_s"].mean()),
            engine_in_flight=float(counts.mean()) if len(counts) else math.nan,
            engine_samples=len(counts),
            engine_error=_count_error(counts.to_numpy(dtype=float)),
            latency_error_s=float(latencies.std(ddof=1) / math.sqrt(len(latencies))),
            ttft_p50_ms=float(summary[TTFT_MS_P50]),
            ttft_p99_ms=float(summary[TTFT_MS_P99]),
            ttft_worst_ms=float(done["ttft_s"].max()) * 1000.0,
            met=sum(meets_slo(record, slo) for record in result.records if record.ok),
            missed_ttft=int(late_ttft.sum()),
            missed_tpot=int(late_tpot.sum()),
            slo=dict(slo),
        )

    @property
    def passing_rate(self) -> float:
        """λ over the run's window: requests that went through it per second. It equals the
        arrival rate when the run is steady, and falls below it when a queue grows."""
        return self.requests / self.window_s

    @property
    def steady(self) -> bool:
        """Whether requests left about as fast as they arrived (no queue growing all run)."""
        return self.arrival_rate <= (1 + LITTLE_AGREES) * self.passing_rate

    @property
    def little_in_flight(self) -> float:
        """L = λ × W: how many requests were in the server at once on average over the run's
        window, by Little's law from the client's clock."""
        return self.passing_rate * self.mean_latency_s

    @property
    def little_gap(self) -> float:
        """How far λ × W lies from the engine's own average count, either way."""
        return abs(self.little_in_flight - self.engine_in_flight)

    @property
    def little_gap_share(self) -> float:
        """``little_gap`` as a share of the engine's count (of one request, below one)."""
        return self.little_gap / max(self.engine_in_flight, 1.0)

    @property
    def outside_engine_s(self) -> float:
        """(L − the engine's count) ÷ λ: the time per request the client saw and the engine did
        not count, by the same law."""
        return (self.little_in_flight - self.engine_in_flight) / self.passing_rate

    @property
    def outside_engine_ms(self) -> float:
        return self.outside_engine_s * 1000

    @property
    def gap_error(self) -> float:
        """The standard error of λ × W minus the engine's average: both sides' errors."""
        return math.hypot(self.engine_error, self.passing_rate * self.latency_error_s)

    @property
    def beyond_sampling(self) -> bool:
        """Whether λ × W and the engine's average differ by more than ``LITTLE_SAMPLING``
        standard errors: only then does the run tell the two apart."""
        return self.little_gap > LITTLE_SAMPLING * self.gap_error

    @property
    def client_saw_more(self) -> bool:
        """Whether the law counts more in flight than the engine did (time outside its count)."""
        return self.outside_engine_s > 0

    @property
    def little_agrees(self) -> bool | None:
        """Whether λ × W matches the engine's own average count (None: no samples to hold it
        against)."""
        if self.engine_samples == 0 or math.isnan(self.engine_in_flight):
            return None
        return self.little_gap <= LITTLE_AGREES * max(self.engine_in_flight, 1.0)

    @property
    def attainment(self) -> float:
        return self.met / self.requests

    @property
    def all_met(self) -> bool:
        return self.met == self.requests

    @property
    def tail_described(self) -> bool:
        """Whether the run had enough requests for its p99 to describe a tail."""
        return self.requests >= TAIL_REQUESTS
