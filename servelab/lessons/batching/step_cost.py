"""Chapter 02's step-cost model: a decoding step split into its parts, and the batching gain the
split predicts.

The fit says a step of *B* sequences lasts step(*B*) = *a* + *b*·*B* (:class:`StepFit`). The
shared part *a* is one read of every weight plus the engine's fixed work per step; the
per-sequence part *b* is each sequence's arithmetic (2 operations per parameter), its read of
its own KV cache, and the engine's work per sequence (sampling, bookkeeping, small kernels). The
weight read, the arithmetic and the KV read follow from the device's measured bandwidth and
FLOP/s and the model's files; the two overheads are what the fit leaves over. The largest part
at the sweep's largest batch names the regime, so a page carries one verdict.

Throughput at *B* against one sequence is *B*·step(1) ÷ step(*B*): with *r* = *b* ÷ *a*,
gain(*B*) = *B*·(1 + *r*) ÷ (1 + *B*·*r*), and each sequence keeps gain ÷ *B* of one stream's
speed. The ratio *r* alone sets both, which is how the lesson's GPU and this device compare.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

import pandas as pd

from servelab.bench.bandwidth import DeviceLimits, ModelServer, ceiling, parameter_count
from servelab.bench.frames import Result
from servelab.bench.metrics import STEADY_OUTPUT_TOK_S
from servelab.bench.spread import Spread
from servelab.lessons.batching.findings import LESSON_GPU, BatchGain
from servelab.lessons.batching.steps import StepFit, fit_step_time, step_times_ms
from servelab.lessons.paging.kv import kv_shape
from servelab.lessons.thresholds import FIRM_FIT_POINTS, GAIN_AGREE_SHARE


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


REGIME_OF = {StepPart.WEIGHT_READ: Regime.BANDWIDTH, StepPart.STEP_OVERHEAD: Regime.FIXED_COST,
             StepPart.ARITHMETIC: Regime.COMPUTE, StepPart.KV_READ: Regime.KV_READS,
             StepPart.SEQUENCE_OVERHEAD: Regime.SEQUENCE_OVERHEAD}


def gain_at(fit: StepFit, batch: float) -> float:
    """Throughput of ``batch`` sequences against one, as the fit predicts: B·step(1) ÷ step(B)."""
    return batch * fit.at(1) / fit.at(batch)


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
    def of_server(cls, server: ModelServer, limits: DeviceLimits,
                  context_tokens: float) -> StepInputs:
        """``server``'s model on the device ``limits`` measured (in the dtype it computes in)."""
        return cls(weight_bytes=ceiling(server, bandwidth_gb_s=limits.bandwidth_gb_s).weight_bytes,
                   parameters=parameter_count(server.model_path),
                   bandwidth_gb_s=limits.bandwidth_gb_s, flops_per_s=limits.flops,
                   kv_bytes_per_token=kv_shape(server.model_path, limits.dtype).bytes_per_token,
                   context_tokens=context_tokens)

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
        return {StepPart.WEIGHT_READ: self.weight_read_ms,
                StepPart.STEP_OVERHEAD: self.step_overhead_ms,
                StepPart.ARITHMETIC: batch * self.arithmetic_ms,
                StepPart.KV_READ: batch * self.kv_read_ms,
                StepPart.SEQUENCE_OVERHEAD: batch * self.sequence_overhead_ms}

    @property
    def dominant(self) -> StepPart:
        """The largest part at the sweep's largest batch."""
        parts = self.parts(self.largest_batch)
        return max(parts, key=lambda part: parts[part])

    @property
    def regime(self) -> Regime:
        return REGIME_OF[self.dominant]

    @property
    def shared_share_at_top(self) -> float:
        """The shared parts' share of the largest batch's step (of all its parts)."""
        parts = self.parts(self.largest_batch)
        return sum(parts[part] for part in SHARED_PARTS) / sum(parts.values())

    @property
    def rough(self) -> bool:
        return self.points < FIRM_FIT_POINTS


def step_parts_table(cost: StepCost) -> pd.DataFrame:
    """Each part of a step for one sequence and for the sweep's largest batch, in ms, with
    where its number comes from."""
    top = cost.largest_batch
    sources = {StepPart.WEIGHT_READ: "weight bytes ÷ measured bandwidth",
               StepPart.STEP_OVERHEAD: "fit's shared part − weight read",
               StepPart.ARITHMETIC: "2 × parameters ÷ measured FLOP/s, per sequence",
               StepPart.KV_READ: f"KV bytes of {cost.inputs.context_tokens:,.0f} tokens ÷ "
                                 "bandwidth, per sequence",
               StepPart.SEQUENCE_OVERHEAD: "fit's per-sequence part − arithmetic − KV reads"}
    one, many = cost.parts(1), cost.parts(top)
    return pd.DataFrame({"part": [str(part) for part in StepPart],
                         "1 sequence (ms)": [one[part] for part in StepPart],
                         f"{top:.0f} sequences (ms)": [many[part] for part in StepPart],
                         "from": [sources[part] for part in StepPart]})


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


def steady_totals(runs: Mapping[int, Sequence[Result]]) -> dict[int, list[float]]:
    """Each level's steady total (tok/s) in every pass of a sweep (``bench.sweep_runs``)."""
    return {level: [float(run.summary()[STEADY_OUTPUT_TOK_S]) for run in results]
            for level, results in runs.items()}


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
            ratios.append(fit.per_sequence_ms / fit.fixed_ms)
        if not predicted:
            return None
        return cls(users, Spread.of(predicted), Spread.of(measured), Spread.of(ratios))

    @property
    def agrees(self) -> bool:
        """The predicted and measured ranges overlap; with one pass, the two are within
        ``GAIN_AGREE_SHARE`` of each other."""
        if min(self.predicted.n, self.measured.n) > 1:
            return not (self.predicted.below(self.measured)
                        or self.measured.below(self.predicted))
        return abs(self.predicted.median / self.measured.median - 1) <= GAIN_AGREE_SHARE


def _gain_formula(users: int, ratio: float) -> str:
    return (f"{users} × (1 + {ratio:.3f}) ÷ (1 + {users} × {ratio:.3f}) = "
            f"{users * (1 + ratio) / (1 + users * ratio):.1f}×")


def _single_step_words(fit: StepFit, single_step_ms: float | None) -> str:
    """Where one stream's step stood against the line, where it was measured."""
    if single_step_ms is None:
        return ""
    side = "above" if single_step_ms > fit.at(1) else "below"
    measured = "higher" if side == "above" else "lower"
    return (f" One stream's step took {single_step_ms:.1f} ms, {side} the line's "
            f"{fit.at(1):.1f} ms, and every gain divides by that step, so the measured gain came "
            f"out {measured} than the line's.")


def regime_text(cost: StepCost) -> str:
    """The split of a step in words: one regime, from its largest part; none where the fit
    cannot split a step (:attr:`StepFit.splits`)."""
    fit, top = cost.fit, cost.largest_batch
    if not fit.splits:
        return (f"The step times did not fall on a rising line: the best line through them is "
                f"{fit.fixed_ms:.1f} ms plus {fit.per_sequence_ms:.2f} ms per sequence, with "
                f"R² = {fit.r_squared:.2f}. Steps that do not grow with the batch, or scatter "
                "about it, say the machine was busy with other work while the sweep ran, so "
                "this run cannot split a step into its parts or name what bounds it. Run the "
                "sweep again on a quiet machine.")
    line = (f"The fit says a step costs **{fit.fixed_ms:.1f} ms** whatever the batch, plus "
            f"**{fit.per_sequence_ms:.2f} ms** per sequence (R² = {fit.r_squared:.2f}). Reading "
            f"every weight once takes **{cost.weight_read_ms:.1f} ms** at the measured "
            f"bandwidth, so the engine's own fixed work per step is about "
            f"**{cost.step_overhead_ms:.1f} ms**. Of each sequence's {fit.per_sequence_ms:.2f} ms, "
            f"its arithmetic needs {cost.arithmetic_ms:.2f} ms and its KV-cache reads "
            f"{cost.kv_read_ms:.3f} ms; the engine's work per sequence is the other "
            f"**{cost.sequence_overhead_ms:.2f} ms**.")
    if cost.shared_below_read:
        line += (" The shared part is shorter than one read at the probed bandwidth, so the "
                 "engine reads its weights faster than the probe copies memory; the split "
                 "puts no fixed work beside the read.")
    if cost.rough:
        line += (f" With only {cost.points} batch sizes a line fits any numbers exactly, so "
                 "read this split as rough; the full-size run fits more.")
    part = cost.dominant
    parts = cost.parts(top)
    share = parts[part] / sum(parts.values())
    said = (f" At {top:.0f} sequences the largest part of a step is {part} "
            f"({share:.0%} of it), so this machine is **{cost.regime}** at the top of the sweep")
    if part in SHARED_PARTS:
        return (f"{line}{said}: the part every sequence shares still outweighs what each one "
                f"adds ({cost.shared_share_at_top:.0%} of the step), so added users come "
                "cheaply.")
    return (f"{line}{said}: what the sequences add between them now outweighs the shared part "
            f"({cost.shared_share_at_top:.0%} of the step), so each added user lengthens every "
            "step for all of them.")


def gain_text(check: GainCheck | None, fit: StepFit, lesson: LessonStep,
              single_step_ms: float | None = None) -> str:
    """The gain the split predicts against the gain measured, and the lesson's GPU on the same
    terms. ``single_step_ms``, one stream's measured step, says where the line missed when the
    two disagree: every gain is measured against that step."""
    lesson_words = (f"The lesson's figures (one stream {LESSON_GPU.single_total:.0f} tok/s, "
                    f"{lesson.users} at {LESSON_GPU.top_total:,.0f}) imply *a* = "
                    f"{lesson.fixed_ms:.1f} ms and *b* = {lesson.per_sequence_ms:.2f} ms, so "
                    f"*r* = {lesson.ratio:.3f}: {_gain_formula(lesson.users, lesson.ratio)}.")
    if not fit.splits:
        return ("The step times did not fall on a rising line here, so this run gives the "
                f"formula no *r* to work with. {lesson_words}")
    ratio = fit.per_sequence_ms / fit.fixed_ms
    users = check.users if check is not None else lesson.users
    formula = (f"With *r* = *b* ÷ *a* the gain at *B* sequences is *B*·(1 + *r*) ÷ (1 + *B*·*r*). "
               f"Here *r* = {ratio:.3f}, so the fit predicts {_gain_formula(users, ratio)}")
    if check is None:
        measured = (". This run has no steady window at every level (its answers are too "
                    "short), so the prediction has no measured gain to meet.")
    else:
        runs = (f" (each pass's own fit: {check.predicted.range_text('×', 1)}; the passes' "
                f"measured gains: {check.measured.range_text('×', 1)}, the median of their "
                "ratios where the table takes the ratio of the medians)")
        measured = (f", against **{check.measured.median:.1f}×** measured pass by pass{runs}. "
                    + ("The formula accounts for the measured gain: batching bought what the "
                       "split of a step allows."
                       if check.agrees else
                       "The two do not agree: the step time did not grow in a straight line "
                       "over the sweep, so two numbers do not sum it up here."
                       + _single_step_words(fit, single_step_ms)))
    lesson_words = (f" {lesson_words} Each sequence there adds {lesson.ratio:.1%} of the "
                    f"shared step, here {ratio:.1%}: ")
    if ratio > lesson.ratio:
        lesson_words += ("per sequence this device pays more against its shared step than the "
                         "lesson's GPU, which is why its gain at the same batch is smaller.")
    else:
        lesson_words += ("per sequence this device pays no more against its shared step than "
                         "the lesson's GPU, so its gain at the same batch is as large or larger.")
    return formula + measured + lesson_words
