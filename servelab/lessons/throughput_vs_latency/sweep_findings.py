"""Chapter 07's two rate sweeps side by side: the numbers and named verdicts, every bar a named
constant of ``thresholds``.

``RateSweepFindings`` is built from the two rate tables of
``servelab.lessons.rate_sweeps``; ``sweep_words`` words it.
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
from servelab.lessons.compare import NOT_TOLD_APART, Compared, compare
from servelab.lessons.rate_sweeps import SERVED
from servelab.lessons.throughput_vs_latency.thresholds import (
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
    NOT_SEPARATED = NOT_TOLD_APART  # neither cap separated from the other over these rates


class MoreSeqs(StrEnum):
    """What the two caps' output at the top rate says about more sequences per step."""

    NO_QUEUE = "the small cap's slots were not always full"
    MOST_OF_EXTRA = "at least half of what the extra sequences could give"
    SOME_GAIN = "a real gain, below what the extra sequences could give"
    LOST = "less than the small cap"
    UNTOLD = NOT_TOLD_APART  # the ranges overlap, or the medians are within SERVERS_ALIKE


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
class CapSweep:
    """One cap's rate sweep, from its rate table's rows: the time per token (p50) at the lowest
    and the highest rate, the p99 first token and the share of requests within the SLO at every
    rate, and the output and the most requests in flight at the top rate, as spreads over the
    runs; and its highest median output (tok/s). ``served``: the requests finished a second in
    each rate's steady middle (empty in a table without them)."""

    tpot_low: Spread
    tpot_high: Spread
    ttft: tuple[Spread, ...]
    attainment: tuple[Spread, ...]
    output: Spread
    in_flight: Spread
    peak: float
    served: tuple[Spread, ...] = ()

    @classmethod
    def of(cls, table: pd.DataFrame) -> CapSweep:
        low, high = table.iloc[0], table.iloc[-1]
        rows = [row for _, row in table.iterrows()]
        served = tuple(Spread.in_row(row, SERVED) for row in rows) if SERVED in table else ()
        return cls(
            served=served,
            tpot_low=Spread.in_row(low, "tpot_ms_p50"),
            tpot_high=Spread.in_row(high, "tpot_ms_p50"),
            ttft=tuple(Spread.in_row(row, metrics.TTFT_MS_P99) for row in rows),
            attainment=tuple(Spread.in_row(row, "slo_attainment") for row in rows),
            output=Spread.in_row(high, metrics.OUTPUT_TOK_S),
            in_flight=Spread.in_row(high, "max_in_flight"),
            peak=float(table[metrics.OUTPUT_TOK_S].max()),
        )


@dataclass(frozen=True)
class RateSweepFindings:
    """The two sweeps side by side, one record a cap: ``small`` (the interactive cap) and
    ``large`` (the batch cap), over the same rates."""

    setting: CapsSetting
    rates: tuple[float, ...]
    requests: tuple[int, ...]  # sent at each rate in one run
    low_rate: float
    high_rate: float
    small: CapSweep
    large: CapSweep

    @classmethod
    def of(
        cls, interactive: pd.DataFrame, batch: pd.DataFrame, setting: CapsSetting
    ) -> RateSweepFindings:
        if list(interactive["rate"]) != list(batch["rate"]):
            raise ValueError(
                "the two sweeps must cover the same rates: "
                f"{list(interactive['rate'])} and {list(batch['rate'])}"
            )
        rates = tuple(float(rate) for rate in interactive["rate"])
        return cls(
            setting=setting,
            rates=rates,
            requests=tuple(int(count) for count in interactive["requests"]),
            low_rate=rates[0],
            high_rate=rates[-1],
            small=CapSweep.of(interactive),
            large=CapSweep.of(batch),
        )

    def _met(self, spread: Spread) -> bool:
        """Every run's p99 first token within the SLO."""
        return spread.high <= self.setting.ttft_slo_ms

    def _missed(self, spread: Spread) -> bool:
        """Every run's p99 first token over the SLO."""
        return spread.low > self.setting.ttft_slo_ms

    def _held(self, spreads: tuple[Spread, ...], met: Callable[[Spread], bool]) -> float | None:
        """The highest rate up to which each rate's spread over the runs was ``met``; None: not
        even at the lowest rate."""
        held = [
            rate
            for rate, _ in takewhile(
                lambda pair: met(pair[1]), zip(self.rates, spreads, strict=True)
            )
        ]
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

    def sustained(self, cap: CapSweep) -> float | None:
        """The highest rate up to which every run of ``cap`` kept its p99 first token within
        the SLO (None: not even the lowest)."""
        return self._held(cap.ttft, self._met)

    def goodput_rate(self, cap: CapSweep) -> float | None:
        """Goodput as DistServe counts it: the highest rate up to which every run of ``cap``
        kept ``ATTAINMENT_TARGET`` of its requests within the SLO (None: none)."""
        return self._held(cap.attainment, self._attained)

    @property
    def goodput_as_slo(self) -> bool:
        """Whether each cap's goodput rate is the rate up to which its first tokens held."""
        return all(
            self.sustained(cap) == self.goodput_rate(cap) for cap in (self.small, self.large)
        )

    def _first_split(self) -> tuple[float, FirstTokens] | None:
        """The lowest rate where one cap missed in every run and the other met, and which."""
        for rate, small, large in zip(self.rates, self.small.ttft, self.large.ttft, strict=True):
            if self._missed(small) and self._met(large):
                return rate, FirstTokens.SMALL_BROKE
            if self._missed(large) and self._met(small):
                return rate, FirstTokens.LARGE_BROKE
        return None

    @property
    def straddled_rate(self) -> float | None:
        """The lowest rate at which one cap's runs fell on both sides of the SLO."""
        for rate, small, large in zip(self.rates, self.small.ttft, self.large.ttft, strict=True):
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
        cap = self.small if self.first_tokens is FirstTokens.SMALL_BROKE else self.large
        shares = cap.attainment
        return SplitShare(shares[index], self.requests[index])

    @property
    def first_tokens(self) -> FirstTokens:
        if self._missed(self.small.ttft[0]) and self._missed(self.large.ttft[0]):
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
        return compare(self.large.tpot_low, self.small.tpot_low, SERVERS_ALIKE)

    @property
    def pace_high(self) -> Compared:
        return compare(self.large.tpot_high, self.small.tpot_high, SERVERS_ALIKE)

    @property
    def small_queued(self) -> bool:
        """At the top rate every run had more requests in flight than the small cap has slots,
        so some of them waited for one: the load reached the small cap."""
        return self.small.in_flight.low > self.setting.interactive_seqs

    @property
    def large_queued(self) -> bool:
        """At the top rate every run had more requests in flight than the large cap has slots:
        the load reached the large cap too."""
        return self.large.in_flight.low > self.setting.batch_seqs

    @property
    def large_seqs(self) -> float:
        """The large cap's sequences at once at the top rate: in flight (median), up to its cap."""
        return min(self.large.in_flight.median, float(self.setting.batch_seqs))

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
        return self.large.output.median / self.small.output.median

    @property
    def step_gain(self) -> float:
        """Tokens per unit of step time at the top rate, the large cap's against the small
        cap's: each running sequence gets one token a step, so a cap's rate is its sequences
        at once ÷ its time per token (medians)."""
        return self.seq_ratio * self.small.tpot_high.median / self.large.tpot_high.median

    @property
    def step_ratio(self) -> float:
        """The large cap's time per token at the top rate against the small cap's (medians)."""
        return self.large.tpot_high.median / self.small.tpot_high.median

    @property
    def gain_within_steps(self) -> bool:
        """Whether the measured gain reaches the steps' arithmetic (``step_gain``); below it,
        the requests' arrival and the last ones' decoding ran with fewer sequences a step."""
        return self.step_gain <= self.gain

    @property
    def busiest_alike(self) -> bool:
        """Whether every run's busiest moment at the top rate had the small cap's same count
        in flight."""
        return self.small.in_flight.low == self.small.in_flight.high

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
        small_cap = compare(self.small.output, self.large.output, SERVERS_ALIKE)
        if small_cap is Compared.HIGHER:
            return MoreSeqs.LOST
        if small_cap is not Compared.LOWER:
            return MoreSeqs.UNTOLD
        if self.gain >= MOST_OF_EXTRA * min(self.seq_ratio, LESSON_GPU.gain):
            return MoreSeqs.MOST_OF_EXTRA
        return MoreSeqs.SOME_GAIN
