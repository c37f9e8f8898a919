"""The paging effect, found once: what one token costs, how many requests a cache holds reserved
or paged, how many ran at once, and what a cache too small for the load did.

Chapters 00 and 03 both build :class:`PagingFindings` with :meth:`PagingFindings.from_run`, so
the two pages cannot judge one run differently; ``serving_many_users.words.paging_text`` and
``paged_attention.words.paging_text`` only word it. Every verdict here compares counts the run
measured with each other or with zero: none needs a bar of its own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from servelab.bench.spread import Spread
from servelab.engines.vllm_server import Capacity
from servelab.lessons.compare import Compared, Placed, compare, compare_by, placed
from servelab.lessons.paging.kv import KVShape, RequestFit, blocks_for
from servelab.lessons.paging.thresholds import SQUEEZE_SLOWER


@dataclass(frozen=True)
class TokenCost:
    """What one token costs in the cache, and so one request and one full context."""

    bytes_per_token: int
    dtype: str
    context_limit: int
    request_tokens: int
    context_mib: float
    request_mib: float

    @classmethod
    def of(cls, shape: KVShape, context_limit: int, request_tokens: int) -> TokenCost:
        return cls(
            shape.bytes_per_token,
            shape.dtype,
            context_limit,
            request_tokens,
            shape.mib_for(context_limit),
            shape.mib_for(request_tokens),
        )


def _most_running(load: Mapping[str, float] | pd.DataFrame) -> float:
    """The largest ``running_max`` of a summary (one value) or a sweep (one per level); NaN if
    the run sampled none."""
    if "running_max" not in load:
        return math.nan
    values = np.atleast_1d(np.asarray(load["running_max"], dtype=float))
    return math.nan if np.isnan(values).all() else float(np.nanmax(values))


@dataclass(frozen=True)
class PagingFindings:
    """A server's cache in requests (``fit``), the engine's own count of full-context requests
    (cache ÷ limit), and the most sequences seen running at once under load (``ran``; NaN if not
    sampled). ``tokens_per_sequence`` is what each held at the busiest moment, where measured."""

    fit: RequestFit
    cache_tokens: int
    engine_concurrency: float
    ran: float
    tokens_per_sequence: float

    @classmethod
    def from_run(
        cls,
        capacity: Capacity,
        block: int,
        request_tokens: int,
        load: Mapping[str, float] | pd.DataFrame,
        tokens_per_sequence: float = math.nan,
    ) -> PagingFindings:
        """From the engine's capacity line, its block size, the requests' length and the load
        (a ``summary()`` dict or a sweep frame with ``running_max``)."""
        fit = RequestFit.of(capacity.kv_cache_tokens, block, capacity.max_model_len, request_tokens)
        return cls(
            fit=fit,
            cache_tokens=capacity.kv_cache_tokens,
            engine_concurrency=capacity.max_concurrency,
            ran=_most_running(load),
            tokens_per_sequence=tokens_per_sequence,
        )

    @property
    def paging_gain(self) -> bool:
        """Blocks fit more of these requests than reserving the full context does."""
        return self.fit.paged > self.fit.reserved

    @property
    def counts_ratio(self) -> float:
        """Requests that fit paged ÷ those that fit reserved (NaN if none fits reserved)."""
        return self.fit.paged / self.fit.reserved if self.fit.reserved else math.nan

    @property
    def counts_ratio_off(self) -> bool:
        """Dividing the two counts, both rounded down to whole requests, does not give the held
        factor (each to the nearest whole, as the page prints them): the rounding shows."""
        return self.fit.reserved > 0 and round(self.counts_ratio) != round(self.fit.held_factor)

    @property
    def ran_verdict(self) -> Placed | None:
        """How many sequences ran at once against the full-context requests the cache holds:
        above them where paging let more run than reserving would; ``None`` where the run
        sampled no running count."""
        if math.isnan(self.ran):
            return None
        return placed(self.ran, 0, self.fit.reserved)


def sample_gap(samples: pd.DataFrame) -> float:
    """The median time between two ``/metrics`` samples of a run (its ``server`` frame), in s;
    NaN with fewer than two. A peak shorter than this can fall between samples."""
    gaps = samples["t_s"].diff().dropna()
    return float(gaps.median()) if len(gaps) else math.nan


@dataclass(frozen=True)
class SqueezeFindings:
    """The same load, repeated, in a cache too small for it (``cramped``) beside the roomy one.
    The running, waiting and preemption counts are the most any one run showed (running and
    waiting as its samples, ``sample_s`` apart, saw them); ``failed`` counts every run's."""

    running: float
    waiting: float
    preemptions: float
    failed: float
    cramped_s: Spread
    roomy_s: Spread
    sample_s: float
    cramped_tpot_ms: Spread | None = None  # a request's time per output token, p50 of a run
    roomy_tpot_ms: Spread | None = None

    @classmethod
    def from_runs(
        cls,
        roomy: Sequence[Mapping[str, float]],
        cramped: Sequence[Mapping[str, float]],
        *,
        sample_s: float,
    ) -> SqueezeFindings:
        """From each load's runs, as ``summary()`` dicts, and the small cache's sampling gap."""
        if not roomy or not cramped:
            raise ValueError("the squeeze needs at least one run of each load")
        return cls(
            running=max(run["running_max"] for run in cramped),
            waiting=max(run["waiting_max"] for run in cramped),
            preemptions=max(run["preemptions"] for run in cramped),
            failed=sum(run.get("failed", 0.0) for run in cramped),
            cramped_s=Spread.of(run["duration_s"] for run in cramped),
            roomy_s=Spread.of(run["duration_s"] for run in roomy),
            sample_s=sample_s,
            cramped_tpot_ms=_measured(cramped, "tpot_ms_p50"),
            roomy_tpot_ms=_measured(roomy, "tpot_ms_p50"),
        )

    @property
    def waited(self) -> bool:
        """Some request had to wait for room: the squeeze showed."""
        return self.waiting > 0

    @property
    def preempted(self) -> bool:
        return self.preemptions > 0

    @property
    def took_longer(self) -> bool:
        """The cramped load's runs took longer than the roomy one's (``duration``)."""
        return self.duration is Compared.HIGHER

    @property
    def duration(self) -> Compared:
        """The cramped load's time against the roomy one's: longer or shorter with the ranges
        apart and the medians ``SQUEEZE_SLOWER`` or more apart."""
        return compare_by(self.cramped_s, self.roomy_s, 1 + SQUEEZE_SLOWER)

    @property
    def time_ratio(self) -> float:
        """The cramped load's median time against the roomy one's."""
        return self.cramped_s.median / self.roomy_s.median

    @property
    def all_completed(self) -> bool:
        return self.failed == 0

    @property
    def tokens_faster(self) -> bool:
        """Once running, the small cache's requests got their tokens faster (ranges apart): with
        fewer sequences running, each step carried fewer of them."""
        if self.cramped_tpot_ms is None or self.roomy_tpot_ms is None:
            return False
        return compare(self.cramped_tpot_ms, self.roomy_tpot_ms) is Compared.LOWER


@dataclass(frozen=True)
class DrawnRun:
    """The one run a usage plot draws: the most sequences its samples saw running and waiting,
    and the engine's preemptions."""

    running: float
    waiting: float
    preemptions: float

    @classmethod
    def of(cls, summary: Mapping[str, float]) -> DrawnRun:
        """From the run's ``summary()``."""
        return cls(summary["running_max"], summary["waiting_max"], summary["preemptions"])


def _measured(runs: Sequence[Mapping[str, float]], key: str) -> Spread | None:
    """The spread of ``key`` over the runs that measured it; None where none did."""
    values = [run[key] for run in runs if key in run and not math.isnan(run[key])]
    return Spread.of(values) if values else None


@dataclass(frozen=True)
class StepBudget:
    """The step's token budget (``max_num_batched_tokens``, as the page started its servers)
    against ``prompts`` prompts of ``prompt_tokens`` that arrive together."""

    budget: int
    prompt_tokens: int
    prompts: int

    @property
    def total_tokens(self) -> int:
        return self.prompts * self.prompt_tokens

    @property
    def per_step(self) -> int:
        """Whole prompts one step's budget holds."""
        return self.budget // self.prompt_tokens

    @property
    def steps(self) -> int:
        """Steps the budget needs to read every prompt."""
        return math.ceil(self.total_tokens / self.budget)

    @property
    def one_step(self) -> bool:
        """Whether one step's budget holds every prompt that arrives together."""
        return self.total_tokens <= self.budget

    @property
    def left_waiting(self) -> int:
        """The prompts a first step's budget leaves for a later one."""
        return self.prompts - self.per_step


@dataclass(frozen=True)
class AdmissionFindings:
    """Why the running counts differ from what fits: waiting beside free blocks (the step's
    token budget held prompts back) and more admitted than fits whole (optimistic admission,
    paid for with preemption). The fits are whole requests, prompt and answer, in blocks; the
    running counts are the most the samples, ``sample_s`` apart in the small cache, saw."""

    roomy_waiting: float
    roomy_running: float
    roomy_fit: int
    step: StepBudget
    cramped_running: float
    cramped_room: RequestFit
    cramped_preemptions: float
    sample_s: float

    @classmethod
    def from_runs(
        cls,
        roomy: Mapping[str, float],
        roomy_fit: RequestFit,
        squeeze: SqueezeFindings,
        cramped_room: RequestFit,
        *,
        step: StepBudget,
    ) -> AdmissionFindings:
        """From the roomy load's ``summary()`` dict, the small cache's runs as the squeeze holds
        them (the most any run showed, so both paragraphs give one count), what each cache
        holds and the roomy server's step budget."""
        return cls(
            roomy_waiting=roomy["waiting_max"],
            roomy_running=roomy["running_max"],
            roomy_fit=roomy_fit.paged,
            step=step,
            cramped_running=squeeze.running,
            cramped_room=cramped_room,
            cramped_preemptions=squeeze.preemptions,
            sample_s=squeeze.sample_s,
        )

    @property
    def budget_held(self) -> bool:
        """Requests waited while fewer ran than the roomy cache holds: memory did not hold
        them."""
        return self.roomy_waiting > 0 and self.roomy_running < self.roomy_fit

    @property
    def cramped_fit(self) -> int:
        return self.cramped_room.paged

    @property
    def prompt_blocks(self) -> int:
        """Blocks a prompt needs when it is admitted (at least one)."""
        return max(blocks_for(self.step.prompt_tokens, self.cramped_room.block), 1)

    @property
    def admitted_on_prompts(self) -> int:
        """Requests the small cache can admit when each needs only its prompt's blocks."""
        return self.cramped_room.blocks // self.prompt_blocks

    @property
    def seen_past_fit(self) -> bool:
        """The samples saw more running in the small cache than it holds whole requests."""
        return self.cramped_running > self.cramped_fit

    @property
    def preempted(self) -> bool:
        return self.cramped_preemptions > 0

    @property
    def optimistic(self) -> bool:
        """More were admitted than the small cache holds whole: seen in the samples, or proved
        by a preemption (one happens only when the blocks promised run out)."""
        return self.seen_past_fit or self.preempted
