"""Chapter 07's two caps against this device's step line (:mod:`servelab.lessons.device_model`).

At the top rate each cap runs its sequences through one step at a time, so a token should take
the line's step at the sequences in flight: the small cap's slots, and the large cap's sequences
at once. The page sets both, and their ratio, beside what the rate sweeps measured.
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.bench.spread import Spread
from servelab.lessons.device_model.foretold import Checked
from servelab.lessons.device_model.kept import StepLine
from servelab.lessons.throughput_vs_latency.sweep_findings import RateSweepFindings

CHAPTER = "07-throughput-vs-latency"


@dataclass(frozen=True)
class CapsPace:
    """The step line (None: none to hand), the small cap's slots and the large cap's sequences
    at once at the top rate, and each cap's time per token there over the runs."""

    line: StepLine | None
    small_seqs: float
    large_seqs: float
    small_tpot: Spread
    large_tpot: Spread

    @classmethod
    def of(cls, line: StepLine | None, sweeps: RateSweepFindings) -> CapsPace:
        return cls(
            line,
            float(sweeps.setting.interactive_seqs),
            sweeps.large_seqs,
            sweeps.small.tpot_high,
            sweeps.large.tpot_high,
        )

    @property
    def small_ms(self) -> float | None:
        return None if self.line is None else self.line.fit.at(self.small_seqs)

    @property
    def large_ms(self) -> float | None:
        return None if self.line is None else self.line.fit.at(self.large_seqs)

    @property
    def predicted_ratio(self) -> float | None:
        """How much longer the line says the large cap's step is than the small cap's."""
        if self.small_ms is None or self.large_ms is None:
            return None
        return self.large_ms / self.small_ms

    @property
    def past_line(self) -> bool:
        """The large cap ran more sequences a step than the line was timed at."""
        return self.line is not None and self.large_seqs > max(self.line.batches)

    @property
    def measured_ratio(self) -> float:
        return self.large_tpot.median / self.small_tpot.median

    @property
    def checks(self) -> tuple[Checked, ...]:
        """Both caps' predictions against their runs, for the book's closing table."""
        if self.small_ms is None or self.large_ms is None:
            return ()
        return (
            Checked(
                CHAPTER,
                f"time per token, {self.small_seqs:,.0f} sequences",
                " ms",
                self.small_ms,
                self.small_tpot,
            ),
            Checked(
                CHAPTER,
                f"time per token, {self.large_seqs:,.0f} sequences",
                " ms",
                self.large_ms,
                self.large_tpot,
            ),
        )
