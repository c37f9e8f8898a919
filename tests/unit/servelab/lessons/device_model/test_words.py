"""servelab.lessons.device_model.words: where a step line came from, and whether it was kept."""

from __future__ import annotations

import dataclasses

from servelab.bench.prefill import PrefillFit
from servelab.bench.spread import Spread
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.device_model.foretold import BookChecks, Checked
from servelab.lessons.device_model.kept import FITTED_HERE, PromptReading, StepLine
from servelab.lessons.device_model.words import (
    closing_table,
    closing_text,
    kept_text,
    line_source,
    reading_text,
    step_line_text,
)

LINE = StepLine(StepFit(30.0, 0.8, 0.99), "02-continuous-batching", (1, 4, 8, 16, 32))


def test_a_line_names_where_it_was_fitted() -> None:
    assert "chapter 02" in line_source(LINE.fitted_in)
    assert "this chapter" in line_source(FITTED_HERE)
    here = step_line_text(dataclasses.replace(LINE, fitted_in=FITTED_HERE, batches=(1, 2, 4)))
    assert "30.0 ms" in here and "0.80 ms" in here and "1, 2, 4" in here
    assert step_line_text(None) != step_line_text(LINE)


def test_a_line_that_does_not_split_is_said_not_kept() -> None:
    scattered = StepFit(200.0, 3.0, 0.24)
    assert "0.24" in kept_text(scattered, None) and "0.24" not in kept_text(LINE.fit, LINE)
    assert step_line_text(LINE) in kept_text(LINE.fit, LINE)


def test_the_closing_table_has_a_row_a_prediction_and_says_how_many_held() -> None:
    measured = Spread(160.0, 140.0, 170.0, 3)
    book = BookChecks.of(
        [
            Checked("03-paged-attention", "pace", " ms", 150.0, measured),
            Checked("04-prefix-caching", "gain", "×", 2.04, Spread.of([2.0])),
            Checked("10-capacity-plan", "knee", " req/s", 1.84, Spread.of([1.7])),
        ]
    )
    table = closing_table(book)
    assert list(table["chapter"]) == ["03", "04", "10"]
    assert list(table["predicted"]) == ["150 ms", "2.0×", "1.8 req/s"]
    text = closing_text(book)
    assert "3 predictions" in text and "3 chapters" in text
    empty = closing_text(BookChecks.of([]))
    assert empty != text and closing_table(BookChecks.of([])).empty


def test_a_prediction_met_by_scattered_runs_is_counted_apart() -> None:
    book = BookChecks.of(
        [Checked("09-past-one-machine", "one", " ms", 77.0, Spread(143.0, 84.0, 172.0, 3))]
    )
    assert "50%" in closing_table(book)["the prediction"][0]
    assert "1 met runs" in closing_text(book)


def test_a_reading_says_its_numbers_and_where_it_was_fitted() -> None:
    prefill = PrefillFit(fixed_ms=60.0, tok_s=1000.0, short_tokens=250, long_tokens=2000)
    reading = PromptReading.of(prefill, LINE, "04-prefix-caching")
    text = reading_text(reading)
    assert "60.0 ms" in text and "1,000" in text and "chapter 04" in text
    here = reading_text(dataclasses.replace(reading, fitted_in=FITTED_HERE))
    assert "chapter 04" not in here and here != text
