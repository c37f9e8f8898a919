"""servelab.lessons.prefix_caching.first_token: chapter 04's first token from this device's prompt
reading and the tokens computed, and every branch of its check."""

from __future__ import annotations

import dataclasses

import pytest

from servelab.bench.prefill import PrefillFit
from servelab.bench.spread import Spread
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.device_model.foretold import Foretold
from servelab.lessons.device_model.kept import FITTED_HERE, PromptReading, StepLine
from servelab.lessons.device_model.words import line_source
from servelab.lessons.prefix.reuse_findings import ReuseFindings
from servelab.lessons.prefix_caching.first_token import FirstTokenModel
from servelab.lessons.prefix_caching.words import first_token_text

FIT = PrefillFit(fixed_ms=60.0, tok_s=1000.0, short_tokens=256, long_tokens=2048)
LINE = StepLine(StepFit(30.0, 0.8, 0.99), "02-continuous-batching", (1, 4, 8, 16, 32))
READING = PromptReading.of(FIT, LINE, "04-prefix-caching")


def _reuse(on: Spread | None, off: Spread | None) -> ReuseFindings:
    return ReuseFindings(
        prompt_tokens=2048,
        first_computed=2048,
        second_computed=100,
        later_on=100,
        later_off=2048,
        ttft_on=on,
        ttft_off=off,
        later=3,
    )


def test_the_fixed_part_stays_when_reuse_removes_the_tokens() -> None:
    model = FirstTokenModel(READING, _reuse(None, None))
    assert model.on_ms == pytest.approx(160.0) and model.off_ms == pytest.approx(2108.0)
    assert model.token_share == pytest.approx(100 / 2048)
    assert model.time_share == pytest.approx(160 / 2108)
    assert model.fixed_share_on == pytest.approx(60 / 160)
    text = first_token_text(model)
    assert "**160 ms**" in text and "**2,108 ms**" in text
    assert "38%" in text and model.foretold is None and model.checks == ()
    assert model.reading.request_ms == 30.0 and "waits 60 ms" in text
    assert line_source(LINE.fitted_in) in text and "nothing checks" in text


def test_a_fixed_part_below_one_step_is_taken_from_the_step_line() -> None:
    low = PrefillFit(fixed_ms=10.0, tok_s=1000.0, short_tokens=256, long_tokens=2048)
    here = StepLine(LINE.fit, FITTED_HERE, (1, 2, 4))
    model = FirstTokenModel(PromptReading.of(low, here, "04"), _reuse(None, None))
    text = first_token_text(model)
    assert model.reading.from_step and model.reading.fixed_ms == 30.0
    assert model.reading.request_ms == 0 and "waits 30 ms" in text and "10 ms" in text
    assert line_source(FITTED_HERE) in text


def test_the_text_sets_each_prediction_beside_the_probes_first_tokens() -> None:
    model = FirstTokenModel(
        READING, _reuse(Spread(165.0, 150.0, 170.0, 3), Spread(3000.0, 2900.0, 3100.0, 3))
    )
    assert model.foretold == (Foretold.INSIDE, Foretold.OFF)
    assert [check.foretold for check in model.checks] == list(model.foretold)
    text = first_token_text(model)
    assert "165 ms (150–170)" in text and "3,000 ms (2,900–3,100)" in text and "25%" in text
    close = FirstTokenModel(
        READING, _reuse(Spread(165.0, 150.0, 170.0, 3), Spread(2300.0, 2200.0, 2400.0, 3))
    )
    assert close.foretold == (Foretold.INSIDE, Foretold.CLOSE)
    assert "25%" not in first_token_text(close)

    def without(said: str) -> str:
        return said.split("Without reuse")[1].split(". ")[0]

    assert without(first_token_text(close)) != without(text).replace(
        "3,000 ms (2,900–3,100)", "2,300 ms (2,200–2,400)"
    )


def test_a_fit_that_could_not_separate_predicts_nothing() -> None:
    blurred = PrefillFit(
        fixed_ms=0.0, tok_s=900.0, short_tokens=256, long_tokens=2048, separated=False
    )
    alone = PromptReading.of(blurred, None, "04")
    text = first_token_text(FirstTokenModel(alone, _reuse(None, None)))
    assert str(blurred) in text and "ms**" not in text  # the fit named, no first token foretold
    stepped = FirstTokenModel(PromptReading.of(blurred, LINE, "04"), _reuse(None, None))
    assert "ms**" in first_token_text(stepped)  # the step line gives the fixed part


def test_a_fit_without_a_fixed_part_says_so_and_names_what_is_left_out() -> None:
    flat = PrefillFit(fixed_ms=0.0, tok_s=735.0, short_tokens=252, long_tokens=2016)
    reuse = ReuseFindings(
        prompt_tokens=2016,
        first_computed=2016,
        second_computed=96,
        later_on=96,
        later_off=2016,
        ttft_on=Spread(680.0, 680.0, 680.0, 1),
        ttft_off=Spread(2445.0, 2445.0, 2445.0, 1),
        later=1,
    )
    model = FirstTokenModel(PromptReading.of(flat, None, "04"), reuse)
    text = first_token_text(model)
    assert model.fixed_share_on == 0.0 and "0%" not in text and "no fixed part" in text
    assert model.foretold[0] is Foretold.OFF and model.unexplained_ms == pytest.approx(549, abs=1)
    assert model.took_longer and model.miss_ms == model.unexplained_ms
    assert "549 ms" in text and "1,920 cached tokens" in text
    assert "their median" not in text  # one timing each: no median to be close to
    ranged = FirstTokenModel(
        model.reading,
        dataclasses.replace(
            reuse,
            ttft_on=Spread(680.0, 600.0, 700.0, 3),
            ttft_off=Spread(2445.0, 2400.0, 2500.0, 3),
        ),
    )
    assert "their median" in first_token_text(ranged)
