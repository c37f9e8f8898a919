"""Chapter 08: what is left between llama.cpp's own server and vLLM once both batch, as
findings of the experiments ``servelab.lessons.when_not_to.slot_runs`` runs on both.

``llama-server`` keeps ``--parallel`` slots and decodes every busy slot in one step, as vLLM
decodes every running sequence in one step:

- ``StepLine``: chapter 02's ``step_times_ms`` turns each level's steady output into the time of
  one step, and a + b·B is fitted to them;
- ``QueueWait``: of twice as many users at once as the engine takes (the slots, vLLM's
  ``max_num_seqs``), who got a first token only after an earlier answer had ended, that is, who
  waited for a place;
- ``PromptReuse``: the first-token waits of the requests after the first, the engine's reuse on
  and off (llama-server's ``cache_prompt``, vLLM's prefix caching).

The words live in ``servelab.lessons.when_not_to.slots_words``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from servelab.bench.frames import Result
from servelab.bench.spread import Spread
from servelab.engines.vllm_server import Capacity
from servelab.lessons.batching.step_cost import steady_totals
from servelab.lessons.batching.steps import StepFit, fit_step_time, step_times_ms
from servelab.lessons.compare import Compared, compare
from servelab.lessons.thresholds import ALIKE
from servelab.lessons.when_not_to.against import Against


@dataclass(frozen=True)
class StepLine:
    """One engine's decoding step at each batch of the sweep, and the line through them."""

    batches: tuple[int, ...]
    step_ms: tuple[float, ...]
    fit: StepFit

    @classmethod
    def of(cls, sweep: Mapping[int, Sequence[Result]]) -> StepLine:
        """From ``step_sweep``: each level's steady output (the median over its runs)."""
        totals = {
            level: float(pd.Series(runs).median()) for level, runs in steady_totals(sweep).items()
        }
        batches = tuple(sorted(totals))
        step_ms = [float(ms) for ms in step_times_ms(batches, [totals[level] for level in batches])]
        return cls(batches, tuple(step_ms), fit_step_time(batches, step_ms))

    @property
    def top(self) -> int:
        return self.batches[-1]

    @property
    def growth(self) -> float:
        """How many times longer a step of the largest batch took than a step of one."""
        return self.step_ms[-1] / self.step_ms[0]

    @property
    def gain(self) -> float:
        """The largest batch's output against one sequence's: top × step(1) ÷ step(top)."""
        return self.top / self.growth


@dataclass(frozen=True)
class QueueWait:
    """``users`` requests sent at once to an engine that takes ``cap`` at a time."""

    cap: int
    users: int
    waited: int  # first token only after an earlier answer had ended
    first_wave_s: float  # the median wait for a first token of those who did not wait
    queued_s: float | None  # the same for those who waited (None: nobody waited)

    @classmethod
    def of(cls, result: Result, cap: int) -> QueueWait:
        done = result.requests[result.requests["ok"]]
        if done.empty:
            raise ValueError("no request of the run finished")
        waited = done["first_token_s"] > done["end_s"].min()
        queued = done.loc[waited, "ttft_s"]
        return cls(
            cap=cap,
            users=len(result.requests),
            waited=int(waited.sum()),
            first_wave_s=float(done.loc[~waited, "ttft_s"].median()),
            queued_s=float(queued.median()) if len(queued) else None,
        )

    @property
    def beyond_cap(self) -> int:
        return max(self.users - self.cap, 0)

    @property
    def queued_past_cap(self) -> bool:
        """Those beyond the cap, and only they, waited for a place."""
        return self.waited == self.beyond_cap


def later_waits_ms(result: Result) -> Spread:
    """The first-token waits (ms) of every request after the first, which may find the shared
    prompt cached; the first computes it in any case."""
    frame = result.requests.sort_values("sent_s")
    return Spread.of(frame["ttft_s"].iloc[1:] * 1000)


@dataclass(frozen=True)
class PromptReuse:
    """One engine's first-token waits after the first request, reuse on and off (ms)."""

    on_ms: Spread
    off_ms: Spread

    @classmethod
    def of(cls, on: Result, off: Result) -> PromptReuse:
        return cls(later_waits_ms(on), later_waits_ms(off))

    @property
    def saving(self) -> Against:
        """Reuse off against on: ``FASTER`` reads "reuse off took longer" (a time, not a speed),
        and the ratio is how many times sooner reuse brought the first token."""
        return Against(self.off_ms, self.on_ms)

    @property
    def sooner(self) -> bool:
        return self.saving.compared is Compared.HIGHER


@dataclass(frozen=True)
class SlotFindings:
    """The three experiments on both engines (keys: the engines' labels), and the memory each
    kept for its sequences: ``llama-server``'s context split into ``slots`` of ``slot_context``
    tokens each, set aside when it starts (``slots_mib``), against vLLM's one pool
    (``pool``, from its log), which any sequence takes from block by block as it grows."""

    server: str
    vllm: str
    steps: Mapping[str, StepLine]
    queue: Mapping[str, QueueWait]
    reuse: Mapping[str, PromptReuse]
    slots: int
    slot_context: int
    slots_mib: float
    pool: Capacity | None  # None: vLLM's log gave no pool size

    @classmethod
    def of(
        cls,
        mechanism: Mapping[str, Mapping[str, Any]],
        server: str,
        vllm: str,
        cap: int,
        slot_context: int,
        slots_mib: float,
        pool: Capacity | None,
    ) -> SlotFindings:
        """From each engine's experiments: ``"steps"`` (``step_sweep``), ``"over the cap"``
        (``over_the_cap`` with twice ``cap`` users) and ``"reuse on"`` and ``"reuse off"``
        (``shared_prompt``)."""
        runs = {engine: mechanism[engine] for engine in (server, vllm)}
        return cls(
            server=server,
            vllm=vllm,
            steps={engine: StepLine.of(done["steps"]) for engine, done in runs.items()},
            queue={
                engine: QueueWait.of(done["over the cap"], cap) for engine, done in runs.items()
            },
            reuse={
                engine: PromptReuse.of(done["reuse on"], done["reuse off"])
                for engine, done in runs.items()
            },
            slots=cap,
            slot_context=slot_context,
            slots_mib=slots_mib,
            pool=pool,
        )

    @property
    def gains_alike(self) -> bool:
        """Batching gave both engines about the same output at the largest batch (one sweep
        each, so a band, not ranges)."""
        server, vllm = (Spread.of([self.steps[engine].gain]) for engine in (self.server, self.vllm))
        return compare(server, vllm, ALIKE) is Compared.ALIKE

    @property
    def larger_gain(self) -> str:
        return max((self.server, self.vllm), key=lambda engine: self.steps[engine].gain)

    @property
    def lines_split(self) -> bool:
        """Both step lines split a step into a shared part and a part per sequence
        (``StepFit.splits``)."""
        return all(line.fit.splits for line in self.steps.values())

    @property
    def smaller_shared(self) -> str:
        """The engine whose step has the smaller part shared by the batch."""
        return min((self.server, self.vllm), key=lambda engine: self.steps[engine].fit.fixed_ms)

    @property
    def smaller_per_sequence(self) -> str:
        return min(
            (self.server, self.vllm), key=lambda engine: self.steps[engine].fit.per_sequence_ms
        )

    @property
    def lines_cross_at(self) -> float | None:
        """The batch, inside the sweep, at which the two lines meet, each engine having the
        smaller of one part: below it the engine with the smaller shared part takes the shorter
        step, above it the other. None where the lines do not both split a step, or meet
        outside the sweep's batches, so one engine's line is lower at every batch measured."""
        if not self.lines_split or self.smaller_shared == self.smaller_per_sequence:
            return None
        server, vllm = self.steps[self.server].fit, self.steps[self.vllm].fit
        batch = (vllm.fixed_ms - server.fixed_ms) / (server.per_sequence_ms - vllm.per_sequence_ms)
        top = self.steps[self.server].top
        return batch if 1 < batch < top else None

    @property
    def shorter_throughout(self) -> str:
        """Where the lines do not cross inside the sweep: the engine whose line is lower at
        its largest batch, and so at every batch measured."""
        top = self.steps[self.server].top
        return min((self.server, self.vllm), key=lambda engine: self.steps[engine].fit.at(top))

    @property
    def both_queue(self) -> bool:
        return all(wait.queued_past_cap for wait in self.queue.values())

    @property
    def reused(self) -> dict[str, bool]:
        """Whether reuse brought each engine's first token sooner, beyond the runs' spread."""
        return {engine: reuse.sooner for engine, reuse in self.reuse.items()}

    @property
    def slot_tokens(self) -> int:
        """The tokens every slot together holds: llama-server's whole context."""
        return self.slots * self.slot_context
