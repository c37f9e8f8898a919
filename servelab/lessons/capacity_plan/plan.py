"""Chapter 10's capacity plan: from a step-cost line, the time to read a prompt and a brief, the
``max_num_seqs`` a target allows, the rate one server sustains and the servers a service needs.

A decoding step of *B* sequences lasts step(*B*) = *a* + *b*·*B* (chapter 02's line), and every
running sequence gets one token a step. Each request's prompt is also read once, in some step,
and every sequence decoding then waits through that reading (chapters 00 and 06): *p*, the
prompt's tokens at the prefill rate. With every slot busy, *B* prompts are read in the time one
answer of *A* tokens takes, so each token carries *B*·*p* ÷ *A* besides its step: its pace is
step(*B*) + *B*·*p* ÷ *A*. The brief asks tokens no slower than ``tpot_factor`` × step(1): the
largest *B* within that is the time bound. The KV cache must hold *B* × (prompt + answer)
tokens (chapter 03): the memory bound. ``max_num_seqs`` is the smallest bound. A request then
holds its slot for *W* = *F* + *A* × pace(*B*): its first token, *F*, then its answer at the
full batch's pace. Little's law, *L* = λ·*W* (chapter 01), with *L* = *B* gives the most
requests a second the server finishes: λ = *B* ÷ *W*, the knee. Arrivals faster than that queue
for as long as they keep coming. The servers a target rate needs is that rate over the knee,
rounded up.

*F* is the plan's ``first_token_ms``, an unloaded request's first token as measured (a step's
fixed work and the prompt read at the prefill rate; on a published card, one read of the weights
and the prompt's arithmetic), not a wait modelled under load: it is measured, and it is the
least a request waits, since under load its prompt shares a step with the others'. It overlaps
the pace in part (the step that reads a prompt is one of the answer's steps, and *B*·*p* ÷ *A*
spreads every prompt read while an answer streams, the request's own among them), so *W* may
count part of *F* twice: it errs long, and the knee low. Without *F* one build's knee came out
above what its engine finished (issue 61).

With the check's numbers (a step of 20 + 2·*B* ms, prompts and first token too quick to count,
100-token answers within 40 ms) *B* = 10, *W* = 0 + 100 × 40 ms = 4 s and the knee 10 ÷ 4 s =
2.5 requests a second; a first token of 200 ms makes *W* 4.2 s and the knee 2.4.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from servelab.lessons.batching.roofline import (
    A100,
    QWEN3_8B,
    T4,
    PublishedDevice,
    Roofline,
    decode_context,
    t4_model,
)
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.batching.t4_step import t4_engine_shares
from servelab.lessons.device_model.kept import EngineShares, StepLine
from servelab.lessons.paging.capacity import CARDS, Card, PublishedModel, plan_cache

MIB = 2**20
STATED = "stated"  # an EngineShares the book states rather than one a chapter fitted


@dataclass(frozen=True)
class Brief:
    """What the service must do: ``rate_req_s`` arrivals a second of ``prompt_tokens`` and
    ``answer_tokens`` each, with ``share`` of them getting their first token within
    ``ttft_factor`` × an unloaded request's and every later token within ``tpot_factor`` × one
    sequence's step. The targets are multiples of this device's own times, so the same brief
    asks as much of a slow CPU as of a GPU."""

    rate_req_s: float
    prompt_tokens: int
    answer_tokens: int
    tpot_factor: float
    ttft_factor: float
    share: float

    def __post_init__(self) -> None:
        if self.tpot_factor < 1 or self.ttft_factor < 1:
            raise ValueError(
                "a target can only be as fast as the device's own times or slower: "
                f"factors {self.tpot_factor} and {self.ttft_factor} are below 1"
            )
        if not 0 < self.share <= 1 or self.rate_req_s <= 0:
            raise ValueError(
                f"the share is in (0, 1] and the rate positive; got {self.share} "
                f"and {self.rate_req_s}"
            )

    @property
    def tokens_per_request(self) -> int:
        return self.prompt_tokens + self.answer_tokens


class Bound(StrEnum):
    """What set ``max_num_seqs``."""

    TIME = "the time per token"
    MEMORY = "the KV cache"
    MEASURED = "the largest batch the step line was measured at"


def plan_line(line: StepLine | None) -> StepFit:
    """The step line a plan uses: the device model's (:mod:`~servelab.lessons.device_model`)
    where it splits a step (``StepFit.splits``); otherwise every step at the line's value at the
    middle of the batches it was timed at (the mean step time), with nothing added per sequence,
    since a line that does not split says nothing about batches it was not timed at."""
    if line is None:
        raise ValueError(
            "no step line to plan from: the short sweep found no steady window to "
            "time a step in (a busy machine?); run the cell again"
        )
    if line.fit.splits:
        return line.fit
    middle = float(np.mean(line.batches))
    return StepFit(line.fit.at(middle), 0.0, line.fit.r_squared)


@dataclass(frozen=True)
class CapacityPlan:
    """The plan for one server: its step line, the time a step spends reading one prompt (ms),
    an unloaded request's first token (ms), the KV tokens its cache holds, the bytes one token's
    keys and values take, and the largest batch the line was measured at (None for a line from
    published figures, which holds at any batch): the plan does not stretch a measured line
    past it."""

    brief: Brief
    step: StepFit
    prompt_ms: float
    first_token_ms: float
    kv_tokens: int
    kv_bytes_per_token: int
    largest_measured: int | None = None

    def pace_ms(self, batch: float) -> float:
        """A token's time with ``batch`` slots busy: its step, and its share of the prompts read
        while the answer streams."""
        return self.step.at(batch) + batch * self.prompt_ms / self.brief.answer_tokens

    @property
    def tpot_target_ms(self) -> float:
        return self.brief.tpot_factor * self.step.at(1)

    @property
    def ttft_target_ms(self) -> float:
        return self.brief.ttft_factor * self.first_token_ms

    @property
    def by_time(self) -> int | None:
        """The most sequences whose pace stays within the token target; None when neither the
        steps nor the prompts grow with the batch (nothing here sets a limit)."""
        per_sequence = self.step.per_sequence_ms + self.prompt_ms / self.brief.answer_tokens
        if per_sequence <= 0:
            return None
        most = (self.tpot_target_ms - self.step.fixed_ms) / per_sequence
        return max(1, math.floor(most)) if math.isfinite(most) else None

    @property
    def by_memory(self) -> int:
        """The most whole requests the KV cache holds at once."""
        return max(1, self.kv_tokens // self.brief.tokens_per_request)

    def _bounds(self) -> dict[Bound, int]:
        bounds = {Bound.MEMORY: self.by_memory}
        if self.by_time is not None:
            bounds[Bound.TIME] = self.by_time
        if self.largest_measured is not None:
            bounds[Bound.MEASURED] = self.largest_measured
        return bounds

    @property
    def max_num_seqs(self) -> int:
        return min(self._bounds().values())

    @property
    def bound(self) -> Bound:
        """The bound that set ``max_num_seqs`` (the time per token where several tie)."""
        bounds = self._bounds()
        return next(
            bound
            for bound in (Bound.TIME, Bound.MEMORY, Bound.MEASURED)
            if bounds.get(bound) == self.max_num_seqs
        )

    @property
    def answer_s(self) -> float:
        """*A* × pace(*B*): a request's answer at the full batch's pace."""
        return self.brief.answer_tokens * self.pace_ms(self.max_num_seqs) / 1000

    @property
    def first_token_s(self) -> float:
        return self.first_token_ms / 1000

    @property
    def request_s(self) -> float:
        """*W*: the time a request holds its slot, its first token (``first_token_ms``, the
        unloaded one measured) and then its answer at the full batch's pace."""
        return self.first_token_s + self.answer_s

    @property
    def rate_req_s(self) -> float:
        """The knee: every slot busy, *B* ÷ *W* requests a second."""
        return self.max_num_seqs / self.request_s

    @property
    def replicas(self) -> int:
        return math.ceil(self.brief.rate_req_s / self.rate_req_s - 1e-9)

    @property
    def kv_mib(self) -> float:
        """The KV cache ``max_num_seqs`` whole requests take."""
        tokens = self.max_num_seqs * self.brief.tokens_per_request
        return tokens * self.kv_bytes_per_token / MIB

    def slo(self) -> dict[str, float]:
        """The targets as ``servelab.bench``'s ``slo`` (ms)."""
        return {"ttft": self.ttft_target_ms, "tpot": self.tpot_target_ms}


@dataclass(frozen=True)
class PublishedPlan:
    """The same brief on a card from its datasheet: a prediction, not a measurement."""

    device: PublishedDevice
    model: PublishedModel
    card: Card
    plan: CapacityPlan
    engine: EngineShares | None = None


def published_plan(
    device: PublishedDevice,
    model: PublishedModel,
    card: Card,
    brief: Brief,
    engine: EngineShares | None = None,
) -> PublishedPlan:
    """The plan on ``card`` for ``model`` from published figures: the least a step can cost
    (every weight read once, each sequence's arithmetic and KV reads, chapter 02's roofline),
    with the ``engine``'s shares of each part added where given (none: the datasheet alone), a
    prompt read at the card's arithmetic rate (2 operations a parameter a token), a first token
    that adds one step's shared part, and the KV cache vLLM's default share leaves (chapter 03's
    plan)."""
    context = decode_context(brief.prompt_tokens, brief.answer_tokens)
    roof = Roofline.published(device, model, context, users=1)
    step = (
        roof.step if engine is None else roof.with_engine(engine.step_share, engine.sequence_share)
    )
    prompt_ms = 2 * model.parameters * brief.prompt_tokens / device.flops_per_s * 1000
    cache = plan_cache(model, card, dtype=device.dtype)
    return PublishedPlan(
        device,
        model,
        card,
        CapacityPlan(
            brief,
            step,
            prompt_ms,
            step.fixed_ms + prompt_ms,
            cache.cache_tokens,
            cache.shape.bytes_per_token,
        ),
        engine,
    )


# The engine's shares on a T4 as the book states them (``t4_step``), at the slow end: the step
# the GPU contract counts each chapter's wait with.
T4_STATED = EngineShares(*t4_engine_shares(1), fitted_in=STATED)


def published_plans(brief: Brief, engine: EngineShares | None = None) -> list[PublishedPlan]:
    """The brief on a 16 GB T4 with the model this book serves there, and on an A100 80 GB with
    the lesson's Qwen3-8B: from the datasheets alone; on the T4, with the engine's work the book
    states for it (:data:`T4_STATED`); then, where ``engine`` is given, with the engine adding
    the shares it added on this device."""
    kept = [engine] if engine is not None else []
    cards = [
        (T4, t4_model(), CARDS[0], [None, T4_STATED, *kept]),
        (A100, QWEN3_8B, CARDS[1], [None, *kept]),
    ]
    return [
        published_plan(device, model, card, brief, shares)
        for device, model, card, engines in cards
        for shares in engines
    ]


@dataclass(frozen=True)
class DatasheetGap:
    """On a T4, the plan from the datasheet alone against the plan with the engine's work the
    book states (:data:`T4_STATED`, the step the GPU contract counts each chapter's wait with)."""

    bare: CapacityPlan
    stated: CapacityPlan

    @classmethod
    def of(cls, published: Sequence[PublishedPlan]) -> DatasheetGap:
        t4 = [row for row in published if row.device.name == T4.name]
        bare = next(row.plan for row in t4 if row.engine is None)
        stated = next(
            row.plan for row in t4 if row.engine is not None and row.engine.fitted_in == STATED
        )
        return cls(bare, stated)

    @property
    def promised(self) -> float:
        """How many times the stated plan's requests a second the datasheet's plan promises."""
        return self.bare.rate_req_s / self.stated.rate_req_s
