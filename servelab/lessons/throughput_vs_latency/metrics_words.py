"""The words of chapter 07's opening, in Markdown: percentiles, Little's law and goodput, from
``metrics_findings.MetricsFindings``."""

from __future__ import annotations

from servelab.lessons.fold import fold
from servelab.lessons.throughput_vs_latency.metrics_findings import MetricsFindings
from servelab.lessons.throughput_vs_latency.thresholds import LITTLE_AGREES, LITTLE_SAMPLING
from servelab.lessons.untold_words import cannot_tell


def _percentile_words(found: MetricsFindings) -> str:
    text = (
        f"Half of the {found.requests} requests had a first token within "
        f"{found.ttft_p50_ms:,.0f} ms (the p50, or median). The p99 was "
        f"{found.ttft_p99_ms:,.0f} ms and the slowest request waited "
        f"{found.ttft_worst_ms:,.0f} ms."
    )
    if not found.tail_described:
        text += (
            f" With {found.requests} requests, 1% of them is less than one request. So the "
            f"p99 is drawn between the two slowest and says little more than the worst "
            f"one did. A p99 needs hundreds of requests before it describes a tail."
        )
    return text + fold(
        "The mean hides the tail: one slow request moves it a little and the "
        "p99 a lot. That is why serving targets are set on percentiles.",
        "Why percentiles, not the mean",
    )


def _little_words(found: MetricsFindings) -> str:
    text = (
        f"About **{found.little_in_flight:.2f}** requests were in the server at once. Over "
        f"this run's {found.window_s:.1f} s, {found.passing_rate:.2f} requests/s went "
        f"through and each took {found.mean_latency_s:.2f} s on average. Little's law "
        "multiplies the two: L = λ × W. The average number inside a system is the rate "
        "they pass through it times the time each spends there."
    )
    if not found.steady:
        text += (
            f" They were drawn to arrive at {found.arrival_rate:.2f} requests/s, faster "
            "than they left. A queue grew all through the run, which is why first tokens "
            "came so late. A queue like that has no steady size, and L is only this run's "
            "average. The sweep below shows at which rate this begins."
        )
    agrees = found.little_agrees
    if agrees is None:
        return text + (
            " The engine's own count was not sampled in this run, so there is "
            "nothing to hold that figure against."
        )
    engine = (
        f" The engine's own count of running and waiting requests averaged "
        f"{found.engine_in_flight:.2f}"
    )
    sampled = f"It was sampled {found.engine_samples} times from `/metrics`."
    if agrees:
        return (
            text
            + engine
            + f", {found.little_gap_share:.0%} away."
            + fold(
                f"{sampled} The law and the engine agree within the {LITTLE_AGREES:.0%} a "
                "once-a-second sample of a short run allows. Turned around, the law sizes a "
                "server: at twice the rate, or with requests twice as long, twice as many must fit "
                "in a step, or the rest wait in the queue.",
                "The engine's count, and sizing",
            )
        )
    text += engine + f", more than {LITTLE_AGREES:.0%} away."
    why = (
        f"{sampled} Both figures are estimates: {found.engine_samples} samples of a count "
        f"that changes with every arrival, and the mean of {found.requests} requests' "
        f"times. That leaves their difference a standard error of about "
        f"{found.gap_error:.2f}, and the gap is {found.little_gap:.2f}. "
    )
    if not found.beyond_sampling:
        return text + fold(
            why
            + cannot_tell("the two apart", f"That is within {LITTLE_SAMPLING:g} standard errors")
            + ": they agree within what so few samples can measure. "
            "Sampling "
            "`/metrics` more often, or a longer run, would narrow it.",
            _GAP_SUMMARY,
        )
    why += (
        "So they differ beyond the sampling. The two do not count the same span: the "
        "client counts a request from its send to its last token, the engine from when it "
        "reaches the scheduler until it finishes. "
    )
    if found.client_saw_more:
        return text + fold(
            why + f"Read through the law, the gap is about "
            f"{found.outside_engine_ms:,.0f} ms of each request spent outside the "
            "engine's count: in the HTTP server, or streaming tokens back on a "
            "busy machine.",
            _GAP_SUMMARY,
        )
    return text + fold(
        why + "Yet the engine counted more than the client saw, which that "
        "difference of span cannot explain. This page does not show why.",
        _GAP_SUMMARY,
    )


#: What the folded test of the law against the engine's count says it holds.
_GAP_SUMMARY = "The law against the engine's count"


def _slo_words(found: MetricsFindings) -> str:
    parts = [
        f"a first token within {found.slo['ttft']:,.0f} ms" if "ttft" in found.slo else "",
        f"at most {found.slo['tpot']:,.0f} ms per later token" if "tpot" in found.slo else "",
    ]
    target = " and ".join(part for part in parts if part)
    text = (
        f"{found.met} of {found.requests} requests met the SLO ({found.attainment:.0%}): "
        f"{target}. That share is the *attainment*. Goodput is the attainment × the rate "
        "the requests were sent at: the requests per second within the SLO."
    )
    if found.all_met:
        return text + " No request missed, so throughput and goodput are the same at this rate."
    return text + (
        f" Of the others, {found.missed_ttft} waited too long for a first token and "
        f"{found.missed_tpot} streamed too slowly. A request can miss both. Those "
        f"count in throughput and not in goodput."
    )


def timeline_title(metrics: MetricsFindings) -> str:
    """The request timeline's title: the first tokens and Little's law's count in flight."""
    return (
        f"{metrics.requests} requests at {metrics.arrival_rate:.1f} req/s: first token "
        f"in {metrics.ttft_p50_ms:,.0f} ms at the median, {metrics.ttft_worst_ms:,.0f} ms "
        f"at worst; about {metrics.little_in_flight:.1f} in the server at once"
    )


def metrics_text(metrics: MetricsFindings) -> str:
    """The section's prose, in Markdown, from ``metrics``."""
    return "\n\n".join(
        [
            f"**Percentiles.** {_percentile_words(metrics)}",
            f"**Little's law.** {_little_words(metrics)}",
            f"**Goodput.** {_slo_words(metrics)}",
        ]
    )
