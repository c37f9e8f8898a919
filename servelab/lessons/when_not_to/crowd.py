"""Chapter 08's crowd verdict from what the page measured: where vLLM's total for the crowd stands
against llama-server's, set beside the two mechanisms the page timed on both engines, each
engine's decoding step with the crowd in it (the step lines of ``servelab.lessons.when_not_to
.slots``) and its reading of a prompt it had not seen (one user alone, and the long shared prompt
with reuse off), and whether memory bound at all.

The words live in ``servelab.lessons.when_not_to.slots_words``.
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared, compare
from servelab.lessons.thresholds import ALIKE
from servelab.lessons.when_not_to.against import Against, times_apart
from servelab.lessons.when_not_to.findings import LLAMA_SERVER, VLLM, EngineFindings
from servelab.lessons.when_not_to.slots import SlotFindings

STEP, PROMPT = "step", "prompt"  # the two mechanisms, keys of ``CrowdCauses.favoured``


@dataclass(frozen=True)
class MemoryUse:
    """Whether KV-cache memory held any request back: ``cap`` requests ran at once on each
    engine, and of ``users`` sent together exactly those beyond the cap waited on both
    (``queued_past_cap``); llama-server set aside ``slots`` × ``slot_context`` tokens at start,
    vLLM's pool had room for ``pool_requests`` requests of ``max_model_len`` tokens (None: its
    log gave no pool size)."""

    cap: int
    users: int  # sent at once in the run over the cap
    queued_past_cap: bool
    slots: int
    slot_context: int
    pool_requests: float | None
    max_model_len: int | None

    @classmethod
    def of(cls, found: SlotFindings) -> MemoryUse:
        pool = found.pool
        return cls(
            cap=found.slots,
            users=found.queue[found.server].users,
            queued_past_cap=found.both_queue,
            slots=found.slots,
            slot_context=found.slot_context,
            pool_requests=pool.max_concurrency if pool else None,
            max_model_len=pool.max_model_len if pool else None,
        )

    @property
    def pool_roomy(self) -> bool | None:
        """vLLM's pool held the cap's requests even at their longest (None: no pool size)."""
        return None if self.pool_requests is None else self.pool_requests >= self.cap

    @property
    def bound(self) -> bool | None:
        """False where memory held nothing back: on both engines only those beyond the cap
        waited, so places, not memory, decided who ran, and vLLM's pool (where its size is
        known) held the cap's requests at their longest. None where the runs cannot tell:
        more or fewer waited than the cap explains, or the pool was too small to rule it out.
        (No run here shows memory binding outright: it would need preemptions or refusals,
        which the chapter does not record.)"""
        if self.queued_past_cap and self.pool_roomy is not False:
            return False
        return None


@dataclass(frozen=True)
class CrowdCauses:
    """vLLM's crowd total against llama-server's (``lead``), beside what the page measured on
    both: each engine's step with ``many`` sequences (``step_ms``: the sweep's own step where it
    reached ``many``, else its line's), the parts of each line, the first token of a fresh
    prompt for one user alone (``prompt``: the crowd's prompt size, s; ``long_prompt``: the
    long shared prompt with reuse off, ms), and ``memory``."""

    many: int
    lead: Against
    fixed_ms: dict[str, float]
    per_sequence_ms: dict[str, float]
    step_ms: dict[str, float]
    step_measured: bool  # the sweep reached ``many``: ``step_ms`` is measured, not read off a line
    prompt: Against
    long_prompt: Against
    memory: MemoryUse

    @classmethod
    def of(cls, engines: EngineFindings, found: SlotFindings) -> CrowdCauses:
        many = engines.facts.many
        lines = {engine: found.steps[engine] for engine in (LLAMA_SERVER, VLLM)}
        measured = all(many in line.batches for line in lines.values())
        steps = {
            engine: (line.step_ms[line.batches.index(many)] if measured else line.fit.at(many))
            for engine, line in lines.items()
        }
        return cls(
            many=many,
            lead=engines.crowd_lead,
            fixed_ms={engine: line.fit.fixed_ms for engine, line in lines.items()},
            per_sequence_ms={engine: line.fit.per_sequence_ms for engine, line in lines.items()},
            step_ms=steps,
            step_measured=measured,
            prompt=engines.prompt_alone,
            long_prompt=Against(found.reuse[LLAMA_SERVER].off_ms, found.reuse[VLLM].off_ms),
            memory=MemoryUse.of(found),
        )

    @property
    def step_ratio(self) -> float:
        """How many times as long llama-server's step with the crowd took as vLLM's."""
        return self.step_ms[LLAMA_SERVER] / self.step_ms[VLLM]

    @property
    def per_sequence_ratio(self) -> float:
        """How many times as much each sequence added to llama-server's step as to vLLM's."""
        return self.per_sequence_ms[LLAMA_SERVER] / self.per_sequence_ms[VLLM]

    @property
    def per_sequence_more(self) -> tuple[str, float]:
        """The engine each sequence added more to, and how many times as much (one sweep each,
        no band: llama-server at a tie)."""
        ratio = self.per_sequence_ratio
        return (LLAMA_SERVER if ratio >= 1 else VLLM), times_apart(ratio)

    @property
    def step_times(self) -> float:
        """How many times as long the longer step with the crowd took as the shorter."""
        return times_apart(self.step_ratio)

    @property
    def shorter_step(self) -> str | None:
        """The engine whose step with the crowd was shorter, past ``ALIKE`` (one sweep each, so
        a band, not ranges); None where the two were alike."""
        server, vllm = (Spread.of([self.step_ms[engine]]) for engine in (LLAMA_SERVER, VLLM))
        if compare(server, vllm, ALIKE) is Compared.ALIKE:
            return None
        return min((LLAMA_SERVER, VLLM), key=lambda engine: self.step_ms[engine])

    @property
    def cheaper_per_sequence(self) -> str:
        return min((LLAMA_SERVER, VLLM), key=lambda engine: self.per_sequence_ms[engine])

    @property
    def quicker_prompt(self) -> str | None:
        """The engine that read a fresh prompt alone sooner, beyond the runs' spread and
        ``ALIKE``; None where the two were alike or not told apart."""
        return {Compared.HIGHER: VLLM, Compared.LOWER: LLAMA_SERVER}.get(self.prompt.compared)

    @property
    def favoured(self) -> dict[str, str | None]:
        """Which engine each measured mechanism favoured (None: neither)."""
        return {STEP: self.shorter_step, PROMPT: self.quicker_prompt}

    @property
    def leader(self) -> str | None:
        """The engine that served the crowd more, beyond the spread (None: alike or untold)."""
        return {Compared.HIGHER: VLLM, Compared.LOWER: LLAMA_SERVER}.get(self.lead.compared)

    @property
    def explained(self) -> bool | None:
        """Whether the measured mechanisms account for the totals: where one engine led, at
        least one favoured it and none its rival; where the totals were alike, they favoured
        different engines or neither. None where the totals were not told apart."""
        sides = {engine for engine in self.favoured.values() if engine is not None}
        if self.lead.compared is Compared.UNTOLD:
            return None
        if self.leader is None:
            return len(sides) != 1
        return sides == {self.leader}
