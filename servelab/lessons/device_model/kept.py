"""This device's model of a decoding step and of reading a prompt, fitted once and read by the
chapters after the one that fits it.

The step line, step(*B*) = *a* + *b*·*B*, is fitted by chapter 02 from its sweep. Reading a
prompt alone takes one step that pays the line's shared part *a* like any other, the prompt's
tokens at a prefill rate, and the API server's work around the request (:class:`PromptReading`,
fitted in chapter 04). Each fit is kept on disk per device and setup (:func:`model_path`), so a
later chapter on the same device predicts from it before it measures. A chapter run alone, as in
a fresh Colab runtime, finds nothing kept: it fits the step line itself with a short sweep
(:func:`quick_step_line`), and its page says so.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from servelab import bench
from servelab.bench.metrics import STEADY_OUTPUT_TOK_S
from servelab.bench.prefill import PrefillFit
from servelab.engines.running import RunningServer
from servelab.hardware import default_dtype
from servelab.lessons import recorded
from servelab.lessons.batching.steps import StepFit, fit_step_time, step_times_ms
from servelab.lessons.device_model.foretold import Checked
from servelab.models import cache_dir
from servelab.sizes import Knobs, Profiles

if TYPE_CHECKING:
    from servelab.env import Runtime

#: where a step line came from when the chapter found none kept and fitted it itself
FITTED_HERE = "this chapter"


@dataclass(frozen=True)
class StepLine:
    """A step line and where it was fitted: a chapter's id, or :data:`FITTED_HERE`;
    ``batches`` are the batch sizes it was fitted at."""

    fit: StepFit
    fitted_in: str
    batches: tuple[int, ...]


@dataclass(frozen=True)
class PromptReading:
    """A prompt read alone: its first token after the API server's work around the request
    (``request_ms``), the step that reads it (at least the step line's shared part,
    ``step_ms``) and its computed tokens at ``tok_s``.

    Made from a prefill fit's two prompt lengths (``prefill``). The step that reads a prompt
    pays the line's shared part like any other, so a fitted fixed part below it is noise in two
    timings: there the model sets the fixed part at the step's (``from_step``) and draws the
    rate through the long prompt's time. ``step_ms`` is 0 where no step line was to hand or
    where its shared part was no shorter than the long prompt's whole wait."""

    prefill: PrefillFit
    step_ms: float
    step_from: str | None
    fitted_in: str

    @classmethod
    def of(cls, prefill: PrefillFit, step: StepLine | None, fitted_in: str) -> PromptReading:
        """From ``prefill`` and the step line of the same server (None: none to hand)."""
        shared = 0.0 if step is None else max(0.0, step.fit.fixed_ms)
        if step is None or shared >= cls.long_ms_of(prefill):
            return cls(prefill, 0.0, None, fitted_in)
        return cls(prefill, shared, step.fitted_in, fitted_in)

    @staticmethod
    def long_ms_of(prefill: PrefillFit) -> float:
        """The long prompt's first token on the prefill fit's line."""
        return prefill.fixed_ms + prefill.prefill_ms(prefill.long_tokens)

    @property
    def from_step(self) -> bool:
        """The fit's fixed part (none where it could not separate one) fell below the step's
        shared part, so the model's fixed part is the step's."""
        fitted = self.prefill.fixed_ms if self.prefill.separated else 0.0
        return fitted < self.step_ms

    @property
    def request_ms(self) -> float:
        return 0.0 if self.from_step else self.prefill.fixed_ms - self.step_ms

    @property
    def tok_s(self) -> float:
        if not self.from_step:
            return self.prefill.tok_s
        long_ms = self.long_ms_of(self.prefill)
        return 1000.0 * self.prefill.long_tokens / (long_ms - self.step_ms)

    @property
    def fixed_ms(self) -> float:
        """What every request waits whatever its prompt: the request's work and one step's."""
        return self.request_ms + self.step_ms

    def read_ms(self, tokens: float) -> float:
        """How long ``tokens`` computed prompt tokens take at the model's rate."""
        return 1000.0 * tokens / self.tok_s

    def first_token_ms(self, tokens: float) -> float:
        return self.fixed_ms + self.read_ms(tokens)


@dataclass(frozen=True)
class EngineShares:
    """What the engine added to a step on this device, as chapter 02 split it: its fixed work
    per step against one read of the weights (``step_share``; 1.0 is as much again) and its work
    per sequence against that sequence's arithmetic and KV reads (``sequence_share``)."""

    step_share: float
    sequence_share: float
    fitted_in: str


@dataclass(frozen=True)
class DeviceModel:
    """What is kept for one device and setup: the step line, the prompt reading and the
    engine's shares of a step, each None until a chapter fits it, and every prediction a
    chapter checked against its runs."""

    step: StepLine | None = None
    reading: PromptReading | None = None
    checks: tuple[Checked, ...] = ()
    engine: EngineShares | None = None


def model_path(runtime: Runtime) -> Path:
    """The file a model is kept in, named for what it is only valid for: the runtime's
    platform, device (with the engine's cores), engine, model and size profile, and the dtype
    the engine computes in."""
    setup = f"{runtime.summary()} | dtype {default_dtype(runtime.device) or 'model default'}"
    digest = hashlib.sha256(setup.encode()).hexdigest()[:16]
    return cache_dir() / "device-models" / f"{digest}.json"


def kept_model(runtime: Runtime) -> DeviceModel:
    """The model kept for this runtime's setup; an empty one where none is, or where the file
    is not one this code can read (then the chapter fits again, as on a fresh runtime)."""
    path = model_path(runtime)
    try:
        return recorded.load(path, {"model": DeviceModel})["model"]
    except (OSError, ValueError, KeyError, TypeError):
        return DeviceModel()


def keep(runtime: Runtime, part: StepLine | PromptReading | EngineShares) -> Path:
    """Keep ``part`` for the later chapters on this setup, beside what is kept already."""
    model = kept_model(runtime)
    if isinstance(part, StepLine):
        model = dataclasses.replace(model, step=part)
    elif isinstance(part, PromptReading):
        model = dataclasses.replace(model, reading=part)
    else:
        model = dataclasses.replace(model, engine=part)
    return recorded.save({"model": model}, model_path(runtime))


def note_checks(runtime: Runtime, chapter: str, checks: Sequence[Checked]) -> None:
    """Keep ``chapter``'s checked predictions for the book's closing table, in place of those
    an earlier run of the chapter kept."""
    model = kept_model(runtime)
    others = tuple(check for check in model.checks if check.chapter != chapter)
    recorded.save(
        {"model": dataclasses.replace(model, checks=others + tuple(checks))}, model_path(runtime)
    )


def keep_step_line(
    runtime: Runtime,
    fit: StepFit,
    batches: list[int],
    chapter: str,
    shares: tuple[float, float] | None = None,
) -> StepLine | None:
    """Keep a chapter's step line where it splits a step (``StepFit.splits``): a line that
    does not would mislead every later prediction. With it, the engine's ``shares`` of the
    step's two parts (:class:`EngineShares`), where the chapter split them. The line kept, or
    None."""
    if not fit.splits:
        return None
    line = StepLine(fit, chapter, tuple(sorted(set(batches))))
    keep(runtime, line)
    if shares is not None:
        keep(runtime, EngineShares(*shares, chapter))
    return line


@dataclass(frozen=True, kw_only=True)
class QuickFitSizes(Knobs):
    """The quick step-line fit's sweep: closed loops of ``input_tokens``-token prompts and
    ``answer_tokens``-token answers, one request per user."""

    input_tokens: int
    answer_tokens: int


QUICK_FIT = Profiles(
    smoke=QuickFitSizes(profile="smoke", input_tokens=16, answer_tokens=32),
    cpu=QuickFitSizes(profile="cpu", input_tokens=16, answer_tokens=64),
    gpu=QuickFitSizes(profile="gpu", input_tokens=16, answer_tokens=256),
)


def quick_levels(max_num_seqs: int) -> list[int]:
    """Three batch sizes up to the server's cap: one, half the cap and the cap."""
    return sorted({1, max(1, max_num_seqs // 2), max_num_seqs})


def quick_step_line(runtime: Runtime, server: RunningServer, max_num_seqs: int) -> StepLine | None:
    """Fit the step line with one short sweep on ``server`` (its cap ``max_num_seqs``), as
    chapter 02 does at full size; the line is only this chapter's, and is not kept. None where
    fewer than two batch sizes had a steady window (every user decoding at once) to time a step
    in."""
    sizes = QUICK_FIT.at(runtime.size_profile)
    runs = bench.sweep_runs(
        server,
        quick_levels(max_num_seqs),
        requests_per_user=1,
        input_tokens=sizes.input_tokens,
        max_tokens=sizes.answer_tokens,
        seed=71,
    )
    sweep = bench.sweep_table(runs)
    steady = {
        int(level): float(total)
        for level, total in zip(sweep["concurrency"], sweep[STEADY_OUTPUT_TOK_S], strict=True)
        if math.isfinite(total) and total > 0
    }
    if len(steady) < 2:
        return None
    levels = sorted(steady)
    step_ms = step_times_ms(levels, [steady[level] for level in levels])
    return StepLine(fit_step_time(levels, step_ms.tolist()), FITTED_HERE, tuple(levels))


def step_line(runtime: Runtime, server: RunningServer, max_num_seqs: int) -> StepLine | None:
    """The step line an earlier chapter kept for this setup where it splits a step, else a
    quick fit on ``server`` (:func:`quick_step_line`)."""
    kept = kept_model(runtime).step
    if kept is not None and kept.fit.splits:
        return kept
    return quick_step_line(runtime, server, max_num_seqs)


def prompt_reading(
    runtime: Runtime, server: RunningServer, step: StepLine | None, long_tokens: int
) -> PromptReading:
    """The prompt reading an earlier chapter kept for this setup, else one fitted on ``server``
    from prompts of two lengths up to ``long_tokens`` that share nothing, with the step line
    ``step`` (this chapter's only: it is not kept)."""
    kept = kept_model(runtime).reading
    if kept is not None:
        return kept
    return PromptReading.of(bench.prefill_fit(server, long_tokens=long_tokens), step, FITTED_HERE)
