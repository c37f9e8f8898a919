"""Chapter 00's chunked-prefill findings and the lesson's findings together.

:class:`ChunkFindings` holds a long prompt read in slices against read in one step: the users'
pauses, the slices against their plan, the pooled tail and the document's own wait, each with
its verdict. :class:`LessonFindings` gathers the three effects the closing summary lists, built
from the same records the sections above it worded, so the summary cannot say otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from servelab.chapters.batch_findings import BatchFindings
from servelab.chapters.reuse_findings import ReuseFindings
from servelab.chapters.thresholds import PAUSE_GAIN_SHOWN, SAME_TTFT, SLICE_OVER_PLAN


@dataclass(frozen=True)
class SlicePlan:
    """How the chunked run was planned: at most ``budget`` tokens a step, which the prefill rate
    of a lone prompt says a step reads in about ``estimate_ms``, for a ``document_tokens``
    prompt."""

    budget: int
    estimate_ms: float
    document_tokens: int

    @property
    def slices(self) -> int:
        return math.ceil(self.document_tokens / self.budget)


class SliceVerdict(StrEnum):
    """How the slices' steps compared with their plan."""

    AS_PLANNED = "as planned"          # even the longest pause stayed near the plan
    ONE_STEP_OVER = "a step over"      # a typical slice near the plan, the longest far over it
    ALL_OVER = "every slice over"      # even the average slice ran over the plan


class TailVerdict(StrEnum):
    """What slicing did to the slowest 1 % of the users' gaps, pooled over the run."""

    WORSE = "worse"
    BETTER = "better"
    SAME = "not clearly changed"


class DocumentVerdict(StrEnum):
    """When the document's own first token came in slices against in one step."""

    SAME = "about the same"
    LATER = "later"
    NO_LATER = "no later"


@dataclass(frozen=True)
class ChunkFindings:
    """The document read in slices by ``plan`` against in one step: the users' longest pause
    (ms) and pooled p99 gap (ms) either way, their usual gap in one step, and the document's
    first token (s) either way."""

    plan: SlicePlan
    longest_sliced_ms: float
    longest_whole_ms: float
    usual_gap_ms: float
    tail_sliced_ms: float
    tail_whole_ms: float
    document_sliced_s: float
    document_whole_s: float

    @classmethod
    def from_runs(cls, chunked: Mapping[str, float], whole: Mapping[str, float],
                  plan: SlicePlan) -> ChunkFindings:
        """From the two rows of ``servelab.chapters.chunked_prefill.compare``."""
        return cls(plan=plan, longest_sliced_ms=chunked["users_longest_gap_ms"],
                   longest_whole_ms=whole["users_longest_gap_ms"],
                   usual_gap_ms=whole["users_itl_ms_p50"],
                   tail_sliced_ms=chunked["users_itl_ms_p99"],
                   tail_whole_ms=whole["users_itl_ms_p99"],
                   document_sliced_s=chunked["document_ttft_s"],
                   document_whole_s=whole["document_ttft_s"])

    @property
    def pause_gain(self) -> float:
        """How many times shorter the longest pause was in slices."""
        return self.longest_whole_ms / self.longest_sliced_ms

    @property
    def shortened(self) -> bool:
        return self.pause_gain >= PAUSE_GAIN_SHOWN

    @property
    def average_slice_ms(self) -> float:
        """The document's wait for its first token shared by its slices: what a slice's step
        took on average (an upper bound, since the wait also holds the step that made the
        token)."""
        return 1000.0 * self.document_sliced_s / self.plan.slices

    @property
    def longest_over_plan(self) -> float:
        return self.longest_sliced_ms / self.plan.estimate_ms

    @property
    def average_over_plan(self) -> float:
        return self.average_slice_ms / self.plan.estimate_ms

    @property
    def slice_verdict(self) -> SliceVerdict:
        """The longest pause and the average slice against the plan."""
        bar = SLICE_OVER_PLAN * self.plan.estimate_ms
        if self.longest_sliced_ms <= bar:
            return SliceVerdict.AS_PLANNED
        if self.average_slice_ms <= bar:
            return SliceVerdict.ONE_STEP_OVER
        return SliceVerdict.ALL_OVER

    @property
    def tail_verdict(self) -> TailVerdict:
        """The pooled p99 gap in slices against in one step, by the pause bar."""
        if self.tail_sliced_ms > PAUSE_GAIN_SHOWN * self.tail_whole_ms:
            return TailVerdict.WORSE
        if self.tail_whole_ms > PAUSE_GAIN_SHOWN * self.tail_sliced_ms:
            return TailVerdict.BETTER
        return TailVerdict.SAME

    @property
    def document_verdict(self) -> DocumentVerdict:
        on, off = self.document_sliced_s, self.document_whole_s
        if abs(on - off) <= SAME_TTFT * off:
            return DocumentVerdict.SAME
        return DocumentVerdict.LATER if on > off else DocumentVerdict.NO_LATER


@dataclass(frozen=True)
class LessonFindings:
    """The three effects chapter 00's summary lists, as its sections found them."""

    batching: BatchFindings
    reuse: ReuseFindings
    chunking: ChunkFindings
