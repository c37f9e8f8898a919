"""Chapters 01 and 02 in words: one stream against a crowd, the bounds on one stream's step, and
waves against continuous batching.

Each ``*_text`` function phrases one findings record (:mod:`.findings`, :mod:`.waves_findings`)
for the page (a cell tagged ``prose``), picking its sentences by the record's verdicts; every
number it writes is one of the record's. The split of a step and the prediction before the sweep
are worded in :mod:`.step_words`.
"""

from __future__ import annotations

import math

import pandas as pd

from servelab.bench.spread import Spread
from servelab.lessons.batching.findings import (
    LESSON_GPU,
    BatchFindings,
    BatchGain,
    CeilingFindings,
    Intensity,
)
from servelab.lessons.batching.waves_findings import WavesFindings
from servelab.lessons.compare import Shown
from servelab.lessons.findings_table import findings_table
from servelab.lessons.fold import fold
from servelab.lessons.guess import Aim, Unit
from servelab.lessons.plural import plural_s
from servelab.lessons.prediction import prediction_text
from servelab.lessons.untold_words import cannot_tell, overlap


def beside_lesson(found: BatchFindings, device_label: str) -> pd.DataFrame:
    """The lesson's GPU figures next to this run's, row by row (chapters 00 and 02), each row
    written in its own unit."""

    def column(run: BatchGain) -> list[str]:
        return [
            f"{run.single_total:,.0f}",
            f"{run.top_total:,.0f}",
            f"{run.top_each:,.1f}",
            f"{run.gain:.1f}×",
            f"{run.kept:.0%}",
        ]

    return pd.DataFrame(
        {
            "": [
                "one stream, total (tok/s)",
                f"{found.users} streams, total (tok/s)",
                f"{found.users} streams, each user (tok/s)",
                "total against one stream",
                "share of one stream's speed each user keeps",
            ],
            f"lesson (GPU, {LESSON_GPU.users} streams)": column(LESSON_GPU),
            device_label: column(found),
        }
    )


# -- one stream against a crowd (the ranges are shared with chapters 00 and 02) -----------
def sweep_ranges(found: BatchFindings) -> str:
    """The ranges behind a repeated sweep's two totals, as a parenthesis; empty for one sweep."""
    if found.ranges is None:
        return ""
    single, top = found.ranges
    return (
        f" (medians of {found.sweeps} sweeps; lowest to highest: one stream "
        f"{single.low:,.0f}–{single.high:,.0f}, {found.users} streams "
        f"{top.low:,.0f}–{top.high:,.0f} tok/s)"
    )


def crowd_table(found: BatchFindings, lesson: bool = False) -> str:
    """One stream and the sweep's top as a table, each total beside its sweeps' range, each
    user's speed and the share of one stream's it kept; ``lesson``: the lesson's GPU below."""
    single, top = found.ranges if found.ranges is not None else (None, None)

    def total(value: float, spread: Spread | None) -> str:
        return f"{value:,.0f}" + (
            "" if spread is None else f" ({spread.low:,.0f}–{spread.high:,.0f})"
        )

    def rows(run: BatchGain, name: str, spreads: tuple[Spread | None, ...]) -> list[list[str]]:
        return [
            [
                f"{name}one stream",
                total(run.single_total, spreads[0]),
                f"{run.single_total:,.0f}",
                "–",
            ],
            [
                f"{name}{run.users} streams",
                total(run.top_total, spreads[1]),
                f"{run.top_each:,.1f}",
                f"{run.kept:.0%}",
            ],
        ]

    table = findings_table(
        [
            "Streams",
            "Total (tok/s)",
            "Each user (tok/s)",
            "Each user's share of one stream's speed",
        ],
        rows(found, "This run, ", (single, top))
        + (rows(LESSON_GPU, "The lesson's GPU, ", (None, None)) if lesson else []),
    )
    note = (
        ""
        if found.ranges is None
        else f"\n\nMedians of {found.sweeps} sweeps, lowest to highest in brackets."
    )
    return f"\n\n{table}{note}"


NOISE_TEXT = cannot_tell("that gain from the machine's noise", overlap("sweeps'"))


def crowd_text(found: BatchFindings, smoke: bool) -> str:
    """One user against a crowd, worded from the findings every batching page shares (chapter
    01 builds them from its repeated pair of runs: steady-state figures, every user
    decoding)."""
    grew = f"With **{found.users}** users at once the total grew"
    if found.shown and found.kept_untold and found.kept_bounds is not None:
        low, high = found.kept_bounds
        verdict = (
            f"{grew} **{found.gain:.1f}-fold**: every decoding step advanced all "
            f"of them at once. Each user kept {found.kept:.0%} of the speed one user had "
            f"alone at the medians. But the runs' ranges allow anything from {low:.0%} to "
            f"{high:.0%}. So this run cannot say how much speed the crowd cost each "
            "user."
        )
    elif found.shown:
        verdict = (
            f"{grew} **{found.gain:.1f}-fold** while each user kept "
            f"**{found.kept:.0%}** of the speed one user had alone. Every decoding step "
            "advanced all of them at once."
        )
    elif found.within_noise:
        verdict = f"{grew} {found.gain:.1f}-fold, but {NOISE_TEXT}."
    elif smoke:
        verdict = (
            f"{grew} only {found.gain:.1f}-fold. This is the smoke-size run: its "
            "answers are too short for the server's steady state to say much. Run the "
            "page at full size to see the effect."
        )
    else:
        verdict = (
            f"{grew} only {found.gain:.1f}-fold, so this run did not show the gain "
            "batching normally brings. Something else may have been using the processor."
        )
    return f"{verdict}{crowd_table(found)}"


def token_count_text(client_tokens: float, server_tokens: float) -> str:
    """Whether the client's token count matches the server's ``/metrics`` counter."""
    if client_tokens == server_tokens:
        return (
            f"The server's own `/metrics` counter agrees with the client: "
            f"**{server_tokens:,.0f}** generated tokens for these runs."
        )
    return (
        f"The server's `/metrics` counted **{server_tokens:,.0f}** generated tokens and the "
        f"client **{client_tokens:,.0f}**: something else used the server meanwhile."
    )


def scaling_text(found: BatchFindings, smoke: bool) -> str:
    """One stream against the sweep's top, beside the lesson's GPU; where the sweeps' ranges
    leave the comparison open, the ranges folded."""
    numbers = (
        f"Counted {found.basis}, {found.users} streams made **{found.gain:.1f}×** one "
        f"stream's total; the lesson's GPU makes {LESSON_GPU.gain:.0f}×."
    )
    folded = ""
    if found.verdict is Shown.STRONG:
        verdict = "This machine shows the effect at the lesson's strength."
    elif found.short_untold and found.gain_bounds is not None:
        verdict = (
            "The total rose clearly; whether less than on the lesson's GPU, this run cannot say."
        )
        folded = fold(
            "By the medians it rose less than on the lesson's GPU. But pairing the slowest and "
            f"quickest sweeps allows up to {found.gain_bounds[1]:.1f}×."
        )
    elif found.verdict is Shown.WEAK:
        verdict = "The total rose clearly, though less than on the lesson's GPU."
    elif found.within_noise:
        verdict = f"Yet {NOISE_TEXT}."
    elif smoke:
        verdict = (
            "This smoke-size run is too small to show the effect. Run the page at full "
            "size to measure it."
        )
    else:
        verdict = (
            "The total barely rose, so this run did not show the batching gain. The "
            "machine may have been busy with other work."
        )
    return f"{numbers} {verdict}{crowd_table(found, lesson=True)}{folded}"


# -- what bounds one stream's step ----------------------------------------------------------
def ceiling_text(ceiling: CeilingFindings) -> str:
    """The ceiling in words: one stream's speed against it first, how it is set folded."""
    lead = (
        f"One stream decoded at **{ceiling.measured_tok_s:.1f} tok/s**: "
        f"**{ceiling.fraction:.0%}** of the **{ceiling.ceiling_tok_s:.0f} tok/s** that "
        "reading the weights once a token allows."
    )
    bound = (
        f"This machine copies memory at **{ceiling.bandwidth_gb_s:.1f} GB/s** and the "
        f"weights are **{ceiling.weight_mb:.0f} MB**: reading them once per token allows "
        f"at most {ceiling.ceiling_tok_s:.0f} tok/s for one stream."
    )
    if ceiling.near:
        verdict = (
            "One stream runs close to that bound: its step is mostly reading the weights, "
            "and a batch shares exactly that read."
        )
    else:
        verdict = "So the weight read is not most of its step here."
        bound += (
            " The fit below splits a step into the part every sequence shares and the part "
            "each one adds."
        )
    return f"{lead} {verdict}" + fold(bound, "The bandwidth and the weights")


def _sequences(count: float) -> str:
    """``**3** sequences``, ``**1** sequence``: a count rounded as the page prints it (an
    unbounded one, where nothing grows with the batch, prints as ``inf``)."""
    one = math.isfinite(count) and round(count) == 1
    return f"**{count:.0f}** sequence{'' if one else 's'}"


def intensity_text(intensity: Intensity) -> str:
    """Where the arithmetic-intensity argument says the arithmetic catches up with the weight
    reads, on paper and as measured, and whether the two agree; the argument's figures
    folded."""
    paper = (
        "On paper the arithmetic catches up with the weight reads at about "
        f"{_sequences(intensity.batch_on_paper)}"
    )
    numbers = (
        f"This machine multiplies matrices at "
        f"**{intensity.gflops_per_s:.0f} GFLOP/s** "
        f"and moves **{intensity.bandwidth_gb_s:.1f} GB/s**: it can do "
        f"**{intensity.balance:.0f}** operations in the time it reads one byte. A batch of "
        f"*B* sequences does 2·*B* operations per weight, and a weight is "
        f"{intensity.bytes_per_weight:.0f} bytes."
    )
    summary = "The machine's balance, and each sequence's cost"
    if not intensity.fit_splits:
        return (
            f"{paper}. Without a split of the step, this run has no measured per-sequence "
            "cost to set beside it."
        ) + fold(numbers, "The machine's balance")
    measured = (
        f"Measured, one sequence adds **{intensity.per_sequence_ms:.2f} ms** to a step, "
        "and "
        f"the arithmetic alone would need {intensity.per_sequence_ms_predicted:.2f} ms "
        f"(2 operations per parameter at that rate). The per-sequence part adds up to "
        f"one read of the weights ({intensity.weight_read_ms:.1f} ms) at about "
        f"{_sequences(intensity.batch_measured)}."
    )
    if intensity.agrees:
        return (
            f"{paper}, and the measured steps agree: the cost each sequence adds is its "
            "arithmetic, as the argument assumes."
        ) + fold(f"{numbers}\n\n{measured}", summary)
    return (
        f"{paper}, but each sequence costs **{intensity.cost_factor:.1f}×** what its "
        "arithmetic needs. So the paper figure is only a bound."
    ) + fold(
        f"{numbers}\n\n{measured} So other work also grows with the batch here (the split "
        "above counts it: each sequence's KV-cache reads and the engine's work per sequence).",
        summary,
    )


# -- waves against continuous batching --------------------------------------------------------
def tail_text(found: WavesFindings) -> str:
    """Where the continuous run's idle slot time came from, or nothing if it is not known."""
    if found.tail_mostly is None:
        return ""
    if found.tail_mostly:
        return (
            f" {found.tail_share:.0%} of its idle slot time came after the last request had "
            f"been sent, when no request was left waiting and the last long answers decoded "
            f"alone."
        )
    return (
        f" Only {found.tail_share:.0%} of its idle slot time came after the last request "
        f"had been sent; the rest fell while requests still waited, in the moments between "
        f"one answer ending and the next request being sent."
    )


def waves_text(waves: WavesFindings, smoke: bool) -> str:
    """Static waves against continuous batching on the same requests: the times and the
    verdict in view, the idle slots and why folded. With the step-time fit the fold also says
    why the gain falls short of what the idle slots alone suggest: a step that carries few
    sequences costs less than a full one, so an idle slot wastes less than a slot's share of a
    step."""
    runs = (
        f"medians of {waves.static_s.n} runs each, range in brackets"
        if waves.repeated
        else "one run each"
    )
    numbers = (
        f"The same {waves.requests} requests took "
        f"**{waves.static_s.with_range(1, ' s')}** in waves of {waves.wave_size} and "
        f"**{waves.continuous_s.with_range(1, ' s')}** continuously. That is "
        f"**{waves.speedup:.2f}×** the throughput ({runs})."
    )
    idle = (
        f"Slots stood idle **{waves.idle_static:.0%}** of the time in waves and "
        f"**{waves.idle_continuous:.0%}** continuously."
    )
    verdict = ""
    if waves.verdict is Shown.STRONG:
        idle += (
            " In a wave, each short answer's slot stays empty until the wave's longest "
            "answer is done — the red gaps in the first timeline. Continuous batching "
            "hands a freed slot to the next request at the next step."
        )
        idle += tail_text(waves)
    elif waves.verdict is Shown.WEAK:
        verdict = "Continuous batching won, but by less than the idle share of the waves suggests."
        idle += (
            " The machine may have been busy, or these requests' lengths were too even for "
            "the waves to waste much."
        )
    elif smoke:
        verdict = (
            "At the smoke size there are too few waves for the waste to add up. Run the "
            "page at full size to see it."
        )
    elif waves.one_run_a_mode:
        verdict = (
            "One run a mode gives no range to weigh a difference by, so this run cannot "
            "tell the two apart."
        )
    elif waves.waves_sooner:
        verdict = (
            "The waves finished sooner in every run, so this run did not show what "
            "continuous batching gains."
        )
    elif waves.continuous_sooner:
        verdict = (
            f"Continuous batching finished sooner in every run, but by no more than "
            f"{waves.least_margin:.0%}: this run did not show a difference worth the name."
        )
    else:
        verdict = cannot_tell("the two apart.", overlap("runs'", start=True))
    if waves.short_of_slots:
        idle += (
            f" Had every step cost the same however full it was, the busy shares "
            f"({waves.busy_static:.0%} against {waves.busy_continuous:.0%}) "
            f"would predict {waves.if_steps_cost_alike:.1f}×. But by the fit above a "
            f"step with one sequence costs {waves.step_one_ms:,.0f} ms and a full one of "
            f"{waves.wave_size} costs {waves.step_full_ms:,.0f} ms, so a wave's nearly "
            f"empty steps are cheap, and the waste in time is smaller than the waste in "
            f"slots."
        )
    lead = f"{numbers} {verdict}" if verdict else numbers
    return lead + fold(idle, "Idle slots, and why")


def crowd_prediction(prediction: str, found: BatchFindings) -> str:
    """Chapter 01's prediction beside the total the crowd reached against one user."""
    return prediction_text(
        prediction,
        f"{found.gain:.1f}× the total of one user with {found.users} users",
        [_gain_aim(found)],
    )


def scaling_prediction(prediction: str, found: BatchFindings) -> str:
    """Chapter 02's prediction beside the total at the top of the sweep and the share of one
    stream's speed each user kept."""
    return prediction_text(
        prediction,
        f"{found.gain:.1f}× in total at {found.users} users, each user keeping {found.kept:.0%}",
        [_gain_aim(found), Aim("each user's share of its speed", found.kept, Unit.PERCENT)],
    )


def _gain_aim(found: BatchFindings) -> Aim:
    return Aim(f"the total at {found.users} users against one", found.gain, Unit.TIMES)


def curves_title(found: BatchFindings) -> str:
    """The concurrency curves' title: the top level's total and each user's share."""
    return (
        f"{found.users} users: {found.gain:.0f}× the single-stream total, "
        f"each user at {found.kept:.0%}"
    )


def steady_window_title(found: BatchFindings) -> str:
    """The throughput timeline's title: which part of a run the steady figures count."""
    return (
        f"1 user and {found.users}: the steady figures (dashed) count only the time while "
        "every user decodes"
    )


def crowd_title(found: BatchFindings) -> str:
    """Chapter 01's crowd bars' title: the crowd's total against one user's, and each user's
    share of its speed."""
    runs = found.top_spread.n if found.top_spread else 1
    return (
        f"{found.users} users: {found.gain:.1f}× the total of one user, each at "
        f"{found.kept:.0%} of its speed (medians of {runs} run{plural_s(runs)})"
    )


def waves_title(first_pass: WavesFindings) -> str:
    """The waves timeline's title: the first pass, which it draws."""
    return (
        f"Waves of {first_pass.wave_size}, first pass: slots idle "
        f"{first_pass.idle_static:.0%} of the time, done in "
        f"{first_pass.static_s.median:.0f} s"
    )


def flowing_title(first_pass: WavesFindings) -> str:
    """The continuous batch's timeline title: the same first pass, without waves."""
    return (
        f"Continuous, first pass: slots idle {first_pass.idle_continuous:.0%}, the same "
        f"requests done in {first_pass.continuous_s.median:.0f} s (in waves: "
        f"{first_pass.static_s.median:.0f} s)"
    )
