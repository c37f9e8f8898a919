"""The prefix-reuse effect, found once: prompt tokens computed request by request with the cache
reused and not, and how much sooner first tokens came.

Chapters 00 and 04 both build :class:`ReuseFindings` with :meth:`ReuseFindings.from_probe` from
the per-request probe; chapter 04's load adds :class:`LoadReuseFindings`. The words
(``overview.words.prefix_text``, ``overview.words.summary_text``,
``prefix.words.reuse_text``) only phrase them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from servelab.bench.spread import Spread
from servelab.lessons.thresholds import REUSE_SHOWN, TTFT_GAIN_SHOWN


def _later(frame: pd.DataFrame, column: str) -> float:
    """Mean of ``column`` over every request after the first (the first fills the cache); NaN
    where the probe did not measure it."""
    return float(frame[column].iloc[1:].mean()) if column in frame else math.nan


@dataclass(frozen=True)
class ReuseFindings:
    """One probe with reuse on and one with it off, one request at a time: prompt tokens each
    request sent, what the first and the second computed with reuse on, the mean a later
    request computed either way, and (where the probe timed it) a later request's mean time to
    first token either way, in ms."""

    prompt_tokens: float
    first_computed: float
    second_computed: float
    later_on: float
    later_off: float
    ttft_on_ms: float
    ttft_off_ms: float

    @classmethod
    def from_probe(cls, on: pd.DataFrame, off: pd.DataFrame) -> ReuseFindings:
        """From two probe frames, one row per request with ``computed`` and ``from cache``
        (and ``ttft_ms`` where timed): ``on`` with reuse, ``off`` the control."""
        prompt = float(on[["computed", "from cache"]].sum(axis=1).iloc[0])
        return cls(prompt_tokens=prompt, first_computed=float(on["computed"].iloc[0]),
                   second_computed=float(on["computed"].iloc[1]),
                   later_on=_later(on, "computed"), later_off=_later(off, "computed"),
                   ttft_on_ms=_later(on, "ttft_ms"), ttft_off_ms=_later(off, "ttft_ms"))

    @property
    def reused(self) -> bool:
        return self.later_on < REUSE_SHOWN * self.later_off

    @property
    def ttft_gain(self) -> float:
        return self.ttft_off_ms / self.ttft_on_ms

    @property
    def sooner(self) -> bool:
        """A later request's first token came clearly sooner with reuse (a NaN gain: no)."""
        return self.ttft_gain >= TTFT_GAIN_SHOWN

    @property
    def wait_removed(self) -> float:
        """The share of a later request's wait for its first token that reuse removed."""
        return 1 - 1 / self.ttft_gain


@dataclass(frozen=True)
class LoadReuseFindings:
    """A load with caching on and off: every request's time to first token (ms) either way and
    the hit rate the server counted with caching on (NaN: no queries)."""

    on: Spread
    off: Spread
    hit_rate: float

    @classmethod
    def from_load(cls, ttft_on: Spread, ttft_off: Spread,
                  on: Mapping[str, float]) -> LoadReuseFindings:
        """From the two loads' first-token spreads and the cached load's ``summary()``."""
        return cls(on=ttft_on, off=ttft_off, hit_rate=on["prefix_cache_hit_rate"])

    @property
    def gain(self) -> float:
        """How many times sooner the median first token came with caching."""
        return self.off.median / self.on.median

    @property
    def sooner(self) -> bool:
        """Sooner beyond the noise: the medians differ by ``TTFT_GAIN_SHOWN`` and even the
        slowest request with caching beat the quickest without (the ranges are apart)."""
        return self.on.below_by(self.off, TTFT_GAIN_SHOWN)

    @property
    def hits_counted(self) -> bool:
        return not math.isnan(self.hit_rate)
