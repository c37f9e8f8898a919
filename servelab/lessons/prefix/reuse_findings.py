"""The prefix-reuse effect, found once: prompt tokens computed request by request with the cache
reused and not, and how much sooner first tokens came.

Chapters 00 and 04 both build :class:`ReuseFindings` with :meth:`ReuseFindings.from_probe` from
the per-request probe; chapter 04's load adds :class:`LoadReuseFindings`. The words
(``serving_many_users.words.prefix_text``, ``serving_many_users.words.summary_text``,
``prefix_caching.words.reuse_text``) only phrase them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from servelab.bench.metrics import TTFT_MS_P50
from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared, Shown, compare, compare_by
from servelab.lessons.prefix.thresholds import REUSE_SHOWN, TTFT_GAIN_SHOWN


def _later(frame: pd.DataFrame, column: str) -> float:
    """Mean of ``column`` over every request after the first (the first fills the cache); NaN
    where the probe did not measure it."""
    return float(frame[column].iloc[1:].mean()) if column in frame else math.nan


def _later_spread(frame: pd.DataFrame, column: str) -> Spread | None:
    """The spread of ``column`` over every request after the first; None where the probe did
    not measure it."""
    if column not in frame or frame[column].iloc[1:].isna().all():
        return None
    return Spread.of(frame[column].iloc[1:])


@dataclass(frozen=True)
class ReuseFindings:
    """One probe with reuse on and one with it off, one request at a time: prompt tokens each
    request sent, what the first and the second computed with reuse on, the mean a later
    request computed either way (over ``later`` requests), and (where the probe timed it) the
    later requests' times to first token either way, in ms (None: not timed)."""

    prompt_tokens: float
    first_computed: float
    second_computed: float
    later_on: float
    later_off: float
    ttft_on: Spread | None
    ttft_off: Spread | None
    later: int

    @classmethod
    def from_probe(cls, on: pd.DataFrame, off: pd.DataFrame) -> ReuseFindings:
        """From two probe frames, one row per request with ``computed`` and ``from cache``
        (and ``ttft_ms`` where timed): ``on`` with reuse, ``off`` the control."""
        prompt = float(on[["computed", "from cache"]].sum(axis=1).iloc[0])
        return cls(
            prompt_tokens=prompt,
            first_computed=float(on["computed"].iloc[0]),
            second_computed=float(on["computed"].iloc[1]),
            later_on=_later(on, "computed"),
            later_off=_later(off, "computed"),
            ttft_on=_later_spread(on, "ttft_ms"),
            ttft_off=_later_spread(off, "ttft_ms"),
            later=len(on) - 1,
        )

    @property
    def reused(self) -> bool:
        return self.later_on < REUSE_SHOWN * self.later_off

    @property
    def several_later(self) -> bool:
        """More than one request came after the first, so its figures are averages."""
        return self.later > 1

    @property
    def ttft_gain(self) -> float:
        """How many times sooner the median later first token came with reuse (NaN: not
        timed)."""
        if self.ttft_on is None or self.ttft_off is None:
            return math.nan
        return self.ttft_off.median / self.ttft_on.median

    @property
    def ttft_verdict(self) -> Shown | None:
        """What the probe's later first tokens say about reuse: sooner in full with the ranges
        apart and ``TTFT_GAIN_SHOWN``× at the medians, in part by less; untold where the ranges
        overlap or one request a side ran; ``None`` where first tokens were not timed."""
        on, off = self.ttft_on, self.ttft_off
        if on is None or off is None:
            return None
        if compare_by(on, off, TTFT_GAIN_SHOWN) is Compared.LOWER:
            return Shown.STRONG
        if compare(on, off) is Compared.LOWER:
            return Shown.WEAK
        return Shown.UNTOLD

    @property
    def ttft_one_a_side(self) -> bool:
        """The probe timed one later first token with reuse or without: no range to weigh."""
        on, off = self.ttft_on, self.ttft_off
        return on is not None and off is not None and not (on.ranged and off.ranged)

    @property
    def sooner(self) -> bool:
        """Later first tokens came sooner with reuse beyond the noise and by
        ``TTFT_GAIN_SHOWN``."""
        return self.ttft_verdict is Shown.STRONG

    @property
    def wait_removed(self) -> float:
        """The share of a later request's median wait for its first token that reuse removed."""
        return 1 - 1 / self.ttft_gain


@dataclass(frozen=True)
class LoadReuseFindings:
    """The same load run several times with caching on and off: each run's median time to first
    token (ms) either way, as a spread over the runs, and the median over the runs of the hit
    rate the server counted with caching on (NaN: no queries)."""

    on: Spread
    off: Spread
    hit_rate: float

    @classmethod
    def from_runs(
        cls, on: Sequence[Mapping[str, float]], off: Sequence[Mapping[str, float]]
    ) -> LoadReuseFindings:
        """From each load's runs, as ``summary()`` dicts."""
        rates = [
            run["prefix_cache_hit_rate"]
            for run in on
            if not math.isnan(run["prefix_cache_hit_rate"])
        ]
        return cls(
            on=Spread.of(run[TTFT_MS_P50] for run in on),
            off=Spread.of(run[TTFT_MS_P50] for run in off),
            hit_rate=float(np.median(rates)) if rates else math.nan,
        )

    @property
    def gain(self) -> float:
        """How many times sooner the median first token came with caching."""
        return self.off.median / self.on.median

    @property
    def sooner(self) -> bool:
        """Sooner beyond the noise: the medians differ by ``TTFT_GAIN_SHOWN`` and even the
        slowest run with caching beat the quickest without (the ranges are apart)."""
        return compare_by(self.on, self.off, TTFT_GAIN_SHOWN) is Compared.LOWER

    @property
    def hits_counted(self) -> bool:
        return not math.isnan(self.hit_rate)
