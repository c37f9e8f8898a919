"""Chapter 05's sweep against chapter 02's step model, in words: the prediction before the sweep
and where the measured ratios fell (both found by ``the_dials.step_model.DialPrediction``)."""

from __future__ import annotations

from servelab.lessons.compare import Compared, Placed
from servelab.lessons.device_model.foretold import Checked, Foretold
from servelab.lessons.device_model.words import foretold_text, line_source
from servelab.lessons.the_dials.findings import SweepFindings
from servelab.lessons.the_dials.line_gain import LineGain
from servelab.lessons.the_dials.step_model import DialPrediction

_PACE_ABOVE = (
    " A p99 time per token above the window counts tokens that waited while the step "
    "also read arriving prompts, which the model of decoding leaves out."
)


def prediction_text(found: DialPrediction) -> str:
    """The prediction, before the sweep."""
    (out_low, out_high), (pace_low, pace_high) = found.output_window, found.pace_window
    return (
        f"Chapter 02's step model predicts that {found.high} sequences per step give "
        f"**{out_low:.1f}–{out_high:.1f}×** the output of {found.low}. Each of their tokens "
        f"would take **{pace_low:.1f}–{pace_high:.1f}×** as long. The model works from this "
        "machine's bandwidth and FLOP/s and the model's size. It models decoding only: the "
        "burst's prompts, read in the same steps, are left out."
    )


def check_text(
    found: DialPrediction,
    speedup: float,
    tpot_ratio: float,
    tpot_moved: Compared,
    speedup_bounds: tuple[float, float] | None = None,
) -> str:
    """The sweep's ratios from its fewest to its most sequences per step (the output's and the
    p99 time per token's, ``SweepFindings.speedup`` and ``tpot_ratio``) against the
    prediction. Where the time per token moved no further than its runs' spread
    (``SweepFindings.tpot_moved`` alike or untold), its ratio is no evidence either way; where
    the passes allow speedups on both sides of a window's edge (``speedup_bounds``), neither is
    the output's."""
    output = found.output_placed_within(speedup, speedup_bounds)
    pace = found.pace_placed(tpot_ratio)
    text = (
        f"The sweep measured {speedup:.1f}× the output and {tpot_ratio:.1f}× "
        f"the p99 time per token from {found.low} to {found.high} sequences per step. The "
        f"output fell {found.output_placed(speedup)} its predicted window"
        f"{' by the medians' if output is None else ''}, the time per token {pace} its own."
    )
    if output is None and speedup_bounds is not None:
        text += (
            f" Pairing the slowest and quickest passes allows anything from "
            f"{speedup_bounds[0]:.1f}× to {speedup_bounds[1]:.1f}× the output. So this run "
            "cannot place it against the window."
        )
        if pace is not Placed.INSIDE and tpot_moved not in (Compared.HIGHER, Compared.LOWER):
            return text + (
                " The time per token moved no further than its runs' spread, so "
                "where its ratio fell says nothing of the step's parts either."
            )
        return text + (_PACE_ABOVE if pace is Placed.ABOVE else "")
    if output is Placed.INSIDE and pace is Placed.INSIDE:
        return text + " The dial moves along the curve the step's parts predict."
    if pace is not Placed.INSIDE and tpot_moved not in (Compared.HIGHER, Compared.LOWER):
        text += (
            " The time per token moved no further than its runs' spread, so where its "
            "ratio fell says nothing of the step's parts."
        )
        if output is Placed.INSIDE:
            return text + " The output kept to the curve the step's parts predict."
    elif pace is Placed.ABOVE:
        return text + _PACE_ABOVE
    if output is Placed.BELOW:
        return text + (
            " Output below the window means each sequence cost this engine more "
            "than the window allowed, or the burst's prompts took steps of their own "
            "(the model counts decoding only)."
        )
    return text + (
        " The step's shared part carried more of the engine's own work than the "
        "window allowed, and every sequence shares it."
    )


def sweep_check_text(found: DialPrediction, sweep: SweepFindings) -> str:
    """The sweep's ratios against the prediction (:func:`check_text`)."""
    return check_text(
        found, sweep.speedup, sweep.tpot_ratio, sweep.tpot_moved, sweep.speedup_bounds
    )


def line_gain_text(gain: LineGain) -> str:
    """The sweep's output gain and time per token beside what this device's step line
    predicted."""
    if gain.line is None or not gain.checks:
        return "No step line was to hand, so this device's own step predicted nothing here."
    output, pace = gain.checks
    text = (
        f"**This device's step line predicted {output.predicted:.1f}× the output** from "
        f"{gain.low} to {gain.high} sequences a step, each token taking "
        f"{pace.predicted:.1f}× as long (from {line_source(gain.line.fitted_in)})."
    )
    parts = (
        text,
        _placed("output", output),
        _placed("p99 time per token", pace),
        _why_off(gain, output, pace),
    )
    return " ".join(part for part in parts if part)


def _placed(what: str, check: Checked) -> str:
    """Where one prediction fell against the passes."""
    measured = check.measured
    if check.foretold is Foretold.UNPLACED:
        return (
            f"The passes' {what} came to {measured.median:.1f}×, but pairing them allows "
            f"anything from {measured.low:.1f}× to {measured.high:.1f}×: not placed."
        )
    return (
        f"The passes' {what} came to {measured.with_range(1, '×')}: the prediction "
        f"{foretold_text(check.foretold, measured)}."
    )


def _why_off(gain: LineGain, output: Checked, pace: Checked) -> str:
    """What the line leaves out, where a prediction was off the way it leaves it out."""
    if output.off_low or pace.off_high:
        return (
            f"The line was timed on sequences that only decode; each burst of {gain.high} "
            f"also read {gain.prompts_read:,} prompt tokens in steps of its own, which "
            "slowed its tokens and cut its output."
        )
    if output.foretold is Foretold.OFF or pace.foretold is Foretold.OFF:
        return "The runs beat the line: this run cannot say what the line overcounted."
    return ""
