"""servelab.lessons.batching.roofline and its words (step_words): the step a device's figures
allow, the gain window, and every text branch."""

from __future__ import annotations

import pytest

from servelab.lessons.batching.findings import LESSON_GPU
from servelab.lessons.batching.roofline import OVERHEAD_UP_TO, QWEN3_8B, T4, EngineWindow, Roofline
from servelab.lessons.batching.step_cost import StepCost, StepInputs
from servelab.lessons.batching.step_words import prediction_window_text, window_check_text
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.compare import Placed
from servelab.lessons.continuous_batching.published import published_rooflines


def _row(read_ms: float = 10.0, per_sequence_ms: float = 0.2) -> Roofline:
    return Roofline("device", "model", read_ms, per_sequence_ms, 32, "stated")


def test_a_published_device_gives_the_read_the_arithmetic_and_the_kv_reads() -> None:
    t4 = Roofline.published(T4, QWEN3_8B, context_tokens=256, users=32)
    assert t4.weight_read_ms == pytest.approx(8.2e9 * 2 / 320e9 * 1000)
    kv_per_token = 2 * 36 * 8 * 128 * 2
    expected = 1000 * 2 * 8.2e9 / 65e12 + kv_per_token * 256 / 320e9 * 1000
    assert t4.per_sequence_ms == pytest.approx(expected)
    inputs = StepInputs(
        weight_bytes=2e8,
        parameters=1e8,
        bandwidth_gb_s=10.0,
        flops_per_s=2e11,
        kv_bytes_per_token=1e4,
        context_tokens=500,
    )
    here = Roofline.of("cpu", "m", inputs, 16, "measured")
    assert (here.weight_read_ms, here.per_sequence_ms) == pytest.approx((20.0, 1.5))


def test_the_window_brackets_the_gain_with_no_engine_work() -> None:
    row = _row()
    assert row.ratio == pytest.approx(0.02)
    assert row.gain == pytest.approx(32 * 1.02 / 1.64)
    assert row.gain_low < row.gain < row.gain_high
    assert row.gain_low == pytest.approx(32 * 1.04 / (1 + 32 * 0.04))
    assert row.gain_high == pytest.approx(32 * 1.01 / (1 + 32 * 0.01))
    assert row.placed(row.gain) is Placed.INSIDE
    assert row.placed(row.gain_high + 0.1) is Placed.ABOVE
    assert row.placed(row.gain_low - 0.1) is Placed.BELOW
    assert (row.kept_low, row.kept_high) == pytest.approx((row.gain_low / 32, row.gain_high / 32))


LESSON_ROWS = [(0.2, Placed.INSIDE), (2.0, Placed.ABOVE), (0.01, Placed.BELOW)]


@pytest.mark.parametrize(("per_sequence_ms", "where"), LESSON_ROWS)
def test_the_lessons_gain_is_placed_against_its_row(per_sequence_ms: float, where: Placed) -> None:
    row = _row(per_sequence_ms=per_sequence_ms)
    assert row.placed(LESSON_GPU.gain) is where
    text = prediction_window_text(_row(), row)
    here = _row()
    assert f"**{here.gain_low:.1f}–{here.gain_high:.1f}×**" in text
    assert f"{LESSON_GPU.gain:.0f}×" in text
    said = {prediction_window_text(_row(), _row(per_sequence_ms=ms)) for ms, _ in LESSON_ROWS}
    assert len(said) == len(LESSON_ROWS)


# At 10 GB/s: 100 MB of weights read in 10 ms; 100 M parameters at 2 TFLOP/s cost 0.1 ms of
# arithmetic per sequence; 1 KB a token over 1,000 tokens read in 0.1 ms: the row of ``_row()``.
INPUTS = StepInputs(
    weight_bytes=1e8,
    parameters=1e8,
    bandwidth_gb_s=10.0,
    flops_per_s=2e12,
    kv_bytes_per_token=1e3,
    context_tokens=1000,
)


def _window(
    measured: float,
    fixed_ms: float = 15.0,
    per_sequence_ms: float = 0.3,
    r_squared: float = 0.99,
    bounds: tuple[float, float] | None = None,
) -> EngineWindow:
    """The window of ``_row()`` and a step split as ``fixed_ms`` + ``per_sequence_ms`` × B: by
    default the engine adds 5 ms (+50%) to the shared part and 0.1 ms (+50%) to each
    sequence's."""
    cost = StepCost.of(StepFit(fixed_ms, per_sequence_ms, r_squared), [1, 4, 16, 32], INPUTS)
    return EngineWindow(
        Roofline.of("device", "model", INPUTS, 32, "stated"),
        cost,
        measured,
        bounds,
        tuple(published_rooflines(32)),
    )


def test_the_window_check_reads_the_split_of_this_device() -> None:
    window = _window(17.0)
    assert window.here == _row()
    assert window.cost.step_overhead_share == pytest.approx(0.5)
    assert window.cost.sequence_overhead_share == pytest.approx(0.5)
    assert window.measured and not window.beyond
    assert window.place is Placed.INSIDE


@pytest.mark.parametrize(
    ("fixed_ms", "per_sequence_ms", "step", "sequence"),
    [
        (15.0, 0.3, False, False),  # +50% and +50%
        (35.0, 0.3, True, False),  # +250% on the shared part
        (15.0, 0.7, False, True),  # +250% on each sequence's
        (35.0, 0.7, True, True),  # both
    ],
)
def test_the_engine_is_beyond_the_assumption_where_either_share_passes_it(
    fixed_ms: float, per_sequence_ms: float, step: bool, sequence: bool
) -> None:
    window = _window(17.0, fixed_ms, per_sequence_ms)
    assert (window.step_beyond, window.sequence_beyond) == (step, sequence)
    assert window.beyond is (step or sequence)
    text = window_check_text(window)
    assert f"**+{window.cost.step_overhead_share:.0%}**" in text
    assert f"**+{window.cost.sequence_overhead_share:.0%}**" in text
    assert f"+{OVERHEAD_UP_TO:.0%}" in text
    said = {
        window_check_text(_window(17.0, *parts))
        for parts in [(15.0, 0.3), (35.0, 0.3), (15.0, 0.7), (35.0, 0.7)]
    }
    assert len(said) == 4  # each verdict says something of its own


def test_a_gain_inside_the_window_with_both_parts_beyond_says_why() -> None:
    both = _window(17.0, 35.0, 0.7)
    assert both.place is Placed.INSIDE and both.beyond
    outside = _window(30.0, 35.0, 0.7)
    assert outside.place is Placed.ABOVE and outside.beyond
    # the inside verdict adds one sentence: the two parts' effects on the gain pull apart
    extra = window_check_text(both).count(". ") - window_check_text(outside).count(". ")
    assert extra == 1


def test_a_fit_that_cannot_split_measures_no_engine_share() -> None:
    loose = _window(17.0, 35.0, 0.7, r_squared=0.24)
    assert not loose.measured and not loose.beyond
    assert not loose.step_beyond and not loose.sequence_beyond
    text = window_check_text(loose)
    assert "**+" not in text  # no share stated
    assert "**17.0×**" in text


@pytest.mark.parametrize(
    ("measured", "where"), [(17.0, Placed.INSIDE), (5.0, Placed.BELOW), (30.0, Placed.ABOVE)]
)
def test_the_measured_gain_is_placed_against_this_machines_window(
    measured: float, where: Placed
) -> None:
    window = _window(measured)
    assert window.place is where
    text = window_check_text(window)
    assert text.startswith(f"The sweep measured **{measured:.1f}×**")
    said = {window_check_text(_window(gain)) for gain in (17.0, 5.0, 30.0)}
    assert len(said) == 3


@pytest.mark.parametrize(
    ("bounds", "placed"),
    [
        (None, True),  # one sweep: the median alone places it
        ((25.0, 40.0), True),  # every pairing of the sweeps above the window too
        ((12.0, 40.0), False),  # the ranges reach into the window
    ],
)
def test_the_gain_is_placed_only_where_the_sweeps_ranges_agree(
    bounds: tuple[float, float] | None, placed: bool
) -> None:
    here = _row()
    assert here.placed(30.0) is Placed.ABOVE
    assert (here.placed_within(30.0, bounds) is Placed.ABOVE) is placed
    window = _window(30.0, bounds=bounds)
    assert (window.place is Placed.ABOVE) is placed
    text = window_check_text(window)
    assert ("cannot place" in text) is not placed
    assert text.startswith("The sweep measured **30.0×**")
    if bounds is not None and not placed:
        assert f"{bounds[0]:.1f}×" in text and f"{bounds[1]:.1f}×" in text


def test_a_row_with_the_engines_shares_adds_them_to_both_parts() -> None:
    row = _row()
    step = row.with_engine(0.5, 2.0)
    assert (step.fixed_ms, step.per_sequence_ms) == pytest.approx((15.0, 0.6))
    assert row.with_engine(0.0, 0.0) == row.step
    assert row.with_engine(OVERHEAD_UP_TO, 0.0) == row.step_most_shared
    assert row.with_engine(0.0, OVERHEAD_UP_TO) == row.step_most_per_sequence
