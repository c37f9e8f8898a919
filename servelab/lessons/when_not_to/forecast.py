"""Chapter 08's vLLM side as this device's model predicts it (:mod:`servelab.lessons.device_model`):
a step with the crowd in it from chapter 02's step line, and a fresh prompt read alone from
chapter 04's prompt reading, set beside what this page measured of vLLM.

The crowd's users all decode together, so each gets a token a step: their time per token should
be the line's step at the crowd. A request sent alone waits the reading's fixed part and its
prompt tokens at the prefill rate, for the crowd's short prompt as for the long shared one with
reuse off. Where no chapter kept a line or a reading on this device, that side is measured
without a prediction (the page's own sweep would only predict itself).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from servelab.bench.frames import Result
from servelab.bench.spread import Spread
from servelab.lessons.device_model.foretold import Checked, Foretold, foretold
from servelab.lessons.device_model.kept import DeviceModel, PromptReading, StepLine
from servelab.lessons.when_not_to.chapter import CHAPTER
from servelab.lessons.when_not_to.findings import VLLM, EngineFindings
from servelab.lessons.when_not_to.slots import SlotFindings
from servelab.lessons.when_not_to.slots import StepLine as SweepLine
from servelab.lessons.when_not_to.thresholds import PROMPT_LENGTH_APART


def _prompt_tokens(results: Sequence[Result], skip_first: bool = False) -> float | None:
    """The median prompt the server counted over ``results``' completed requests (those after
    each run's first with ``skip_first``); None where it counted none (no usage, or zero)."""
    counts: list[float] = []
    for result in results:
        done = result.requests[result.requests["ok"]].sort_values("sent_s")
        counts += [float(count) for count in done["prompt_tokens"].iloc[int(skip_first) :]]
    counted = [count for count in counts if math.isfinite(count) and count > 0]
    return Spread.of(counted).median if counted else None


def _tpot_ms(results: Sequence[Result]) -> Spread | None:
    """Each run's median time per output token (ms), as a spread over the runs."""
    times = [float(result.summary()["tpot_ms_p50"]) for result in results]
    finite = [time for time in times if math.isfinite(time)]
    return Spread.of(finite) if finite else None


class PromptMiss(Enum):
    """Where a missed first token fell against the reading's fixed part."""

    WITHIN_FIXED = "the miss is smaller than the fixed part"
    BEFORE_FIXED = "the first token came before the fixed part alone had passed"
    PAST_FIXED = "the prompt was read at a rate of its own after the fixed part"


@dataclass(frozen=True)
class PromptCheck:
    """A prompt reading's first token against vLLM's: the miss (ms, measured median less the
    prediction), where it fell, the rate vLLM read the prompt at after the fixed part (tokens/s,
    where the first token came past it) and how many times the longest prompt the reading was
    timed at this one is."""

    miss_ms: float
    where: PromptMiss
    rate_tok_s: float | None
    stretched: float

    @classmethod
    def of(
        cls, reading: PromptReading, predicted_ms: float, tokens: float, measured: Spread
    ) -> PromptCheck:
        miss, fixed = measured.median - predicted_ms, reading.fixed_ms
        if abs(miss) < fixed:
            where, rate = PromptMiss.WITHIN_FIXED, None
        elif measured.median <= fixed:
            where, rate = PromptMiss.BEFORE_FIXED, None
        else:
            where, rate = PromptMiss.PAST_FIXED, 1000.0 * tokens / (measured.median - fixed)
        return cls(miss, where, rate, tokens / reading.prefill.long_tokens)

    @property
    def longer_than_timed(self) -> bool:
        """Whether a slow read is explained by a prompt well past the reading's longest: each
        token attends to every one before it."""
        return self.miss_ms > 0 and self.stretched >= PROMPT_LENGTH_APART


@dataclass(frozen=True)
class VllmForecast:
    """The kept step line and prompt reading (None: not kept on this device), and what the page
    measured of vLLM: its own step sweep, each crowd run's median time per token with ``many``
    users (ms), one user's first token alone over the runs (ms) with the prompt it read, and
    the long shared prompt read with reuse off (ms) with its tokens (None: not counted)."""

    step: StepLine | None
    reading: PromptReading | None
    many: int
    sweep: SweepLine
    crowd_tpot_ms: Spread | None
    prompt_tokens: float | None
    first_alone_ms: Spread
    long_tokens: float | None
    long_off_ms: Spread

    @classmethod
    def of(
        cls,
        model: DeviceModel,
        engines: EngineFindings,
        found: SlotFindings,
        crowd: Sequence[Result],
        alone: Sequence[Result],
        reuse_off: Result,
    ) -> VllmForecast:
        """From the kept model and vLLM's runs: the crowd's, one user's and the shared prompt's
        with reuse off."""
        first = engines.first_alone[VLLM]
        return cls(
            model.step,
            model.reading,
            engines.facts.many,
            found.steps[VLLM],
            _tpot_ms(crowd),
            _prompt_tokens(alone),
            Spread(first.median * 1000, first.low * 1000, first.high * 1000, first.n),
            _prompt_tokens([reuse_off], skip_first=True),
            found.reuse[VLLM].off_ms,
        )

    @property
    def step_ms(self) -> float | None:
        """The line's step with the crowd: each user's time per token, predicted."""
        return None if self.step is None else self.step.fit.at(self.many)

    @property
    def sweep_step_ms(self) -> float:
        """The page's own sweep's step with the crowd: measured where it reached ``many``,
        else its line's."""
        if self.many in self.sweep.batches:
            return self.sweep.step_ms[self.sweep.batches.index(self.many)]
        return self.sweep.fit.at(self.many)

    def _first_ms(self, tokens: float | None) -> float | None:
        if self.reading is None or tokens is None:
            return None
        return self.reading.first_token_ms(tokens)

    @property
    def first_alone_pred_ms(self) -> float | None:
        """The crowd's prompt read alone, predicted (None: no reading or no count)."""
        return self._first_ms(self.prompt_tokens)

    @property
    def long_pred_ms(self) -> float | None:
        return self._first_ms(self.long_tokens)

    @property
    def crowd_above_line(self) -> bool:
        """Whether the crowd's median time per token came above the line's step: its users'
        first steps also read the others' prompts."""
        return (
            self.crowd_tpot_ms is not None
            and self.step_ms is not None
            and self.crowd_tpot_ms.median > self.step_ms
        )

    @property
    def pairs(self) -> tuple[tuple[str, float | None, Spread | None], ...]:
        """Each figure: what it is, predicted and measured."""
        return (
            (f"vLLM time per token, {self.many} users at once", self.step_ms, self.crowd_tpot_ms),
            (
                f"vLLM first token alone, {self.prompt_tokens or 0:,.0f}-token prompt",
                self.first_alone_pred_ms,
                self.first_alone_ms,
            ),
            (
                f"vLLM first token alone, {self.long_tokens or 0:,.0f}-token prompt uncached",
                self.long_pred_ms,
                self.long_off_ms,
            ),
        )

    @property
    def found(self) -> tuple[Foretold | None, ...]:
        """Each prediction against its runs, in ``pairs``' order (None: nothing to compare)."""
        return tuple(
            None if predicted is None or measured is None else foretold(predicted, measured)
            for _, predicted, measured in self.pairs
        )

    @property
    def checks(self) -> tuple[Checked, ...]:
        """The predictions against the runs, for the book's closing table."""
        return tuple(
            Checked(CHAPTER.id, what, " ms", predicted, measured)
            for what, predicted, measured in self.pairs
            if predicted is not None and measured is not None
        )
