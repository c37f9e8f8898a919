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
from servelab.lessons.compare import Placed, placed


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
        ratios = [(self.high / fit.at(self.high)) / (self.low / fit.at(self.low))
                  for fit in self._ends()]
        return min(ratios), max(ratios)

    @property
    def pace_window(self) -> tuple[float, float]:
        """Time per token at ``high`` sequences against at ``low``: a step's length."""
        ratios = [fit.at(self.high) / fit.at(self.low) for fit in self._ends()]
        return min(ratios), max(ratios)


def prediction_text(found: DialPrediction) -> str:
    """The prediction, before the sweep."""
    (out_low, out_high), (pace_low, pace_high) = found.output_window, found.pace_window
    return (f"Chapter 02's step model, from this machine's bandwidth and FLOP/s and the "
            f"model's size, predicts that {found.high} sequences per step give "
            f"**{out_low:.1f}–{out_high:.1f}×** the output of {found.low}, each of their tokens "
            f"taking "
            f"**{pace_low:.1f}–{pace_high:.1f}×** as long. It models decoding only: the burst's "
            "prompts, read in the same steps, are left out.")


def check_text(found: DialPrediction, speedup: float, tpot_ratio: float) -> str:
    """The sweep's ratios from its fewest to its most sequences per step (the output's and the
    p99 time per token's, ``SweepFindings.speedup`` and ``tpot_ratio``) against the
    prediction."""
    (out_low, out_high), (pace_low, pace_high) = found.output_window, found.pace_window
    output = placed(speedup, out_low, out_high)
    pace = placed(tpot_ratio, pace_low, pace_high)
    text = (f"The sweep measured {speedup:.1f}× the output and {tpot_ratio:.1f}× "
            f"the p99 time per token from {found.low} to {found.high} sequences per step: the "
            f"output {output} its predicted window, the time per token {pace} its own.")
    if output is Placed.INSIDE and pace is Placed.INSIDE:
        return text + " The dial moves along the curve the step's parts predict."
    if pace is Placed.ABOVE:
        return text + (" A p99 time per token above the window counts tokens that waited while "
                       "the step also read arriving prompts, which the model of decoding "
                       "leaves out.")
    if output is Placed.BELOW:
        return text + (" Output below the window means each sequence cost this engine more "
                       "than the window allowed, or the burst's prompts took steps of their own "
                       "(the model counts decoding only).")
    return text + (" The step's shared part carried more of the engine's own work than the "
                   "window allowed, and every sequence shares it.")
