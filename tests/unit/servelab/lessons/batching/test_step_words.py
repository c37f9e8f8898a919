"""servelab.lessons.batching.step_words: the step's parts and regime, and where the arithmetic
binds, as the page words them (on made-up fits)."""

from __future__ import annotations

import re

import pytest

from servelab.lessons.batching.roofline import OVERHEAD_UP_TO
from servelab.lessons.batching.step_words import arithmetic_bind_text, engine_rows_text, regime_text
from servelab.lessons.batching.steps import StepFit, gain_at
from tests.unit.servelab.lessons.batching.test_roofline import _window
from tests.unit.servelab.lessons.batching.test_step_cost import _cost


def test_a_shared_part_below_one_read_leaves_no_fixed_work_and_says_so() -> None:
    cost = _cost(15.0, 0.1)
    assert cost.step_overhead_ms == 0.0 and cost.shared_below_read
    assert "**0.0 ms**" in regime_text(cost)
    assert not _cost(30.0, 0.1).shared_below_read
    # a read below the probe adds two short sentences, on the shared part
    assert regime_text(cost).count(". ") == regime_text(_cost(30.0, 0.1)).count(". ") + 2


def test_a_fit_through_two_batch_sizes_is_rough() -> None:
    cost = _cost(30.0, 0.5, batches=[1, 4])
    assert cost.rough and "rough" in regime_text(cost)


def test_each_part_is_a_share_of_all_the_parts() -> None:
    cost = _cost(20.0, 0.5, gflops=100.0)  # arithmetic 2 ms beyond a 0.5 ms fitted part
    assert cost.sequence_overhead_ms == 0.0
    assert 0 < cost.shared_share_at_top < 1
    shares = [int(share) for share in re.findall(r"(\d+)% of (?:it|the step)", regime_text(cost))]
    assert len(shares) == 2 and all(0 < share <= 100 for share in shares)


@pytest.mark.parametrize(
    ("fixed", "binds", "in_sweep"), [(30.0, 30, True), (80.0, 80, False), (15.0, 20, True)]
)
def test_the_bind_text_says_where_the_arithmetic_binds_and_if_the_sweep_got_there(
    fixed: float, binds: int, in_sweep: bool
) -> None:
    cost = _cost(fixed, 2.0)
    assert cost.arithmetic_binds_in_sweep is in_sweep
    text = arithmetic_bind_text(cost)
    assert f"**{binds} sequences**" in text
    assert f"{cost.top_arithmetic_ms:.1f} ms" in text
    assert f"({cost.top_arithmetic_share:.0%})" in text
    # the read's own point is named only where the engine's fixed work moves it
    assert (f"about {cost.arithmetic_meets_read_at:.0f}:" in text) is cost.engine_moves_bind
    other = _cost(80.0 if in_sweep else 30.0, 2.0)

    def verdict(said: str) -> str:  # the lead's last sentence, above the fold
        return said.split("\n\n")[0].rsplit(". ", 1)[1]

    assert verdict(text) != verdict(arithmetic_bind_text(other))


def test_the_published_rows_carry_the_measured_engine_shares() -> None:
    window = _window(17.0, 35.0, 0.7)  # +250% on each part
    t4, a100 = window.published
    for row in (t4, a100):
        expected = gain_at(StepFit(row.weight_read_ms * 3.5, row.per_sequence_ms * 3.5, 1.0), 32)
        assert window.carried_gain(row) == pytest.approx(expected)
    text = engine_rows_text(window)
    for row in (t4, a100):
        assert f"| {window.carried_gain(row):.1f}× |" in text  # a row of the table
        assert f"{row.gain_low:.1f}–{row.gain_high:.1f}×" in text  # the datasheet window kept
    assert "+250%" in text


def test_published_rows_keep_only_their_datasheet_windows_without_a_split() -> None:
    loose = _window(17.0, r_squared=0.24)
    text = engine_rows_text(loose)
    assert "**" not in text  # no carried gain
    assert f"+{OVERHEAD_UP_TO:.0%}" in text
    assert text != engine_rows_text(_window(17.0))
