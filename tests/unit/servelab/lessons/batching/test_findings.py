"""The batching findings every page and the smoke check share, on made-up sweeps: which levels
and which totals they read, and each verdict on either side of its bar."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from servelab.bench import sweep_table
from servelab.lessons.batching.findings import (
    LESSON_GPU,
    STEADY_BASIS,
    WHOLE_BASIS,
    BatchFindings,
    Intensity,
    two_level_sweep,
)
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.batching.thresholds import LESSON_STRENGTH, SHOWN_GAIN
from servelab.lessons.batching.words import NOISE_TEXT, crowd_text, scaling_text
from servelab.lessons.compare import Shown
from servelab.lessons.serving_many_users.words import batching_text


def sweep(totals: dict[int, float], steady: bool = True) -> pd.DataFrame:
    """One row per concurrency; the whole-run total is a tenth below the steady one."""
    frame = pd.DataFrame(
        {"concurrency": list(totals), "output_tok_s": [0.9 * total for total in totals.values()]}
    )
    if steady:
        frame["steady_output_tok_s"] = list(totals.values())
    return frame


def test_the_lessons_figures() -> None:
    assert (LESSON_GPU.users, LESSON_GPU.gain, LESSON_GPU.kept) == (32, 20.0, 0.6)
    assert LESSON_GPU.gain_per_stream == pytest.approx(0.625)


def test_the_intensity_prints_its_flops_in_gflops() -> None:
    found = Intensity.of(200e9, 10.0, 200e6, 100e6, StepFit(40.0, 1.0, 1))
    assert found.gflops_per_s == pytest.approx(200.0) and found.balance == pytest.approx(20.0)


def test_one_stream_against_32_on_the_steady_basis() -> None:
    found = BatchFindings.from_sweep(sweep({4: 90.0, 1: 25.0, 32: 400.0, 16: 300.0}))
    assert (found.users, found.single_total, found.top_total) == (32, 25.0, 400.0)
    assert found.basis == STEADY_BASIS and found.gain == pytest.approx(16.0)
    assert found.top_each == pytest.approx(12.5) and found.single_each == 25.0
    assert found.kept == pytest.approx(found.gain / found.users) == pytest.approx(0.5)
    assert found.lost == pytest.approx(0.5) and LESSON_GPU.lost == pytest.approx(0.4)
    assert found.step_cost == pytest.approx(2.0)


def test_32_streams_are_compared_even_where_the_sweep_goes_higher() -> None:
    assert BatchFindings.from_sweep(sweep({1: 25.0, 32: 400.0, 64: 600.0})).users == 32


def test_a_sweep_below_32_compares_its_highest_level() -> None:
    found = BatchFindings.from_sweep(sweep({1: 25.0, 4: 80.0}))
    assert found.users == 4 and found.gain == pytest.approx(3.2)


@pytest.mark.parametrize(
    "frame",
    [
        sweep({1: 25.0, 32: 400.0}, steady=False),
        sweep({1: 25.0, 32: 400.0}).assign(steady_output_tok_s=[np.nan, 400.0]),
        sweep({1: 25.0, 32: 400.0}).assign(steady_output_tok_s=[25.0, np.nan]),
    ],
)
def test_without_a_steady_state_at_both_ends_both_totals_are_whole_run(frame) -> None:
    found = BatchFindings.from_sweep(frame)
    assert found.basis == WHOLE_BASIS
    assert (found.single_total, found.top_total) == pytest.approx((22.5, 360.0))


def test_a_steady_state_missing_only_between_the_ends_does_not_matter() -> None:
    frame = sweep({1: 25.0, 8: 100.0, 32: 400.0}).assign(steady_output_tok_s=[25.0, np.nan, 400.0])
    assert BatchFindings.from_sweep(frame).basis == STEADY_BASIS


@pytest.mark.parametrize("totals", [{4: 80.0, 32: 400.0}, {1: 25.0}])
def test_a_sweep_without_one_stream_and_a_crowd_is_refused(totals: dict[int, float]) -> None:
    with pytest.raises(ValueError, match="concurrency 1"):
        BatchFindings.from_sweep(sweep(totals))


def at(gain: float, users: int = 32) -> BatchFindings:
    return BatchFindings.from_sweep(sweep({1: 10.0, users: 10.0 * gain}))


# The lesson's strength at 32 streams: three quarters of its 20x.
AS_STRONG = LESSON_STRENGTH * LESSON_GPU.gain


@pytest.mark.parametrize(
    ("gain", "users", "verdict"),
    [
        (SHOWN_GAIN - 0.01, 32, Shown.NONE),
        (SHOWN_GAIN, 32, Shown.WEAK),
        (AS_STRONG - 0.1, 32, Shown.WEAK),
        (AS_STRONG, 32, Shown.STRONG),
        (28.0, 32, Shown.STRONG),
        # The lesson's bar scales with the streams measured: at 4, a gain of 1.875.
        (1.8, 4, Shown.WEAK),
        (1.9, 4, Shown.STRONG),
        # Per stream as strong as the lesson, yet too small a gain to tell from noise.
        (1.4, 2, Shown.NONE),
    ],
)
def test_each_verdict_on_either_side_of_its_bar(gain: float, users: int, verdict: Shown) -> None:
    found = at(gain, users)
    assert found.verdict is verdict
    assert found.shown is (verdict is not Shown.NONE)


def test_a_run_that_measured_nothing_shows_nothing() -> None:
    frame = sweep({1: 25.0, 32: np.nan}, steady=False)
    found = BatchFindings.from_sweep(frame)
    assert math.isnan(found.gain) and found.verdict is Shown.NONE


def test_two_summary_rows_make_a_sweep() -> None:
    """What the smoke check and chapter 01 have: one run alone and one run of a crowd."""
    one = {"output_tok_s": 20.0, "steady_output_tok_s": 25.0, "failed": 0}
    many = {"output_tok_s": 300.0, "steady_output_tok_s": 400.0, "failed": 0}
    frame = two_level_sweep(one, many, 16)
    assert list(frame["concurrency"]) == [1, 16] and list(frame["failed"]) == [0, 0]
    found = BatchFindings.from_sweep(frame)
    assert found.users == 16 and found.gain == pytest.approx(16.0)


class _Run:
    """What ``sweep_table`` reads of a run: its summary row."""

    def __init__(self, steady: float) -> None:
        self.steady = steady

    def row(self) -> dict[str, float | str]:
        return {
            "workload": "closed loop",
            "status": "4/4 ok",
            "output_tok_s": 0.9 * self.steady,
            "steady_output_tok_s": self.steady,
        }


def repeated(single: list[float], crowd: list[float]) -> BatchFindings:
    table = sweep_table(
        {1: [_Run(value) for value in single], 32: [_Run(value) for value in crowd]}
    )
    return BatchFindings.from_sweep(table)


def test_a_repeated_sweep_gives_medians_and_the_ranges_beside_them() -> None:
    found = repeated([24.0, 25.0, 27.0], [380.0, 400.0, 420.0])
    assert (found.single_total, found.top_total, found.repeated) == (25.0, 400.0, True)
    assert found.sweeps == 3
    assert found.shown and not found.within_noise
    text = scaling_text(found, smoke=False)
    assert "3 sweeps" in text and "| 25 (24–27) |" in text and "| 400 (380–420) |" in text
    assert "| 25 (24–27) |" in crowd_text(found, smoke=False)


def test_a_gain_the_ranges_still_cover_is_not_called_shown() -> None:
    found = repeated([20.0, 25.0, 200.0], [100.0, 400.0, 420.0])  # 16× at the medians
    assert found.gain >= SHOWN_GAIN and found.verdict is Shown.UNTOLD and not found.shown
    assert found.within_noise and NOISE_TEXT in scaling_text(found, smoke=False)
    assert NOISE_TEXT in batching_text(found)
    assert NOISE_TEXT in crowd_text(found, smoke=True)  # the noise, not the size, is the reason


def test_a_shortfall_the_ranges_still_cover_is_not_called_short() -> None:
    """Chapter 02's recorded bf16 run: 13.1× at the medians, sweeps from 5 to 22 tok/s alone and
    56 to 279 together, said to fall short of the lesson's 20×."""
    tight = repeated([24.0, 25.0, 27.0], [290.0, 300.0, 310.0])  # 12x, at most 12.9x
    wide = repeated([5.0, 9.0, 22.0], [56.0, 117.0, 279.0])  # 13x, up to 55.8x
    assert tight.verdict is wide.verdict is Shown.WEAK
    assert not tight.short_untold and wide.short_untold
    assert wide.gain_bounds == pytest.approx((56 / 22, 279 / 5))
    assert "55.8×" in scaling_text(wide, smoke=False)
    assert "55.8×" not in scaling_text(tight, smoke=False)
    assert scaling_text(wide, smoke=False) != scaling_text(tight, smoke=False).replace(
        "24–27", "5–22"
    )
