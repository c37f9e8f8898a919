"""Chapter 01's primer: the times every later table is built from, read off one streamed request,
and what a percentile of a handful of requests can say.

``RequestTiming`` holds one request's times as the client measured them; ``PercentileReach`` says
which of ``n`` sorted values a percentile falls between (numpy's linear interpolation, as
``servelab.bench.metrics`` and ``vllm bench serve`` compute it); ``request_words`` words them.
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
        return cls(
            ttft_s=record.ttft,
            e2e_s=record.e2e,
            gaps_s=tuple(record.itls()),
            tpot_s=per_token,
            tokens=int(record.output_tokens or 0),
        )

    def arrivals(self, shown: int) -> pd.DataFrame:
        """The first ``shown`` tokens: when each came (ms after sending) and the gap before it."""
        times = np.cumsum([self.ttft_s, *self.gaps_s])[:shown] * 1000.0
        gaps = [math.nan, *self.gaps_s][:shown]
        return pd.DataFrame(
            {
                "token": range(1, len(times) + 1),
                "arrived after (ms)": times,
                "gap before it (ms)": np.asarray(gaps) * 1000.0,
            }
        ).set_index("token")

    @property
    def tokens_after_first(self) -> int:
        """The tokens TPOT spreads the time after the first token over."""
        return self.tokens - 1

    @property
    def gap_count(self) -> int:
        return len(self.gaps_s)

    @property
    def longest_gap_s(self) -> float:
        return max(self.gaps_s)

    @property
    def median_gap_s(self) -> float:
        return float(np.median(self.gaps_s))

    # The same times in milliseconds, as the primer words them.
    @property
    def ttft_ms(self) -> float:
        return 1000 * self.ttft_s

    @property
    def e2e_ms(self) -> float:
        return 1000 * self.e2e_s

    @property
    def tpot_ms(self) -> float:
        return 1000 * self.tpot_s

    @property
    def median_gap_ms(self) -> float:
        return 1000 * self.median_gap_s

    @property
    def longest_gap_ms(self) -> float:
        return 1000 * self.longest_gap_s


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
    def upper(self) -> int:
        return self.lower + 1

    @property
    def above(self) -> int:
        """How many of the ``n`` values lie above the percentile."""
        return self.n - self.lower

    @property
    def share(self) -> float:
        return self.position - math.floor(self.position)

    @property
    def at_the_top(self) -> bool:
        """The percentile lies between the two largest values: it says no more than they do."""
        return self.lower >= self.n - 1
