"""Chapter 05's output gain and time per token predicted from this device's step line
(:mod:`servelab.lessons.device_model`), beside the roofline's window (:mod:`.step_model`).

A step of *B* sequences gives each a token, so from *L* to *H* sequences a step the output grows
by (*H* ÷ step(*H*)) ÷ (*L* ÷ step(*L*)), and each token takes step(*H*) ÷ step(*L*) as long.
The window bounds those from the datasheet figures and an assumed engine share; the line is the
step this device measured, engine and all. The line was timed on sequences that only decode,
while each of the sweep's bursts also reads its prompts, and a p99 time per token counts the
tokens that waited through those reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.bench.spread import Spread, ratio_bounds
from servelab.lessons.device_model.foretold import Checked
from servelab.lessons.device_model.kept import StepLine
from servelab.lessons.the_dials.findings import SweepFindings


@dataclass(frozen=True)
class LineGain:
    """The step line (None: none to hand), the sweep's fewest and most sequences a step, the
    output and the p99 time per token at each over its passes, and the prompt tokens each
    request brought."""

    line: StepLine | None
    low: int
    high: int
    output_low: Spread
    output_high: Spread
    tpot_low: Spread
    tpot_high: Spread
    prompt_tokens: int

    @classmethod
    def of(cls, line: StepLine | None, swept: SweepFindings, prompt_tokens: int) -> LineGain:
        return cls(
            line,
            swept.low,
            swept.high,
            swept.output_low,
            swept.output_high,
            swept.tpot_low_ms,
            swept.tpot_high_ms,
            prompt_tokens,
        )

    @property
    def predicted(self) -> float | None:
        """The output at ``high`` against ``low`` the line gives."""
        if self.line is None:
            return None
        fit = self.line.fit
        return (self.high / fit.at(self.high)) / (self.low / fit.at(self.low))

    @property
    def measured(self) -> Spread:
        """The measured gain: the medians' ratio, within what pairing the passes allows."""
        return _ratio(self.output_high, self.output_low)

    @property
    def predicted_pace(self) -> float | None:
        """How many times as long a token takes at ``high`` as at ``low``, by the line."""
        if self.line is None:
            return None
        return self.line.fit.at(self.high) / self.line.fit.at(self.low)

    @property
    def measured_pace(self) -> Spread:
        """The p99 time per token at ``high`` against ``low``, as :attr:`measured` pairs it."""
        return _ratio(self.tpot_high, self.tpot_low)

    @property
    def prompts_read(self) -> int:
        """Prompt tokens the top level's burst read beside its decoding."""
        return self.high * self.prompt_tokens

    @property
    def checks(self) -> tuple[Checked, ...]:
        """The two predictions against the passes, for the book's closing table."""
        if self.predicted is None or self.predicted_pace is None:
            return ()
        levels = f"{self.high} against {self.low} sequences"
        return (
            Checked("05-the-dials", f"output, {levels}", "×", self.predicted, self.measured),
            Checked(
                "05-the-dials",
                f"p99 time per token, {levels}",
                "×",
                self.predicted_pace,
                self.measured_pace,
            ),
        )


def _ratio(high: Spread, low: Spread) -> Spread:
    """``high`` over ``low``: the medians' ratio, within what pairing their passes allows."""
    median = high.median / low.median
    bounds = ratio_bounds(high, low)
    if bounds is None:
        return Spread.of([median])
    return Spread(median, bounds[0], bounds[1], min(high.n, low.n))
