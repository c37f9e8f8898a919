"""The batching effect, found once: one stream against a crowd, the lesson's GPU figures to set
beside it, and every bar a verdict about batching is judged by; and chapter 02's two records of
what bounds one stream's step (:class:`CeilingFindings`, :class:`Intensity`).

Chapters 00, 01 and 02 and ``python -m servelab.smoke`` all build :class:`BatchFindings` with
:meth:`BatchFindings.from_sweep`, so two pages can never report one run differently; the words
(``serving_many_users.words.batching_text``, ``words.scaling_text``, ``words.crowd_text``) only
phrase it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import pandas as pd

from servelab.bench.bandwidth import Ceiling
from servelab.bench.metrics import OUTPUT_TOK_S, STEADY_OUTPUT_TOK_S
from servelab.bench.spread import Spread, ratio_bounds
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.batching.thresholds import (
    AGREE_FACTOR,
    CEILING_NEAR,
    LESSON_STRENGTH,
    SHOWN_GAIN,
)
from servelab.lessons.compare import Compared, Shown, compare


# -- the lesson's figures ----------------------------------------------------------------------
@dataclass(frozen=True)
class BatchGain:
    """One stream alone against ``users`` streams batched: the total output (tok/s) at each end
    and the speed each user decoded at."""

    users: int
    single_total: float
    top_total: float
    single_each: float
    top_each: float

    @property
    def gain(self) -> float:
        """The batch's total output against one stream's."""
        return self.top_total / self.single_total

    @property
    def kept(self) -> float:
        """The share of the single-stream speed each batched user kept."""
        return self.top_each / self.single_each

    @property
    def lost(self) -> float:
        """The share of the single-stream speed each batched user gave up."""
        return 1 - self.kept

    @property
    def gain_per_stream(self) -> float:
        return self.gain / self.users


# The lesson's figures for one GPU; one stream alone is both the total and what its user sees.
LESSON_GPU = BatchGain(
    users=32, single_total=100.0, top_total=2000.0, single_each=100.0, top_each=60.0
)


# -- this run's -------------------------------------------------------------------------------
def top_users(levels: Iterable[int]) -> int:
    """The crowd a sweep's one stream is set against: the lesson's 32 streams where the sweep
    measured them, else its highest level."""
    measured = sorted(int(level) for level in levels)
    return LESSON_GPU.users if LESSON_GPU.users in measured else measured[-1]


STEADY_BASIS = "while every user was decoding"
WHOLE_BASIS = "over the whole run"


@dataclass(frozen=True)
class BatchFindings(BatchGain):
    """One stream against the top of a concurrency sweep, and the verdict.

    Both totals are on one ``basis``: the steady state where the sweep has it at both ends, else
    the whole run. What each user gets is the total on that basis shared by the users (in the
    steady state every step gives each user one token), so ``kept`` is ``gain`` ÷ ``users``.
    A repeated sweep's totals are medians, and ``single_spread`` and ``top_spread`` hold their
    ranges (one measurement each where the sweep ran once).
    """

    basis: str
    single_spread: Spread | None = None
    top_spread: Spread | None = None

    @classmethod
    def from_sweep(cls, sweep: pd.DataFrame) -> BatchFindings:
        """From a frame with one row per concurrency (``concurrency`` and ``summary()``'s
        columns): one stream against the lesson's 32 streams where the sweep measured them,
        else against its highest level."""
        levels = sweep.set_index("concurrency").sort_index()
        if 1 not in levels.index or len(levels) < 2:
            raise ValueError(
                "the batching findings need one stream alone (concurrency 1) and "
                f"at least one level above it; the sweep has {list(levels.index)}"
            )
        users = top_users(levels.index)
        ends = levels.loc[[1, users]]
        steady = STEADY_OUTPUT_TOK_S in ends and not ends[STEADY_OUTPUT_TOK_S].isna().any()
        key = STEADY_OUTPUT_TOK_S if steady else OUTPUT_TOK_S
        single_spread, top_spread = (Spread.in_row(row, key) for _, row in ends.iterrows())
        return cls(
            users=int(users),
            single_total=single_spread.median,
            top_total=top_spread.median,
            single_each=single_spread.median,
            top_each=top_spread.median / users,
            basis=STEADY_BASIS if steady else WHOLE_BASIS,
            single_spread=single_spread,
            top_spread=top_spread,
        )

    @property
    def ranges(self) -> tuple[Spread, Spread] | None:
        """One stream's and the crowd's spreads where both were measured more than once, so
        that they can be weighed; else None."""
        single, top = self.single_spread, self.top_spread
        if single is None or top is None or not (single.ranged and top.ranged):
            return None
        return single, top

    @property
    def repeated(self) -> bool:
        return self.ranges is not None

    @property
    def sweeps(self) -> int | None:
        """The fewer sweeps behind either total where both have ranges; else None."""
        return None if self.ranges is None else min(spread.n for spread in self.ranges)

    @property
    def gain_bounds(self) -> tuple[float, float] | None:
        """The least and the most gain the runs allow, pairing the crowd's slowest run with one
        stream's quickest and the other way round; None without ranges."""
        return None if self.ranges is None else ratio_bounds(self.ranges[1], self.ranges[0])

    @property
    def kept_bounds(self) -> tuple[float, float] | None:
        """The least and the most of one stream's speed each user can have kept
        (``gain_bounds`` shared by the users); None without ranges."""
        bounds = self.gain_bounds
        return None if bounds is None else (bounds[0] / self.users, bounds[1] / self.users)

    @property
    def kept_untold(self) -> bool:
        """The runs' ranges allow that each user lost nothing: the most each can have kept
        reaches a full stream's speed, so the run cannot say what the crowd cost them."""
        bounds = self.kept_bounds
        return bounds is not None and bounds[1] >= 1.0

    @property
    def verdict(self) -> Shown:
        """Shown when the gain reaches ``SHOWN_GAIN`` and, in a repeated sweep, even the slowest
        run of the crowd beat the quickest of one stream alone; in full at the lesson's strength
        (``LESSON_STRENGTH``), in part below it. A gain past the bar that the sweeps' ranges
        still cover is untold."""
        if not self.gain >= SHOWN_GAIN:  # a NaN gain shows nothing either
            return Shown.NONE
        if (
            self.ranges is not None
            and compare(self.ranges[1], self.ranges[0]) is not Compared.HIGHER
        ):
            return Shown.UNTOLD
        if self.gain_per_stream >= LESSON_STRENGTH * LESSON_GPU.gain_per_stream:
            return Shown.STRONG
        return Shown.WEAK

    @property
    def short_untold(self) -> bool:
        """Shown in part by the medians, yet the most gain the sweeps' ranges allow
        (``gain_bounds``) reaches the lesson's strength: the run cannot say it fell short."""
        bounds = self.gain_bounds
        return (
            self.verdict is Shown.WEAK
            and bounds is not None
            and bounds[1] / self.users >= LESSON_STRENGTH * LESSON_GPU.gain_per_stream
        )

    @property
    def within_noise(self) -> bool:
        """A gain past the bar that the repeated sweeps' ranges still cover: not shown either."""
        return self.verdict is Shown.UNTOLD

    @property
    def shown(self) -> bool:
        return self.verdict in (Shown.STRONG, Shown.WEAK)

    @property
    def step_cost(self) -> float:
        """How many times as long a step carrying ``users`` sequences took as a step carrying
        one: each gives every sequence one token, so it is ``users`` ÷ ``gain``."""
        return self.users / self.gain if self.gain > 0 else math.inf


def two_level_sweep(
    one: Mapping[str, float], many: Mapping[str, float], users: int
) -> pd.DataFrame:
    """One user's and ``users`` users' ``summary()`` rows as the sweep ``from_sweep`` reads."""
    return pd.DataFrame([{"concurrency": 1, **one}, {"concurrency": users, **many}])


# -- what bounds one stream's step (chapter 02) -----------------------------------------------
@dataclass(frozen=True)
class CeilingFindings:
    """How close one stream came to the speed that reading all weights once per token allows."""

    bandwidth_gb_s: float
    weight_mb: float
    ceiling_tok_s: float
    measured_tok_s: float
    fraction: float

    @classmethod
    def of(cls, limit: Ceiling) -> CeilingFindings:
        if limit.measured_tok_s is None or limit.fraction is None:
            raise ValueError("the ceiling's findings need the single stream's measured speed")
        return cls(
            limit.bandwidth_gb_s,
            limit.weight_bytes / 1e6,
            limit.ceiling_tok_s,
            limit.measured_tok_s,
            limit.fraction,
        )

    @property
    def near(self) -> bool:
        return self.fraction >= CEILING_NEAR


@dataclass(frozen=True)
class Intensity:
    """The arithmetic-intensity argument's numbers, on paper and from the step-time fit.

    On paper a batch of *B* does 2·*B* operations per weight read; the arithmetic catches up with
    the weight read at ``batch_on_paper`` = balance × bytes per weight ÷ 2. Measured, the fit's
    per-sequence part catches up with one read of the weights at ``batch_measured`` = read time
    ÷ per-sequence time. ``per_sequence_ms_predicted`` is what the arithmetic alone needs for one
    sequence (2 × parameters ÷ FLOP/s), beside the fitted ``per_sequence_ms``.
    """

    flops_per_s: float
    bandwidth_gb_s: float
    bytes_per_weight: float
    weight_read_ms: float
    per_sequence_ms: float
    per_sequence_ms_predicted: float
    fit_splits: bool = True

    @classmethod
    def of(
        cls,
        flops_per_s: float,
        bandwidth_gb_s: float,
        weight_bytes: float,
        parameters: float,
        fit: StepFit,
    ) -> Intensity:
        return cls(
            flops_per_s=flops_per_s,
            bandwidth_gb_s=bandwidth_gb_s,
            bytes_per_weight=weight_bytes / parameters,
            weight_read_ms=1000.0 * weight_bytes / (bandwidth_gb_s * 1e9),
            per_sequence_ms=fit.per_sequence_ms,
            per_sequence_ms_predicted=1000.0 * 2.0 * parameters / flops_per_s,
            fit_splits=fit.splits,
        )

    @property
    def gflops_per_s(self) -> float:
        return self.flops_per_s / 1e9

    @property
    def balance(self) -> float:
        return self.flops_per_s / (self.bandwidth_gb_s * 1e9)

    @property
    def batch_on_paper(self) -> float:
        return self.balance * self.bytes_per_weight / 2.0

    @property
    def batch_measured(self) -> float:
        return self.weight_read_ms / self.per_sequence_ms if self.per_sequence_ms > 0 else math.inf

    @property
    def cost_factor(self) -> float:
        """The fitted per-sequence cost against what the arithmetic alone needs."""
        return self.per_sequence_ms / self.per_sequence_ms_predicted

    @property
    def agrees(self) -> bool:
        """The fitted per-sequence cost is within ``AGREE_FACTOR`` of the arithmetic's."""
        return 1 / AGREE_FACTOR <= self.cost_factor <= AGREE_FACTOR
