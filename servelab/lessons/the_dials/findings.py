"""Chapter 05's findings, each found once: the ``max_num_seqs`` sweep and what
``max_model_len`` decides (one GPU against two is ``tp_findings``). ``the_dials.words.sweep_text``,
``context_text`` and ``dials_prediction`` only word them, and the page's figure title reads the
same record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd

from servelab.bench.metrics import OUTPUT_TOK_S, TTFT_MS_P99
from servelab.bench.spread import Spread, ratio_bounds
from servelab.engines.vllm_server import Capacity
from servelab.lessons.compare import NOT_TOLD_APART, Compared, compare, compare_by
from servelab.lessons.the_dials.runs import OverLong, StartRefusal
from servelab.lessons.the_dials.thresholds import CHANGED, THROUGHPUT_SHOWN


class MedianVerdict(StrEnum):
    """The median from arrival at the most sequences against the other levels', each as the
    range of its passes."""

    NOT_MEASURED = "not measured"
    SHORTEST_AT_TOP = "shortest at the most sequences, its range below every other level's"
    NEAR_SHORTEST = "within CHANGED of the shortest"
    LONGER_AGAIN = "longer again past the shortest, the ranges apart"
    UNTOLD = NOT_TOLD_APART  # the ranges overlap, so the run cannot tell


class QueueVerdict(StrEnum):
    """Whether requests waited for a slot at the fewest and at the most sequences per step,
    counted in every pass."""

    AT_TOP = "some waited even at the most sequences, in every pass"
    BELOW_TOP = "they waited at the fewest, and none at the most in any pass"
    SOME_PASSES = "at the most, some waited in some passes only"
    NONE = "not every pass had requests waiting even at the fewest"


SWEEP_SPREADS = (OUTPUT_TOK_S, "tpot_ms_p99", "latency_s_p99", "latency_s_p50", "queued")


@dataclass(frozen=True)
class SweepFindings:
    """The fewest (``low``) and most (``high``) sequences per step: output (tok/s), the p99
    time per token of a running request (ms), the p99 from arrival to last token (s) and the
    requests that waited for a slot at each, as spreads over the sweep's passes; the level
    where that p99's median was shortest; and the median from arrival at every level
    (``median_spreads``, empty where the sweep has no medians)."""

    low: int
    high: int
    output_low: Spread
    output_high: Spread
    tpot_low_ms: Spread
    tpot_high_ms: Spread
    arrival_low_s: Spread
    arrival_high_s: Spread
    queued_low: Spread
    queued_high: Spread
    best_level: int
    best_arrival_s: Spread
    levels: tuple[int, ...]
    median_spreads: tuple[Spread, ...]

    @classmethod
    def from_sweep(cls, sweep: pd.DataFrame) -> SweepFindings:
        """From a frame indexed by level with ``output_tok_s``, ``tpot_ms_p99``,
        ``latency_s_p99`` and ``queued`` (and ``latency_s_p50`` where measured), each with its
        ``Spread`` columns where the sweep was repeated (``spread_table`` of the passes)."""
        levels = tuple(int(level) for level in sweep.index)
        rows = [row for _, row in sweep.iterrows()]

        def ends(key: str) -> tuple[Spread, Spread]:
            return Spread.in_row(rows[0], key), Spread.in_row(rows[-1], key)

        best = int(np.argmin(sweep["latency_s_p99"].to_numpy(dtype=float)))
        medians = (
            tuple(Spread.in_row(row, "latency_s_p50") for row in rows)
            if "latency_s_p50" in sweep
            else ()
        )
        (
            (output_low, output_high),
            (tpot_low, tpot_high),
            (arrival_low, arrival_high),
            (queued_low, queued_high),
        ) = (ends(key) for key in (OUTPUT_TOK_S, "tpot_ms_p99", "latency_s_p99", "queued"))
        return cls(
            low=levels[0],
            high=levels[-1],
            output_low=output_low,
            output_high=output_high,
            tpot_low_ms=tpot_low,
            tpot_high_ms=tpot_high,
            arrival_low_s=arrival_low,
            arrival_high_s=arrival_high,
            queued_low=queued_low,
            queued_high=queued_high,
            best_level=levels[best],
            best_arrival_s=Spread.in_row(rows[best], "latency_s_p99"),
            levels=levels,
            median_spreads=medians,
        )

    @property
    def passes(self) -> int:
        """How many times each level ran (the fewest, where they differ)."""
        return min(self.output_low.n, self.output_high.n)

    @property
    def repeated(self) -> bool:
        """Every level ran more than once, so each figure has its runs' range."""
        return self.passes > 1

    @property
    def speedup(self) -> float:
        return self.output_high.median / self.output_low.median

    @property
    def speedup_bounds(self) -> tuple[float, float] | None:
        """The least and the most ``speedup`` the passes allow (``ratio_bounds``)."""
        return ratio_bounds(self.output_high, self.output_low)

    @property
    def shows_gain(self) -> bool:
        """The top level's output beat the fewest's by ``THROUGHPUT_SHOWN``, ranges apart."""
        return compare_by(self.output_high, self.output_low, THROUGHPUT_SHOWN) is Compared.HIGHER

    @property
    def tpot_ratio(self) -> float:
        """How many times as long a running request's token took at the most sequences."""
        return self.tpot_high_ms.median / self.tpot_low_ms.median

    @property
    def arrival_ratio(self) -> float:
        """The p99 from arrival at the most sequences against at the fewest."""
        return self.arrival_high_s.median / self.arrival_low_s.median

    @property
    def arrival_sooner(self) -> float:
        """How many times sooner the last arrival was done at the most sequences."""
        return 1 / self.arrival_ratio

    @property
    def tpot_moved(self) -> Compared:
        return compare(self.tpot_high_ms, self.tpot_low_ms, CHANGED)

    @property
    def arrival_moved(self) -> Compared:
        return compare(self.arrival_high_s, self.arrival_low_s, CHANGED)

    @property
    def queue_verdict(self) -> QueueVerdict:
        """Where a queue formed: a level counts only where requests waited in every pass."""
        if self.queued_low.low <= 0:
            return QueueVerdict.NONE
        if self.queued_high.low > 0:
            return QueueVerdict.AT_TOP
        if self.queued_high.high <= 0:
            return QueueVerdict.BELOW_TOP
        return QueueVerdict.SOME_PASSES

    @property
    def best_in_between(self) -> bool:
        """The p99 from arrival was shortest at a level between the fewest and the most, and
        shorter there than at the most beyond the runs' spread."""
        return (
            self.best_level not in (self.low, self.high)
            and compare(self.best_arrival_s, self.arrival_high_s) is Compared.LOWER
        )

    @property
    def median_top(self) -> Spread:
        """The median from arrival at the most sequences (only where it was measured)."""
        return self.median_spreads[-1]

    @property
    def median_rival_level(self) -> int:
        """The level below the most whose median from arrival was shortest."""
        others = [spread.median for spread in self.median_spreads[:-1]]
        return self.levels[int(np.argmin(others))]

    @property
    def median_rival(self) -> Spread:
        return self.median_spreads[self.levels.index(self.median_rival_level)]

    @property
    def median_verdict(self) -> MedianVerdict:
        """The top level's median from arrival counts as the shortest only where its range is
        below every other level's, and as longer again only where it is above the shortest
        other's by ``CHANGED`` with the ranges apart; otherwise the run cannot tell."""
        if len(self.median_spreads) < 2:
            return MedianVerdict.NOT_MEASURED
        top, rival = self.median_top, self.median_rival
        if top.median <= rival.median:
            apart = all(compare(top, other) is Compared.LOWER for other in self.median_spreads[:-1])
            return MedianVerdict.SHORTEST_AT_TOP if apart else MedianVerdict.UNTOLD
        return {
            Compared.HIGHER: MedianVerdict.LONGER_AGAIN,
            Compared.ALIKE: MedianVerdict.NEAR_SHORTEST,
        }.get(compare(top, rival, CHANGED), MedianVerdict.UNTOLD)


class LimitVerdict(StrEnum):
    """What the server did with one request past its ``max_model_len``."""

    REFUSED = "refused before it ran"
    SHORTENED = "served, its answer cut to the room the prompt left"
    SERVED = "served as asked"


def limit_verdict(probe: OverLong) -> LimitVerdict:
    """Refused where the server answered with an error; shortened where the answer stopped
    for its length (``finish_reason="length"``) short of ``max_tokens``, within the room the
    prompt left; otherwise served as asked."""
    if probe.message is not None:
        return LimitVerdict.REFUSED
    answer = probe.answer_tokens
    if (
        probe.finish_reason == "length"
        and answer is not None
        and answer < probe.max_tokens
        and answer <= probe.room
    ):
        return LimitVerdict.SHORTENED
    return LimitVerdict.SERVED


@dataclass(frozen=True)
class ContextFindings:
    """What ``max_model_len`` decided in this run: a start refused for a limit longer than the
    cache (``refusal``, None if it did not fail so), a request whose prompt alone is over the
    limit (``long_prompt``) and one whose prompt fits but whose answer would pass it
    (``long_answer``), and the short requests alone and beside long ones on the small server
    (``capacity``), each load run several times: the most short requests seen running at once,
    and each load's preemptions and short requests' p99 from send to last token (s) as spreads
    over its runs."""

    refusal: StartRefusal | None
    refused_context: int
    long_prompt: OverLong
    long_answer: OverLong
    cache_tokens: int
    long_context: int
    engine_concurrency: float
    short_requests: int
    long_requests: int
    short_running: float
    preemptions_alone: Spread
    preemptions_mixed: Spread
    short_p99_alone_s: Spread
    short_p99_mixed_s: Spread
    first_p99_alone_ms: Spread | None = None  # the short requests' first-token p99 (None: not
    first_p99_mixed_ms: Spread | None = None  # in the runs' summaries)

    @classmethod
    def from_runs(
        cls,
        *,
        refusal: StartRefusal | None,
        refused_context: int,
        long_prompt: OverLong,
        long_answer: OverLong,
        capacity: Capacity,
        short_only: Sequence[Mapping[str, float]],
        mixed: Sequence[Mapping[str, float]],
        short_requests: int,
        long_requests: int,
    ) -> ContextFindings:
        """``short_only`` and ``mixed`` are the two loads' runs as ``summary()`` dicts, whose
        latencies are the short requests' own."""
        if not short_only or not mixed:
            raise ValueError("the mixed-length load needs at least one run of each kind")
        return cls(
            refusal=refusal,
            refused_context=refused_context,
            long_prompt=long_prompt,
            long_answer=long_answer,
            cache_tokens=capacity.kv_cache_tokens,
            long_context=capacity.max_model_len,
            engine_concurrency=capacity.max_concurrency,
            short_requests=short_requests,
            long_requests=long_requests,
            short_running=max(run["running_max"] for run in short_only),
            preemptions_alone=Spread.of(run["preemptions"] for run in short_only),
            preemptions_mixed=Spread.of(run["preemptions"] for run in mixed),
            short_p99_alone_s=Spread.of(run["e2e_ms_p99"] / 1000 for run in short_only),
            short_p99_mixed_s=Spread.of(run["e2e_ms_p99"] / 1000 for run in mixed),
            first_p99_alone_ms=_first_tokens(short_only),
            first_p99_mixed_ms=_first_tokens(mixed),
        )

    @property
    def refused(self) -> bool:
        return self.refusal is not None

    @property
    def prompt_verdict(self) -> LimitVerdict:
        return limit_verdict(self.long_prompt)

    @property
    def answer_verdict(self) -> LimitVerdict:
        return limit_verdict(self.long_answer)

    @property
    def ran_past_engine_count(self) -> bool:
        """More short requests ran at once than the engine's count of full-length ones."""
        return self.short_running > self.engine_concurrency

    @property
    def crowded_out(self) -> bool:
        """Long requests beside the short ones caused preemptions the short ones alone did
        not: every run beside them preempted more often than any run of the short ones
        alone."""
        return self.preemptions_mixed.low > self.preemptions_alone.high

    @property
    def short_p99_moved(self) -> Compared:
        """How the short requests' p99 moved beside the long ones (within ``CHANGED``: alike)."""
        return compare(self.short_p99_mixed_s, self.short_p99_alone_s, CHANGED)

    @property
    def first_p99_moved(self) -> Compared | None:
        """How the short requests' first-token p99 moved beside the long ones; None where the
        runs did not report it."""
        if self.first_p99_alone_ms is None or self.first_p99_mixed_ms is None:
            return None
        return compare(self.first_p99_mixed_ms, self.first_p99_alone_ms, CHANGED)


def _first_tokens(runs: Sequence[Mapping[str, float]]) -> Spread | None:
    """The runs' first-token p99 (ms) as a spread; None where a run did not report one."""
    if not all(TTFT_MS_P99 in run for run in runs):
        return None
    return Spread.of(run[TTFT_MS_P99] for run in runs)
