"""servelab.lessons.prediction: the prediction echoed back, its numbers scored, and the page
story it opens."""

from __future__ import annotations

from servelab.lessons.guess import Aim, Unit
from servelab.lessons.prediction import page_story, prediction_text, quantity_text, score_text

GAIN = Aim("the gain", 10.4, Unit.TIMES)


def test_prediction_is_echoed_or_its_absence_noted() -> None:
    assert "*about 5x*" in prediction_text(" about 5x ", "20×")
    empty = prediction_text("", "20×")
    assert "20×" in empty and empty == prediction_text("   ", "20×")  # blank is empty
    assert empty.split("20×")[0] != prediction_text("x", "20×").split("20×")[0].replace("x", "")


def test_a_page_story_opens_with_the_prediction_then_titled_paragraphs() -> None:
    text = page_story("5x", "20×", [("One user", "Quick."), ("Many users", "Slower.")])
    assert text.split("\n\n") == [
        prediction_text("5x", "20×"),
        "**One user.** Quick.",
        "**Many users.** Slower.",
    ]


def test_a_measured_phrase_ending_in_a_full_stop_gets_one() -> None:
    assert prediction_text("3x", "8.7× in total.").endswith("8.7× in total.")
    assert ".." not in prediction_text("", "8.7× in total.")


def test_written_numbers_are_scored_against_the_measured_figures() -> None:
    far = score_text("about 5x", [GAIN])
    assert "10.4×" in far and "5.0×" in far and "2.1×" in far
    assert far in prediction_text("about 5x", "10.4×", [GAIN])
    below = score_text("about 20x", [GAIN])
    assert "1.9×" in below and below != far.replace("5.0", "20.0")
    assert "2.1" not in score_text("about 10x", [GAIN])  # close: no factor given
    assert score_text("", [GAIN]) == "" and score_text("5x", []) == ""
    nothing = score_text("a lot faster", [GAIN, Aim("hit rate", 0.9, Unit.PERCENT)])
    assert "×" in nothing and "%" in nothing and "10.4" not in nothing
    assert score_text("5x", [GAIN]) in page_story("5x", "10.4×", [], [GAIN])


def test_each_unit_is_written_as_the_pages_write_it() -> None:
    assert [
        quantity_text(value, unit)
        for value, unit in [
            (10.44, Unit.TIMES),
            (0.95, Unit.PERCENT),
            (1234.5, Unit.MS),
            (96, Unit.TOKENS),
            (2023.4, Unit.TOK_S),
            (15.8, Unit.REQ_S),
            (16, Unit.COUNT),
        ]
    ] == ["10.4×", "95%", "1,234 ms", "96 tokens", "2,023 tok/s", "15.8 req/s", "16"]
