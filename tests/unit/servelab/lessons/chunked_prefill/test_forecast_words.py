"""servelab.lessons.chunked_prefill.forecast_words: the document's predicted first token alone,
before the reads and against them."""

from __future__ import annotations

import dataclasses

from servelab.bench.spread import Spread
from servelab.lessons.chunked_prefill.forecast import DocumentForecast
from servelab.lessons.chunked_prefill.forecast_words import (
    chunked_line,
    forecast_text,
    reading_line,
)
from servelab.lessons.device_model.kept import FITTED_HERE, PromptReading
from tests.unit.servelab.lessons.chunked_prefill.test_forecast import FIT, KEPT, PLAN

OWN = PromptReading.of(FIT, None, "06-chunked-prefill")
FORECAST = DocumentForecast.of(KEPT, PLAN)  # 1,700 ms in one step, 1,820 ms in 4 chunks


def test_the_prediction_is_printed_before_each_read_alone() -> None:
    assert "1,700 ms" in reading_line(KEPT, 800) and "chapter 04" in reading_line(KEPT, 800)
    assert "chapter 04" not in reading_line(OWN, 800) and "1,700 ms" in reading_line(OWN, 800)
    line = chunked_line(FORECAST, 200)
    assert "1,820 ms" in line and "40 ms" in line and "3 steps" in line
    whole = dataclasses.replace(FORECAST, chunks=1)
    assert "1,700 ms" in chunked_line(whole, 1024) and "steps" not in chunked_line(whole, 1024)


def test_untimed_reads_leave_the_prediction_unchecked() -> None:
    assert "1,700 ms" in forecast_text(FORECAST) and "1,820" not in forecast_text(FORECAST)


def test_a_read_inside_its_range_needs_no_reason() -> None:
    text = forecast_text(
        dataclasses.replace(
            FORECAST,
            one_step=Spread(1750.0, 1690.0, 1800.0, 3),
            chunked=Spread(1850.0, 1800.0, 1900.0, 2),
        )
    )
    assert "(1,690–1,800)" in text and "1,820 ms" in text and "2.0×" not in text


def test_a_miss_names_the_documents_length_or_the_chunks_attention() -> None:
    slower = dataclasses.replace(
        FORECAST,
        one_step=Spread(2600.0, 2500.0, 2700.0, 3),
        chunked=Spread(3500.0, 3400.0, 3600.0, 2),
    )
    text = forecast_text(slower)
    assert "2.0×" in text  # the document against the prompts the rate was read from
    assert "900 ms" in text and "300 ms" in text  # added by the chunks, each chunk after the first
    faster = forecast_text(dataclasses.replace(slower, one_step=Spread(900.0, 850.0, 950.0, 3)))
    assert "2.0×" not in faster and "2,600 ms" in faster  # 3,500 − 900 added by the chunks


def test_the_pages_own_reading_says_so() -> None:
    own = dataclasses.replace(
        DocumentForecast.of(OWN, PLAN), one_step=Spread(1750.0, 1690.0, 1800.0, 3)
    )
    assert "chapter 04" in forecast_text(own) and "chapter 04 " not in forecast_text(
        dataclasses.replace(own, reading=KEPT)
    )


def test_a_step_chapter_04_swept_for_itself_is_named_for_chapter_04() -> None:
    swept = dataclasses.replace(KEPT, step_from=FITTED_HERE)
    assert "chapter 04" in chunked_line(DocumentForecast.of(swept, PLAN), 200)
    assert "chapter 02" in chunked_line(FORECAST, 200)
