"""servelab.lessons.batching.step_cost: the split of a step, its regime, the gain formula and
the texts that read them (step_words' own branches: test_step_words.py)."""

from __future__ import annotations

import math

import pytest

from servelab.lessons.batching.findings import BatchGain
from servelab.lessons.batching.step_cost import (
    GainCheck,
    GainFindings,
    LessonStep,
    Regime,
    StepCost,
    StepInputs,
    StepPart,
)
from servelab.lessons.batching.step_words import (
    arithmetic_bind_text,
    gain_text,
    regime_text,
    step_parts_table,
)
from servelab.lessons.batching.steps import StepFit, gain_at, ratio_gain

BATCHES = [1, 2, 4, 8, 16, 32, 32]


def _cost(
    fixed: float,
    per_sequence: float,
    *,
    weight_mb: float = 200.0,
    gflops: float = 200.0,
    kv_kb: float = 10.0,
    batches=BATCHES,
) -> StepCost:
    """At 10 GB/s: 200 MB of weights read in 20 ms; 100 M parameters at 200 GFLOP/s cost 1 ms
    of arithmetic per sequence; 10 KB a token over 500 tokens of context read in 0.5 ms."""
    inputs = StepInputs(
        weight_bytes=weight_mb * 1e6,
        parameters=100e6,
        bandwidth_gb_s=10.0,
        flops_per_s=gflops * 1e9,
        kv_bytes_per_token=kv_kb * 1e3,
        context_tokens=500,
    )
    return StepCost.of(StepFit(fixed, per_sequence, 0.99), batches, inputs)


def test_the_parts_come_from_the_device_the_model_and_the_fit() -> None:
    cost = _cost(30.0, 2.0)
    assert cost.weight_read_ms == pytest.approx(20.0)
    assert cost.arithmetic_ms == pytest.approx(1.0)
    assert cost.kv_read_ms == pytest.approx(0.5)
    assert cost.step_overhead_ms == pytest.approx(10.0)
    assert cost.sequence_overhead_ms == pytest.approx(0.5)
    parts = cost.parts(32)
    assert parts[StepPart.ARITHMETIC] == pytest.approx(32.0)
    assert sum(parts.values()) == pytest.approx(cost.fit.at(32))
    assert (cost.largest_batch, cost.points, cost.rough) == (32, 6, False)
    table = step_parts_table(cost)
    assert list(table.columns) == ["part", "1 sequence (ms)", "32 sequences (ms)", "from"]
    assert table["32 sequences (ms)"].sum() == pytest.approx(cost.fit.at(32))


@pytest.mark.parametrize(
    ("fixed", "per_sequence", "kv_kb", "gflops", "regime"),
    [
        (25.0, 0.12, 1.0, 2000.0, Regime.BANDWIDTH),  # the read (20 ms) outweighs the rest
        (80.0, 0.12, 1.0, 2000.0, Regime.FIXED_COST),  # 60 ms of fixed work beside the read
        (20.0, 1.1, 1.0, 200.0, Regime.COMPUTE),  # 32 ms of arithmetic at 32
        (20.0, 3.0, 60.0, 200.0, Regime.KV_READS),  # 3 ms of KV reads a sequence
        (20.0, 4.0, 1.0, 200.0, Regime.SEQUENCE_OVERHEAD),  # 2.95 ms a sequence beyond the rest
    ],
)
def test_the_regime_is_the_largest_part_at_the_top_batch(
    fixed: float, per_sequence: float, kv_kb: float, gflops: float, regime: Regime
) -> None:
    cost = _cost(fixed, per_sequence, kv_kb=kv_kb, gflops=gflops)
    assert cost.regime is regime
    text = regime_text(cost)
    assert f"**{regime}**" in text
    shared = regime in (Regime.BANDWIDTH, Regime.FIXED_COST)
    assert cost.shared_dominant is shared
    assert f"({cost.dominant_share:.0%} of it)" in text
    assert f"({cost.shared_share_at_top:.0%} of the step)" in text
    other = _cost(80.0, 0.12, gflops=2000.0) if not shared else _cost(20.0, 4.0)
    assert other.shared_dominant is not shared
    closing = regime_text(cost).rsplit("of the step)", 1)[1]
    assert closing != regime_text(other).rsplit("of the step)", 1)[1]


def test_one_page_never_calls_overhead_compute() -> None:
    """Chapter 02 once said 'compute-bound' beside 'each sequence costs 8.4× what its
    arithmetic needs': a per-sequence part that is mostly overhead is named as overhead."""
    cost = _cost(38.3, 1.6, gflops=1000.0)  # arithmetic 0.2 ms of a 1.6 ms per-sequence part
    assert cost.regime is Regime.SEQUENCE_OVERHEAD
    assert "compute-bound" not in regime_text(cost)


def test_the_gain_formula_matches_the_fit() -> None:
    fit = StepFit(38.3, 1.915, 1.0)  # r = 0.05
    ratio = fit.per_sequence_ms / fit.fixed_ms
    assert gain_at(fit, 32) == pytest.approx(32 * (1 + ratio) / (1 + 32 * ratio))
    assert gain_at(fit, 1) == pytest.approx(1.0)
    assert gain_at(fit, 32) == pytest.approx(12.92, abs=0.01)
    assert fit.ratio == pytest.approx(0.05) and ratio_gain(32, fit.ratio) == pytest.approx(
        gain_at(fit, 32)
    )


def test_the_lessons_figures_imply_a_step_fit() -> None:
    lesson = LessonStep.of()
    assert lesson.fixed_ms + lesson.per_sequence_ms == pytest.approx(10.0)  # 100 tok/s
    assert lesson.fixed_ms + 32 * lesson.per_sequence_ms == pytest.approx(16.0)  # 2,000 tok/s
    assert lesson.ratio == pytest.approx(0.0197, abs=1e-4)
    assert gain_at(StepFit(lesson.fixed_ms, lesson.per_sequence_ms, 1.0), 32) == pytest.approx(20)
    assert lesson.gain == pytest.approx(20)
    other = LessonStep.of(
        BatchGain(users=8, single_total=50.0, top_total=200.0, single_each=50.0, top_each=25.0)
    )
    assert other.users == 8 and other.fixed_ms + 8 * other.per_sequence_ms == pytest.approx(40)


def _totals(fixed: float, per_sequence: float, wobble: float = 0.0) -> dict[int, list[float]]:
    """Steady totals of three passes whose step times lie on a line, the middle pass's
    per-sequence part raised by ``wobble``."""
    levels = [1, 4, 16, 32]
    return {
        level: [
            1000.0 * level / (fixed + (per_sequence + extra) * level)
            for extra in (0.0, wobble, 0.0)
        ]
        for level in levels
    }


def test_the_gain_check_fits_each_pass_and_compares_ranges() -> None:
    check = GainCheck.of(_totals(38.3, 1.915, wobble=0.1), 32)
    assert check is not None and check.predicted.n == check.measured.n == 3
    assert check.predicted.median == pytest.approx(check.measured.median)
    assert check.ratio.low == pytest.approx(0.05, rel=1e-3)
    assert check.agrees
    text = gain_text(GainFindings(check, StepFit(38.3, 1.915, 1.0), LessonStep.of()))
    assert f"**{check.measured.median:.1f}×**" in text and "= 12.9×" in text
    bent = GainCheck(32, check.predicted, type(check.measured)(20.0, 19.0, 21.0, 3), check.ratio)
    assert text != gain_text(GainFindings(bent, StepFit(38.3, 1.915, 1.0), LessonStep.of()))


def test_the_gain_check_disagrees_when_the_ranges_are_apart() -> None:
    check = GainCheck.of(_totals(38.3, 1.915, wobble=0.01), 32)
    assert check is not None
    bent = GainCheck(
        32,
        predicted=check.predicted,
        measured=type(check.measured)(20.0, 19.0, 21.0, 3),
        ratio=check.ratio,
    )
    assert not bent.agrees
    assert "**20.0×**" in gain_text(GainFindings(bent, StepFit(38.3, 1.915, 1.0), LessonStep.of()))
    found = GainFindings(bent, StepFit(30.6, 1.62, 0.98), LessonStep.of(), single_step_ms=36.1)
    assert found.single_above_line and found.line_single_ms == pytest.approx(32.22)
    words = gain_text(found)
    assert "36.1 ms" in words and "32.2 ms" in words
    below = GainFindings(bent, StepFit(30.6, 1.62, 0.98), LessonStep.of(), single_step_ms=30.0)
    assert below.single_above_line is False and "30.0 ms" in gain_text(below)
    assert gain_text(below).replace("30.0 ms", "36.1 ms") != words  # above and below differ


def test_one_pass_agrees_within_a_tenth() -> None:
    check = GainCheck.of({level: runs[:1] for level, runs in _totals(38.3, 1.915).items()}, 32)
    assert check is not None and check.agrees
    spread = type(check.measured)
    assert not GainCheck(32, check.predicted, spread(16.0, 16.0, 16.0, 1), check.ratio).agrees


def test_no_steady_window_gives_no_check_and_the_text_says_so() -> None:
    totals = {1: [math.nan, math.nan], 32: [300.0, math.nan]}
    assert GainCheck.of(totals, 32) is None
    found = GainFindings(None, StepFit(38.3, 1.915, 1.0), LessonStep.of())
    assert found.users == 32 and found.single_above_line is None
    assert found.predicted == pytest.approx(gain_at(found.fit, 32))
    text = gain_text(found)
    assert "no steady window" in text and "= 12.9×." in text


@pytest.mark.parametrize("per_sequence", [1.915, 0.3])
def test_this_device_is_set_beside_the_lessons_ratio(per_sequence: float) -> None:
    found = GainFindings(None, StepFit(38.3, per_sequence, 1.0), LessonStep.of())
    assert found.costlier_than_lesson is (per_sequence > 1)
    text = gain_text(found)
    assert "*a* = 9.8 ms" in text and "*b* = 0.19 ms" in text and "= 20.0×" in text
    assert f"here {found.ratio:.1%}" in text
    other = GainFindings(None, StepFit(38.3, 2.2 - per_sequence, 1.0), LessonStep.of())
    assert other.costlier_than_lesson is not found.costlier_than_lesson
    assert text.rsplit("Per sequence", 1)[1] != gain_text(other).rsplit("Per sequence", 1)[1]


@pytest.mark.parametrize(
    "fit", [StepFit(92.9, -0.46, 0.08), StepFit(40.0, 0.5, 0.3), StepFit(-2.0, 3.0, 0.99)]
)
def test_a_fit_that_cannot_split_a_step_names_no_regime_and_no_ratio(fit: StepFit) -> None:
    """A disturbed sweep once gave -0.46 ms per sequence at R² 0.08, and the page then said
    'r = -0.005', 'fixed-cost-bound' and 'the formula accounts for the measured gain'."""
    assert not fit.splits
    cost = StepCost.of(fit, BATCHES, _cost(30.0, 1.0).inputs)
    text = regime_text(cost)
    assert f"R² = {fit.r_squared:.2f}" in text and "**" not in text  # no part, no regime
    assert all(str(regime) not in text for regime in Regime)
    words = gain_text(GainFindings(None, fit, LessonStep.of()))
    assert "*r* = 0.0197" in words  # the lesson's own figures still stand
    assert words.count("*r* = ") == 1  # and no *r* of this run's


def test_the_gain_check_leaves_out_passes_that_cannot_split() -> None:
    totals = _totals(38.3, 1.915)
    totals[32][1] = 1000.0 * 32 / 30.0  # a step at 32 quicker than at 1: that pass cannot split
    check = GainCheck.of(totals, 32)
    assert check is not None and check.predicted.n == 2 and check.measured.n == 2


def test_the_engines_shares_are_its_work_against_what_it_adds_to() -> None:
    cost = _cost(30.0, 2.0)  # 10 ms beside a 20 ms read; 0.5 ms beside 1.5 ms of arithmetic and KV
    assert cost.shared_ms == pytest.approx(30.0)
    assert cost.step_overhead_share == pytest.approx(0.5)
    assert cost.sequence_overhead_share == pytest.approx(1 / 3)
    below = _cost(15.0, 1.0)  # the fit's parts below the read and the arithmetic: no engine work
    assert below.shared_ms == pytest.approx(20.0)
    assert (below.step_overhead_share, below.sequence_overhead_share) == (0.0, 0.0)


def test_the_arithmetic_binds_where_it_reaches_all_the_batch_shares() -> None:
    cost = _cost(30.0, 2.0)  # 1 ms of arithmetic a sequence, 30 ms shared
    assert cost.top_arithmetic_ms == pytest.approx(32.0)
    assert cost.top_arithmetic_share == pytest.approx(32.0 / cost.fit.at(32))
    assert cost.arithmetic_binds_at == pytest.approx(30.0)
    assert cost.arithmetic_meets_read_at == pytest.approx(20.0)
    assert cost.engine_moves_bind and cost.arithmetic_binds_in_sweep
    far = _cost(80.0, 2.0)  # 60 ms of fixed work: the arithmetic binds at 80, past the sweep
    assert far.arithmetic_binds_at == pytest.approx(80.0) and not far.arithmetic_binds_in_sweep
    assert not _cost(15.0, 2.0).engine_moves_bind  # no fixed work beside the read


def test_without_a_split_the_bind_text_names_only_the_reads_point() -> None:
    cost = StepCost.of(StepFit(208.2, 3.01, 0.24), BATCHES, _cost(30.0, 1.0).inputs)
    text = arithmetic_bind_text(cost)
    assert f"about {cost.arithmetic_meets_read_at:.0f} sequences" in text
    assert "**" not in text
