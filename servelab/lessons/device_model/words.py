"""The words of the device model: where a step line came from, and whether a chapter kept its
own (:mod:`.kept`)."""

from __future__ import annotations

import pandas as pd

from servelab.bench.spread import Spread
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.device_model.foretold import BookChecks, Foretold
from servelab.lessons.device_model.kept import FITTED_HERE, PromptReading, StepLine
from servelab.lessons.plural import plural_s
from servelab.lessons.thresholds import PREDICTION_CLOSE, RUNS_SCATTERED


def line_source(fitted_in: str) -> str:
    """Where a step line came from, for a page: an earlier chapter's sweep or this one's."""
    if fitted_in == FITTED_HERE:
        return "a short sweep in this chapter, as no earlier chapter kept one on this device"
    return f"chapter {fitted_in[:2]}'s sweep"


def step_line_text(line: StepLine | None) -> str:
    """The step line a chapter predicts from, or why it has none."""
    if line is None:
        return "No step line: the short sweep found no steady window to time a step in."
    batches = ", ".join(map(str, line.batches))
    return (
        f"Step line: {line.fit.fixed_ms:.1f} ms + {line.fit.per_sequence_ms:.2f} ms per "
        f"sequence, from {line_source(line.fitted_in)} at batches {batches}."
    )


def reading_source(fitted_in: str) -> str:
    """Where a prompt reading came from, for a page: an earlier chapter's or this one's."""
    if fitted_in == FITTED_HERE:
        return (
            "prompts of two lengths timed in this chapter, as no earlier chapter kept a "
            "reading on this device"
        )
    return f"chapter {fitted_in[:2]}'s prompt reading"


def reading_text(reading: PromptReading) -> str:
    """The prompt reading a chapter predicts from, and where it was fitted."""
    return (
        f"Prompt reading: {reading.fixed_ms:.1f} ms for every request, then "
        f"{reading.tok_s:,.0f} prompt tokens a second, from "
        f"{reading_source(reading.fitted_in)}."
    )


def foretold_text(found: Foretold, measured: Spread) -> str:
    """Where a prediction fell against the runs' spread, as a phrase after "the prediction"."""
    median = "their median" if measured.ranged else "it"  # one timing has no median
    return {
        Foretold.INSIDE: "inside their range",
        Foretold.CLOSE: f"close to {median}",
        Foretold.OFF: f"more than {PREDICTION_CLOSE:.0%} from {median}",
        Foretold.UNPLACED: (
            f"not placed: the runs spread over more than {RUNS_SCATTERED:.0%} of their median"
        ),
    }[found]


def kept_text(fit: StepFit, kept: StepLine | None) -> str:
    """What became of a chapter's own step line: kept for the later chapters, or not."""
    if kept is None:
        return (
            f"This run's step line does not split a step (R² {fit.r_squared:.2f}), so it "
            "is not kept: a later chapter fits its own."
        )
    return f"Kept for the later chapters on this device. {step_line_text(kept)}"


# Units whose figures are small enough to need a decimal place; times in ms need none.
ONE_DECIMAL = ("×", " req/s")


def _decimals(unit: str) -> int:
    return 1 if unit in ONE_DECIMAL else 0


def _number(value: float, unit: str) -> str:
    return f"{value:,.{_decimals(unit)}f}{unit}"


def closing_table(book: BookChecks) -> pd.DataFrame:
    """One row per prediction: the chapter, the figure, what the model said and what the runs
    measured."""
    return pd.DataFrame(
        [
            {
                "chapter": check.chapter[:2],
                "prediction": check.what,
                "predicted": _number(check.predicted, check.unit),
                "measured (runs' range)": check.measured.with_range(
                    _decimals(check.unit), check.unit
                ),
                "the prediction": foretold_text(check.foretold, check.measured),
            }
            for check in book.checks
        ],
        columns=["chapter", "prediction", "predicted", "measured (runs' range)", "the prediction"],
    )


def closing_text(book: BookChecks) -> str:
    """The closing table's finding: how many predictions held on this device."""
    if not book.checks:
        return (
            "No chapter on this device has kept a prediction yet. Run the chapters from 03 "
            "onward on this runtime first, then this cell again."
        )
    inside, close = book.count(Foretold.INSIDE), book.count(Foretold.CLOSE)
    off = book.count(Foretold.OFF)
    total = len(book.checks)
    return (
        f"**The model made {total} prediction{plural_s(total)} in {book.chapters} "
        f"chapter{plural_s(book.chapters)} on this device.** {inside} fell inside the runs' "
        f"range, {close} close to their median and {off} more than "
        f"{PREDICTION_CLOSE:.0%} away; {book.count(Foretold.UNPLACED)} met runs too scattered "
        "to place them. Each page says why its prediction missed, where it can."
    )
