"""The words of chapter 09's failure section: the run's figures on one line and what users saw
when a replica died, read from ``Failure``.
"""

from __future__ import annotations

import math

from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared
from servelab.lessons.routing.findings import Failure

# vllm-router's own defaults for --health-check-interval-secs and --health-failure-threshold
# (its --help); servelab's Router checks far more often (servelab.engines.router.HEALTH_INTERVAL_S).
ROUTER_DEFAULT_HEALTH = (60, 3)


def failure_title(failure: Failure) -> str:
    """The failure timeline's title: the requests lost and when the router noticed."""
    noticed = ("never counted it down" if math.isnan(failure.detection_s) else
               f"counted it down {failure.detection_s:.1f} s later")
    return f"{failure.failed} requests failed; the router {noticed}"


def failure_line(failure: Failure) -> str:
    """The failure run's figures on one line, as the page prints them."""
    def took(spread: Spread | None) -> str:
        return "none succeeded" if spread is None else spread.with_range(1, " s")
    noticed = ("not counted down" if math.isnan(failure.noticed_s) else
               f"counted down at {failure.noticed_s:.1f} s")
    return (f"replica killed at {failure.killed_s:.1f} s, {noticed}; failed: "
            f"{failure.failed_before} of {failure.sent_before} sent before the kill, "
            f"{failure.failed_after} of {failure.sent_after} sent after; sent → last token, "
            f"median (low–high): {took(failure.latency_before)} before, "
            f"{took(failure.latency_after)} after; router retries: {failure.retries:.0f}")


def _lost_after_text(failure: Failure) -> str:
    """The requests sent after the kill that failed, and what the page knows of why."""
    text = (f"Of the {failure.sent_after} requests sent after the kill, "
            f"{failure.failed_after} failed")
    if not failure.failed_after:
        return text + ". "
    lost, unnoticed = failure.failed_after, failure.failed_unnoticed
    if unnoticed in (0, lost):
        which = "it was" if lost == 1 else "all were"
        when = "before the router counted" if unnoticed else "after the router had counted"
        text += f" ({which} sent {when} the replica down)"
    else:
        text += f" ({unnoticed} of them sent before the router counted the replica down)"
    if failure.retries:
        them = "it" if lost == 1 else "them"
        text += (", although the router does retry a request whose connection fails; the page "
                 f"does not show why no retry saved {them}")
    return text + f" (the first reported: \"{failure.errors_after[0][:80]}\"). "


def _survivors_text(failure: Failure) -> str:
    """How long the answers took after the kill against before it, by ``Failure.survivors``."""
    before, after = failure.latency_before, failure.latency_after
    if before is None or after is None or failure.survivors is None:
        return "Too few requests succeeded on one side of the kill to compare their times. "
    times = (f"The answers that came took {after.with_range(1, ' s')} from sending to the last "
             f"token after the kill against {before.with_range(1, ' s')} before it (median, "
             "then the quickest and slowest)")
    return times + {
        Compared.LOWER: (": after the kill every answer came sooner than every answer before "
                           "it, with one replica instead of two. The page does not measure why; "
                           "one candidate is that the dead replica's processes no longer competed "
                           "with the survivor's for the machine's cores (on a CPU a replica's "
                           "binding pins only its engine's compute threads). "),
        Compared.HIGHER: (": with one replica left, every answer after the kill took longer "
                           "than every answer before it, as the survivor carried the whole "
                           "stream. "),
    }.get(failure.survivors, ": the ranges overlap, so losing a replica did not measurably "
                             "change how long the answers took at this rate. ")


def failure_text(failure: Failure) -> str:
    """What users saw, in the order it happened."""
    if failure.failed_before:
        lost = (f"{failure.failed_before} of the {failure.sent_before} requests sent before it "
                "failed: the replica that died was answering them, and the router cannot retry "
                "a stream cut halfway")
    else:
        lost = f"None of the {failure.sent_before} requests sent before it failed"
    interval_s, failures = failure.health_interval_s, failure.health_failures
    text = f"The replica was killed {failure.killed_s:.1f} s into the run. {lost}. "
    if math.isnan(failure.noticed_s):
        text += ("The router still counted the dead replica healthy when the run ended: its "
                 f"health check (every {interval_s} s, {failures} failures in a row) had not "
                 "caught up. ")
    else:
        text += (f"The router counted it down {failure.detection_s:.1f} s after the kill (it "
                 f"checks every {interval_s} s and needs {failures} failures in a row). ")
    if failure.retries:
        text += (f"Meanwhile it sent requests there and, when a connection failed, sent them "
                 f"again to the survivor ({failure.retries:.0f} retries). ")
    text += _lost_after_text(failure) + _survivors_text(failure)
    default_s, default_failures = ROUTER_DEFAULT_HEALTH
    return text + (f"With the router's default health check (every {default_s} s, "
                   f"{default_failures} failures) the dead replica would have kept getting "
                   "requests for minutes.")
