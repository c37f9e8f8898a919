"""Chapter 05's output gain predicted from this device's step line
(:mod:`servelab.lessons.device_model`), beside the roofline's window (:mod:`.step_model`).

A step of *B* sequences gives each a token, so from *L* to *H* sequences a step the output grows
by (*H* ÷ step(*H*)) ÷ (*L* ÷ step(*L*)). The window bounds that from the datasheet figures and
an assumed engine share; the line is the step this device measured, engine and all. The line was
timed on sequences that only decode, while each of the sweep's bursts also reads its prompts.
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.bench.spread import Spread, ratio_bounds
from servelab.lessons.device_model.foretold import Checked
from servelab.lessons.device_model.kept import StepLine
from servelab.lessons.dials.findings import SweepFindings


@dataclass(frozen=True)
class LineGain:
    """The step line (None: none to hand), the sweep's fewest and most sequences a step, the
    output at each over its passes, and the prompt tokens each request brought."""

    line: StepLine | None
    low: int
    high: int
    output_low: Spread
    output_high: Spread
    prompt_tokens: int

    @classmethod
    def of(cls, line: StepLine | None, swept: SweepFindings, prompt_tokens: int) -> LineGain:
        return cls(line, swept.low, swept.high, swept.output_low, swept.output_high,
                   prompt_tokens)

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
        median = self.output_high.median / self.output_low.median
        bounds = ratio_bounds(self.output_high, self.output_low)
        if bounds is None:
            return Spread.of([median])
        return Spread(median, bounds[0], bounds[1],
                      min(self.output_high.n, self.output_low.n))

    @property
    def prompts_read(self) -> int:
        """Prompt tokens the top level's burst read beside its decoding."""
        return self.high * self.prompt_tokens

    @property
    def checks(self) -> tuple[Checked, ...]:
        """The prediction against the passes, for the book's closing table."""
        if self.predicted is None:
            return ()
        return (Checked("05-the-dials", f"output, {self.high} against {self.low} sequences",
                        "×", self.predicted, self.measured),)
