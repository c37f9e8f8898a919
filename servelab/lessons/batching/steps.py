"""The step-time fit (chapters 01, 02 and 10): how long one decoding step took at each batch,
the least-squares line through those times, and the batching gain a line of that shape implies.

Pure arithmetic: the records built on it are in :mod:`.findings`, :mod:`.waves_findings` and
:mod:`.step_cost`, their words in :mod:`.words` and :mod:`.step_words`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from servelab.lessons.batching.thresholds import FIT_R2_SPLITS


@dataclass(frozen=True)
class StepFit:
    """Step time ≈ ``fixed_ms`` + ``per_sequence_ms`` × batch, fitted by least squares."""

    fixed_ms: float
    per_sequence_ms: float
    r_squared: float

    def at(self, batch: float) -> float:
        return self.fixed_ms + self.per_sequence_ms * batch

    @property
    def crossover(self) -> float:
        """The batch at which the per-sequence work costs as much as the fixed part."""
        return self.fixed_ms / self.per_sequence_ms if self.per_sequence_ms > 0 else math.inf

    @property
    def ratio(self) -> float:
        """*r* = *b* ÷ *a*: what each sequence adds against the shared part."""
        return self.per_sequence_ms / self.fixed_ms if self.fixed_ms > 0 else math.inf

    @property
    def splits(self) -> bool:
        """Whether the line can split a step: both parts positive and the step times close to
        the line (R² at least ``FIT_R2_SPLITS``). Steps that did not grow with the batch, or
        scattered about it, say the machine was busy with something else, not how a step
        divides."""
        return self.fixed_ms > 0 and self.per_sequence_ms > 0 and self.r_squared >= FIT_R2_SPLITS


def step_times_ms(concurrency: Sequence[float], steady_tok_s: Sequence[float]) -> np.ndarray:
    """Time of one decoding step at each level: in the steady state every step gives each of
    the ``concurrency`` sequences one token, so a step lasts concurrency ÷ throughput."""
    return 1000.0 * np.asarray(concurrency, float) / np.asarray(steady_tok_s, float)


def fit_step_time(batch: Sequence[float], step_ms: Sequence[float]) -> StepFit:
    """Least-squares line through (batch, step time); needs two or more distinct batches."""
    x, y = np.asarray(batch, float), np.asarray(step_ms, float)
    if len(set(x.tolist())) < 2:
        raise ValueError("fitting a line needs step times at two or more batch sizes")
    slope, intercept = np.polyfit(x, y, 1)
    residual = float(np.sum((y - (intercept + slope * x)) ** 2))
    spread = float(np.sum((y - y.mean()) ** 2))
    return StepFit(float(intercept), float(slope), 1.0 - residual / spread if spread else 1.0)


def gain_at(fit: StepFit, batch: float) -> float:
    """Throughput of ``batch`` sequences against one, as the fit predicts: B·step(1) ÷ step(B)."""
    return batch * fit.at(1) / fit.at(batch)


def ratio_gain(users: int, ratio: float) -> float:
    """The same gain from *r* alone, as the page writes the formula: B·(1 + r) ÷ (1 + B·r)."""
    return users * (1 + ratio) / (1 + users * ratio)
