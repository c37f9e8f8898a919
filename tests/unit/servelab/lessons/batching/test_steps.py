"""servelab.lessons.batching: the step-time fit (steps), the findings built on it (findings;
waves_findings has its own file) and every text branch of their words (words)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from servelab.bench import bandwidth
from servelab.lessons.batching import words
from servelab.lessons.batching.findings import (
    BatchFindings,
    CeilingFindings,
    Intensity,
    two_level_sweep,
)
from servelab.lessons.batching.steps import StepFit, fit_step_time, step_times_ms
from servelab.lessons.compare import Shown
from tests.unit.servelab.lessons.batching.test_waves_findings import _waves

ONE = {"steady_output_tok_s": 25.0, "steady_user_tok_s": 25.0}


def many(total: float, users: int) -> dict[str, float]:
    return {"steady_output_tok_s": total, "steady_user_tok_s": total / users}


@pytest.mark.parametrize(
    ("total", "smoke", "shown", "gain"),
    [
        (400.0, False, True, "**16.0-fold**"),
        (30.0, True, False, "1.2-fold"),
        (30.0, False, False, "1.2-fold"),
    ],
)
def test_crowd_text_branches(total: float, smoke: bool, shown: bool, gain: str) -> None:
    found = BatchFindings.from_sweep(two_level_sweep(ONE, many(total, 16), 16))
    assert found.shown is shown and not found.within_noise
    text = words.crowd_text(found, smoke=smoke)
    assert gain in text and f"| {total:.0f} |" in text  # the crowd's total, a row of its table
    assert ("**1.2-fold**" in text) is False  # a gain not shown is not bolded
    weak = BatchFindings.from_sweep(two_level_sweep(ONE, many(30.0, 16), 16))
    assert words.crowd_text(weak, smoke=True) != words.crowd_text(weak, smoke=False)


def test_token_count_text_agrees_or_not() -> None:
    assert "agrees" in words.token_count_text(100, 100)
    assert "**4,896** generated tokens" in words.token_count_text(4896, 4896)
    assert "something else" in words.token_count_text(100, 120)


def test_step_times_and_fit_recover_a_line() -> None:
    batch = np.array([1, 2, 4, 8, 16, 32])
    step_ms = 40.0 + 0.7 * batch
    tok_s = 1000.0 * batch / step_ms
    assert step_times_ms(batch, tok_s) == pytest.approx(step_ms)
    fit = fit_step_time(batch, step_ms)
    assert fit.fixed_ms == pytest.approx(40.0) and fit.per_sequence_ms == pytest.approx(0.7)
    assert fit.r_squared == pytest.approx(1.0)
    assert fit.at(10) == pytest.approx(47.0) and fit.crossover == pytest.approx(40 / 0.7)
    assert math.isinf(StepFit(5.0, 0.0, 1.0).crossover)
    with pytest.raises(ValueError, match="two or more"):
        fit_step_time([4, 4], [1.0, 2.0])


@pytest.mark.parametrize(("per_seq", "agrees"), [(1.5, True), (5.0, False)])
def test_intensity_compares_the_fitted_cost_with_the_arithmetic(
    per_seq: float, agrees: bool
) -> None:
    # 200 GFLOP/s, 10 GB/s, 200 MB of weights in 100 M parameters of 2 bytes: the arithmetic of
    # one sequence takes 1 ms, one read of the weights 20 ms; balance 20, 20 sequences on paper.
    found = Intensity.of(200e9, 10.0, 200e6, 100e6, StepFit(40.0, per_seq, 1))
    assert found.per_sequence_ms_predicted == pytest.approx(1.0)
    assert found.batch_measured == pytest.approx(20.0 / per_seq)
    text = words.intensity_text(found)
    assert "**20** operations" in text and "about **20** sequences" in text
    assert found.agrees is agrees and (f"**{found.cost_factor:.1f}×**" in text) is not agrees
    assert f"**{per_seq:.2f} ms**" in text


def test_crowd_text_words_the_record_it_is_given() -> None:
    """Chapter 01 words the record it built, the kind chapters 00 and 02 read: every figure in
    the text is one of the record's, none summed again from the rows."""
    found = BatchFindings.from_sweep(two_level_sweep(ONE, many(400.0, 16), 16))
    text = words.crowd_text(found, smoke=False)
    assert "| 25 |" in text and "| 400 |" in text and "| 25.0 |" in text
    assert "kept **100%**" in text and "**16.0-fold**" in text
    # A record whose numbers differ from the rows it came from is worded as it stands.
    other = BatchFindings(
        users=8,
        single_total=10.0,
        top_total=60.0,
        single_each=10.0,
        top_each=7.5,
        basis="over the whole run",
    )
    text = words.crowd_text(other, smoke=False)
    assert "**8** users" in text and "**6.0-fold**" in text and "kept **75%**" in text


SCALING = [
    (500.0, False, Shown.STRONG),
    (200.0, False, Shown.WEAK),
    (30.0, True, Shown.NONE),
    (30.0, False, Shown.NONE),
]


def _scaling(total: float, smoke: bool) -> str:
    found = BatchFindings.from_sweep(two_level_sweep(ONE, many(total, 32), 32))
    return words.scaling_text(found, smoke=smoke)


@pytest.mark.parametrize(("total", "smoke", "verdict"), SCALING)
def test_scaling_text_branches(total: float, smoke: bool, verdict: Shown) -> None:
    found = BatchFindings.from_sweep(two_level_sweep(ONE, many(total, 32), 32))
    assert found.verdict is verdict and not found.within_noise
    text = words.scaling_text(found, smoke=smoke)
    assert f"| {total:.0f} |" in text and "| 25 |" in text and "| 2,000 |" in text
    assert f"**{found.gain:.1f}×**" in text and "makes 20×" in text
    assert found.basis in text
    assert len({_scaling(t, s) for t, s, _ in SCALING}) == len(SCALING)


def test_the_lessons_figures_stand_beside_this_run() -> None:
    found = BatchFindings.from_sweep(two_level_sweep(ONE, many(500.0, 32), 32))
    table = words.beside_lesson(found, "a CPU")
    assert list(table["lesson (GPU, 32 streams)"]) == ["100", "2,000", "60.0", "20.0×", "60%"]
    assert list(table["a CPU"]) == ["25", "500", "15.6", "20.0×", "62%"]
    assert table[""].iloc[1] == "32 streams, total (tok/s)"


WAVES = [
    (40.0, False, Shown.STRONG),
    (20.0, False, Shown.WEAK),
    (16.0, True, Shown.NONE),
    (16.0, False, Shown.NONE),
    (16.7, False, Shown.NONE),  # 1.04x, the ranges just apart
    (15.0, False, Shown.NONE),
]


@pytest.mark.parametrize(("static_s", "smoke", "verdict"), WAVES)
def test_waves_text_branches(static_s: float, smoke: bool, verdict: Shown) -> None:
    found = _waves(static_s)
    assert found.verdict is verdict
    text = words.waves_text(found, smoke=smoke)
    assert "**60%**" in text and "96 requests" in text and f"**{found.speedup:.2f}×**" in text
    assert ("5%:" in text) is (static_s == 16.7)  # the least margin, where continuous won by it
    said = {words.waves_text(_waves(s), smoke=smoke_) for s, smoke_, _ in WAVES}
    assert len(said) == len(WAVES)


def test_waves_are_quicker_only_with_the_runs_ranges_apart() -> None:
    overlapping = _waves(24.0, spread=0.25)  # 18-30 s against 12-20 s: 1.5x at the medians
    assert overlapping.verdict is Shown.NONE
    text = words.waves_text(overlapping, smoke=False)
    assert "**24.0 s (18.0–30.0)**" in text and "**16.0 s (12.0–20.0)**" in text
    assert "3 runs" in text
    assert not overlapping.waves_sooner and not overlapping.continuous_sooner

    def verdict_of(said: str) -> str:  # the lead's verdict, after the times, above the fold
        return said.split("in brackets). ")[1].split("\n\n")[0]

    verdict = verdict_of(text)
    assert verdict == verdict_of(words.waves_text(_waves(16.0), smoke=False))
    single = _waves(40.0, runs=1)
    assert single.verdict is Shown.NONE
    assert single.one_run_a_mode and not single.repeated and not overlapping.one_run_a_mode
    alone = words.waves_text(single, smoke=False)
    assert "(18.0" not in alone and "3 runs" not in alone
    assert alone.split("** continuously. ")[1] != verdict


def test_waves_text_weighs_idle_slots_by_what_a_step_costs() -> None:
    fit = StepFit(fixed_ms=60.0, per_sequence_ms=5.0, r_squared=0.99)
    # Busy shares 40% against 80%: 2.0x if steps cost alike; 1.8x measured.
    found = _waves(28.8, idle_continuous=0.2, fit=fit)
    assert found.if_steps_cost_alike == pytest.approx(2.0) and found.short_of_slots
    assert (found.busy_static, found.busy_continuous) == pytest.approx((0.4, 0.8))
    text = words.waves_text(found, smoke=False)
    assert "would predict 2.0×" in text and "65 ms" in text and "140 ms" in text
    assert not _waves(28.8, idle_continuous=0.2).short_of_slots  # no fit, nothing to say why
    # A gain as large as the busy shares predict needs no excuse.
    assert not _waves(40.0, idle_continuous=0.2, fit=fit).short_of_slots
    # Nor one whose runs reach it: chapter 02's float32 recording, 2.66x at the medians against
    # 2.7x, with runs that allow 2.0-4.3x.
    wide = _waves(28.8, idle_continuous=0.2, fit=fit, spread=0.2)
    assert wide.speedup == pytest.approx(1.8) and not wide.short_of_slots
    assert "would predict" not in words.waves_text(wide, smoke=False)


@pytest.mark.parametrize(("tail_share", "mostly"), [(0.9, True), (0.4, False), (None, None)])
def test_waves_text_says_where_the_continuous_idle_time_was(
    tail_share: float | None, mostly: bool | None
) -> None:
    found = _waves(40.0, idle_continuous=0.3, tail_share=tail_share)
    assert found.tail_mostly is mostly
    text = words.waves_text(found, smoke=False)
    tail = words.tail_text(found)
    assert tail.strip() in text and (tail == "") is (tail_share is None)
    assert tail_share is None or f" {tail_share:.0%} of" in tail
    assert words.tail_text(_waves(40.0, idle_continuous=0.3, tail_share=0.9)) != (
        words.tail_text(_waves(40.0, idle_continuous=0.3, tail_share=0.4)).replace("40%", "90%")
    )


@pytest.mark.parametrize(
    ("single", "near"),
    [
        (18.6, True),  # 50% of the 37 tok/s ceiling: CEILING_NEAR
        (18.4, False),
    ],
)
def test_ceiling_text_branches(single: float, near: bool) -> None:
    found = CeilingFindings.of(bandwidth.Ceiling(10.0, 270_000_000, single))
    assert found.near is near
    text = words.ceiling_text(found)
    assert "**37 tok/s**" in text and "**270 MB**" in text and f"**{single:.1f} tok/s**" in text
    flipped = bandwidth.Ceiling(10.0, 270_000_000, 37.0 - single)  # across the bar
    other = words.ceiling_text(CeilingFindings.of(flipped))
    assert text.split("allows. ")[1].split("\n\n")[0] != other.split("allows. ")[1].split("\n\n")[0]
    with pytest.raises(ValueError, match="measured speed"):
        CeilingFindings.of(bandwidth.Ceiling(10.0, 270_000_000))


def test_intensity_has_nothing_to_compare_where_the_fit_cannot_split() -> None:
    found = Intensity.of(200e9, 10.0, 200e6, 100e6, StepFit(92.9, -0.46, 0.08))
    text = words.intensity_text(found)
    assert not found.fit_splits and "-0." not in text
    assert "Measured" not in text and "**20** operations" in text  # no measured cost to set


def _spread_row(total: float, low: float, high: float, users: int) -> dict[str, float]:
    return {
        "steady_output_tok_s": total,
        "steady_output_tok_s_low": low,
        "steady_output_tok_s_high": high,
        "steady_output_tok_s_n": 3,
        "steady_user_tok_s": total / users,
    }


def test_crowd_text_cannot_tell_what_each_user_kept_where_the_ranges_allow_no_loss() -> None:
    """A review read 'each user kept 78%' where the runs allowed 48-107%."""
    found = BatchFindings.from_sweep(
        two_level_sweep(_spread_row(25.0, 20.0, 30.0, 1), _spread_row(310.0, 240.0, 400.0, 16), 16)
    )
    assert found.kept_bounds == pytest.approx((240 / 16 / 30, 400 / 16 / 20))
    assert found.shown and found.kept_untold
    text = words.crowd_text(found, smoke=False)
    assert "50% to 125%" in text and "kept **" not in text
    tight = BatchFindings.from_sweep(
        two_level_sweep(_spread_row(25.0, 24.0, 26.0, 1), _spread_row(310.0, 300.0, 320.0, 16), 16)
    )
    assert not tight.kept_untold and "kept **78%**" in words.crowd_text(tight, smoke=False)
