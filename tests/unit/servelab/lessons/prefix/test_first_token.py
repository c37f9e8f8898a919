"""servelab.lessons.prefix.first_token: chapter 04's first token from the prefill fit and the
tokens computed, and every branch of its check."""

from __future__ import annotations

import dataclasses

import pytest

from servelab.bench.prefill import PrefillFit
from servelab.bench.spread import Spread
from servelab.lessons.prefix.first_token import FirstTokenModel, Foretold, foretold
from servelab.lessons.prefix.reuse_findings import ReuseFindings
from servelab.lessons.prefix.words import first_token_text

FIT = PrefillFit(fixed_ms=60.0, tok_s=1000.0, short_tokens=256, long_tokens=2048)


def _reuse(on: Spread | None, off: Spread | None) -> ReuseFindings:
    return ReuseFindings(prompt_tokens=2048, first_computed=2048, second_computed=100,
                         later_on=100, later_off=2048, ttft_on=on, ttft_off=off, later=3)


def test_the_fixed_part_stays_when_reuse_removes_the_tokens() -> None:
    model = FirstTokenModel(FIT, _reuse(None, None))
    assert model.on_ms == pytest.approx(160.0) and model.off_ms == pytest.approx(2108.0)
    assert model.token_share == pytest.approx(100 / 2048)
    assert model.time_share == pytest.approx(160 / 2108)
    assert model.fixed_share_on == pytest.approx(60 / 160)
    text = first_token_text(model)
    assert "60 + 100 = **160 ms**" in text and "**2,108 ms**" in text
    assert "38%" in text and model.foretold is None
    assert "prediction" not in text.split("without: ")[1]  # nothing checks it


@pytest.mark.parametrize(("predicted", "verdict"), [
    (150.0, Foretold.INSIDE), (190.0, Foretold.CLOSE), (300.0, Foretold.OFF),
])
def test_a_prediction_is_inside_close_or_off(predicted: float, verdict: Foretold) -> None:
    assert foretold(predicted, Spread(160.0, 140.0, 170.0, 3)) is verdict


def test_the_text_sets_each_prediction_beside_the_probes_first_tokens() -> None:
    model = FirstTokenModel(FIT, _reuse(Spread(165.0, 150.0, 170.0, 3),
                                        Spread(3000.0, 2900.0, 3100.0, 3)))
    assert model.foretold == (Foretold.INSIDE, Foretold.OFF)
    text = first_token_text(model)
    assert "165 ms (150–170)" in text and "3,000 ms (2,900–3,100)" in text and "25%" in text
    close = FirstTokenModel(FIT, _reuse(Spread(165.0, 150.0, 170.0, 3),
                                        Spread(2300.0, 2200.0, 2400.0, 3)))
    assert close.foretold == (Foretold.INSIDE, Foretold.CLOSE)
    assert "25%" not in first_token_text(close)
    assert first_token_text(close).split("; ")[1] != text.split("; ")[1].replace(
        "3,000 ms (2,900–3,100)", "2,300 ms (2,200–2,400)")


def test_a_fit_that_could_not_separate_predicts_nothing() -> None:
    blurred = PrefillFit(fixed_ms=0.0, tok_s=900.0, short_tokens=256, long_tokens=2048,
                         separated=False)
    text = first_token_text(FirstTokenModel(blurred, _reuse(None, None)))
    assert str(blurred) in text and "ms**" not in text  # the fit named, no first token foretold


def test_a_fit_without_a_fixed_part_says_so_and_names_what_is_left_out() -> None:
    flat = PrefillFit(fixed_ms=0.0, tok_s=735.0, short_tokens=252, long_tokens=2016)
    reuse = ReuseFindings(prompt_tokens=2016, first_computed=2016, second_computed=96,
                          later_on=96, later_off=2016, ttft_on=Spread(680.0, 680.0, 680.0, 1),
                          ttft_off=Spread(2445.0, 2445.0, 2445.0, 1), later=1)
    model = FirstTokenModel(flat, reuse)
    text = first_token_text(model)
    assert model.fixed_share_on == 0.0 and "0%" not in text
    assert model.foretold[0] is Foretold.OFF and model.unexplained_ms == pytest.approx(549, abs=1)
    assert "549 ms" in text and "1,920 cached tokens" in text
    assert "their median" not in text  # one timing each: no median to be close to
    ranged = FirstTokenModel(flat, dataclasses.replace(
        reuse, ttft_on=Spread(680.0, 600.0, 700.0, 3), ttft_off=Spread(2445.0, 2400.0, 2500.0, 3)))
    assert "their median" in first_token_text(ranged)
