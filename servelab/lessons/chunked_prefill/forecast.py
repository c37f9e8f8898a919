"""Chapter 06's document read alone, as this device's model predicts it before the page times it.

A prompt read alone waits the request's work, one step's shared part and its tokens at the
prefill rate (:class:`~servelab.lessons.device_model.kept.PromptReading`, kept by chapter 04).
In chunks of the budget it is read in as many steps, each paying the step's shared part again,
so chunking adds one step's shared part for every chunk after the first. Where no reading is
kept (the chapter run alone), the page's first two prompt lengths stand in for it, and the
users' usual step in run 1 for the step each chunk pays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from servelab.bench.prefill import PrefillFit
from servelab.bench.spread import Spread
from servelab.lessons.chunked_prefill.chapter import CHAPTER
from servelab.lessons.chunking.sizing import BudgetPlan
from servelab.lessons.chunking.thresholds import DOCUMENT_LENGTH_APART
from servelab.lessons.device_model.foretold import Checked, Foretold, foretold
from servelab.lessons.device_model.kept import DeviceModel, PromptReading


def reading_for(model: DeviceModel, first_fit: PrefillFit) -> PromptReading:
    """The prompt reading an earlier chapter kept on this device, else one made from this
    chapter's first two prompt lengths and the step line kept here (if any)."""
    if model.reading is not None:
        return model.reading
    return PromptReading.of(first_fit, model.step, CHAPTER.id)


class LengthWhy(StrEnum):
    """Whether the document's length explains a one-step read off its prediction: slower and
    ``DOCUMENT_LENGTH_APART`` longer than the prompts the rate was read from, faster and as much
    shorter, or neither."""

    LONGER = "longer"
    SHORTER = "shorter"
    UNEXPLAINED = "unexplained"


@dataclass(frozen=True)
class DocumentForecast:
    """The document's first token alone, predicted from ``reading`` in one step and in
    ``chunks`` steps of ``step_ms`` each (``step_from_line``: the reading's step line, else the
    users' usual step in run 1), beside the reads alone the page timed on each server (ms,
    spreads over the repeats; None where not timed)."""

    reading: PromptReading
    document_tokens: int
    chunks: int
    step_ms: float
    step_from_line: bool
    one_step: Spread | None = None
    chunked: Spread | None = None

    @classmethod
    def of(
        cls,
        reading: PromptReading,
        plan: BudgetPlan,
        one_step: Spread | None = None,
        chunked: Spread | None = None,
    ) -> DocumentForecast:
        """From the reading and the chunked server's budget plan, with the timed reads."""
        from_line = reading.step_ms > 0
        return cls(
            reading,
            plan.document_tokens,
            plan.chunks,
            reading.step_ms if from_line else plan.step_ms,
            from_line,
            one_step,
            chunked,
        )

    @property
    def kept(self) -> bool:
        """The reading came from an earlier chapter, not from this page's first prompts."""
        return self.reading.fitted_in != CHAPTER.id

    @property
    def one_step_ms(self) -> float:
        """The document's first token alone in one step, predicted."""
        return self.reading.first_token_ms(self.document_tokens)

    @property
    def extra_ms(self) -> float:
        """What the chunks after the first add, predicted: one step's shared part each."""
        return self.later_chunks * self.step_ms

    @property
    def later_chunks(self) -> int:
        """The chunks after the first, each a step more than one read in one step."""
        return self.chunks - 1

    @property
    def in_chunks(self) -> bool:
        """The budget splits the document over more than one step."""
        return self.chunks > 1

    @property
    def chunked_ms(self) -> float:
        return self.one_step_ms + self.extra_ms

    @property
    def found(self) -> tuple[Foretold | None, Foretold | None]:
        """Each prediction against its reads (None where not timed)."""
        return (
            None if self.one_step is None else foretold(self.one_step_ms, self.one_step),
            None if self.chunked is None else foretold(self.chunked_ms, self.chunked),
        )

    @property
    def measured_extra_ms(self) -> float:
        """What the chunks added to the document alone, medians (NaN where not timed)."""
        if self.one_step is None or self.chunked is None:
            return math.nan
        return self.chunked.median - self.one_step.median

    @property
    def measured_chunk_ms(self) -> float:
        """What each chunk after the first added, measured (medians; NaN where not timed)."""
        return self.measured_extra_ms / self.later_chunks if self.in_chunks else math.nan

    @property
    def chunks_cost_more(self) -> bool:
        """The chunks added more than the model's one step each (medians)."""
        return self.measured_extra_ms > self.extra_ms

    @property
    def one_step_why(self) -> LengthWhy:
        """Whether the document's length explains the one-step read against its prediction."""
        if self.one_step is None:
            return LengthWhy.UNEXPLAINED
        slower = self.one_step.median > self.one_step_ms
        if slower and self.stretched >= DOCUMENT_LENGTH_APART:
            return LengthWhy.LONGER
        if not slower and self.stretched <= 1 / DOCUMENT_LENGTH_APART:
            return LengthWhy.SHORTER
        return LengthWhy.UNEXPLAINED

    @property
    def stretched(self) -> float:
        """The document's length against the longest prompt the reading was timed at."""
        return self.document_tokens / self.reading.prefill.long_tokens

    @property
    def checks(self) -> tuple[Checked, ...]:
        """The predictions against the reads, for the book's closing table."""
        pairs = (
            (
                f"document alone, {self.document_tokens:,} tokens in one step",
                self.one_step_ms,
                self.one_step,
            ),
            (f"document alone, {self.chunks} chunks", self.chunked_ms, self.chunked),
        )
        return tuple(
            Checked(CHAPTER.id, what, " ms", predicted, measured)
            for what, predicted, measured in pairs
            if measured is not None
        )
