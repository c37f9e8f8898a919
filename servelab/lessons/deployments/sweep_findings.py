"""Chapter 07's two rate sweeps side by side: the numbers and named verdicts, every bar a named
constant of ``thresholds``.

``RateSweepFindings`` is built from the two rate tables of
``servelab.lessons.deployments.throughput_latency``; ``sweep_words`` words it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from itertools import takewhile

import pandas as pd

from servelab.bench import metrics
from servelab.bench.spread import Spread
from servelab.lessons.batching.findings import LESSON_GPU
from servelab.lessons.compare import Compared, compare
from servelab.lessons.deployments.thresholds import (
    ATTAINMENT_TARGET,
    MOST_OF_EXTRA,
    SERVERS_ALIKE,
    TAIL_REQUESTS,
)


@dataclass(frozen=True)
class CapsSetting:
    """What the page needs to know about the two configurations and the device."""

    interactive_seqs: int
    batch_seqs: int
    ttft_slo_ms: float
    device_label: str


class FirstTokens(StrEnum):
    """Which cap's p99 first token left the SLO at the lower rate, in every run."""

    BOTH_MISSED = "both missed at the lowest rate"
    SMALL_BROKE = "the small cap broke first"
    LARGE_BROKE = "the large cap broke first"
    STRADDLED = "the runs fell on both sides of the target"
    NOT_SEPARATED = "neither separated"


class MoreSeqs(StrEnum):
    """What the two caps' output at the top rate says about more sequences per step."""

    NO_QUEUE = "the small cap's slots were not always full"
    MOST_OF_EXTRA = "at least half of what the extra sequences could give"
    SOME_GAIN = "a real gain, below what the extra sequences could give"
    LOST = "less than the small cap"
    UNTOLD = "within the spread"


@dataclass(frozen=True)
class SplitShare:
    """Where a cap broke first: its runs' share of requests within the SLO there, and the
    requests a run sent at that rate."""

    share: Spread
    sent: int

    @property
    def met(self) -> int:
        """The requests within the SLO at the median share."""
        return round(self.share.median * self.sent)


@dataclass(frozen=True)
class RateSweepFindings:
    """The two sweeps side by side, from ``rate_table``'s rows (``*_i`` with the small cap,
    ``*_b`` with the large one): the pace of tokens at the lowest and highest rate, the p99
    first token at every rate, the output and the most requests in flight at the top rate, and
    each cap's highest median output."""

    setting: CapsSetting
    rates: tuple[float, ...]
    requests: tuple[int, ...]  # sent at each rate in one run
    low_rate: float
    high_rate: float
    tpot_low_i: Spread
    tpot_low_b: Spread
    tpot_high_i: Spread
    tpot_high_b: Spread
    ttft_i: tuple[Spread, ...]
    ttft_b: tuple[Spread, ...]
    attainment_i: tuple[Spread, ...]  # share of a run's requests within the SLO, a rate each
    attainment_b: tuple[Spread, ...]
    output_i: Spread
    output_b: Spread
    in_flight_i: Spread
    in_flight_b: Spread
    peak_i: float
    peak_b: float

    @classmethod
    def of(cls, interactive: pd.DataFrame, batch: pd.DataFrame,
           setting: CapsSetting) -> RateSweepFindings:
        if list(interactive["rate"]) != list(batch["rate"]):
            raise ValueError("the two sweeps must cover the same rates: "
                             f"{list(interactive['rate'])} and {list(batch['rate'])}")
        (low_i, high_i), (low_b, high_b) = ((t.iloc[0], t.iloc[-1]) for t in (interactive, batch))
        rates = tuple(float(rate) for rate in interactive["rate"])
        return cls(setting=setting, rates=rates,
                   requests=tuple(int(count) for count in interactive["requests"]),
                   low_rate=rates[0], high_rate=rates[-1],
                   tpot_low_i=Spread.in_row(low_i, "tpot_ms_p50"),
                   tpot_low_b=Spread.in_row(low_b, "tpot_ms_p50"),
                   tpot_high_i=Spread.in_row(high_i, "tpot_ms_p50"),
                   tpot_high_b=Spread.in_row(high_b, "tpot_ms_p50"),
                   ttft_i=tuple(Spread.in_row(r, metrics.TTFT_MS_P99)
                                for _, r in interactive.iterrows()),
                   ttft_b=tuple(Spread.in_row(r, metrics.TTFT_MS_P99) for _, r in batch.iterrows()),
                   attainment_i=tuple(Spread.in_row(r, "slo_attainment")
                                      for _, r in interactive.iterrows()),
                   attainment_b=tuple(Spread.in_row(r, "slo_attainment")
                                      for _, r in batch.iterrows()),
                   output_i=Spread.in_row(high_i, metrics.OUTPUT_TOK_S),
                   output_b=Spread.in_row(high_b, metrics.OUTPUT_TOK_S),
                   in_flight_i=Spread.in_row(high_i, "max_in_flight"),
                   in_flight_b=Spread.in_row(high_b, "max_in_flight"),
                   peak_i=float(interactive[metrics.OUTPUT_TOK_S].max()),
                   peak_b=float(batch[metrics.OUTPUT_TOK_S].max()))

    def _met(self, spread: Spread) -> bool:
        """Every run's p99 first token within the SLO."""
        return spread.high <= self.setting.ttft_slo_ms

    def _missed(self, spread: Spread) -> bool:
        """Every run's p99 first token over the SLO."""
        return spread.low > self.setting.ttft_slo_ms

    def _held(self, spreads: tuple[Spread, ...], met: Callable[[Spread], bool]) -> float | None:
        """The highest rate up to which each rate's spread over the runs was ``met``; None: not
        even at the lowest rate."""
        held = [rate for rate, _ in takewhile(lambda pair: met(pair[1]),
                                              zip(self.rates, spreads, strict=True))]
        return held[-1] if held else None

    @staticmethod
    def _attained(spread: Spread) -> bool:
        """Every run's share of requests within the SLO at least ``ATTAINMENT_TARGET``."""
        return spread.low >= ATTAINMENT_TARGET

    def next_rate(self, rate: float) -> float | None:
        """The rate the sweep tried after ``rate``; None: ``rate`` was its highest."""
        later = [other for other in self.rates if other > rate]
        return later[0] if later else None

    @property
    def tail_described(self) -> bool:
        """Whether every rate sent enough requests for its p99 to describe a tail; with fewer
        than ``TAIL_REQUESTS`` a p99 lies between the two slowest requests."""
        return self.fewest_requests >= TAIL_REQUESTS

    @property
    def fewest_requests(self) -> int:
        """The fewest requests a run sent, at any rate."""
        return min(self.requests)

    @property
    def most_requests(self) -> int:
        return max(self.requests)

    @property
    def sustained_i(self) -> float | None:
        return self._held(self.ttft_i, self._met)

    @property
    def sustained_b(self) -> float | None:
        return self._held(self.ttft_b, self._met)

    @property
    def goodput_rate_i(self) -> float | None:
        """Goodput as DistServe counts it, with the small cap: the highest rate up to which
        every run kept ``ATTAINMENT_TARGET`` of its requests within the SLO (None: none)."""
        return self._held(self.attainment_i, self._attained)

    @property
    def goodput_rate_b(self) -> float | None:
        return self._held(self.attainment_b, self._attained)

    @property
    def goodput_as_slo(self) -> bool:
        """Whether each cap's goodput rate is the rate up to which its first tokens held."""
        return (self.sustained_i, self.sustained_b) == (self.goodput_rate_i, self.goodput_rate_b)

    def _first_split(self) -> tuple[float, FirstTokens] | None:
        """The lowest rate where one cap missed in every run and the other met, and which."""
        for rate, small, large in zip(self.rates, self.ttft_i, self.ttft_b, strict=True):
            if self._missed(small) and self._met(large):
                return rate, FirstTokens.SMALL_BROKE
            if self._missed(large) and self._met(small):
                return rate, FirstTokens.LARGE_BROKE
        return None

    @property
    def straddled_rate(self) -> float | None:
        """The lowest rate at which one cap's runs fell on both sides of the SLO."""
        for rate, small, large in zip(self.rates, self.ttft_i, self.ttft_b, strict=True):
            if any(not self._met(s) and not self._missed(s) for s in (small, large)):
                return rate
        return None

    @property
    def split_rate(self) -> float | None:
        """Where the caps' first tokens parted (``_first_split``); None where they never did."""
        split = self._first_split()
        return None if split is None else split[0]

    @property
    def split_share(self) -> SplitShare | None:
        """The share within the SLO of the cap that broke first, at ``split_rate``: the small
        cap's where ``first_tokens`` says it broke first, else the large cap's; None where the
        caps never parted."""
        rate = self.split_rate
        if rate is None:
            return None
        index = self.rates.index(rate)
        shares = (self.attainment_i if self.first_tokens is FirstTokens.SMALL_BROKE
                  else self.attainment_b)
        return SplitShare(shares[index], self.requests[index])

    @property
    def first_tokens(self) -> FirstTokens:
        if self._missed(self.ttft_i[0]) and self._missed(self.ttft_b[0]):
            return FirstTokens.BOTH_MISSED
        split = self._first_split()
        if split is not None:
            return split[1]
        if self.straddled_rate is not None:
            return FirstTokens.STRADDLED
        return FirstTokens.NOT_SEPARATED

    @property
    def pace_low(self) -> Compared:
        """The large cap's time per token against the small cap's at the lowest rate."""
        return compare(self.tpot_low_b, self.tpot_low_i, SERVERS_ALIKE)

    @property
    def pace_high(self) -> Compared:
        return compare(self.tpot_high_b, self.tpot_high_i, SERVERS_ALIKE)

    @property
    def small_queued(self) -> bool:
        """At the top rate every run had more requests in flight than the small cap has slots,
        so some of them waited for one: the load reached the small cap."""
        return self.in_flight_i.low > self.setting.interactive_seqs

    @property
    def large_seqs(self) -> float:
        """The large cap's sequences at once at the top rate: in flight (median), up to its cap."""
        return min(self.in_flight_b.median, float(self.setting.batch_seqs))

    @property
    def seq_ratio(self) -> float:
        """The large cap's sequences at once against the small cap's slots."""
        return self.large_seqs / self.setting.interactive_seqs

    @property
    def large_unfilled(self) -> bool:
        """The load never reached the large cap, so the sweep does not show its limit."""
        return self.large_seqs < self.setting.batch_seqs

    @property
    def gain(self) -> float:
        """The large cap's output at the top rate against the small cap's (medians)."""
        return self.output_b.median / self.output_i.median

    @property
    def step_gain(self) -> float:
        """Tokens per unit of step time at the top rate, the large cap's against the small
        cap's: each running sequence gets one token a step, so a cap's rate is its sequences
        at once ÷ its time per token (medians)."""
        return self.seq_ratio * self.tpot_high_i.median / self.tpot_high_b.median

    @property
    def step_ratio(self) -> float:
        """The large cap's time per token at the top rate against the small cap's (medians)."""
        return self.tpot_high_b.median / self.tpot_high_i.median

    @property
    def gain_within_steps(self) -> bool:
        """Whether the measured gain reaches the steps' arithmetic (``step_gain``); below it,
        the requests' arrival and the last ones' decoding ran with fewer sequences a step."""
        return self.step_gain <= self.gain

    @property
    def busiest_alike(self) -> bool:
        """Whether every run's busiest moment at the top rate had the small cap's same count
        in flight."""
        return self.in_flight_i.low == self.in_flight_i.high

    @property
    def arrival_s(self) -> float:
        """About how long the top rate's requests took to arrive, during which the large cap's
        steps were not yet as full as they got."""
        return self.requests[-1] / self.high_rate

    @property
    def try_cap(self) -> int | None:
        """A ``max_num_seqs`` halfway between the small cap and the most sequences the top rate
        ran at once, which this load would reach; None: no whole number lies between."""
        if self.large_seqs - self.setting.interactive_seqs < 2:
            return None
        return int((self.setting.interactive_seqs + self.large_seqs) // 2)

    @property
    def capacity(self) -> MoreSeqs:
        """A verdict on more sequences per step needs the small cap full (requests queued for
        its slots in every run) and the two outputs apart (``SERVERS_ALIKE``)."""
        if not self.small_queued:
            return MoreSeqs.NO_QUEUE
        small_cap = compare(self.output_i, self.output_b, SERVERS_ALIKE)
        if small_cap is Compared.HIGHER:
            return MoreSeqs.LOST
        if small_cap is not Compared.LOWER:
            return MoreSeqs.UNTOLD
        if self.gain >= MOST_OF_EXTRA * min(self.seq_ratio, LESSON_GPU.gain):
            return MoreSeqs.MOST_OF_EXTRA
        return MoreSeqs.SOME_GAIN


