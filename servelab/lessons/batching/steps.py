"""Chapters 01 and 02: the step-time fit, the arithmetic rate, and the pages' interpretation (the
fit split into its parts, and the regime that follows, is :mod:`.step_cost`).

Each effect has a frozen findings record built by one constructor from the run
(:class:`CeilingFindings`, :class:`Intensity`, :class:`WavesFindings`;
one stream against a crowd is :class:`~servelab.lessons.batching.findings.BatchFindings`), whose
properties are its numbers and named verdicts. The ``*_text`` functions only word a record for
the page (a cell tagged ``prose``). Every bar a verdict here uses is a named constant of
:mod:`servelab.lessons.thresholds`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd

from servelab.bench.bandwidth import Ceiling
from servelab.bench.frames import Result
from servelab.bench.spread import Spread
from servelab.lessons.batching.findings import LESSON_GPU, BatchFindings, BatchGain, BatchVerdict
from servelab.lessons.thresholds import (
    AGREE_FACTOR,
    CEILING_NEAR,
    CONTINUOUS_CLEAR,
    CONTINUOUS_WON,
    FIT_R2_SPLITS,
    TAIL_MOSTLY,
)


def beside_lesson(found: BatchFindings, device_label: str) -> pd.DataFrame:
    """The lesson's GPU figures next to this run's, row by row (chapters 00 and 02), each row
    written in its own unit."""
    def column(run: BatchGain) -> list[str]:
        return [f"{run.single_total:,.0f}", f"{run.top_total:,.0f}", f"{run.top_each:,.1f}",
                f"{run.gain:.1f}×", f"{run.kept:.0%}"]

    return pd.DataFrame({
        "": ["one stream, total (tok/s)", f"{found.users} streams, total (tok/s)",
             f"{found.users} streams, each user (tok/s)", "total against one stream",
             "share of one stream's speed each user keeps"],
        f"lesson (GPU, {LESSON_GPU.users} streams)": column(LESSON_GPU),
        device_label: column(found),
    })


# -- one stream against a crowd (the ranges are shared with chapters 00 and 02) -----------
def sweep_ranges(found: BatchFindings) -> str:
    """The ranges behind a repeated sweep's two totals, as a parenthesis; empty for one sweep."""
    if found.ranges is None:
        return ""
    single, top = found.ranges
    return (f" (medians of {min(single.n, top.n)} sweeps; lowest to highest: one stream "
            f"{single.low:,.0f}–{single.high:,.0f}, {found.users} streams "
            f"{top.low:,.0f}–{top.high:,.0f} tok/s)")


NOISE_TEXT = ("the sweeps' ranges overlap, so this run cannot tell that gain from the machine's "
              "noise")


def crowd_text(found: BatchFindings, smoke: bool) -> str:
    """One user against a crowd, worded from the findings every batching page shares (chapter
    01 builds them from its repeated pair of runs: steady-state figures, every user
    decoding)."""
    numbers = (f"One user alone decoded at **{found.single_total:.0f} tok/s**. With "
               f"**{found.users}** users at once the server produced "
               f"**{found.top_total:.0f} tok/s** in total{sweep_ranges(found)}, and each user "
               f"received **{found.top_each:.1f} tok/s**.")
    if found.shown and found.kept_untold and found.kept_bounds is not None:
        low, high = found.kept_bounds
        verdict = (f"The total grew **{found.gain:.1f}-fold**: every decoding step advanced all "
                   f"of them at once. Each user kept {found.kept:.0%} of the speed one user had "
                   f"alone at the medians, but the runs' ranges allow anything from {low:.0%} to "
                   f"{high:.0%}, so this run cannot say how much speed the crowd cost each "
                   "user.")
    elif found.shown:
        verdict = (f"The total grew **{found.gain:.1f}-fold** while each user kept "
                   f"**{found.kept:.0%}** of the speed one user had alone: every decoding step "
                   "advanced all of them at once.")
    elif found.within_noise:
        verdict = f"The total grew {found.gain:.1f}-fold, but {NOISE_TEXT}."
    elif smoke:
        verdict = (f"The total grew only {found.gain:.1f}-fold. This is the smoke-size run: its "
                   "answers are too short for the server's steady state to say much. Run the "
                   "page at full size to see the effect.")
    else:
        verdict = (f"The total grew only {found.gain:.1f}-fold, so this run did not show the gain "
                   "batching normally brings; something else may have been using the processor.")
    return f"{numbers} {verdict}"


def token_count_text(client_tokens: float, server_tokens: float) -> str:
    """Whether the client's token count matches the server's ``/metrics`` counter."""
    if client_tokens == server_tokens:
        return (f"The server's own `/metrics` counter agrees with the client: "
                f"**{server_tokens:,.0f}** generated tokens for these runs.")
    return (f"The server's `/metrics` counted **{server_tokens:,.0f}** generated tokens and the "
            f"client **{client_tokens:,.0f}**: something else used the server meanwhile.")


# -- chapter 02 --------------------------------------------------------------------------------
@dataclass(frozen=True)
class StepFit:
    """Step time ≈ ``fixed_ms`` + ``per_sequence_ms`` × batch, fitted by least squares."""

    fixed_ms: float
    per_sequence_ms: float
    r_squared: float

    def at(self, batch: float) -> float:
        return self.fixed_ms + self.per_sequence_ms * batch

    @property
    def crossover(self) -> float:
        """The batch at which the per-sequence work costs as much as the fixed part."""
        return self.fixed_ms / self.per_sequence_ms if self.per_sequence_ms > 0 else math.inf

    @property
    def splits(self) -> bool:
        """Whether the line can split a step: both parts positive and the step times close to
        the line (R² at least ``FIT_R2_SPLITS``). Steps that did not grow with the batch, or
        scattered about it, say the machine was busy with something else, not how a step
        divides."""
        return (self.fixed_ms > 0 and self.per_sequence_ms > 0
                and self.r_squared >= FIT_R2_SPLITS)


def step_times_ms(concurrency: Sequence[float], steady_tok_s: Sequence[float]) -> np.ndarray:
    """Time of one decoding step at each level: in the steady state every step gives each of
    the ``concurrency`` sequences one token, so a step lasts concurrency ÷ throughput."""
    return 1000.0 * np.asarray(concurrency, float) / np.asarray(steady_tok_s, float)


def fit_step_time(batch: Sequence[float], step_ms: Sequence[float]) -> StepFit:
    """Least-squares line through (batch, step time); needs two or more distinct batches."""
    x, y = np.asarray(batch, float), np.asarray(step_ms, float)
    if len(set(x.tolist())) < 2:
        raise ValueError("fitting a line needs step times at two or more batch sizes")
    slope, intercept = np.polyfit(x, y, 1)
    residual = float(np.sum((y - (intercept + slope * x)) ** 2))
    spread = float(np.sum((y - y.mean()) ** 2))
    return StepFit(float(intercept), float(slope), 1.0 - residual / spread if spread else 1.0)


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
        return cls(limit.bandwidth_gb_s, limit.weight_bytes / 1e6, limit.ceiling_tok_s,
                   limit.measured_tok_s, limit.fraction)

    @property
    def near(self) -> bool:
        return self.fraction >= CEILING_NEAR


def ceiling_text(found: CeilingFindings) -> str:
    """The ceiling in words."""
    numbers = (f"This machine copies memory at **{found.bandwidth_gb_s:.1f} GB/s** and the "
               f"weights are **{found.weight_mb:.0f} MB**, so reading them once per "
               f"token allows at most **{found.ceiling_tok_s:.0f} tok/s** for one stream. It "
               f"decoded at **{found.measured_tok_s:.1f} tok/s**: **{found.fraction:.0%}** of "
               "that bound.")
    if found.near:
        verdict = ("One stream runs close to the bound: a single stream's step is mostly "
                   "reading the weights, and a batch shares exactly that read.")
    else:
        verdict = ("One stream stays far below the bound, so reading the weights is not what "
                   "takes most of a single stream's step here; the fit below splits a step "
                   "into the part every sequence shares and the part each one adds.")
    return f"{numbers} {verdict}"


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
    def of(cls, flops_per_s: float, bandwidth_gb_s: float, weight_bytes: float,
           parameters: float, fit: StepFit) -> Intensity:
        return cls(flops_per_s=flops_per_s, bandwidth_gb_s=bandwidth_gb_s,
                   bytes_per_weight=weight_bytes / parameters,
                   weight_read_ms=1000.0 * weight_bytes / (bandwidth_gb_s * 1e9),
                   per_sequence_ms=fit.per_sequence_ms,
                   per_sequence_ms_predicted=1000.0 * 2.0 * parameters / flops_per_s,
                   fit_splits=fit.splits)

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


def intensity_text(found: Intensity) -> str:
    """The arithmetic-intensity argument with this machine's numbers, and whether the measured
    steps bear it out."""
    numbers = (f"This machine multiplies matrices at **{found.flops_per_s / 1e9:.0f} GFLOP/s** "
               f"and moves **{found.bandwidth_gb_s:.1f} GB/s**: it can do "
               f"**{found.balance:.0f}** operations in the time it reads one byte. A batch of "
               f"*B* sequences does 2·*B* operations per weight, and a weight is "
               f"{found.bytes_per_weight:.0f} bytes, so on paper the arithmetic catches up with "
               f"the weight reads at about **{found.batch_on_paper:.0f}** sequences.")
    measured = (f"Measured, one sequence adds **{found.per_sequence_ms:.2f} ms** to a step, and "
                f"the arithmetic alone would need {found.per_sequence_ms_predicted:.2f} ms "
                f"(2 operations per parameter at that rate); the per-sequence part adds up to "
                f"one read of the weights ({found.weight_read_ms:.1f} ms) at about "
                f"**{found.batch_measured:.0f}** sequences.")
    if not found.fit_splits:
        return (f"{numbers} The step-time fit above could not split a step into its parts, so "
                "this run has no measured per-sequence cost to set beside the arithmetic.")
    if found.agrees:
        seen = ("The two agree: the cost each sequence adds is its arithmetic, as the argument "
                "assumes.")
    else:
        seen = (f"They do not agree: each sequence costs **{found.cost_factor:.1f}×** what its "
                "arithmetic needs, so other work also grows with the batch here (the split "
                "above counts it: each sequence's KV-cache reads and the engine's work per "
                "sequence), and the paper figure is only a bound.")
    return f"{numbers} {measured} {seen}"


def scaling_text(found: BatchFindings, smoke: bool) -> str:
    """One stream against the sweep's top, beside the lesson's GPU."""
    numbers = (f"Counted {found.basis}, one stream made **{found.single_total:.0f} tok/s** and "
               f"{found.users} streams **{found.top_total:.0f} tok/s** in total"
               f"{sweep_ranges(found)}: **{found.gain:.1f}×**, with each user at "
               f"**{found.kept:.0%}** of the single stream's speed. The lesson's GPU goes from "
               f"{LESSON_GPU.single_total:.0f} to {LESSON_GPU.top_total:,.0f} tok/s "
               f"({LESSON_GPU.gain:.0f}×), each user at about {LESSON_GPU.kept:.0%}.")
    if found.verdict is BatchVerdict.AS_IN_LESSON:
        verdict = "This machine shows the effect at the lesson's strength."
    elif found.verdict is BatchVerdict.WEAKER:
        verdict = ("The total rose clearly, though less than on the lesson's GPU; the step-time "
                   "fit below shows what held it back.")
    elif found.within_noise:
        verdict = f"Yet {NOISE_TEXT}."
    elif smoke:
        verdict = ("This smoke-size run is too small to show the effect; run the page at full "
                   "size to measure it.")
    else:
        verdict = ("The total barely rose, so this run did not show the batching gain; the "
                   "machine may have been busy with other work.")
    return f"{numbers} {verdict}"


class WavesVerdict(StrEnum):
    """Continuous batching against static waves on the same requests."""

    CLEAR = "continuous clearly quicker"
    WON = "continuous quicker"
    NOT_SHOWN = "no difference shown"


@dataclass(frozen=True)
class WavesFindings:
    """The same requests in static waves of ``wave_size`` and continuously, the two taking turns
    a few times: how long each took (a spread over the runs), the median share of slot time that
    stood idle, where the continuous runs' idle time fell (``tail_share``, the median share
    after the last send; None when unknown), and from the step-time fit what a step of one
    sequence and a full step cost (None without a fit)."""

    requests: int
    wave_size: int
    static_s: Spread
    continuous_s: Spread
    idle_static: float
    idle_continuous: float
    tail_share: float | None = None
    step_one_ms: float | None = None
    step_full_ms: float | None = None

    @classmethod
    def of(cls, waves: Sequence[Result], flowing: Sequence[Result], wave_size: int,
           fit: StepFit | None = None) -> WavesFindings:
        """From each mode's runs (one each is allowed: it gives no range to compare)."""
        if not waves or not flowing:
            raise ValueError("the waves need at least one run of each mode")
        static = [run.summary() for run in waves]
        continuous = [run.summary() for run in flowing]
        tails = [float(summary["idle_after_last_send"]) for summary in continuous]
        known = [tail for tail in tails if not math.isnan(tail)]
        return cls(requests=len(waves[0].records), wave_size=wave_size,
                   static_s=Spread.of(run.duration_s for run in waves),
                   continuous_s=Spread.of(run.duration_s for run in flowing),
                   idle_static=float(np.median([run["idle_slot_share"] for run in static])),
                   idle_continuous=float(np.median([run["idle_slot_share"]
                                                    for run in continuous])),
                   tail_share=float(np.median(known)) if known else None,
                   step_one_ms=None if fit is None else fit.at(1),
                   step_full_ms=None if fit is None else fit.at(wave_size))

    @property
    def speedup(self) -> float:
        """How many times as fast continuous batching finished (medians)."""
        return self.static_s.median / self.continuous_s.median

    @property
    def verdict(self) -> WavesVerdict:
        """Quicker only with every continuous run done before every run in waves."""
        if not self.continuous_s.below(self.static_s):
            return WavesVerdict.NOT_SHOWN
        if self.speedup >= CONTINUOUS_CLEAR:
            return WavesVerdict.CLEAR
        if self.speedup > CONTINUOUS_WON:
            return WavesVerdict.WON
        return WavesVerdict.NOT_SHOWN

    @property
    def tail_mostly(self) -> bool | None:
        """Whether most of the continuous run's idle slot time came after its last send."""
        return None if self.tail_share is None else self.tail_share >= TAIL_MOSTLY

    @property
    def if_steps_cost_alike(self) -> float:
        """The gain the busy shares predict if every step cost the same however full it was."""
        busy_static = 1 - self.idle_static
        return (1 - self.idle_continuous) / busy_static if busy_static > 0 else math.inf

    @property
    def short_of_slots(self) -> bool:
        """Continuous won, by less than the busy shares predict, and the fit can say why."""
        return (self.step_one_ms is not None and self.verdict is not WavesVerdict.NOT_SHOWN
                and self.speedup < self.if_steps_cost_alike)


def tail_text(found: WavesFindings) -> str:
    """Where the continuous run's idle slot time came from, or nothing if it is not known."""
    if found.tail_mostly is None:
        return ""
    if found.tail_mostly:
        return (f" {found.tail_share:.0%} of its idle slot time came after the last request had "
                f"been sent, when no request was left waiting and the last long answers decoded "
                f"alone.")
    return (f" Only {found.tail_share:.0%} of its idle slot time came after the last request "
            f"had been sent; the rest fell while requests still waited, in the moments between "
            f"one answer ending and the next request being sent.")


def waves_text(found: WavesFindings, smoke: bool) -> str:
    """Static waves against continuous batching on the same requests. With the step-time fit
    the text also says why the gain falls short of what the idle slots alone suggest: a step
    that carries few sequences costs less than a full one, so an idle slot wastes less than a
    slot's share of a step."""
    runs = (f"medians of {found.static_s.n} runs each, range in brackets"
            if found.static_s.n > 1 else "one run each")
    numbers = (f"The same {found.requests} requests took "
               f"**{found.static_s.with_range(1, ' s')}** in waves of {found.wave_size} and "
               f"**{found.continuous_s.with_range(1, ' s')}** continuously "
               f"(**{found.speedup:.2f}×** the throughput; {runs}). Slots stood idle "
               f"**{found.idle_static:.0%}** of the time in waves and "
               f"**{found.idle_continuous:.0%}** continuously.")
    if found.verdict is WavesVerdict.CLEAR:
        verdict = ("In a wave, each short answer's slot stays empty until the wave's longest "
                   "answer is done — the red gaps in the first timeline. Continuous batching "
                   "hands a freed slot to the next request at the next step.")
        verdict += tail_text(found)
    elif found.verdict is WavesVerdict.WON:
        verdict = ("Continuous batching won, but by less than the idle share of the waves "
                   "suggests: the machine may have been busy, or these requests' lengths were "
                   "too even for the waves to waste much.")
    elif smoke:
        verdict = ("At the smoke size there are too few waves for the waste to add up; run the "
                   "page at full size to see it.")
    elif min(found.static_s.n, found.continuous_s.n) < 2:
        verdict = ("One run a mode gives no range to weigh a difference by, so this run cannot "
                   "tell the two apart.")
    elif found.static_s.below(found.continuous_s):
        verdict = ("The waves finished sooner in every run, so this run did not show what "
                   "continuous batching gains.")
    elif found.continuous_s.below(found.static_s):
        verdict = (f"Continuous batching finished sooner in every run, but by no more than "
                   f"{CONTINUOUS_WON - 1:.0%}: this run did not show a difference worth the name.")
    else:
        verdict = "The runs' ranges overlap, so this run cannot tell the two apart."
    if found.short_of_slots:
        verdict += (f" Had every step cost the same however full it was, the busy shares "
                    f"({1 - found.idle_static:.0%} against {1 - found.idle_continuous:.0%}) "
                    f"would predict {found.if_steps_cost_alike:.1f}×. But by the fit above a "
                    f"step with one sequence costs {found.step_one_ms:.0f} ms and a full one of "
                    f"{found.wave_size} costs {found.step_full_ms:.0f} ms, so a wave's nearly "
                    f"empty steps are cheap, and the waste in time is smaller than the waste in "
                    f"slots.")
    return f"{numbers} {verdict}"
