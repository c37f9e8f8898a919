"""servelab.lessons.throughput_vs_latency.pace and its words: both caps' steps from the step
line."""

from __future__ import annotations

import dataclasses

import pytest

from servelab.bench.spread import Spread
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.device_model.foretold import Foretold
from servelab.lessons.device_model.kept import StepLine
from servelab.lessons.throughput_vs_latency.pace import CapsPace
from servelab.lessons.throughput_vs_latency.sweep_words import caps_pace_text

LINE = StepLine(StepFit(30.0, 1.0, 0.99), "02-continuous-batching", (1, 8, 32))
PACE = CapsPace(
    LINE, 4.0, 12.0, small_tpot=Spread(35.0, 33.0, 36.0, 3), large_tpot=Spread(50.0, 45.0, 52.0, 3)
)


def test_each_cap_is_predicted_at_its_sequences_in_a_step() -> None:
    assert (PACE.small_ms, PACE.large_ms) == (34.0, 42.0)
    assert PACE.predicted_ratio == pytest.approx(42 / 34)
    assert PACE.measured_ratio == pytest.approx(50 / 35)
    assert [check.foretold for check in PACE.checks] == [Foretold.INSIDE, Foretold.CLOSE]
    text = caps_pace_text(PACE)
    assert "34 ms" in text and "42 ms" in text and "1.24×" in text and "1.43×" in text


def test_without_a_line_nothing_is_predicted() -> None:
    none = dataclasses.replace(PACE, line=None)
    assert none.predicted_ratio is None and none.checks == ()
    assert caps_pace_text(none) != caps_pace_text(PACE) and "ms" not in caps_pace_text(none)


def test_a_prediction_past_the_batches_the_line_was_timed_at_says_so() -> None:
    short = dataclasses.replace(PACE, line=dataclasses.replace(LINE, batches=(1, 2, 4)))
    assert short.past_line and not PACE.past_line
    assert "up to 4" in caps_pace_text(short) and "up to" not in caps_pace_text(PACE)
