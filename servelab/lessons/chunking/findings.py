"""Chapter 06's findings: :class:`TradeFindings` judges the two rows of ``measuring.compare``
once, computing every figure and verdict the page (and chapter 00's summary) words;
``chunking.words`` only words them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from servelab.bench.prefill import PrefillFit
from servelab.bench.spread import Spread
from servelab.lessons.chunking.sizing import BudgetPlan, Reading, read_alone_s
from servelab.lessons.chunking.thresholds import (
    CHUNK_STEP_NEAR,
    PAUSE_GAIN_SHOWN,
    PAUSE_OFF_TARGET,
)
from servelab.lessons.compare import Compared, Placed, Shown, compare, compare_by, placed_runs


def _tail_verdict(chunked: Spread, whole: Spread) -> Shown:
    """A p99 gap with chunks against in one step: lower in full with the ranges apart and
    ``PAUSE_GAIN_SHOWN``× below, in part by less; the other way where it was higher beyond the
    spread; untold where the ranges overlap."""
    if compare(chunked, whole) is Compared.HIGHER:
        return Shown.REVERSED
    if compare_by(chunked, whole, PAUSE_GAIN_SHOWN) is Compared.LOWER:
        return Shown.STRONG
    if compare(chunked, whole) is Compared.LOWER:
        return Shown.WEAK
    return Shown.UNTOLD


# A pooled percentile can only land on the hitches when they are more than its share of the gaps:
# the p99 counts them when over 1 in 100 gaps were hitches.
P99_SHARE = 0.01


@dataclass(frozen=True)
class ReadAlone:
    """The document read with nothing else running, to its first token, on each server (s)."""

    one_step_s: float
    chunked_s: float

    @classmethod
    def of(cls, one_step: PrefillFit, chunked: PrefillFit, tokens: int) -> ReadAlone:
        """From the two servers' ``bench.prefill_fit``, at the document's ``tokens``."""
        return cls(read_alone_s(one_step, tokens), read_alone_s(chunked, tokens))

    @property
    def extra_s(self) -> float:
        """How much longer the document took alone in chunks than in one step (s)."""
        return self.chunked_s - self.one_step_s


def _spread_or_none(row: Mapping[str, float], key: str) -> Spread | None:
    """The spread ``measuring.compare`` gave ``key``, or None where no run measured it."""
    return None if math.isnan(float(row[key])) else Spread.in_row(row, key)


@dataclass(frozen=True)
class ReadingRuns:
    """One way of reading the document (in one step or in chunks), from its row of
    ``measuring.compare``, each a spread over its runs (every run's figure the median over its
    documents): the users' longest pause (ms), their p99 gap while a document was read (ms),
    the document's first token (s), the users' own runs (s), pooled over each run the users'
    p99 gap (ms) and the share of their gaps that were hitches, and the hitches each user had
    while a document was read; and the documents that queued behind another."""

    pause: Spread
    tail: Spread
    wait: Spread
    done: Spread
    pooled: Spread
    hitch_share: Spread
    hitches: Spread
    queued: int

    @classmethod
    def of(cls, row: Mapping[str, float]) -> ReadingRuns:
        """From one row of ``measuring.compare``."""
        return cls(
            pause=Spread.in_row(row, "users_longest_gap_ms"),
            tail=Spread.in_row(row, "itl_ms_p99_after_arrival"),
            wait=Spread.in_row(row, "document_ttft_s"),
            done=Spread.in_row(row, "users_done_s"),
            pooled=Spread.in_row(row, "users_itl_ms_p99"),
            hitch_share=Spread.in_row(row, "hitch_share"),
            hitches=Spread.in_row(row, "hitches_per_document"),
            queued=int(row["documents_queued"]),
        )

    @property
    def pause_s(self) -> float:
        """The users' median longest pause, in seconds."""
        return self.pause.median / 1000


@dataclass(frozen=True)
class TradeFindings:
    """Chapter 06's two settings side by side, one record a reading: ``whole`` (the document
    read in one step) and ``chunked`` (in chunks of the budget); the first and last hitch with
    chunks (ms, spreads over the runs; None where no run had one); the users' usual gap in one
    step (ms); the plan, and the document read alone on each server where the page measured
    it."""

    plan: BudgetPlan
    whole: ReadingRuns
    chunked: ReadingRuns
    first_hitch: Spread | None
    last_hitch: Spread | None
    usual_gap_ms: float
    alone: ReadAlone | None = None

    @classmethod
    def from_runs(
        cls,
        chunked: Mapping[str, float],
        whole: Mapping[str, float],
        plan: BudgetPlan,
        alone: ReadAlone | None = None,
    ) -> TradeFindings:
        """From the two rows of ``measuring.compare``."""
        return cls(
            plan=plan,
            whole=ReadingRuns.of(whole),
            chunked=ReadingRuns.of(chunked),
            first_hitch=_spread_or_none(chunked, "first_hitch_ms"),
            last_hitch=_spread_or_none(chunked, "last_hitch_ms"),
            usual_gap_ms=float(whole["users_itl_ms_p50"]),
            alone=alone,
        )

    @property
    def pause_runs(self) -> int:
        """The fewer runs behind either reading's longest pause."""
        return min(self.whole.pause.n, self.chunked.pause.n)

    @property
    def pause_verdict(self) -> Shown | None:
        """The users' longest pause with chunks against in one step, over the runs: shorter
        with the ranges apart and ``PAUSE_GAIN_SHOWN``× below, else not shown; untold with one
        run a side; ``None`` where the chunked run read the document in one step too (nothing
        for chunking to change)."""
        if self.plan.second_read is Reading.ONE_STEP:
            return None
        if not (self.whole.pause.ranged and self.chunked.pause.ranged):
            return Shown.UNTOLD
        if compare_by(self.chunked.pause, self.whole.pause, PAUSE_GAIN_SHOWN) is Compared.LOWER:
            return Shown.STRONG
        return Shown.NONE

    @property
    def tail_verdict(self) -> Shown:
        """The users' p99 gap while a document was read."""
        return _tail_verdict(self.chunked.tail, self.whole.tail)

    @property
    def pooled_verdict(self) -> Shown:
        """The users' p99 gap pooled over each whole run."""
        return _tail_verdict(self.chunked.pooled, self.whole.pooled)

    @property
    def p99_counts_hitches(self) -> tuple[bool, bool]:
        """Whether, in one step and with chunks, the documents' hitches were more than the
        share of all gaps a pooled p99 lies above (``P99_SHARE``): only then can it land on
        them."""
        return (
            self.whole.hitch_share.median > P99_SHARE,
            self.chunked.hitch_share.median > P99_SHARE,
        )

    @property
    def pooled_to_pause(self) -> tuple[float, float]:
        """Each run's pooled p99 as a share of its longest pause (medians): how much of the worst
        stall a percentile over every gap shows."""
        return (
            self.whole.pooled.median / self.whole.pause.median,
            self.chunked.pooled.median / self.chunked.pause.median,
        )

    @property
    def hitch_growth(self) -> Shown | None:
        """A chunked document's last hitch against its first, over the runs: longer beyond the
        spread (each later chunk attends to more cached tokens), or not shown; ``None`` where no
        run had a gap long enough to count as a hitch."""
        if self.first_hitch is None or self.last_hitch is None:
            return None
        if compare(self.last_hitch, self.first_hitch) is Compared.HIGHER:
            return Shown.STRONG
        return Shown.NONE

    @property
    def deal_verdict(self) -> Shown:
        """Whether chunking was the better deal for the decoding users: in full where their
        worst pause was shorter beyond the spread while neither their own runs (over the users)
        nor their tail while a document was read got worse beyond the spread; in part where one
        of those got worse (a trade); not shown where the worst pause was not shorter; untold
        with one user a run (their own runs have no range to weigh)."""
        if self.pause_verdict is not Shown.STRONG:
            return Shown.NONE
        if not (self.whole.done.ranged and self.chunked.done.ranged):
            return Shown.UNTOLD
        if self.runs_longer or self.tail_verdict is Shown.REVERSED:
            return Shown.WEAK
        return Shown.STRONG

    @property
    def runs_longer(self) -> bool:
        """Whether the users' own runs took longer with chunks, beyond the spread."""
        return compare(self.chunked.done, self.whole.done) is Compared.HIGHER

    @property
    def target_verdict(self) -> Placed:
        """The users' longest pause with chunks against the pause the budget was sized for:
        inside unless every run's pause was ``PAUSE_OFF_TARGET``× past it either way."""
        target = self.plan.pause_ms
        return placed_runs(self.chunked.pause, target / PAUSE_OFF_TARGET, PAUSE_OFF_TARGET * target)

    @property
    def pause_over_target(self) -> float:
        """The longest pause with chunks (the median), in pause targets."""
        return self.chunked.pause.median / self.plan.pause_ms

    @property
    def wait_verdict(self) -> Compared | None:
        """The document's own first token with chunks against in one step (``HIGHER``: later,
        the ranges apart); None where the chunked run read it in one step too."""
        if self.plan.second_read is Reading.ONE_STEP:
            return None
        return compare(self.chunked.wait, self.whole.wait)

    @property
    def alone_cost(self) -> Shown | None:
        """What the document read alone on each server says of chunking's own cost: shown
        where the chunked read alone was slower, not shown where it was no slower, ``None``
        where it was not read alone. A read alone that took longer than every read beside the
        users was disturbed (the machine busy with something else), so it cannot weigh
        chunking's cost: untold."""
        if self.alone is None:
            return None
        if self.alone.one_step_s > self.whole.wait.high:
            return Shown.UNTOLD
        if self.alone.chunked_s <= self.alone.one_step_s:
            return Shown.NONE
        return Shown.STRONG

    @property
    def pause_over_usual(self) -> float:
        """The longest pause with chunks, in usual gaps."""
        return self.chunked.pause.median / self.usual_gap_ms

    @property
    def wait_ratio(self) -> float:
        """How many times as long the document waited with chunks."""
        return self.chunked.wait.median / self.whole.wait.median

    @property
    def wait_extra_s(self) -> float:
        """How much later the document's first token came with chunks (medians, s)."""
        return self.chunked.wait.median - self.whole.wait.median

    @property
    def chunk_planned_ms(self) -> float:
        """What one chunk of the budget takes at the rate the budget was sized from (ms)."""
        return 1000.0 * self.plan.budget / self.plan.prefill_tok_s

    @property
    def chunk_alone_ms(self) -> float | None:
        """What one chunk took on average, the document read alone on the chunked server (ms;
        None where the page did not read it alone)."""
        if self.alone is None:
            return None
        return 1000.0 * self.alone.chunked_s / self.plan.chunks

    @property
    def load_extra_s(self) -> tuple[float, float] | None:
        """How much longer the document took to its first token beside the users than alone, in
        one step and in chunks (medians, s; None where it was not read alone)."""
        if self.alone is None:
            return None
        return (
            self.whole.wait.median - self.alone.one_step_s,
            self.chunked.wait.median - self.alone.chunked_s,
        )

    @property
    def load_chunk_ms(self) -> float | None:
        """The chunked read's extra time beside the users, per chunk (ms): each chunk's step
        also carried the users' decoding."""
        extra = self.load_extra_s
        return None if extra is None else 1000 * extra[1] / self.plan.chunks

    @property
    def load_chunk_is_a_step(self) -> bool:
        """Whether that extra per chunk is about one of the users' usual steps (within
        ``CHUNK_STEP_NEAR`` of it): the decoding each chunk's step carried accounts for it."""
        extra = self.load_chunk_ms
        return extra is not None and abs(extra - self.plan.step_ms) <= (
            CHUNK_STEP_NEAR * self.plan.step_ms
        )

    @property
    def extra_chunk_ms(self) -> float | None:
        """The document's extra time alone in chunks, per chunk (ms; None where the page did not
        read it alone)."""
        if self.alone is None:
            return None
        return 1000 * self.alone.extra_s / self.plan.chunks
