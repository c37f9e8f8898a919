"""Chapter 01's primer: the times every later table is built from, read off one streamed request,
and what a percentile of a handful of requests can say.

``RequestTiming`` holds one request's times as the client measured them; ``PercentileReach`` says
which of ``n`` sorted values a percentile falls between (numpy's linear interpolation, as
``servelab.bench.metrics`` and ``vllm bench serve`` compute it); the ``*_text`` functions only
word them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from servelab.bench.client import RequestRecord
from servelab.bench.metrics import tpot


@dataclass(frozen=True)
class RequestTiming:
    """One streamed request, in seconds from its sending: its first token (TTFT), its last
    (E2E), the gaps between its tokens (ITL) and its time per token after the first (TPOT),
    with the output tokens its usage counted."""

    ttft_s: float
    e2e_s: float
    gaps_s: tuple[float, ...]
    tpot_s: float
    tokens: int

    @classmethod
    def of(cls, record: RequestRecord) -> RequestTiming:
        """From a finished request of two tokens or more."""
        per_token = tpot(record)
        if not record.ok or per_token is None:
            raise ValueError("the primer needs a finished request of two tokens or more")
        return cls(ttft_s=record.ttft, e2e_s=record.e2e, gaps_s=tuple(record.itls()),
                   tpot_s=per_token, tokens=int(record.output_tokens or 0))

    def arrivals(self, shown: int) -> pd.DataFrame:
        """The first ``shown`` tokens: when each came (ms after sending) and the gap before it."""
        times = np.cumsum([self.ttft_s, *self.gaps_s])[:shown] * 1000.0
        gaps = [math.nan, *self.gaps_s][:shown]
        return pd.DataFrame({"token": range(1, len(times) + 1), "arrived after (ms)": times,
                             "gap before it (ms)": np.asarray(gaps) * 1000.0}).set_index("token")

    @property
    def longest_gap_s(self) -> float:
        return max(self.gaps_s)

    @property
    def median_gap_s(self) -> float:
        return float(np.median(self.gaps_s))


@dataclass(frozen=True)
class PercentileReach:
    """Where the ``percentile`` of ``n`` values falls among them when sorted: between the
    ``lower``-th and the next (1-based), ``share`` of the way."""

    percentile: float
    n: int

    def __post_init__(self) -> None:
        if self.n < 2 or not 0 <= self.percentile < 100:
            raise ValueError("a percentile below 100 of two values or more")

    @property
    def position(self) -> float:
        """numpy's linear rank, 0-based: percentile / 100 × (n − 1)."""
        return self.percentile / 100 * (self.n - 1)

    @property
    def lower(self) -> int:
        return math.floor(self.position) + 1

    @property
    def share(self) -> float:
        return self.position - math.floor(self.position)

    @property
    def at_the_top(self) -> bool:
        """The percentile lies between the two largest values: it says no more than they do."""
        return self.lower >= self.n - 1


def timing_text(timing: RequestTiming) -> str:
    """The four times, each with this request's own value."""
    after = timing.tokens - 1
    return (
        f"- **TTFT**, time to first token: {1000 * timing.ttft_s:,.0f} ms from sending the "
        "request to its first token. It holds any wait in the server's queue, the prompt's "
        "prefill and the first decoding step.\n"
        f"- **ITL**, inter-token latency: each gap between two tokens, {len(timing.gaps_s)} "
        f"here, {1000 * timing.median_gap_s:,.0f} ms at the median and "
        f"{1000 * timing.longest_gap_s:,.0f} ms at the longest. Tables pool the gaps of all "
        "requests.\n"
        f"- **TPOT**, time per output token: the time after the first token spread over the "
        f"{after} tokens after it, ({1000 * timing.e2e_s:,.0f} − {1000 * timing.ttft_s:,.0f}) ms "
        f"÷ {after} = {1000 * timing.tpot_s:,.1f} ms. It averages a long gap away, which the ITL "
        "keeps.\n"
        f"- **E2E**, end to end: {1000 * timing.e2e_s:,.0f} ms, from sending to the last token.")


def percentile_text(reach: PercentileReach) -> str:
    """What the p-th percentile of ``reach.n`` requests is made of."""
    text = (f"A p{reach.percentile:g} over {reach.n} requests is read off their sorted values: "
            f"numpy (as `vllm bench serve`) puts it {reach.share:.0%} of the way from value "
            f"{reach.lower} to value {reach.lower + 1} of the {reach.n}")
    if reach.at_the_top:
        return text + (", the two largest: over so few requests it says little more than the "
                       "slowest one did, and one slow request moves it.")
    return text + f", with {reach.n - reach.lower} of them above it."
