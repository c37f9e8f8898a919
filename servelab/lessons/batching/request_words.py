"""The words of chapter 01's primer, in Markdown: one request's four times and what a
percentile of a few requests is made of, from ``request_metrics``' findings."""

from __future__ import annotations

from servelab.lessons.batching.request_metrics import PercentileReach, RequestTiming


def timing_text(timing: RequestTiming) -> str:
    """The four times, each with this request's own value."""
    after = timing.tokens_after_first
    return (
        f"- **TTFT**, time to first token: {timing.ttft_ms:,.0f} ms from sending the "
        "request to its first token. It holds any wait in the server's queue, the prompt's "
        "prefill and the first decoding step.\n"
        f"- **ITL**, inter-token latency: each gap between two tokens, {timing.gap_count} "
        f"here, {timing.median_gap_ms:,.0f} ms at the median and "
        f"{timing.longest_gap_ms:,.0f} ms at the longest. Tables pool the gaps of all "
        "requests.\n"
        f"- **TPOT**, time per output token: the time after the first token spread over the "
        f"{after} tokens after it, ({timing.e2e_ms:,.0f} − {timing.ttft_ms:,.0f}) ms "
        f"÷ {after} = {timing.tpot_ms:,.1f} ms. It averages a long gap away, which the ITL "
        "keeps.\n"
        f"- **E2E**, end to end: {timing.e2e_ms:,.0f} ms, from sending to the last token."
    )


def percentile_text(reach: PercentileReach) -> str:
    """What the p-th percentile of ``reach.n`` requests is made of."""
    text = (
        f"A p{reach.percentile:g} over {reach.n} requests is read off their sorted values. "
        f"Like `vllm bench serve`, numpy puts it {reach.share:.0%} of the way from value "
        f"{reach.lower} to value {reach.upper} of the {reach.n}"
    )
    if reach.at_the_top:
        return text + (
            ", the two largest. Over so few requests it says little more than the "
            "slowest one did, and one slow request moves it."
        )
    return text + f", with {reach.above} of them above it."
