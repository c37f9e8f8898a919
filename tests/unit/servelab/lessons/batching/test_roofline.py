"""servelab.lessons.batching.roofline and its words (step_words): the step a device's figures
allow, the gain window, and every text branch."""

from __future__ import annotations

import pytest

from servelab.lessons.batching import roofline
from servelab.lessons.batching.findings import LESSON_GPU
from servelab.lessons.batching.roofline import (
    A100,
    QWEN3_8B,
    T4,
    Roofline,
    decode_context,
    published_rooflines,
)
from servelab.lessons.batching.step_cost import StepInputs
from servelab.lessons.batching.step_words import (
    prediction_window_text,
    roofline_table,
    window_check_text,
)
from servelab.lessons.compare import Placed


def _row(read_ms: float = 10.0, per_sequence_ms: float = 0.2) -> Roofline:
    return Roofline("device", "model", read_ms, per_sequence_ms, 32, "stated")


def test_a_published_device_gives_the_read_the_arithmetic_and_the_kv_reads() -> None:
    t4 = Roofline.published(T4, QWEN3_8B, context_tokens=256, users=32)
    assert t4.weight_read_ms == pytest.approx(8.2e9 * 2 / 320e9 * 1000)
    kv_per_token = 2 * 36 * 8 * 128 * 2
    expected = 1000 * 2 * 8.2e9 / 65e12 + kv_per_token * 256 / 320e9 * 1000
    assert t4.per_sequence_ms == pytest.approx(expected)
    inputs = StepInputs(weight_bytes=2e8, parameters=1e8, bandwidth_gb_s=10.0,
                        flops_per_s=2e11, kv_bytes_per_token=1e4, context_tokens=500)
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


def test_the_book_predicts_a_t4_and_the_lessons_kind_of_card() -> None:
    t4, a100 = published_rooflines(32)
    assert (t4.device, t4.model) == ("Tesla T4", "Qwen3-0.6B")
    assert (a100.device, a100.model) == (A100.name, "Qwen3-8B")
    assert decode_context(128, 256) == 256
    table = roofline_table([t4, a100])
    assert list(table["device"]) == ["Tesla T4", A100.name]
    assert table["gain"].iloc[0] == f"{t4.gain_low:.1f}–{t4.gain_high:.1f}×"
    assert "datasheet" in table["figures from"].iloc[0]
    assert roofline.lesson_bandwidth_gb_s() == pytest.approx(1640.0)


LESSON_ROWS = [(0.2, Placed.INSIDE), (2.0, Placed.ABOVE), (0.01, Placed.BELOW)]


@pytest.mark.parametrize(("per_sequence_ms", "where"), LESSON_ROWS)
def test_the_lessons_gain_is_placed_against_its_row(per_sequence_ms: float,
                                                    where: Placed) -> None:
    row = _row(per_sequence_ms=per_sequence_ms)
    assert row.placed(LESSON_GPU.gain) is where
    text = prediction_window_text(_row(), row)
    here = _row()
    assert f"**{here.gain_low:.1f}–{here.gain_high:.1f}×**" in text
    assert f"{LESSON_GPU.gain:.0f}×" in text
    said = {prediction_window_text(_row(), _row(per_sequence_ms=ms)) for ms, _ in LESSON_ROWS}
    assert len(said) == len(LESSON_ROWS)


@pytest.mark.parametrize(("measured", "says"), [
    (17.0, "inside the window"),
    (5.0, "below the window's"),
    (30.0, "above the window's"),
])
def test_the_measured_gain_is_placed_against_this_machines_window(measured: float,
                                                                 says: str) -> None:
    text = window_check_text(_row(), measured, fit_splits=True)
    assert f"**{measured:.1f}×**" in text and says in text
    # only a fit that split the step can say by how much the engine's work left the window
    loose = window_check_text(_row(), measured, fit_splits=False)
    assert (loose == text) is (_row().placed(measured) is Placed.INSIDE)


@pytest.mark.parametrize(("bounds", "placed"), [
    (None, True),            # one sweep: the median alone places it
    ((25.0, 40.0), True),    # every pairing of the sweeps above the window too
    ((12.0, 40.0), False),   # the ranges reach into the window
])
def test_the_gain_is_placed_only_where_the_sweeps_ranges_agree(
        bounds: tuple[float, float] | None, placed: bool) -> None:
    here = _row()
    assert here.placed(30.0) is Placed.ABOVE
    assert (here.placed_within(30.0, bounds) is Placed.ABOVE) is placed
    text = window_check_text(here, 30.0, fit_splits=True, bounds=bounds)
    assert ("cannot place" in text) is not placed
    assert text.startswith("The sweep measured **30.0×**")
