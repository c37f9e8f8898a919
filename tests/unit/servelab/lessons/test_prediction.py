"""servelab.lessons.prediction: the prediction echoed back and the page story it opens."""

from __future__ import annotations

from servelab.lessons.prediction import page_story, prediction_text


def test_prediction_is_echoed_or_its_absence_noted() -> None:
    assert "*about 5x*" in prediction_text(" about 5x ", "20×")
    empty = prediction_text("", "20×")
    assert "20×" in empty and empty == prediction_text("   ", "20×")  # blank is empty
    assert empty.split("20×")[0] != prediction_text("x", "20×").split("20×")[0].replace("x", "")


def test_a_page_story_opens_with_the_prediction_then_titled_paragraphs() -> None:
    text = page_story("5x", "20×", [("One user", "Quick."), ("Many users", "Slower.")])
    assert text.split("\n\n") == [prediction_text("5x", "20×"), "**One user.** Quick.",
                                   "**Many users.** Slower."]


def test_a_measured_phrase_ending_in_a_full_stop_gets_one() -> None:
    assert prediction_text("3x", "8.7× in total.").endswith("8.7× in total.")
    assert ".." not in prediction_text("", "8.7× in total.")
