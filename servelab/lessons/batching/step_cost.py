"""Chapter 02's step-cost model: a decoding step split into its parts, and the batching gain the
split predicts.

The fit says a step of *B* sequences lasts step(*B*) = *a* + *b*·*B* (:class:`StepFit`). The
shared part *a* is one read of every weight plus the engine's fixed work per step; the
per-sequence part *b* is each sequence's arithmetic (2 operations per parameter), its read of
its own KV cache, and the engine's work per sequence (sampling, bookkeeping, small kernels). The
weight read, the arithmetic and the KV read follow from the device's measured bandwidth and
FLOP/s and the model's files; the two overheads are what the fit leaves over. The largest part
at the sweep's largest batch names the regime, so a page carries one verdict
(:mod:`.step_words` phrases it).

Throughput at *B* against one sequence is *B*·step(1) ÷ step(*B*): with *r* = *b* ÷ *a*,
gain(*B*) = *B*·(1 + *r*) ÷ (1 + *B*·*r*), and each sequence keeps gain ÷ *B* of one stream's
speed. The ratio *r* alone sets both, which is how the lesson's GPU and this device compare.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from servelab.bench.bandwidth import DeviceLimits, ModelServer, ceiling, parameter_count
from servelab.bench.frames import Result
from servelab.bench.metrics import STEADY_OUTPUT_TOK_S
from servelab.bench.spread import Spread
from servelab.lessons.batching.findings import LESSON_GPU, BatchGain
from servelab.lessons.batching.steps import (
    StepFit,
    fit_step_time,
    gain_at,
    ratio_gain,
    step_times_ms,
)
from servelab.lessons.batching.thresholds import FIRM_FIT_POINTS, GAIN_AGREE_SHARE
from servelab.lessons.compare import Compared, compare
from servelab.lessons.paging.kv import kv_shape


class StepPart(StrEnum):
    """One part of a decoding step's time."""

    WEIGHT_READ = "reading every weight once"
    STEP_OVERHEAD = "the engine's fixed work per step"
    ARITHMETIC = "the sequences' arithmetic"
    KV_READ = "the sequences' KV-cache reads"
    SEQUENCE_OVERHEAD = "the engine's work per sequence"


SHARED_PARTS = (StepPart.WEIGHT_READ, StepPart.STEP_OVERHEAD)


class Regime(StrEnum):
    """What set the step time at the sweep's largest batch: its largest part."""

    BANDWIDTH = "bandwidth-bound"
    FIXED_COST = "fixed-cost-bound"
    COMPUTE = "compute-bound"
    KV_READS = "bound by KV-cache reads"
    SEQUENCE_OVERHEAD = "bound by per-sequence overhead"


REGIME_OF = {
    StepPart.WEIGHT_READ: Regime.BANDWIDTH,
    StepPart.STEP_OVERHEAD: Regime.FIXED_COST,
    StepPart.ARITHMETIC: Regime.COMPUTE,
    StepPart.KV_READ: Regime.KV_READS,
    StepPart.SEQUENCE_OVERHEAD: Regime.SEQUENCE_OVERHEAD,
}


@dataclass(frozen=True)
class StepInputs:
    """What the device and the model say a step's known parts cost: weight bytes and
    parameters, the measured bandwidth and FLOP/s, the KV bytes of one token and a sequence's
    context while it decodes."""

    weight_bytes: float
    parameters: float
    bandwidth_gb_s: float
    flops_per_s: float
    kv_bytes_per_token: float
    context_tokens: float

    @classmethod
    def of_server(
        cls, server: ModelServer, limits: DeviceLimits, context_tokens: float
    ) -> StepInputs:
        """``server``'s model on the device ``limits`` measured (in the dtype it computes in)."""
        return cls(
            weight_bytes=ceiling(server, bandwidth_gb_s=limits.bandwidth_gb_s).weight_bytes,
            parameters=parameter_count(server.model_path),
            bandwidth_gb_s=limits.bandwidth_gb_s,
            flops_per_s=limits.flops,
            kv_bytes_per_token=kv_shape(server.model_path, limits.dtype).bytes_per_token,
            context_tokens=context_tokens,
        )

    @property
    def weight_read_ms(self) -> float:
        return self.weight_bytes / (self.bandwidth_gb_s * 1e6)

    @property
    def arithmetic_ms(self) -> float:
        """One sequence's arithmetic in a step: 2 operations per parameter."""
        return 1000.0 * 2.0 * self.parameters / self.flops_per_s

    @property
    def kv_read_ms(self) -> float:
        """One sequence's read of its own KV cache in a step."""
        return self.kv_bytes_per_token * self.context_tokens / (self.bandwidth_gb_s * 1e6)


@dataclass(frozen=True)
class StepCost:
    """The fit's two parts split by what ``inputs`` say each known piece costs;
    ``largest_batch`` is the sweep's top and ``points`` the number of distinct batch sizes
    fitted."""

    fit: StepFit
    inputs: StepInputs
    largest_batch: float
    points: int

    @classmethod
    def of(cls, fit: StepFit, batches: Sequence[float], inputs: StepInputs) -> StepCost:
        sizes = [float(batch) for batch in batches]
        return cls(fit, inputs, max(sizes), len(set(sizes)))

    @property
    def weight_read_ms(self) -> float:
        return self.inputs.weight_read_ms

    @property
    def arithmetic_ms(self) -> float:
        return self.inputs.arithmetic_ms

    @property
    def kv_read_ms(self) -> float:
        return self.inputs.kv_read_ms

    @property
    def step_overhead_ms(self) -> float:
        """What the shared part leaves after one read of the weights (none where it is
        shorter than that read)."""
        return max(0.0, self.fit.fixed_ms - self.weight_read_ms)

    @property
    def sequence_overhead_ms(self) -> float:
        """What the per-sequence part leaves after the arithmetic and the KV reads (none where
        it is shorter than both)."""
        return max(0.0, self.fit.per_sequence_ms - self.arithmetic_ms - self.kv_read_ms)

    @property
    def shared_below_read(self) -> bool:
        """The fitted shared part is shorter than one read of the weights at the probed
        bandwidth: the engine reads faster than the probe copies."""
        return self.fit.fixed_ms < self.weight_read_ms

    def parts(self, batch: float) -> dict[StepPart, float]:
        """Milliseconds of each part in a step of ``batch`` sequences."""
        return {
            StepPart.WEIGHT_READ: self.weight_read_ms,
            StepPart.STEP_OVERHEAD: self.step_overhead_ms,
            StepPart.ARITHMETIC: batch * self.arithmetic_ms,
            StepPart.KV_READ: batch * self.kv_read_ms,
            StepPart.SEQUENCE_OVERHEAD: batch * self.sequence_overhead_ms,
        }

    @property
    def dominant(self) -> StepPart:
        """The largest part at the sweep's largest batch."""
        parts = self.parts(self.largest_batch)
        return max(parts, key=lambda part: parts[part])

    @property
    def regime(self) -> Regime:
        return REGIME_OF[self.dominant]

    @property
    def dominant_share(self) -> float:
        """The largest part's share of the largest batch's step (of all its parts)."""
        parts = self.parts(self.largest_batch)
        return parts[self.dominant] / sum(parts.values())

    @property
    def shared_dominant(self) -> bool:
        """The largest part is one every sequence shares."""
        return self.dominant in SHARED_PARTS

    @property
    def shared_share_at_top(self) -> float:
        """The shared parts' share of the largest batch's step (of all its parts)."""
        parts = self.parts(self.largest_batch)
        return sum(parts[part] for part in SHARED_PARTS) / sum(parts.values())

    @property
    def rough(self) -> bool:
        return self.points < FIRM_FIT_POINTS

    # -- what the engine adds, and where the arithmetic would bind ------------------------------
    @property
    def shared_ms(self) -> float:
        """All the batch shares in a step: one read of the weights and the engine's fixed work."""
        return self.weight_read_ms + self.step_overhead_ms

    @property
    def step_overhead_share(self) -> float:
        """The engine's fixed work per step against one read of the weights (1.0: as much)."""
        return self.step_overhead_ms / self.weight_read_ms

    @property
    def sequence_overhead_share(self) -> float:
        """The engine's work per sequence against that sequence's arithmetic and KV reads."""
        return self.sequence_overhead_ms / (self.arithmetic_ms + self.kv_read_ms)

    @property
    def top_arithmetic_ms(self) -> float:
        return self.largest_batch * self.arithmetic_ms

    @property
    def top_arithmetic_share(self) -> float:
        return self.top_arithmetic_ms / sum(self.parts(self.largest_batch).values())

    @property
    def arithmetic_binds_at(self) -> float:
        """The batch whose arithmetic takes as long as all the batch shares (``shared_ms``)."""
        return self.shared_ms / self.arithmetic_ms

    @property
    def arithmetic_meets_read_at(self) -> float:
        """The batch whose arithmetic takes as long as one read of the weights alone."""
        return self.weight_read_ms / self.arithmetic_ms

    @property
    def engine_moves_bind(self) -> bool:
        """The engine's fixed work moves where the arithmetic binds past the read's point."""
        return self.step_overhead_ms > 0

    @property
    def arithmetic_binds_in_sweep(self) -> bool:
        return self.largest_batch >= self.arithmetic_binds_at


@dataclass(frozen=True)
class LessonStep:
    """The step fit the lesson's GPU figures imply: one stream at ``single_total`` tok/s makes
    step(1) = 1 ÷ that; ``users`` streams at ``top_total`` make step(users) = users ÷ that."""

    fixed_ms: float
    per_sequence_ms: float
    users: int

    @classmethod
    def of(cls, lesson: BatchGain = LESSON_GPU) -> LessonStep:
        one = 1000.0 / lesson.single_total
        top = 1000.0 * lesson.users / lesson.top_total
        per_sequence = (top - one) / (lesson.users - 1)
        return cls(one - per_sequence, per_sequence, lesson.users)

    @property
    def ratio(self) -> float:
        return self.per_sequence_ms / self.fixed_ms

    @property
    def gain(self) -> float:
        """The gain at ``users`` the formula gives from ``ratio``."""
        return ratio_gain(self.users, self.ratio)


def steady_totals(runs: Mapping[int, Sequence[Result]]) -> dict[int, list[float]]:
    """Each level's steady total (tok/s) in every pass of a sweep (``bench.sweep_runs``)."""
    return {
        level: [float(run.summary()[STEADY_OUTPUT_TOK_S]) for run in results]
        for level, results in runs.items()
    }


@dataclass(frozen=True)
class GainCheck:
    """The gain at ``users`` as each pass's own fit predicts it, against the gain each pass
    measured (steady totals, ``users`` over one); the fitted ratio b ÷ a per pass."""

    users: int
    predicted: Spread
    measured: Spread
    ratio: Spread

    @classmethod
    def of(cls, totals: Mapping[int, Sequence[float]], users: int) -> GainCheck | None:
        """From each level's steady totals, one per pass (:func:`steady_totals`); None where no
        pass has a steady window at every level (the smoke size's answers are too short)."""
        levels = sorted(totals)
        passes = min(len(totals[level]) for level in levels)
        predicted, measured, ratios = [], [], []
        for number in range(passes):
            row = [float(totals[level][number]) for level in levels]
            if any(math.isnan(total) or total <= 0 for total in row):
                continue
            fit = fit_step_time(levels, step_times_ms(levels, row).tolist())
            if not fit.splits:
                continue
            predicted.append(gain_at(fit, users))
            measured.append(row[levels.index(users)] / row[levels.index(1)])
            ratios.append(fit.ratio)
        if not predicted:
            return None
        return cls(users, Spread.of(predicted), Spread.of(measured), Spread.of(ratios))

    @property
    def agrees(self) -> bool:
        """The predicted and measured ranges overlap; with one pass, the two are within
        ``GAIN_AGREE_SHARE`` of each other."""
        if min(self.predicted.n, self.measured.n) > 1:
            return compare(self.predicted, self.measured) not in (Compared.HIGHER, Compared.LOWER)
        return abs(self.predicted.median / self.measured.median - 1) <= GAIN_AGREE_SHARE


@dataclass(frozen=True)
class GainFindings:
    """The gain the fit's *r* predicts, against ``check`` (None where the run had no steady
    window at every level) and beside the lesson's GPU; ``single_step_ms``, one stream's
    measured step, says where the line missed: every gain is measured against that step."""

    check: GainCheck | None
    fit: StepFit
    lesson: LessonStep
    single_step_ms: float | None = None

    @property
    def users(self) -> int:
        """The batch the gain is predicted at: the check's, else the lesson's."""
        return self.check.users if self.check is not None else self.lesson.users

    @property
    def ratio(self) -> float:
        return self.fit.ratio

    @property
    def predicted(self) -> float:
        """The gain at ``users`` the formula gives from the fit's *r*."""
        return ratio_gain(self.users, self.ratio)

    @property
    def costlier_than_lesson(self) -> bool:
        """Each sequence adds more against the shared step here than on the lesson's GPU."""
        return self.ratio > self.lesson.ratio

    @property
    def line_single_ms(self) -> float:
        """One stream's step as the line gives it."""
        return self.fit.at(1)

    @property
    def single_above_line(self) -> bool | None:
        """Whether one stream's measured step took longer than the line's; None unmeasured."""
        return None if self.single_step_ms is None else self.single_step_ms > self.line_single_ms
