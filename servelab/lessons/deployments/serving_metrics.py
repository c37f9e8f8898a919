"""Chapter 07's opening: the serving metrics themselves, read off one run on this device.

TTFT, TPOT, ITL, E2E and goodput are defined once, in ``servelab.bench.metrics``, as vLLM's own
benchmark defines them. This module adds what the page shows about them: the percentiles beside
the mean and the worst request, Little's law held against the engine's own count of requests in
flight, and which part of the SLO each late request missed. ``MetricsFindings`` holds the
numbers; ``metrics_text`` only words them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from servelab.bench.frames import Result
from servelab.bench.metrics import PERCENTILES, TTFT_MS_P50, TTFT_MS_P99, meets_slo
from servelab.lessons.thresholds import LITTLE_AGREES, LITTLE_SAMPLING, TAIL_REQUESTS

METRIC_NAMES = {"ttft": "time to first token", "tpot": "time per output token",
                "itl": "gap between tokens", "e2e": "whole request"}


def percentile_table(result: Result, slo: Mapping[str, float]) -> pd.DataFrame:
    """One row per metric (ms): mean, p50, p90, p99 (from the run's summary), the worst one
    and the SLO limit where one was set."""
    summary, requests = result.summary(), result.requests
    done = requests[requests["ok"].astype(bool)]
    gaps = result.tokens.loc[result.tokens["request"].isin(done["request"]), "itl_s"]
    worst = {"ttft": done["ttft_s"].max(), "tpot": done["tpot_s"].max(),
             "e2e": done["e2e_s"].max(), "itl": gaps.max()}
    rows = []
    for metric, label in METRIC_NAMES.items():
        row = {"metric": label, "mean (ms)": summary[f"{metric}_ms_mean"]}
        row |= {f"p{p} (ms)": summary[f"{metric}_ms_p{p}"] for p in PERCENTILES}
        row["worst (ms)"] = float(worst[metric]) * 1000.0
        row["SLO (ms)"] = float(slo.get(metric, math.nan))
        rows.append(row)
    return pd.DataFrame(rows).set_index("metric")


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
            engine_samples=len(counts), engine_error=_count_error(counts.to_numpy(dtype=float)),
            latency_error_s=float(latencies.std(ddof=1) / math.sqrt(len(latencies))),
            ttft_p50_ms=float(summary[TTFT_MS_P50]), ttft_p99_ms=float(summary[TTFT_MS_P99]),
            ttft_worst_ms=float(done["ttft_s"].max()) * 1000.0,
            met=sum(meets_slo(record, slo) for record in result.records if record.ok),
            missed_ttft=int(late_ttft.sum()), missed_tpot=int(late_tpot.sum()), slo=dict(slo))

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
    def outside_engine_s(self) -> float:
        """(L − the engine's count) ÷ λ: the time per request the client saw and the engine did
        not count, by the same law."""
        return (self.little_in_flight - self.engine_in_flight) / self.passing_rate

    @property
    def gap_error(self) -> float:
        """The standard error of λ × W minus the engine's average: both sides' errors."""
        return math.hypot(self.engine_error, self.passing_rate * self.latency_error_s)

    @property
    def beyond_sampling(self) -> bool:
        """Whether λ × W and the engine's average differ by more than ``LITTLE_SAMPLING``
        standard errors: only then does the run tell the two apart."""
        gap = abs(self.little_in_flight - self.engine_in_flight)
        return gap > LITTLE_SAMPLING * self.gap_error

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
        scale = max(self.engine_in_flight, 1.0)
        return abs(self.little_in_flight - self.engine_in_flight) <= LITTLE_AGREES * scale

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


def _percentile_words(found: MetricsFindings) -> str:
    text = (f"Half of the {found.requests} requests had a first token within "
            f"{found.ttft_p50_ms:,.0f} ms (the p50, or median); the p99 was "
            f"{found.ttft_p99_ms:,.0f} ms and the slowest request waited "
            f"{found.ttft_worst_ms:,.0f} ms. ")
    if not found.tail_described:
        text += (f"With {found.requests} requests, 1 % of them is less than one request, so the "
                 f"p99 is drawn between the two slowest and says little more than the worst "
                 f"one did: a p99 needs hundreds of requests before it describes a tail. ")
    return text + ("The mean hides the tail: one slow request moves it a little and the p99 a "
                   "lot, which is why serving targets are set on percentiles.")


def _little_words(found: MetricsFindings) -> str:
    text = (f"Little's law says the average number of requests inside a system is the rate they "
            f"pass through it times the time each spends there: L = λ × W. Over this run's "
            f"{found.window_s:.1f} s, {found.passing_rate:.2f} requests/s went through and each "
            f"took {found.mean_latency_s:.2f} s on average, so about {found.little_in_flight:.2f} "
            f"were in the server at once. ")
    if not found.steady:
        text += (f"They were drawn to arrive at {found.arrival_rate:.2f} requests/s, faster than "
                 f"they left: a queue grew all through the run, which is why first tokens came "
                 f"so late. A queue like that has no steady size, and L is only this run's "
                 f"average; the sweep below shows at which rate this begins. ")
    agrees = found.little_agrees
    if agrees is None:
        return text + ("The engine's own count was not sampled in this run, so there is nothing "
                       "to hold that figure against.")
    engine = (f"The engine's own count of running and waiting requests, sampled "
              f"{found.engine_samples} times from `/metrics`, averaged "
              f"{found.engine_in_flight:.2f}")
    gap = abs(found.little_in_flight - found.engine_in_flight)
    if agrees:
        return text + (engine + f", {gap / max(found.engine_in_flight, 1.0):.0%} away: the law "
                       f"and the engine agree within the {LITTLE_AGREES:.0%} a once-a-second "
                       "sample of a short run allows. Turned around, the law sizes a "
                       "server: at twice the rate, or with requests twice as long, twice as "
                       "many must fit in a step, or the rest wait in the queue.")
    text += (engine + f", more than {LITTLE_AGREES:.0%} away. Both figures are estimates: "
             f"{found.engine_samples} samples of a count that changes with every arrival, and "
             f"the mean of {found.requests} requests' times, leave their difference a standard "
             f"error of about {found.gap_error:.2f}, and the gap is {gap:.2f}. ")
    if not found.beyond_sampling:
        return text + (f"That is within {LITTLE_SAMPLING:g} standard errors, so this run cannot "
                       "tell the two apart: they agree within what so few samples can measure. "
                       "Sampling `/metrics` more often, or a longer run, would narrow it.")
    text += ("So they differ beyond the sampling. The two do not count the same span: the "
             "client counts a request from its send to its last token, the engine from when it "
             "reaches the scheduler until it finishes. ")
    if found.client_saw_more:
        outside_ms = found.outside_engine_s * 1000
        return text + (f"Read through the law, the gap is about {outside_ms:,.0f} ms of each "
                       f"request spent outside the engine's count: in the HTTP server, or "
                       f"streaming tokens back on a busy machine.")
    return text + ("Yet the engine counted more than the client saw, which that difference of "
                   "span cannot explain; this page does not show why.")


def _slo_words(found: MetricsFindings) -> str:
    parts = [f"a first token within {found.slo['ttft']:,.0f} ms" if "ttft" in found.slo else "",
             f"at most {found.slo['tpot']:,.0f} ms per later token" if "tpot" in found.slo else ""]
    target = " and ".join(part for part in parts if part)
    text = (f"The SLO here is {target}. {found.met} of {found.requests} requests met it "
            f"({found.attainment:.0%}): that share is the *attainment*, and goodput is the "
            f"attainment × the rate the requests were sent at, the requests per second within "
            f"the SLO. ")
    if found.all_met:
        return text + "No request missed, so throughput and goodput are the same at this rate."
    return text + (f"Of the others, {found.missed_ttft} waited too long for a first token and "
                   f"{found.missed_tpot} streamed too slowly (a request can miss both); those "
                   f"count in throughput and not in goodput.")


def metrics_text(found: MetricsFindings) -> str:
    """The section's prose, in Markdown, from ``found``."""
    return "\n\n".join([
        f"**Percentiles.** {_percentile_words(found)}",
        f"**Little's law.** {_little_words(found)}",
        f"**Goodput.** {_slo_words(found)}",
    ])
