"""The words of chapter 07's opening, in Markdown: percentiles, Little's law and goodput, from
``metrics_findings.MetricsFindings``."""

from __future__ import annotations

from servelab.lessons.throughput_vs_latency.metrics_findings import MetricsFindings
from servelab.lessons.throughput_vs_latency.thresholds import LITTLE_AGREES, LITTLE_SAMPLING


def _percentile_words(found: MetricsFindings) -> str:
    text = (f"Half of the {found.requests} requests had a first token within "
            f"{found.ttft_p50_ms:,.0f} ms (the p50, or median); the p99 was "
            f"{found.ttft_p99_ms:,.0f} ms and the slowest request waited "
            f"{found.ttft_worst_ms:,.0f} ms. ")
    if not found.tail_described:
        text += (f"With {found.requests} requests, 1% of them is less than one request, so the "
                 f"p99 is drawn between the two slowest and says little more than the worst "
                 f"one did: a p99 needs hundreds of requests before it describes a tail. ")
    return text + ("The mean hides the tail: one slow request moves it a little and the p99 a "
                   "lot, which is why serving targets are set on percentiles.")


def _little_words(found: MetricsFindings) -> str:
    text = (f"Little's law says the average number of requests inside a system is the rate they "
            f"pass through it times the time each spends there: L = λ × W. Over this run's "
            f"{found.window_s:.1f} s, {found.passing_rate:.2f} requests/s went through and each "
            f"took {found.mean_latency_s:.2f} s on average, so about {found.little_in_flight:.2f} "
            f"were in the server at once. ")
    if not found.steady:
        text += (f"They were drawn to arrive at {found.arrival_rate:.2f} requests/s, faster than "
                 f"they left: a queue grew all through the run, which is why first tokens came "
                 f"so late. A queue like that has no steady size, and L is only this run's "
                 f"average; the sweep below shows at which rate this begins. ")
    agrees = found.little_agrees
    if agrees is None:
        return text + ("The engine's own count was not sampled in this run, so there is nothing "
                       "to hold that figure against.")
    engine = (f"The engine's own count of running and waiting requests, sampled "
              f"{found.engine_samples} times from `/metrics`, averaged "
              f"{found.engine_in_flight:.2f}")
    if agrees:
        return text + (engine + f", {found.little_gap_share:.0%} away: the law "
                       f"and the engine agree within the {LITTLE_AGREES:.0%} a once-a-second "
                       "sample of a short run allows. Turned around, the law sizes a "
                       "server: at twice the rate, or with requests twice as long, twice as "
                       "many must fit in a step, or the rest wait in the queue.")
    text += (engine + f", more than {LITTLE_AGREES:.0%} away. Both figures are estimates: "
             f"{found.engine_samples} samples of a count that changes with every arrival, and "
             f"the mean of {found.requests} requests' times, leave their difference a standard "
             f"error of about {found.gap_error:.2f}, and the gap is {found.little_gap:.2f}. ")
    if not found.beyond_sampling:
        return text + (f"That is within {LITTLE_SAMPLING:g} standard errors, so this run cannot "
                       "tell the two apart: they agree within what so few samples can measure. "
                       "Sampling `/metrics` more often, or a longer run, would narrow it.")
    text += ("So they differ beyond the sampling. The two do not count the same span: the "
             "client counts a request from its send to its last token, the engine from when it "
             "reaches the scheduler until it finishes. ")
    if found.client_saw_more:
        return text + (f"Read through the law, the gap is about {found.outside_engine_ms:,.0f} ms "
                       "of each request spent outside the engine's count: in the HTTP server, or "
                       "streaming tokens back on a busy machine.")
    return text + ("Yet the engine counted more than the client saw, which that difference of "
                   "span cannot explain; this page does not show why.")


def _slo_words(found: MetricsFindings) -> str:
    parts = [f"a first token within {found.slo['ttft']:,.0f} ms" if "ttft" in found.slo else "",
             f"at most {found.slo['tpot']:,.0f} ms per later token" if "tpot" in found.slo else ""]
    target = " and ".join(part for part in parts if part)
    text = (f"The SLO here is {target}. {found.met} of {found.requests} requests met it "
            f"({found.attainment:.0%}): that share is the *attainment*, and goodput is the "
            f"attainment × the rate the requests were sent at, the requests per second within "
            f"the SLO. ")
    if found.all_met:
        return text + "No request missed, so throughput and goodput are the same at this rate."
    return text + (f"Of the others, {found.missed_ttft} waited too long for a first token and "
                   f"{found.missed_tpot} streamed too slowly (a request can miss both); those "
                   f"count in throughput and not in goodput.")


def timeline_title(metrics: MetricsFindings) -> str:
    """The request timeline's title: the first tokens and Little's law's count in flight."""
    return (f"{metrics.requests} requests at {metrics.arrival_rate:.1f} req/s: first token "
            f"in {metrics.ttft_p50_ms:,.0f} ms at the median, {metrics.ttft_worst_ms:,.0f} ms "
            f"at worst; about {metrics.little_in_flight:.1f} in the server at once")


def metrics_text(metrics: MetricsFindings) -> str:
    """The section's prose, in Markdown, from ``metrics``."""
    return "\n\n".join([
        f"**Percentiles.** {_percentile_words(metrics)}",
        f"**Little's law.** {_little_words(metrics)}",
        f"**Goodput.** {_slo_words(metrics)}",
    ])
