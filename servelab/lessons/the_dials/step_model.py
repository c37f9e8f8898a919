"""Chapter 05's sweep against chapter 02's step model: before the sweep, the output and the time
per token at the most sequences per step, predicted from the device's bandwidth and FLOP/s
(:class:`~servelab.lessons.batching.roofline.Roofline`); after it, where the measured ratios
fell.

A step of *B* sequences lasts *a* + *b*·*B* and gives each of them a token, so from *L* to *H*
sequences the output grows by (*H* ÷ step(*H*)) ÷ (*L* ÷ step(*L*)) and each token takes
step(*H*) ÷ step(*L*) as long. The window is the roofline's: the engine adding up to as much
again to either part of a step.
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.lessons.batching.roofline import Roofline
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.compare import Placed, placed, placed_within


@dataclass(frozen=True)
class DialPrediction:
    """The roofline's step at the sweep's fewest (``low``) and most (``high``) sequences per
    step; the window's ends are the engine adding ``OVERHEAD_UP_TO`` again to the shared part
    or to each sequence's part."""

    roof: Roofline
    low: int
    high: int

    def _ends(self) -> list[StepFit]:
        return [self.roof.step_most_shared, self.roof.step_most_per_sequence]

    @property
    def output_window(self) -> tuple[float, float]:
        """Output at ``high`` sequences against at ``low``."""
        ratios = [
            (self.high / fit.at(self.high)) / (self.low / fit.at(self.low)) for fit in self._ends()
        ]
        return min(ratios), max(ratios)

    @property
    def pace_window(self) -> tuple[float, float]:
        """Time per token at ``high`` sequences against at ``low``: a step's length."""
        ratios = [fit.at(self.high) / fit.at(self.low) for fit in self._ends()]
        return min(ratios), max(ratios)

    def output_placed(self, speedup: float) -> Placed:
        """The sweep's output ratio (``SweepFindings.speedup``) against its predicted window."""
        return placed(speedup, *self.output_window)

    def output_placed_within(
        self, speedup: float, bounds: tuple[float, float] | None
    ) -> Placed | None:
        """``output_placed``, if the passes' ``bounds`` agree (``compare.placed_within``)."""
        return placed_within(speedup, bounds, *self.output_window)

    def pace_placed(self, tpot_ratio: float) -> Placed:
        """The sweep's p99 time-per-token ratio (``SweepFindings.tpot_ratio``) against its
        window."""
        return placed(tpot_ratio, *self.pace_window)
