"""Chapter 07: two rate sweeps and mixed traffic — a chat stream and a batch job.

Every comparison rests on repeated runs: ``sweep_repeated`` serves each rate ``sizes.repeats``
times, the rates in turn within each pass, and ``rate_table`` gives each rate's median and range
(:class:`~servelab.bench.spread.Spread`); the mix is served as often on each deployment, and
``setup_row`` gives its spreads. ``*_view`` is what the page prints: each median with its range.
``run_together`` drives two servers at once (their shares of the device from
``servelab.engines.placement``), so "two deployments" is measured as it would run.

``RateSweepFindings`` (the sweeps) and ``MixedFindings`` (the mix) hold the numbers and named
verdicts, every bar a named constant; ``servelab.lessons.deployments.words`` words them. The
traffic, ``MixedTraffic``, is a workload of ``servelab.bench``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from itertools import takewhile
from typing import Unpack

import numpy as np
import pandas as pd

from servelab import tables
from servelab.bench import metrics, open_loop, run
from servelab.bench.frames import Result
from servelab.bench.options import RunOptions
from servelab.bench.spread import Spread, spread_table
from servelab.bench.workloads import BATCH, CHAT, Workload
from servelab.engines.running import RunningServer
from servelab.lessons.batching.findings import LESSON_GPU
from servelab.lessons.compare import Compared, compare
from servelab.lessons.thresholds import (
    ATTAINMENT_TARGET,
    MOST_OF_EXTRA,
    SERVERS_ALIKE,
    TAIL_REQUESTS,
)


def part_metrics(result: Result, slo: dict[str, float]) -> dict[str, float]:
    """What chat users felt (TTFT p99, TPOT p50, share within ``slo``) and how long the batch
    job took (its last token, s after the start) in one run; NaN for a part not sent."""
    chat = [r for r in result.records if r.planned.role == CHAT and r.ok]
    batch = [r for r in result.records if r.planned.role == BATCH and r.ok]
    row = {"chat_ttft_ms_p99": math.nan, "chat_tpot_ms_p50": math.nan,
           "chat_within_slo": math.nan, "batch_job_s": math.nan, "batch_output_tok_s": math.nan}
    if chat:
        row["chat_ttft_ms_p99"] = float(np.percentile([r.ttft for r in chat], 99)) * 1000
        tpots = [t for t in map(metrics.tpot, chat) if t is not None]
        row["chat_tpot_ms_p50"] = float(np.median(tpots)) * 1000 if tpots else math.nan
        row["chat_within_slo"] = float(np.mean([metrics.meets_slo(r, slo) for r in chat]))
    if batch:
        job_s = max(r.end for r in batch)
        row["batch_job_s"] = job_s
        row["batch_output_tok_s"] = sum(r.output_tokens or 0 for r in batch) / job_s
    return row


@dataclass(frozen=True)
class RateRun:
    """One open-loop run of a repeated rate sweep: its pass, its rate, the requests sent at it,
    each answer's tokens, and what it measured."""

    repeat: int
    rate: float
    requests: int
    max_tokens: int
    result: Result


def rate_runs(server: RunningServer, rates: Sequence[float], requests: Sequence[int],
              repeats: int, input_tokens: int, max_tokens: int,
              **options: Unpack[RunOptions]) -> list[RateRun]:
    """``repeats`` passes over ``rates``, ``requests[i]`` Poisson arrivals at ``rates[i]`` req/s.
    Within a pass the rates are taken in turn, so a slow spell of a shared machine falls on
    every rate rather than on one. Pass ``k`` draws its arrivals from seed ``k``: the same for
    every server."""
    runs = []
    for repeat in range(repeats):
        for rate, count in zip(rates, requests, strict=True):
            result = open_loop(server, rate, count, input_tokens=input_tokens,
                               max_tokens=max_tokens, seed=repeat, **options)
            runs.append(RateRun(repeat, rate, count, max_tokens, result))
    return runs


def runs_frame(runs: Sequence[RateRun]) -> pd.DataFrame:
    """One row per run of :func:`rate_runs`, with its ``repeat``, ``rate`` and ``requests``.

    Each row's ``goodput_req_s`` is counted over the arrivals: the share within the SLO × the
    offered rate. vLLM's benchmark divides by the run's duration instead, which for a handful of
    random arrivals can be shorter than they were planned to take: its goodput then reads above
    the rate offered. ``offered_tok_s`` is the rate × each answer's tokens."""
    rows = []
    for made in runs:
        row = made.result.row()
        rows.append({"repeat": made.repeat, "rate": made.rate, "requests": made.requests, **row,
                     "goodput_req_s": float(row.get("slo_attainment", math.nan)) * made.rate,
                     "offered_tok_s": made.rate * made.max_tokens})
    return pd.DataFrame(rows)


def sweep_repeated(server: RunningServer, rates: Sequence[float], requests: Sequence[int],
                   repeats: int, input_tokens: int, max_tokens: int,
                   **options: Unpack[RunOptions]) -> pd.DataFrame:
    """:func:`rate_runs` as :func:`runs_frame`'s rows."""
    return runs_frame(rate_runs(server, rates, requests, repeats, input_tokens, max_tokens,
                                **options))


# What a rate's row keeps of its runs: a spread (median, lowest, highest, count) or the median.
SPREAD_KEYS = (metrics.TTFT_MS_P99, "tpot_ms_p50", metrics.OUTPUT_TOK_S, "slo_attainment",
               "max_in_flight")
MEDIAN_KEYS = ("requests", "goodput_req_s", "waiting_max", "offered_tok_s")


def rate_table(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per rate of ``sweep_repeated``'s runs: ``SPREAD_KEYS`` as spreads (the median
    under the key itself, then ``_low``, ``_high``, ``_n``) and ``MEDIAN_KEYS`` as medians;
    ``beyond_peak`` marks the rates whose offered tokens a second exceed the most the server
    produced at any rate of the sweep (median), which it cannot keep up with for long."""
    table = spread_table(runs, "rate", SPREAD_KEYS, MEDIAN_KEYS)
    table["beyond_peak"] = table["offered_tok_s"] > table[metrics.OUTPUT_TOK_S].max()
    return table


def rate_view(table: pd.DataFrame) -> pd.DataFrame:
    """A sweep's rate table as the page prints it, one row per rate, the requests sent at each
    first (a p99 of fewer than ``TAIL_REQUESTS`` is about their slowest)."""
    view = tables.spread_view(table.set_index("rate"),
                              {metrics.TTFT_MS_P99: 0, "tpot_ms_p50": 0, metrics.OUTPUT_TOK_S: 0,
                               "slo_attainment": 2, "max_in_flight": 0},
                              {"requests": 0, "goodput_req_s": 1, "waiting_max": 0,
                               "offered_tok_s": 0})
    view["beyond_peak"] = ["yes" if beyond else "no" for beyond in table["beyond_peak"]]
    return view[["requests", "offered_tok_s", "beyond_peak", *SPREAD_KEYS, "goodput_req_s",
                 "waiting_max"]]


def setups_table(rows: dict[str, dict[str, float]]) -> pd.DataFrame:
    """One row per way of serving the mixed traffic."""
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("setup")


def setups_view(table: pd.DataFrame) -> pd.DataFrame:
    """The mixed-traffic table as the page prints it."""
    return tables.spread_view(table, {"chat_ttft_ms_p99": 0, "batch_job_s": 1},
                              {"chat_tpot_ms_p50": 0, "chat_within_slo": 2,
                               "batch_output_tok_s": 0})


def run_together(jobs: Mapping[str, tuple[RunningServer, Workload]],
                 **options: Unpack[RunOptions]) -> dict[str, Result]:
    """Run each ``label: (server, workload)`` at the same time, one thread each; the results by
    label."""
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = {label: pool.submit(run, server, workload, **options)
                   for label, (server, workload) in jobs.items()}
        return {label: future.result() for label, future in futures.items()}


PAIR = "two deployments, side by side"


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
        return min(self.requests) >= TAIL_REQUESTS

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


def setup_row(chat_runs: Sequence[Result], job_runs: Sequence[Result],
              slo: dict[str, float]) -> dict[str, float]:
    """One way of serving the mixed traffic, repeated: the chat users' p99 first token and the
    job's time as the median, lowest, highest and count over the runs
    (:class:`~servelab.bench.spread.Spread`), the rest as medians. The chat part is read from
    ``chat_runs`` and the job from ``job_runs`` (the same runs on one server)."""
    chats = [part_metrics(result, slo) for result in chat_runs]
    jobs = [part_metrics(result, slo) for result in job_runs]
    return {
        **Spread.of(row["chat_ttft_ms_p99"] for row in chats).columns("chat_ttft_ms_p99"),
        **Spread.of(row["batch_job_s"] for row in jobs).columns("batch_job_s"),
        "chat_tpot_ms_p50": float(np.nanmedian([row["chat_tpot_ms_p50"] for row in chats])),
        "chat_within_slo": float(np.nanmedian([row["chat_within_slo"] for row in chats])),
        "batch_output_tok_s": float(np.median([row["batch_output_tok_s"] for row in jobs])),
    }


@dataclass(frozen=True)
class MixedFindings:
    """Two deployments side by side against one server for everything (the best of the single
    servers for each part): the chat users' p99 first token (ms) and the job's time (s), each
    over the repeats. ``split`` says what each of the pair had, the chat server's share first;
    None: the device could not be divided, and there is no pair."""

    split: tuple[str, str] | None
    pair_chat: Spread | None
    pair_job: Spread | None
    best_chat: Spread
    best_job: Spread

    @classmethod
    def of(cls, table: pd.DataFrame, split: tuple[str, str] | None) -> MixedFindings:
        """From ``setup_row``'s rows by setup: ``PAIR`` (when the device was split) and one row
        per single server."""
        singles = table.drop(index=PAIR, errors="ignore")
        best_chat = singles.sort_values("chat_ttft_ms_p99", kind="stable").iloc[0]
        best_job = singles.sort_values("batch_job_s", kind="stable").iloc[0]
        pair = table.loc[[PAIR]].iloc[0] if split is not None else None
        return cls(split=split,
                   pair_chat=None if pair is None else Spread.in_row(pair, "chat_ttft_ms_p99"),
                   pair_job=None if pair is None else Spread.in_row(pair, "batch_job_s"),
                   best_chat=Spread.in_row(best_chat, "chat_ttft_ms_p99"),
                   best_job=Spread.in_row(best_job, "batch_job_s"))

    @property
    def chat(self) -> Compared | None:
        return None if self.pair_chat is None else compare(self.pair_chat, self.best_chat)

    @property
    def job(self) -> Compared | None:
        return None if self.pair_job is None else compare(self.pair_job, self.best_job)
