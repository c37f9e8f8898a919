"""servelab.lessons.device_model.kept: the prompt reading made from a prefill fit and the step
line, and the model kept per setup on disk."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from servelab.bench.prefill import PrefillFit
from servelab.bench.spread import Spread
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.device_model.foretold import Checked
from servelab.lessons.device_model.kept import (
    QUICK_FIT,
    DeviceModel,
    EngineShares,
    PromptReading,
    StepLine,
    keep,
    keep_step_line,
    kept_model,
    model_path,
    note_checks,
    prompt_reading,
    quick_levels,
)
from tests.support import kaggle_runtime

LINE = StepLine(StepFit(30.0, 0.8, 0.99), "02-continuous-batching", (1, 4, 8, 16, 32))
BELOW_STEP = PrefillFit(fixed_ms=10.0, tok_s=1000.0, short_tokens=250, long_tokens=2000)


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path))


def test_a_fixed_part_above_the_step_keeps_the_fit_and_splits_off_the_request() -> None:
    reading = PromptReading.of(dataclasses.replace(BELOW_STEP, fixed_ms=50.0), LINE, "04")
    assert not reading.from_step and reading.step_from == "02-continuous-batching"
    assert reading.request_ms == pytest.approx(20.0) and reading.step_ms == 30.0
    assert reading.tok_s == 1000.0
    assert reading.first_token_ms(500) == pytest.approx(550.0)


def test_a_fixed_part_below_the_step_is_floored_there_through_the_long_prompt() -> None:
    reading = PromptReading.of(BELOW_STEP, LINE, "04")
    assert reading.from_step and reading.request_ms == 0 and reading.fixed_ms == 30.0
    # the long prompt's time on the fit's line stays where it was: 10 + 2000 ms
    assert reading.first_token_ms(2000) == pytest.approx(2010.0)
    assert reading.tok_s == pytest.approx(2000 / 1.98)


def test_an_unseparated_fit_takes_the_step_as_its_fixed_part() -> None:
    blurred = PrefillFit(
        fixed_ms=0.0, tok_s=800.0, short_tokens=250, long_tokens=2000, separated=False
    )
    reading = PromptReading.of(blurred, LINE, "04")
    assert reading.from_step and reading.first_token_ms(2000) == pytest.approx(2500.0)
    alone = PromptReading.of(blurred, None, "04")
    assert alone.step_ms == 0 and not alone.from_step and alone.tok_s == 800.0


@pytest.mark.parametrize("fixed_ms", [2010.0, 5000.0])
def test_a_step_no_shorter_than_the_whole_long_prompt_is_left_out(fixed_ms: float) -> None:
    slow = dataclasses.replace(LINE, fit=StepFit(fixed_ms, 0.8, 0.99))
    reading = PromptReading.of(BELOW_STEP, slow, "04")
    assert reading.step_ms == 0 and reading.step_from is None
    assert reading.first_token_ms(2000) == pytest.approx(2010.0)


def test_the_model_is_kept_per_setup_and_read_back() -> None:
    runtime = kaggle_runtime()
    assert kept_model(runtime) == DeviceModel()
    keep(runtime, LINE)
    reading = PromptReading.of(BELOW_STEP, LINE, "04-prefix-caching")
    keep(runtime, reading)
    assert kept_model(runtime) == DeviceModel(LINE, reading)
    assert kept_model(kaggle_runtime(profile="smoke")) == DeviceModel()  # another setup
    assert kept_model(kaggle_runtime(device_name="Tesla P100")) == DeviceModel()


def test_an_unreadable_kept_file_counts_as_none_kept() -> None:
    runtime = kaggle_runtime()
    model_path(runtime).parent.mkdir(parents=True)
    for broken in ("{not json", '{"model": {"step": {"fit": 3}}}', "[]"):
        model_path(runtime).write_text(broken)
        assert kept_model(runtime) == DeviceModel()


def test_only_a_line_that_splits_a_step_is_kept() -> None:
    runtime = kaggle_runtime()
    scattered = StepFit(200.0, 3.0, 0.24)
    assert keep_step_line(runtime, scattered, [1, 4, 8], "02-continuous-batching") is None
    assert kept_model(runtime).step is None
    kept = keep_step_line(runtime, LINE.fit, [32, 1, 4, 4, 8, 16], "02-continuous-batching")
    assert kept == LINE and kept_model(runtime).step == LINE
    assert kept_model(runtime).engine is None
    keep_step_line(runtime, LINE.fit, [1, 4], "02-continuous-batching", shares=(1.7, 2.1))
    assert kept_model(runtime).engine == EngineShares(1.7, 2.1, "02-continuous-batching")


@pytest.mark.parametrize(
    ("cap", "levels"), [(1, [1]), (2, [1, 2]), (4, [1, 2, 4]), (32, [1, 16, 32])]
)
def test_the_quick_sweep_goes_up_to_the_servers_cap(cap: int, levels: list[int]) -> None:
    assert quick_levels(cap) == levels
    assert QUICK_FIT.at("smoke").answer_tokens > 0


def test_a_chapters_checks_replace_its_earlier_ones_and_keep_the_others() -> None:
    runtime = kaggle_runtime()
    measured = Spread(160.0, 140.0, 170.0, 3)
    first = Checked("03-paged-attention", "pace", " ms", 150.0, measured)
    other = Checked("04-prefix-caching", "cached", " ms", 190.0, measured)
    note_checks(runtime, "03-paged-attention", [first])
    note_checks(runtime, "04-prefix-caching", [other])
    again = dataclasses.replace(first, predicted=155.0)
    note_checks(runtime, "03-paged-attention", [again])
    keep(runtime, LINE)  # keeping a line leaves the checks where they were
    assert set(kept_model(runtime).checks) == {again, other}


def test_a_kept_prompt_reading_is_read_before_any_is_timed() -> None:
    runtime = kaggle_runtime()
    reading = PromptReading.of(BELOW_STEP, LINE, "04-prefix-caching")
    keep(runtime, reading)
    # the server is never asked: a kept reading needs no prompt timed
    found = prompt_reading(runtime, server=None, step=LINE, long_tokens=64)  # type: ignore[arg-type]
    assert found == reading
