"""servelab.lessons.the_dials.step_model: chapter 05's sweep predicted from chapter 02's step model,
and where the check places it (each outcome's words: test_step_words.py)."""

from __future__ import annotations

import pytest

from servelab.lessons.batching.roofline import Roofline
from servelab.lessons.compare import Compared, Placed, placed
from servelab.lessons.the_dials.step_model import DialPrediction
from servelab.lessons.the_dials.step_words import check_text, prediction_text

# a read of 10 ms and 0.5 ms per sequence: with engine work up to as much again on either part,
# 24 sequences give 24·11/34 = 7.8x (b doubled) to 24·20.5/32 = 15.4x (a doubled) the output.
FOUND = DialPrediction(Roofline("cpu", "m", 10.0, 0.5, 24, "measured"), low=1, high=24)


def test_the_windows_follow_from_the_two_ends_of_the_step() -> None:
    low, high = FOUND.output_window
    assert low == pytest.approx(24 * 11 / 34) and high == pytest.approx(24 * 20.5 / 32)
    pace_low, pace_high = FOUND.pace_window
    assert pace_low == pytest.approx(32 / 20.5) and pace_high == pytest.approx(34 / 11)
    other = DialPrediction(FOUND.roof, low=4, high=24)
    assert other.output_window[1] < high  # from 4 sequences up, less is left to gain
    text = prediction_text(FOUND)
    assert "**7.8–15.4×**" in text and f"**{pace_low:.1f}–{pace_high:.1f}×**" in text


@pytest.mark.parametrize(
    ("value", "where"), [(1.0, Placed.BELOW), (2.0, Placed.INSIDE), (3.0, Placed.ABOVE)]
)
def test_a_ratio_is_placed_against_its_window_ends_inside(value: float, where: Placed) -> None:
    assert placed(value, 1.5, 2.5) is where
    assert placed(1.5, 1.5, 2.5) is placed(2.5, 1.5, 2.5) is Placed.INSIDE


@pytest.mark.parametrize(
    ("bounds", "placed_by_runs"),
    [
        (None, True),  # one pass: the median alone places it
        ((9.0, 14.0), True),  # every pairing of the passes inside the window too
        ((2.7, 14.7), False),  # chapter 05's recorded bf16 run: 9.6x, passes 9–15 and 41–132 tok/s
    ],
)
def test_the_output_is_placed_only_where_the_passes_agree(
    bounds: tuple[float, float] | None, placed_by_runs: bool
) -> None:
    assert FOUND.output_placed(13.0) is Placed.INSIDE
    where = FOUND.output_placed_within(13.0, bounds)
    assert (where is Placed.INSIDE) is placed_by_runs and (where is None) is not placed_by_runs
    text = check_text(FOUND, 13.0, 1.8, Compared.HIGHER, bounds)
    assert ("cannot place" in text) is not placed_by_runs
    assert (text == check_text(FOUND, 13.0, 1.8, Compared.HIGHER)) is placed_by_runs
    above = check_text(FOUND, 13.0, 4.0, Compared.HIGHER, bounds)
    assert ("arriving prompts" in above) and ("cannot place" in above) is not placed_by_runs
