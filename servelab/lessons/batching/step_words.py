"""Chapter 02's step in words: the prediction before the sweep (:mod:`.roofline`), the split of
a step and its regime, and the gain the split predicts (:mod:`.step_cost`).

Each function phrases one findings record for the page, picking its sentences by the record's
verdicts; every number it writes is one of the record's.
"""

from __future__ import annotations

import pandas as pd

from servelab.lessons.batching.findings import LESSON_GPU
from servelab.lessons.batching.roofline import (
    OVERHEAD_UP_TO,
    EngineWindow,
    Roofline,
    lesson_bandwidth_tb_s,
)
from servelab.lessons.batching.step_cost import GainFindings, StepCost, StepPart
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.compare import Placed
from servelab.lessons.findings_table import findings_table
from servelab.lessons.fold import fold


# -- before the sweep --------------------------------------------------------------------------
def roofline_table(rooflines: list[Roofline]) -> pd.DataFrame:
    """One row per device: the step's least parts, *r*, and the gain and share kept, as
    windows."""
    return pd.DataFrame(
        {
            "device": [row.device for row in rooflines],
            "model": [row.model for row in rooflines],
            "weight read (ms)": [f"{row.weight_read_ms:.2f}" for row in rooflines],
            "each sequence (ms)": [f"{row.per_sequence_ms:.3f}" for row in rooflines],
            "r = b ÷ a": [f"{row.ratio:.3f}" for row in rooflines],
            "gain": [f"{row.gain_low:.1f}–{row.gain_high:.1f}×" for row in rooflines],
            "each user keeps": [f"{row.kept_low:.0%}–{row.kept_high:.0%}" for row in rooflines],
            "figures from": [row.source for row in rooflines],
        }
    )


def _lesson_against(row: Roofline) -> str:
    """Where the lesson's measured gain falls against ``row``'s window."""
    gain = LESSON_GPU.gain
    place = row.placed(gain)
    if place is Placed.INSIDE:
        return f"The lesson's own {gain:.0f}× falls inside that row's window."
    return (
        f"The lesson's own {gain:.0f}× falls {place} that row's window: its figures imply "
        f"more work {'per sequence' if place is Placed.BELOW else 'per step'} than the "
        "window allows."
    )


def prediction_window_text(here: Roofline, lesson_row: Roofline) -> str:
    """What the table predicts for this machine, in words, before the sweep measures it; how
    the window is set and the lesson's measured gain against the row that stands for its GPU
    folded."""
    lead = (
        f"Predicted for {here.users} sequences here: **{here.gain_low:.1f}–"
        f"{here.gain_high:.1f}×** one stream's total, each user keeping "
        f"{here.kept_low:.0%}–{here.kept_high:.0%}."
    )
    return lead + fold(
        f"The window comes from this machine's bandwidth and FLOP/s alone (with no engine "
        f"work at all, {here.gain:.1f}×). It assumes the engine adds at most "
        f"{OVERHEAD_UP_TO:.0%} again to the shared part or to each sequence's part. "
        f"The lesson names no GPU: its {LESSON_GPU.single_total:.0f} tok/s for one stream of "
        f"Qwen3-8B would take {lesson_bandwidth_tb_s():.1f} TB/s if a step were "
        f"only its weight read, a card of the A100's class, so that row stands for it. "
        f"{_lesson_against(lesson_row)} Every row is a prediction; the step-time fit after "
        "the sweep says where this machine fell and why.",
        "How the window is set, and the lesson's GPU",
    )


def _engine_share_words(check: EngineWindow) -> tuple[str, str]:
    """What the engine added on this device against the window's assumption, as the split
    measured it (its verdict, then the figures behind it); where the fit could not split a
    step, that it cannot say."""
    cost, most = check.cost, f"+{OVERHEAD_UP_TO:.0%}"
    if not check.measured:
        return (
            " Without a split of the step, this run cannot say what the engine added.",
            "",
        )
    said = (
        f"As measured here, the engine's fixed work per step is {cost.step_overhead_ms:.1f} "
        f"ms, **+{cost.step_overhead_share:.0%}** of the weight read. Its work per sequence "
        f"is {cost.sequence_overhead_ms:.2f} ms, **+{cost.sequence_overhead_share:.0%}** of "
        "the arithmetic and KV reads."
    )
    if not check.beyond:
        return f" Both parts stay within the window's assumption of at most {most}.", said
    broke = (
        "to both parts"
        if check.step_beyond and check.sequence_beyond
        else "to the shared part"
        if check.step_beyond
        else "to each sequence's part"
    )
    verdict = (
        f" The window assumed at most {most} on either part: **the engine added more than "
        f"that {broke}**."
    )
    if check.place is Placed.INSIDE:
        verdict += (
            " The gain fell inside only because both parts grew: shared work raises it, each "
            "sequence's lowers it."
        )
    return verdict, said


def window_check_text(window: EngineWindow) -> str:
    """The measured gain against this machine's predicted window, then what the engine added
    on this device against the window's assumption (``OVERHEAD_UP_TO``), its figures folded."""
    here, gain, bounds = window.here, window.measured_gain, window.bounds
    span = f"{here.gain_low:.1f}–{here.gain_high:.1f}×"
    place = window.place
    if place is None and bounds is not None:
        where = (
            f"The sweep measured **{gain:.1f}×** at the medians, {here.placed(gain)} the "
            f"predicted {span}, but this run cannot place it: pairing the slowest and "
            f"quickest sweeps allows {bounds[0]:.1f}× to {bounds[1]:.1f}×."
        )
    elif place is Placed.INSIDE:
        where = f"The sweep measured **{gain:.1f}×**, inside the predicted {span}."
    elif place is Placed.BELOW:
        where = (
            f"The sweep measured **{gain:.1f}×**, below the predicted {span}: each sequence "
            "cost this engine more against its arithmetic and KV reads than the window "
            "allowed."
        )
    else:
        where = (
            f"The sweep measured **{gain:.1f}×**, above the predicted {span}: the step's "
            "shared part held more of the engine's own work than the window allowed, and "
            "every sequence shares it."
        )
    verdict, figures = _engine_share_words(window)
    return where + verdict + (fold(figures, "What the engine added") if figures else "")


def engine_rows_text(window: EngineWindow) -> str:
    """The published rows with this device's measured engine shares as their stated
    assumption, a table beside their datasheet windows; where none was measured, that they
    keep only the datasheet's."""
    if not window.measured:
        return (
            "With no engine share measured, the T4 and A100 rows keep only their datasheet "
            f"windows, which assume the engine adds at most +{OVERHEAD_UP_TO:.0%}."
        )
    cost = window.cost
    table = findings_table(
        ["GPU, model", "Gain, this device's engine shares", "Datasheet window"],
        [
            [
                f"{row.device}, {row.model}",
                f"{window.carried_gain(row):.1f}×",
                f"{row.gain_low:.1f}–{row.gain_high:.1f}×",
            ]
            for row in window.published
        ],
    )
    users = window.published[0].users if window.published else window.here.users
    return (
        f"With this device's engine shares, the GPU rows would give at {users} sequences:"
        f"\n\n{table}"
        + fold(
            f"The T4 and A100 rows' windows assume the engine adds at most "
            f"+{OVERHEAD_UP_TO:.0%}; this device's measured shares stand in for that: "
            f"+{cost.step_overhead_share:.0%} on the shared part, "
            f"+{cost.sequence_overhead_share:.0%} on each sequence's. That supposes a GPU's "
            "engine adds what this one does; CUDA graphs there remove much of the launch cost.",
            "What the rows suppose",
        )
    )


# -- the split of a step -----------------------------------------------------------------------
def step_parts_table(cost: StepCost) -> pd.DataFrame:
    """Each part of a step for one sequence and for the sweep's largest batch, in ms, with
    where its number comes from."""
    top = cost.largest_batch
    sources = {
        StepPart.WEIGHT_READ: "weight bytes ÷ measured bandwidth",
        StepPart.STEP_OVERHEAD: "fit's shared part − weight read",
        StepPart.ARITHMETIC: "2 × parameters ÷ measured FLOP/s, per sequence",
        StepPart.KV_READ: f"KV bytes of {cost.inputs.context_tokens:,.0f} tokens ÷ "
        "bandwidth, per sequence",
        StepPart.SEQUENCE_OVERHEAD: "fit's per-sequence part − arithmetic − KV reads",
    }
    one, many = cost.parts(1), cost.parts(top)
    return pd.DataFrame(
        {
            "part": [str(part) for part in StepPart],
            "1 sequence (ms)": [one[part] for part in StepPart],
            f"{top:.0f} sequences (ms)": [many[part] for part in StepPart],
            "from": [sources[part] for part in StepPart],
        }
    )


def regime_text(cost: StepCost) -> str:
    """The split of a step in words: one regime, from its largest part, its parts folded;
    none where the fit cannot split a step (``StepFit.splits``)."""
    fit, top = cost.fit, cost.largest_batch
    if not fit.splits:
        return (
            f"The step times did not fall on a rising line (R² = {fit.r_squared:.2f}), so this "
            "run cannot split a step into its parts or name what bounds it. Run the sweep "
            "again on a quiet machine."
        ) + fold(
            f"The best line through them is {fit.fixed_ms:.1f} ms plus "
            f"{fit.per_sequence_ms:.2f} ms per sequence. Steps that do not grow with the "
            "batch, or scatter about it, say the machine was busy with other work while the "
            "sweep ran."
        )
    lead = (
        f"At {top:.0f} sequences this machine is **{cost.regime}**: the largest part of a "
        f"step is {cost.dominant} ({cost.dominant_share:.0%} of it)."
    )
    if cost.shared_dominant:
        lead += (
            f" The shared part still outweighs what the sequences add "
            f"({cost.shared_share_at_top:.0%} of the step), so added users come cheaply."
        )
    else:
        lead += (
            f" The sequences' parts now outweigh the shared part ({cost.shared_share_at_top:.0%}"
            " of the step), so each added user slows every step for all."
        )
    if cost.rough:
        lead += (
            f" With only {cost.points} batch sizes a line fits any numbers exactly, so "
            "read this split as rough; the full-size run fits more."
        )
    parts = (
        f"The fit says a step costs **{fit.fixed_ms:.1f} ms** whatever the batch, plus "
        f"**{fit.per_sequence_ms:.2f} ms** per sequence (R² = {fit.r_squared:.2f}). Reading "
        f"every weight once takes {cost.weight_read_ms:.1f} ms at the measured "
        f"bandwidth, so the engine's own fixed work per step is about "
        f"**{cost.step_overhead_ms:.1f} ms**. Of each sequence's {fit.per_sequence_ms:.2f} ms, "
        f"its arithmetic needs {cost.arithmetic_ms:.2f} ms and its KV-cache reads "
        f"{cost.kv_read_ms:.3f} ms. The engine's work per sequence is the other "
        f"**{cost.sequence_overhead_ms:.2f} ms**."
    )
    if cost.shared_below_read:
        parts += (
            " The shared part is shorter than one read at the probed bandwidth. So the "
            "engine reads its weights faster than the probe copies memory, and the split "
            "puts no fixed work beside the read."
        )
    return lead + fold(parts, "The parts of a step")


def arithmetic_bind_text(cost: StepCost) -> str:
    """At what batch the arithmetic would take as long as all the batch shares, and whether
    the sweep got there, its figures folded; without a split, only the read's point."""
    if not cost.fit.splits:
        return (
            "Without a split of the step, this run cannot say where the arithmetic binds; "
            f"against the weight read alone, at about {cost.arithmetic_meets_read_at:.0f} "
            "sequences."
        )
    top = cost.largest_batch
    lead = (
        "The arithmetic would take as long as all the batch shares at about "
        f"**{cost.arithmetic_binds_at:.0f} sequences**."
    )
    if cost.arithmetic_binds_in_sweep:
        lead += " The sweep went past it: at its top added users no longer came cheaply."
    else:
        lead += (
            f" The sweep stopped at {top:.0f}, short of it: this machine never reached "
            "the regime where the arithmetic binds."
        )
    said = (
        f"At {top:.0f} sequences the arithmetic is {cost.top_arithmetic_ms:.1f} ms of the "
        f"step ({cost.top_arithmetic_share:.0%}), against {cost.shared_ms:.1f} ms that all "
        "the batch shares."
    )
    if cost.engine_moves_bind:
        said += (
            f" Against the weight read alone the point would be about "
            f"{cost.arithmetic_meets_read_at:.0f}: the engine's fixed work moves it out."
        )
    return lead + fold(said)


# -- the gain the split predicts -----------------------------------------------------------------
def _gain_formula(users: int, ratio: float, gain: float) -> str:
    """The gain formula with *r* to three significant figures, so that the printed numbers give
    the printed gain."""
    return f"{users} × (1 + {ratio:.3g}) ÷ (1 + {users} × {ratio:.3g}) = {gain:.1f}×"


def _single_step_words(found: GainFindings) -> str:
    """Where one stream's step stood against the line, where it was measured."""
    if found.single_above_line is None:
        return ""
    side, measured = ("above", "higher") if found.single_above_line else ("below", "lower")
    return (
        f" One stream's step took {found.single_step_ms:.1f} ms, {side} the line's "
        f"{found.line_single_ms:.1f} ms, and every gain divides by that step, so the "
        f"measured gain came out {measured} than the line's."
    )


def gain_text(gain: GainFindings) -> str:
    """The gain the split predicts against the gain measured; the formula, and the lesson's GPU
    on the same terms, folded; where the two disagree, where one stream's measured step missed
    the line."""
    lesson, check = gain.lesson, gain.check
    lesson_words = (
        f"The lesson's figures (one stream {LESSON_GPU.single_total:.0f} tok/s, "
        f"{lesson.users} at {LESSON_GPU.top_total:,.0f}) imply *a* = "
        f"{lesson.fixed_ms:.1f} ms and *b* = {lesson.per_sequence_ms:.2f} ms. So "
        f"*r* = {lesson.ratio:.3g}, and the gain is "
        f"{_gain_formula(lesson.users, lesson.ratio, lesson.gain)}."
    )
    if not gain.fit.splits:
        return ("Without a split of the step, the formula has no *r* to work with here.") + fold(
            lesson_words, "The lesson's GPU on the same terms"
        )
    formula = (
        f"With *r* = *b* ÷ *a* the gain at *B* sequences is *B*·(1 + *r*) ÷ (1 + *B*·*r*). "
        f"Here *r* = {gain.ratio:.3g}, so the fit predicts "
        f"{_gain_formula(gain.users, gain.ratio, gain.predicted)}."
    )
    lead = f"The split of a step predicts **{gain.predicted:.1f}×** at {gain.users} sequences"
    runs = ""
    if check is None:
        lead += (
            ". This run has no steady window at every level (its answers are too short), so "
            "the prediction has no measured gain to meet."
        )
    else:
        runs = (
            f" Each pass's own fit: {check.predicted.range_text('×', 1, 'passes')}. The "
            "measured gain is the median of the passes' ratios, where the table takes the "
            "ratio of the medians."
        )
        lead += (
            f"; the passes measured **{check.measured.median:.1f}×** "
            f"({check.measured.range_text('×', 1, 'passes')}). "
            + (
                "Batching bought what the split of a step allows."
                if check.agrees
                else "The two do not agree: the step time did not grow in a straight line "
                "over the sweep, so two numbers do not sum it up here."
            )
        )
        if not check.agrees:
            formula += _single_step_words(gain)
    lesson_words = (
        f"{lesson_words} Each sequence there adds {lesson.ratio:.1%} of the "
        f"shared step, here {gain.ratio:.1%}. "
    )
    if gain.costlier_than_lesson:
        lesson_words += (
            "Per sequence this device pays more against its shared step than the "
            "lesson's GPU. That is why the formula gives it a smaller gain at the "
            "same batch."
        )
    else:
        lesson_words += (
            "Per sequence this device pays no more against its shared step than "
            "the lesson's GPU. So the formula gives it as large a gain at the same "
            "batch, or larger."
        )
    return lead + fold(
        f"{formula}{runs}\n\n{lesson_words}", "The formula, and the lesson's GPU on the same terms"
    )


def fit_title(fit: StepFit) -> str:
    """The step-time fit's title: its two parts."""
    return f"A step costs {fit.fixed_ms:.0f} ms shared + {fit.per_sequence_ms:.2f} ms per sequence"
