"""servelab.lessons.throughput_vs_latency.knee: chapter 07's knee from the step line and the prompt
reading, against the closed loop's."""

from __future__ import annotations

import dataclasses

import pytest

from servelab.bench.prefill import PrefillFit
from servelab.bench.spread import Spread
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.device_model.foretold import Foretold
from servelab.lessons.device_model.kept import PromptReading, StepLine
from servelab.lessons.throughput_vs_latency.knee import ModelKnee
from servelab.lessons.throughput_vs_latency.knee_words import knee_forecast_text
from servelab.lessons.throughput_vs_latency.slot_rate import SlotRate

LINE = StepLine(StepFit(40.0, 2.0, 0.99), "02-continuous-batching", (1, 4, 8))
READING = PromptReading.of(
    PrefillFit(fixed_ms=100.0, tok_s=1000.0, short_tokens=8, long_tokens=64),
    LINE,
    "04-prefix-caching",
)
KNEE = ModelKnee(LINE, READING, slots=4, input_tokens=64, output_tokens=24)


def test_the_slot_time_is_the_first_token_then_the_answer_at_the_slots_step() -> None:
    assert KNEE.step_ms == 48.0
    assert KNEE.prompts_ms == pytest.approx(4 * READING.read_ms(64))
    assert KNEE.request_s == pytest.approx(
        (READING.first_token_ms(64) + 24 * 48.0 + 4 * READING.read_ms(64)) / 1000
    )
    assert KNEE.rate == pytest.approx(4 / KNEE.request_s)


def test_the_knee_is_checked_against_the_closed_loops() -> None:
    assert KNEE.request_s is not None
    near = SlotRate(4, Spread(KNEE.request_s, 0.95 * KNEE.request_s, 1.05 * KNEE.request_s, 3))
    [check] = KNEE.checks(near)
    assert check.foretold is Foretold.INSIDE
    slow = SlotRate(4, Spread(3 * KNEE.request_s, 2.9 * KNEE.request_s, 3.1 * KNEE.request_s, 3))
    assert KNEE.checks(slow)[0].foretold is Foretold.OFF


def test_without_a_line_or_a_reading_the_model_predicts_nothing() -> None:
    for missing in (dataclasses.replace(KNEE, line=None), dataclasses.replace(KNEE, reading=None)):
        assert missing.rate is None and missing.checks(SlotRate(4, Spread.of([1.0]))) == ()
        assert "×" not in knee_forecast_text(missing)
