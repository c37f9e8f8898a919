"""servelab.lessons.the_dials.line_gain and its words: the sweep's output gain and time per token
from the step line."""

from __future__ import annotations

import dataclasses

import pytest

from servelab.bench.spread import Spread
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.device_model.foretold import Foretold
from servelab.lessons.device_model.kept import StepLine
from servelab.lessons.the_dials.line_gain import LineGain
from servelab.lessons.the_dials.step_words import line_gain_text

LINE = StepLine(StepFit(30.0, 1.0, 0.99), "02-continuous-batching", (1, 8, 32))
GAIN = LineGain(
    LINE,
    1,
    24,
    output_low=Spread(30.0, 29.0, 31.0, 3),
    output_high=Spread(400.0, 380.0, 420.0, 3),
    tpot_low=Spread(31.0, 30.0, 32.0, 3),
    tpot_high=Spread(54.0, 52.0, 56.0, 3),
    prompt_tokens=64,
)


def test_the_line_gives_the_gain_from_the_fewest_to_the_most_sequences() -> None:
    assert GAIN.predicted == pytest.approx((24 / 54) / (1 / 31))  # 13.8×
    assert GAIN.measured.median == pytest.approx(400 / 30)
    assert (GAIN.measured.low, GAIN.measured.high) == pytest.approx((380 / 31, 420 / 29))
    output, pace = GAIN.checks
    assert output.foretold is Foretold.INSIDE and "13.8×" in line_gain_text(GAIN)
    assert GAIN.predicted_pace == pytest.approx(54 / 31)
    assert pace.measured.median == pytest.approx(54 / 31) and pace.foretold is Foretold.INSIDE


def test_tokens_slower_than_the_line_name_the_prompts_the_bursts_read() -> None:
    slow = dataclasses.replace(GAIN, tpot_high=Spread(120.0, 118.0, 122.0, 3))
    assert slow.checks[0].foretold is Foretold.INSIDE
    assert slow.checks[1].foretold is Foretold.OFF
    assert "1,536" in line_gain_text(slow) and "1,536" not in line_gain_text(GAIN)


def test_a_gain_short_of_the_line_names_the_prompts_the_bursts_read() -> None:
    short = dataclasses.replace(GAIN, output_high=Spread(200.0, 198.0, 202.0, 3))
    assert short.checks[0].foretold is Foretold.OFF
    assert "1,536" in line_gain_text(short) and short.prompts_read == 1536
    wide = dataclasses.replace(GAIN, output_high=Spread(200.0, 120.0, 420.0, 3))
    assert wide.checks[0].foretold is Foretold.UNPLACED and "1,536" not in line_gain_text(wide)
    above = dataclasses.replace(GAIN, output_high=Spread(800.0, 790.0, 810.0, 3))
    assert len({line_gain_text(above), line_gain_text(short), line_gain_text(wide)}) == 3


def test_without_a_line_or_with_one_pass() -> None:
    none = dataclasses.replace(GAIN, line=None)
    assert none.predicted is None and none.checks == ()
    assert "×" not in line_gain_text(none)
    once = dataclasses.replace(
        GAIN,
        output_low=Spread.of([30.0]),
        output_high=Spread.of([400.0]),
        tpot_low=Spread.of([31.0]),
        tpot_high=Spread.of([54.0]),
    )
    assert once.measured.n == 1 and once.measured.low == once.measured.high
    assert once.measured_pace.n == 1
