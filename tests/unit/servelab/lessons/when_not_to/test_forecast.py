"""servelab.lessons.when_not_to.forecast: vLLM's side of chapter 08 as this device's kept model
predicts it, beside the page's runs."""

from __future__ import annotations

import pytest

from servelab.bench.frames import Result
from servelab.bench.prefill import PrefillFit
from servelab.bench.spread import Spread
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.device_model.foretold import Foretold
from servelab.lessons.device_model.kept import DeviceModel, PromptReading, StepLine
from servelab.lessons.when_not_to.findings import VLLM
from servelab.lessons.when_not_to.forecast import PromptCheck, PromptMiss, VllmForecast
from tests.support import record
from tests.unit.servelab.lessons.when_not_to.test_crowd import _engines, _slots

LINE = StepLine(StepFit(40.0, 2.0, 0.99), "02-continuous-batching", (1, 8, 32))  # 104 ms at 32
# 60 ms a request (one step's 40 of it), then 1,000 tokens/s
READING = PromptReading.of(PrefillFit(60.0, 1000.0, 50, 400), LINE, "04-prefix-caching")
MODEL = DeviceModel(step=LINE, reading=READING)


def _run(gaps: list[float], prompts: list[int], ttft: float = 0.1) -> Result:
    """One request per prompt, sent in turn, each with ``gaps`` between its tokens."""
    return Result(
        workload=None,
        duration_s=1.0,
        records=[
            record(i, float(i), gaps, ttft=ttft, prompt=prompt) for i, prompt in enumerate(prompts)
        ],
    )


CROWD = [_run([gap] * 4, [40] * 3) for gap in (0.100, 0.110, 0.095)]  # 100 ms a token (95–110)
ALONE = [_run([0.05] * 3, [40, 42]), _run([0.05] * 3, [38])]
REUSE_OFF = _run([0.05], [30, 440, 440, 440])  # the first request's prompt is left out


def _forecast(model: DeviceModel = MODEL, reuse_off: Result = REUSE_OFF) -> VllmForecast:
    return VllmForecast.of(model, _engines(), _slots(), CROWD, ALONE, reuse_off)


def test_each_prediction_is_set_beside_the_runs_of_vllm() -> None:
    forecast = _forecast()
    tpot = forecast.crowd_tpot_ms
    assert tpot is not None and (tpot.median, tpot.low, tpot.high, tpot.n) == pytest.approx(
        (100.0, 95.0, 110.0, 3)
    )
    assert (forecast.prompt_tokens, forecast.long_tokens) == (40.0, 440.0)
    assert forecast.step_ms == pytest.approx(104.0) and forecast.sweep_step_ms == 130.0
    assert forecast.first_alone_pred_ms == pytest.approx(100.0)  # 60 + 40 tokens
    assert forecast.long_pred_ms == pytest.approx(500.0)
    alone = forecast.first_alone_ms  # from seconds
    assert (alone.median, alone.low, alone.high, alone.n) == pytest.approx((100, 95, 105, 3))
    assert forecast.found == (Foretold.INSIDE,) * 3
    assert [check.predicted for check in forecast.checks] == pytest.approx([104, 100, 500])
    assert {check.chapter for check in forecast.checks} == {"08-when-not-to"}


def test_nothing_kept_predicts_nothing_and_keeps_no_check() -> None:
    forecast = _forecast(DeviceModel())
    assert forecast.step_ms is None and forecast.long_pred_ms is None
    assert forecast.found == (None, None, None) and forecast.checks == ()
    line_only = _forecast(DeviceModel(step=LINE))
    assert [check.predicted for check in line_only.checks] == pytest.approx([104.0])


def test_prompts_the_server_did_not_count_are_not_predicted() -> None:
    uncounted = _run([0.05], [0, 0])  # no usage came back: nothing counted
    forecast = _forecast(reuse_off=uncounted)
    assert forecast.long_tokens is None and forecast.long_pred_ms is None
    assert len(forecast.checks) == 2


def test_the_sweep_is_read_off_its_line_where_it_stopped_short_of_the_crowd() -> None:
    forecast = VllmForecast.of(
        MODEL, _engines(), _slots(batches=(1, 2, 4, 8)), CROWD, ALONE, REUSE_OFF
    )
    assert forecast.sweep_step_ms == pytest.approx(50 + 2.5 * 32)
    assert forecast.sweep == _slots(batches=(1, 2, 4, 8)).steps[VLLM]


@pytest.mark.parametrize(
    ("measured_ms", "where", "rate_tok_s"),
    [
        (500.0, PromptMiss.WITHIN_FIXED, None),  # 40 ms over, within the 60 ms fixed part
        (50.0, PromptMiss.BEFORE_FIXED, None),  # before 60 ms had passed
        (860.0, PromptMiss.PAST_FIXED, 500.0),  # 400 tokens in the 800 ms past the fixed part
    ],
)
def test_a_missed_prompt_reading_says_where_the_miss_fell(
    measured_ms: float, where: PromptMiss, rate_tok_s: float | None
) -> None:
    check = PromptCheck.of(READING, 460.0, 400, Spread(measured_ms, measured_ms, measured_ms, 3))
    assert (check.miss_ms, check.where, check.rate_tok_s) == (measured_ms - 460, where, rate_tok_s)
    assert check.stretched == 1.0 and not check.longer_than_timed  # as long as the reading's


def test_a_slow_read_of_a_prompt_past_the_readings_is_put_down_to_its_length() -> None:
    slow = Spread(1500.0, 1400.0, 1600.0, 3)
    assert PromptCheck.of(READING, 660.0, 600, slow).longer_than_timed  # 1.5x the longest
    assert not PromptCheck.of(READING, 1600.0, 600, slow).longer_than_timed  # came in sooner


def test_the_crowd_is_above_the_line_only_where_both_are_known() -> None:
    assert _forecast().crowd_above_line is False  # 100 ms against the line's 104
    assert _forecast(DeviceModel(step=None, reading=READING)).crowd_above_line is False
