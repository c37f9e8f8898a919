"""Chapter 03's roomy load against this device's step line (:mod:`servelab.lessons.device_model`).

A running request gets one token a step, so its time per token should be the line's step at the
sequences running at once. The line was timed on sequences that only decode; under this load
each step may also read prompts, and the batch shrinks as answers finish, so the page sets the
prediction beside the runs and says which way they missed it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from servelab.bench.spread import Spread
from servelab.lessons.device_model.foretold import Checked, Foretold, foretold
from servelab.lessons.device_model.kept import StepLine


@dataclass(frozen=True)
class RoomyPace:
    """The step line (None: none to hand), the most sequences seen running at once, each run's
    median time per output token (None: not timed), and the load's prompt and answer
    lengths."""

    line: StepLine | None
    batch: float
    measured: Spread | None
    prompt_tokens: int
    answer_tokens: int

    @classmethod
    def of(
        cls,
        line: StepLine | None,
        batch: float,
        runs: Sequence[Mapping[str, float]],
        prompt_tokens: int,
        answer_tokens: int,
    ) -> RoomyPace:
        """From the runs' ``summary()`` dicts."""
        times = [
            run["tpot_ms_p50"] for run in runs if math.isfinite(run.get("tpot_ms_p50", math.nan))
        ]
        return cls(line, batch, Spread.of(times) if times else None, prompt_tokens, answer_tokens)

    @property
    def predicted_ms(self) -> float | None:
        """The line's step at ``batch``; None without a line or a batch seen."""
        if self.line is None or not math.isfinite(self.batch):
            return None
        return self.line.fit.at(self.batch)

    @property
    def foretold(self) -> Foretold | None:
        """The prediction against the runs; None where either is missing."""
        if self.predicted_ms is None or self.measured is None:
            return None
        return foretold(self.predicted_ms, self.measured)

    @property
    def checks(self) -> tuple[Checked, ...]:
        """The prediction against the runs, for the book's closing table."""
        if self.predicted_ms is None or self.measured is None:
            return ()
        return (
            Checked(
                "03-paged-attention",
                f"time per token, {self.batch:,.0f} sequences",
                " ms",
                self.predicted_ms,
                self.measured,
            ),
        )

    @property
    def gap_ms(self) -> float:
        """The runs' median less the prediction (NaN where either is missing)."""
        if self.predicted_ms is None or self.measured is None:
            return math.nan
        return self.measured.median - self.predicted_ms

    @property
    def slower(self) -> bool:
        """The runs' tokens came slower than the line predicted (medians)."""
        return self.gap_ms > 0

    @property
    def gap_size_ms(self) -> float:
        """How far the runs' median fell from the prediction, either way."""
        return abs(self.gap_ms)

    @property
    def context_tokens(self) -> int:
        """What each sequence holds when its answer ends."""
        return self.prompt_tokens + self.answer_tokens

    @property
    def prompts_read(self) -> float:
        """Prompt tokens the batch read while its answers streamed."""
        return self.batch * self.prompt_tokens
