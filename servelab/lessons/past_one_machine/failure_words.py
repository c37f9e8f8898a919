"""The words of chapter 09's failure section: each run's figures on one line and what users saw
when a replica died, over the repeated runs, read from ``Failure`` and ``Failures``.
"""

from __future__ import annotations

import math

from servelab.bench.spread import Spread
from servelab.lessons.findings_table import findings_table
from servelab.lessons.past_one_machine.failures import Failures
from servelab.lessons.untold_words import overlap

# vllm-router's own defaults for --health-check-interval-secs and --health-failure-threshold
# (its --help); servelab's Router checks far more often (servelab.engines.router.HEALTH_INTERVAL_S).
ROUTER_DEFAULT_HEALTH = (60, 3)


def _over(spread: Spread, digits: int = 0, unit: str = "") -> str:
    """A figure over the runs: one number where every run gave it, else the median and the
    range."""
    if f"{spread.low:,.{digits}f}" == f"{spread.high:,.{digits}f}":
        return f"{spread.median:,.{digits}f}{unit}"
    return spread.with_range(digits, unit)


def _a_run(failures: Failures) -> str:
    """ " a run" after a count over several runs; nothing after one run's."""
    return " a run" if failures.repeated else ""


def _of_runs(count: int, failures: Failures) -> str:
    """ "in 2 of the 3 runs"; "in the run" where there was one."""
    runs = len(failures.runs)
    return "in the run" if runs == 1 else f"in {count} of the {runs} runs"


def failure_title(failures: Failures) -> str:
    """The failure timeline's title: the requests lost and when the router noticed, over the
    runs, and which run the figure draws."""
    detection, runs = failures.detection_s, len(failures.runs)
    noticed = (
        "never counted it down"
        if detection is None
        else f"counted it down {_over(detection, 1, ' s')} later"
    )
    drawn = "" if runs == 1 else f" ({runs} runs, the first drawn)"
    return (
        f"{_over(failures.failed)} requests failed{_a_run(failures)}; the router {noticed}{drawn}"
    )


def _took(spread: Spread | None, unit: str = " s") -> str:
    """A run's times, sent to last token: median (low–high)."""
    return "none succeeded" if spread is None else spread.with_range(1, unit)


def failure_lines(failures: Failures) -> str:
    """Every failure run's figures, a row a run, as the page prints them: when the replica was
    killed and counted down, the requests that failed of those sent before and after the kill,
    their times from sending to the last token (median, lowest to highest) and the router's
    retries."""
    rows = [
        [
            f"{index}",
            f"{run.killed_s:.1f}",
            "never" if math.isnan(run.noticed_s) else f"{run.noticed_s:.1f}",
            f"{run.failed_before} of {run.sent_before}",
            f"{run.failed_after} of {run.sent_after}",
            _took(run.latency_before, ""),
            _took(run.latency_after, ""),
            f"{run.retries:.0f}",
        ]
        for index, run in enumerate(failures.runs, start=1)
    ]
    return findings_table(
        [
            "Run",
            "Replica killed (s)",
            "Counted down (s)",
            "Failed, sent before the kill",
            "Failed, sent after",
            "Sent → last token, sent before: median (low–high, s)",
            "Sent after: median (low–high, s)",
            "Router retries",
        ],
        rows,
    )


def _lost_after_text(failures: Failures) -> str:
    """The requests sent after the kill that failed, over the runs, and what the page knows of
    why."""
    text = (
        f"Of the {_over(failures.sent_after)} requests sent after the kill, "
        f"{_over(failures.failed_after)} failed{_a_run(failures)}"
    )
    if not failures.lost_after_runs:
        return text + ". "
    if failures.repeated:
        text += f" ({_of_runs(failures.lost_after_runs, failures)}"
        text += (
            ", each sent before the router counted the replica down)"
            if failures.lost_after_unnoticed
            else ")"
        )
    elif failures.lost_after_unnoticed:
        text += (
            " (each" if failures.several_lost_after else " (it was"
        ) + " sent before the router counted the replica down)"
    if failures.retried_and_lost:
        text += (
            f", although {_of_runs(failures.retried_and_lost, failures)} the router did "
            "retry requests whose connection failed; the page records only what each lost "
            "request reported, so it cannot show why no retry saved "
            + ("them" if failures.repeated or failures.several_lost_after else "it")
        )
    return text + f' (the first reported: "{failures.first_error[:80]}"). '


def _survivors_text(failures: Failures) -> str:
    """How long the answers took after the kill against before it, run by run
    (``Failure.survivors``)."""
    survived, runs = failures.survived, len(failures.runs)
    if not survived.told:
        return "Too few requests succeeded on one side of the kill to compare their times. "
    sooner, later = survived.sooner, survived.later
    if runs == 1:
        run = failures.runs[0]
        text = (
            "The answers that came took "
            f"{_took(run.latency_after)} from sending to the last token after the kill "
            f"against {_took(run.latency_before)} before it (median, then the quickest and "
            "slowest)"
        )
    else:
        before, after = failures.latency_before, failures.latency_after
        text = (
            ""
            if before is None or after is None
            else f"The answers took a median {_over(after, 1, ' s')} from sending to the last "
            f"token after the kill against {_over(before, 1, ' s')} before it (a run's "
            "median, over the runs). "
        )
        text += (
            f"Set against the answers sent before the kill, those sent after it came "
            f"sooner every one in {sooner}, later every one in {later} and with overlapping "
            f"times in {survived.overlapping} of the {runs} runs"
            + (
                ""
                if not survived.untold
                else f" (in {survived.untold} too few succeeded on one side to compare)"
            )
        )
    if survived.all_sooner:
        return text + (
            ": with one replica instead of two, every answer came sooner. The page "
            "does not measure why; one candidate is that the dead replica's processes "
            "no longer competed with the survivor's for the machine's cores (on a "
            "CPU a replica's binding pins only its engine's compute threads). "
        )
    if survived.all_later:
        return text + (
            ": with one replica left, the survivor carried the whole stream and "
            "every answer took longer. "
        )
    return (
        text
        + (
            f": {overlap()}, so losing a replica did not measurably change"
            if runs == 1
            else ": the runs do not show that losing a replica changed"
        )
        + " how long the answers took at this rate. "
    )


def failure_text(failures: Failures) -> str:
    """What users saw, in the order it happened, over the runs."""
    runs = len(failures.runs)
    a_run = _a_run(failures)
    if failures.failed_before.high:
        lost = (
            f"Of the {_over(failures.sent_before)} requests sent before it, "
            f"{_over(failures.failed_before)} failed{a_run}. The replica that died was "
            "answering them, and the router cannot retry a stream cut halfway"
        )
    else:
        lost = f"None of the {_over(failures.sent_before)} requests sent before it failed" + (
            ", in any run" if failures.repeated else ""
        )
    (interval_s, failures_in_a_row), detection = failures.health, failures.detection_s
    killed = _over(failures.killed_s, 1, " s")
    text = (
        f"The replica was killed {killed} into the run. {lost}. "
        if runs == 1
        else f"The same stream ran {runs} times, and the replica was killed {killed} into each. "
        f"{lost}. The victim was started again between runs. "
    )
    if detection is None:
        text += (
            "The router still counted the dead replica healthy when "
            + ("the run" if runs == 1 else "each run")
            + " ended: its health check (every "
            f"{interval_s} s, {failures_in_a_row} failures in a row) had not caught up. "
        )
    else:
        unnoticed = failures.unnoticed_runs
        text += (
            f"The router counted it down {_over(detection, 1, ' s')} after the kill "
            f"(it checks every {interval_s} s and needs {failures_in_a_row} failures in a "
            "row)"
            + (f"; {_of_runs(unnoticed, failures)} not before the run ended" if unnoticed else "")
            + ". "
        )
    if failures.retries.high:
        text += (
            "Meanwhile it sent requests there and, when a connection failed, sent them "
            f"again to the survivor ({_over(failures.retries)} retries{a_run}). "
        )
    text += _lost_after_text(failures) + _survivors_text(failures)
    default_s, default_failures = ROUTER_DEFAULT_HEALTH
    return text + (
        f"With the router's default health check (every {default_s} s, "
        f"{default_failures} failures) the dead replica would have kept getting "
        "requests for minutes."
    )
