"""servelab.lessons.when_not_to.forecast_words: what the kept model predicted of vLLM, before it
ran and against the page's runs."""

from __future__ import annotations

import dataclasses

from servelab.bench.spread import Spread
from servelab.lessons.device_model.kept import DeviceModel
from servelab.lessons.when_not_to.forecast_words import forecast_text, opening_text
from tests.unit.servelab.lessons.when_not_to.test_forecast import LINE, READING, _forecast

FORECAST = _forecast()  # 104 ms a token predicted, 100 and 500 ms first tokens: all inside


def test_the_opening_states_each_kept_prediction_or_its_absence() -> None:
    both = opening_text(LINE, READING, 32)
    assert "104 ms" in both and "60 ms" in both and "100 ms" in both  # 100 tokens at 1,000/s
    assert "104 ms" not in opening_text(None, READING, 32)
    assert "60 ms" not in opening_text(LINE, None, 32)
    assert opening_text(None, None, 32) not in (both, opening_text(LINE, None, 32))


def test_predictions_inside_their_runs_are_set_beside_them() -> None:
    text = forecast_text(FORECAST)
    assert "104 ms" in text and "(95–110)" in text and "130 ms" in text  # the page's own sweep
    assert "440 tokens" in text and "500 ms" in text and "tokens/s" not in text


def test_a_slower_crowd_and_a_slower_long_prompt_are_explained() -> None:
    slow = dataclasses.replace(
        FORECAST,
        crowd_tpot_ms=Spread(200.0, 190.0, 210.0, 3),
        long_off_ms=Spread(1000.0, 950.0, 1050.0, 3),
    )
    text = forecast_text(slow)
    assert "(190–210)" in text
    assert "468 tokens/s" in text and "1.1×" not in text  # 440 tokens in 1,000 − 60 ms
    longer = forecast_text(
        dataclasses.replace(slow, long_tokens=720.0, long_off_ms=Spread(1200.0, 1150.0, 1250.0, 3))
    )
    assert "1.8×" in longer  # 720 tokens against the reading's 400


def test_a_miss_within_the_fixed_part_or_before_it_says_so() -> None:
    near = dataclasses.replace(FORECAST, first_alone_ms=Spread(70.0, 68.0, 72.0, 3))
    assert "-30 ms" in forecast_text(near)
    sooner = dataclasses.replace(FORECAST, long_off_ms=Spread(50.0, 48.0, 52.0, 3))
    assert "tokens/s" not in forecast_text(sooner) and "60 ms" in forecast_text(sooner)


def test_nothing_kept_says_so() -> None:
    text = forecast_text(_forecast(DeviceModel()))
    assert "ms" not in text and text != forecast_text(FORECAST)
