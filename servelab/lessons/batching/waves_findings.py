"""Chapter 02's waves: the same requests in static waves and batched continuously, found once
(:class:`WavesFindings`) and judged (:class:`~servelab.lessons.compare.Shown`);
``words.waves_text`` phrases it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from servelab.bench.frames import Result
from servelab.bench.spread import Spread, ratio_bounds
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.batching.thresholds import CONTINUOUS_CLEAR, CONTINUOUS_WON, TAIL_MOSTLY
from servelab.lessons.compare import Compared, Shown, compare


@dataclass(frozen=True)
class WavesFindings:
    """The same requests in static waves of ``wave_size`` and continuously, the two taking turns
    a few times: how long each took (a spread over the runs), the median share of slot time that
    stood idle, where the continuous runs' idle time fell (``tail_share``, the median share
    after the last send; None when unknown), and the sweep's step-time fit (None without one),
    from which a step of one sequence and a full step are priced where it splits a step."""

    requests: int
    wave_size: int
    static_s: Spread
    continuous_s: Spread
    idle_static: float
    idle_continuous: float
    tail_share: float | None = None
    fit: StepFit | None = None

    @classmethod
    def of(
        cls,
        waves: Sequence[Result],
        flowing: Sequence[Result],
        wave_size: int,
        fit: StepFit | None = None,
    ) -> WavesFindings:
        """From each mode's runs (one each is allowed: it gives no range to compare)."""
        if not waves or not flowing:
            raise ValueError("the waves need at least one run of each mode")
        static = [run.summary() for run in waves]
        continuous = [run.summary() for run in flowing]
        tails = [float(summary["idle_after_last_send"]) for summary in continuous]
        known = [tail for tail in tails if not math.isnan(tail)]
        return cls(
            requests=len(waves[0].records),
            wave_size=wave_size,
            static_s=Spread.of(run.duration_s for run in waves),
            continuous_s=Spread.of(run.duration_s for run in flowing),
            idle_static=float(np.median([run["idle_slot_share"] for run in static])),
            idle_continuous=float(np.median([run["idle_slot_share"] for run in continuous])),
            tail_share=float(np.median(known)) if known else None,
            fit=fit,
        )

    @property
    def step_one_ms(self) -> float | None:
        """A step carrying one sequence, by the fit (None where it cannot split a step)."""
        return self.fit.at(1) if self.fit is not None and self.fit.splits else None

    @property
    def step_full_ms(self) -> float | None:
        """A step carrying a full wave, by the fit (None where it cannot split a step)."""
        return self.fit.at(self.wave_size) if self.fit is not None and self.fit.splits else None

    @property
    def speedup(self) -> float:
        """How many times as fast continuous batching finished (medians)."""
        return self.static_s.median / self.continuous_s.median

    @property
    def verdict(self) -> Shown:
        """Continuous batching against static waves on the same requests: quicker only with
        every continuous run done before every run in waves; in full at ``CONTINUOUS_CLEAR``×,
        in part past ``CONTINUOUS_WON``×."""
        if compare(self.continuous_s, self.static_s) is not Compared.LOWER:
            return Shown.NONE
        if self.speedup >= CONTINUOUS_CLEAR:
            return Shown.STRONG
        if self.speedup > CONTINUOUS_WON:
            return Shown.WEAK
        return Shown.NONE

    @property
    def repeated(self) -> bool:
        """The waves ran more than once, so their times are medians with ranges."""
        return self.static_s.ranged

    @property
    def one_run_a_mode(self) -> bool:
        """Either mode ran once: no range to weigh a difference by."""
        return not (self.static_s.ranged and self.continuous_s.ranged)

    @property
    def waves_sooner(self) -> bool:
        """Every run in waves finished before every continuous run."""
        return compare(self.static_s, self.continuous_s) is Compared.LOWER

    @property
    def continuous_sooner(self) -> bool:
        """Every continuous run finished before every run in waves."""
        return compare(self.continuous_s, self.static_s) is Compared.LOWER

    @property
    def least_margin(self) -> float:
        """The share by which continuous batching must finish sooner to count as a win."""
        return CONTINUOUS_WON - 1

    @property
    def tail_mostly(self) -> bool | None:
        """Whether most of the continuous run's idle slot time came after its last send."""
        return None if self.tail_share is None else self.tail_share >= TAIL_MOSTLY

    @property
    def busy_static(self) -> float:
        """The share of slot time busy in waves."""
        return 1 - self.idle_static

    @property
    def busy_continuous(self) -> float:
        """The share of slot time busy continuously."""
        return 1 - self.idle_continuous

    @property
    def if_steps_cost_alike(self) -> float:
        """The gain the busy shares predict if every step cost the same however full it was."""
        return self.busy_continuous / self.busy_static if self.busy_static > 0 else math.inf

    @property
    def short_of_slots(self) -> bool:
        """Continuous won, by less than the busy shares predict (every pairing of the runs,
        ``ratio_bounds``, where they were repeated), and the fit can say why."""
        bounds = ratio_bounds(self.static_s, self.continuous_s)
        most = self.speedup if bounds is None else bounds[1]
        return (
            self.step_one_ms is not None
            and self.verdict is not Shown.NONE
            and most < self.if_steps_cost_alike
        )
