"""servelab.lessons.device_model.words: where a step line came from, and whether it was kept."""

from __future__ import annotations

import dataclasses

from servelab.bench.spread import Spread
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.device_model.foretold import BookChecks, Checked
from servelab.lessons.device_model.kept import FITTED_HERE, StepLine
from servelab.lessons.device_model.words import (
    closing_table,
    closing_text,
    kept_text,
    line_source,
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
    book = BookChecks.of([Checked("03-paged-attention", "pace", " ms", 150.0, measured),
                          Checked("04-prefix-caching", "gain", "×", 2.04, Spread.of([2.0]))])
    table = closing_table(book)
    assert list(table["chapter"]) == ["03", "04"] and list(table["predicted"]) == ["150 ms",
                                                                                 "2.0×"]
    text = closing_text(book)
    assert "2 predictions" in text and "2 chapters" in text
    empty = closing_text(BookChecks.of([]))
    assert empty != text and closing_table(BookChecks.of([])).empty


def test_a_prediction_met_by_scattered_runs_is_counted_apart() -> None:
    book = BookChecks.of([Checked("09-past-one-machine", "one", " ms", 77.0,
                                  Spread(143.0, 84.0, 172.0, 3))])
    assert "50%" in closing_table(book)["the prediction"][0]
    assert "1 met runs" in closing_text(book)
