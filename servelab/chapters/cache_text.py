"""The interpretation text of chapters 03-05 (the KV cache, prefix caching, the dials).

Each ``*_text`` function turns one chapter's measured numbers into Markdown and says plainly
when an effect did not show; the chapter displays it in a cell tagged ``prose``. Summaries are
``Result.summary()`` dicts.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from servelab.bench.spread import Spread
from servelab.chapters.dials import OverLong, StartRefusal
from servelab.chapters.lesson import REUSE_SHOWN, TTFT_GAIN_SHOWN
from servelab.chapters.prediction import prediction_text
from servelab.chapters.sharing import SharingExpectation

# An effect counts as shown when the measured numbers clear these bars (reuse's two are the
# same bars chapter 00 applies, so they live with it in ``servelab.chapters.lesson``).
SHARING_SHOWN = 0.75   # n=4 with caching held under 3/4 of the blocks it held without
SAME_BLOCKS = 0.25     # two peaks within 25 % count as the same
THROUGHPUT_SHOWN = 1.2  # the top level's output against one sequence per step
CHANGED = 0.10         # a latency that moved more than 10 % rose or fell


def _count(value: float) -> str:
    """A counter for the text; a counter the server did not export reads as "none"."""
    return "none" if value != value else f"{value:,.0f}"


def _moved(before: float, after: float) -> str:
    if after > before * (1 + CHANGED):
        return "rose"
    if after < before * (1 - CHANGED):
        return "fell"
    return "stayed about the same"


# -- chapter 03 -------------------------------------------------------------------------------
def paging_prediction(prediction: str, *, naive_fit: int, paged_fit: int, context_limit: int,
                      block: int) -> str:
    """Chapter 03's prediction beside what fits with full reservation and with blocks."""
    return prediction_text(prediction, (
        f"reserving {context_limit:,} tokens each, {naive_fit} request"
        f"{'s' if naive_fit != 1 else ''} fit this cache; in blocks of {block}, {paged_fit} "
        f"did ({paged_fit / max(naive_fit, 1):.0f}× as many)"))


def paging_text(*, bytes_per_token: int, dtype: str, context_limit: int, request_tokens: int,
                block: int, cache_tokens: int, naive_fit: int, paged_fit: int,
                roomy: Mapping[str, float], tokens_per_sequence: float,
                cramped: Mapping[str, float]) -> str:
    """Chapter 03: what one token costs, what fits, and what the two loads showed."""
    context_mib = context_limit * bytes_per_token / 2**20
    request_mib = request_tokens * bytes_per_token / 2**20
    cost = (f"One token costs **{bytes_per_token:,} bytes** of cache in {dtype}, so a full "
            f"{context_limit:,}-token context takes **{context_mib:.0f} MiB** and a "
            f"{request_tokens}-token request **{request_mib:.1f} MiB**.")
    if paged_fit > naive_fit:
        fit = (f"The engine's cache holds **{cache_tokens:,}** tokens: reserving the full context "
               f"fits **{naive_fit}** request{'s' if naive_fit != 1 else ''} at a time, blocks of "
               f"{block} fit **{paged_fit}**, **{paged_fit / max(naive_fit, 1):.0f}×** as many. "
               "The factor is how far real requests fall short of the limit, so it is set by "
               "your traffic, not by the card.")
    else:
        fit = (f"With {request_tokens}-token requests in blocks of {block}, paging fits "
               f"{paged_fit} and full reservation {naive_fit}: no gain at these sizes.")
    ran = roomy["running_max"]
    if ran > naive_fit:
        load = (f"Under load **{ran:.0f}** sequences ran at once; at the busiest moment each held "
                f"about **{tokens_per_sequence:.0f}** tokens of cache (whole blocks of {block}), "
                f"not {context_limit:,}.")
    else:
        load = (f"Under load at most {ran:.0f} sequences ran at once, no more than full "
                "reservation allows, so this run did not show paging's gain in practice.")
    if cramped["waiting_max"] > 0:
        preempted = (f"the engine preempted **{cramped['preemptions']:.0f}** times"
                     if cramped["preemptions"] > 0 else "no sequence was preempted")
        squeeze = (f"In the small cache at most **{cramped['running_max']:.0f}** ran at once "
                   f"while up to **{cramped['waiting_max']:.0f}** waited, {preempted}, and the "
                   f"same work took **{cramped['duration_s']:.0f} s** instead of "
                   f"**{roomy['duration_s']:.0f} s**.")
        if cramped.get("failed", 0) == 0:
            squeeze += (" Every request still completed: a cache that is too small makes "
                        "requests wait, it does not make them fail.")
        else:
            squeeze += f" {cramped['failed']:.0f} requests failed in this run."
    else:
        squeeze = ("In the small cache no request had to wait in this run, so the squeeze did "
                   "not show (a smoke-size run may be too small for it).")
    return "\n\n".join([f"{cost} {fit}", load, squeeze])


# -- chapter 04 -------------------------------------------------------------------------------
def admission_text(roomy: Mapping[str, float], paged_fit: int, cramped: Mapping[str, float],
                   cramped_fit: int) -> str:
    """Chapter 03: why the running counts differ from what fits. Waiting beside free blocks is
    the step's token budget; running more than fits is optimistic admission, paid for with
    preemption. ``*_fit``: whole requests (prompt and answer) each cache holds."""
    parts = []
    if roomy["waiting_max"] > 0 and roomy["running_max"] < paged_fit:
        parts.append(
            f"In the roomy cache up to **{roomy['waiting_max']:.0f}** requests waited while at "
            f"most {roomy['running_max']:.0f} ran, though {paged_fit} would fit: memory was not "
            "what held them. A step has a token budget (`max_num_batched_tokens`), and prompts "
            "that arrive together are admitted a few per step, as the budget allows.")
    if cramped["running_max"] > cramped_fit:
        preempted = (f"which is what its {cramped['preemptions']:.0f} preemptions were"
                     if cramped["preemptions"] > 0 else
                     "though in this run no answer grew far enough to need it")
        parts.append(
            f"In the small cache **{cramped['running_max']:.0f}** ran at once, more than the "
            f"{cramped_fit} whole requests it holds: the engine admits a request once its "
            "prompt's blocks are free, betting that not every answer reaches its full length at "
            "the same time. When the blocks run out mid-answer it preempts a sequence (frees "
            f"its blocks and computes it again later), {preempted}.")
    return " ".join(parts)


def reuse_prediction(prediction: str, cost_on: pd.DataFrame, on: Mapping[str, float],
                     off: Mapping[str, float]) -> str:
    """Chapter 04's prediction beside the second request's computed tokens and the TTFT ratio."""
    prompt = float(cost_on[["computed", "from cache"]].sum(axis=1).iloc[1])
    return prediction_text(prediction, (
        f"with caching on the second request computed {cost_on['computed'].iloc[1]:.0f} of its "
        f"{prompt:.0f} prompt tokens, and under load the median first token came "
        f"{off['ttft_ms_p50'] / on['ttft_ms_p50']:.1f}× sooner than with caching off"))


def reuse_text(cost_on: pd.DataFrame, cost_off: pd.DataFrame, on: Mapping[str, float],
               off: Mapping[str, float], ttft_on: Spread, ttft_off: Spread) -> str:
    """Chapter 04: prompt tokens computed per request, and the load with caching on and off.
    ``cost_*`` have one row per probe request with ``computed`` and ``from cache``; ``ttft_*``
    are the load's first-token times (ms), one per request. The load counts as sooner only when
    the medians differ by ``TTFT_GAIN_SHOWN`` and the slowest request with caching still beat
    the quickest without (the ranges are apart)."""
    prompt = float(cost_on[["computed", "from cache"]].sum(axis=1).iloc[0])
    later_on = float(cost_on["computed"].iloc[1:].mean())
    later_off = float(cost_off["computed"].iloc[1:].mean())
    if later_on < REUSE_SHOWN * later_off:
        cost = (f"With caching on, the first request computed "
                f"**{cost_on['computed'].iloc[0]:.0f}** of its {prompt:.0f} prompt tokens and "
                f"each later one **{later_on:.0f}** on average; the rest came from cached "
                f"blocks. With caching off each later one computed **{later_off:.0f}**. Only "
                "full blocks are reused, so the question and the partly filled last block of "
                "the shared prompt are computed again every time.")
    else:
        cost = (f"Later requests computed {later_on:.0f} prompt tokens with caching on and "
                f"{later_off:.0f} with it off: this run did not show the reuse.")
    gain = ttft_off.median / ttft_on.median
    load = (f"Under load ({ttft_on.n} requests, after one warm-up request with the shared "
            f"prompt) the median first token came after")
    ranges = (f"(each request: {ttft_on.range_text(' ms')} with caching, "
              f"{ttft_off.range_text(' ms')} without)")
    if gain >= TTFT_GAIN_SHOWN and ttft_on.below(ttft_off):
        wait = (f"{load} **{ttft_on.median:.0f} ms** with caching and **{ttft_off.median:.0f} ms** "
                f"without, **{gain:.1f}×** sooner {ranges}: even the slowest request with the "
                "cache beat the quickest without it, so most of the wait was the shared "
                "prompt's prefill.")
    else:
        wait = (f"{load} {ttft_on.median:.0f} ms with caching and {ttft_off.median:.0f} ms "
                f"without ({gain:.1f}×) {ranges}: the ranges overlap or the gap is small, so "
                "this run cannot say the cache made first tokens sooner under load.")
    rate = on["prefix_cache_hit_rate"]
    hits = (f"The server counted a prefix-cache hit rate of **{rate:.0%}** with caching on: the "
            "share of prompt tokens it found already cached." if rate == rate else
            "The server reported no prefix-cache queries with caching on.")
    return "\n\n".join([cost, f"{wait} {hits}"])


def sharing_text(peaks: Mapping[str, float], hits: Mapping[str, float],
                 expect: SharingExpectation) -> str:
    """Chapter 04: blocks held at the peak by ``n4_on``, ``n4_off``, ``same_on`` (identical
    prompts, caching on) and ``different_on``; ``hits`` are prefix-cache hit tokens per run."""
    n4_on, n4_off = peaks["n4_on"], peaks["n4_off"]
    same, different = peaks["same_on"], peaks["different_on"]
    counts = (f"{expect.copies} sequences of {expect.prompt_tokens} + {expect.output_tokens} "
              f"tokens need **{expect.shared}** blocks of {expect.block_size} if the first "
              f"{expect.shared_blocks} blocks of the prompt are shared and **{expect.unshared}** "
              f"if not. ({expect.shared_blocks} blocks, not {expect.prompt_tokens} ÷ "
              f"{expect.block_size}: a later sample reuses at most "
              f"{expect.reusable_tokens} of the {expect.prompt_tokens} prompt tokens, because "
              "the engine always computes a prompt's last token itself.)")
    if n4_on < SHARING_SHOWN * n4_off:
        sharing = (f"`n={expect.copies}` held about **{n4_on:.0f}** blocks at its peak with "
                   f"prefix caching on and **{n4_off:.0f}** with it off: the children shared "
                   f"the prompt only when prefix caching was on (the server counted "
                   f"{_count(hits['n4_on'])} prompt tokens found in the cache, against "
                   f"{_count(hits['n4_off'])} without).")
    else:
        sharing = (f"`n={expect.copies}` held about {n4_on:.0f} blocks with prefix caching on "
                   f"and {n4_off:.0f} with it off: this run did not show the children sharing "
                   "the prompt (peaks are sampled, so a short run can miss them).")
    if abs(same - n4_on) <= SAME_BLOCKS * max(n4_on, 1.0):
        twin = (f"Four *separate* requests with an identical prompt held **{same:.0f}**, about "
                f"the same as `n={expect.copies}`: the engine treats the samples as separate "
                "requests that happen to share a prefix.")
    else:
        twin = (f"Four separate identical requests held {same:.0f} blocks against {n4_on:.0f} "
                f"for `n={expect.copies}`: in this run they did not match.")
    if different > (1 + SAME_BLOCKS) * n4_on:
        other = (f"Four *different* prompts of the same length held **{different:.0f}**: "
                 "nothing to share.")
    else:
        other = (f"Four different prompts held {different:.0f} blocks, not clearly more than "
                 f"`n={expect.copies}`, so this control did not separate them in this run.")
    return "\n\n".join([counts, f"{sharing} {twin} {other}"])


# -- chapter 05 -------------------------------------------------------------------------------
def dials_prediction(prediction: str, sweep: pd.DataFrame, short_only: Mapping[str, float],
                     mixed: Mapping[str, float]) -> str:
    """Chapter 05's two predictions beside the sweep's ratios and the short requests' fate."""
    first, last = sweep.iloc[0], sweep.iloc[-1]
    return prediction_text(prediction, (
        f"(1) from {sweep.index[0]} to {sweep.index[-1]} sequences per step, output "
        f"{last['output_tok_s'] / first['output_tok_s']:.1f}×, time per token of a running "
        f"request {last['tpot_ms_p99'] / first['tpot_ms_p99']:.1f}×, arrival to last token "
        f"(p99) {last['latency_s_p99'] / first['latency_s_p99']:.2f}×; (2) beside long requests "
        f"the engine preempted {mixed['preemptions']:.0f} times (short ones alone: "
        f"{short_only['preemptions']:.0f}) and the short ones took a p99 of "
        f"{mixed['e2e_ms_p99'] / 1000:.1f} s instead of {short_only['e2e_ms_p99'] / 1000:.1f} s"))


def _median_text(sweep: pd.DataFrame) -> str:
    """The median from arrival at the most sequences against its shortest over the levels."""
    if "latency_s_p50" not in sweep:
        return ""
    median, high = sweep["latency_s_p50"], sweep.index[-1]
    fastest, top = median.idxmin(), float(median.iloc[-1])
    if fastest != high and top > (1 + CHANGED) * median.min():
        return (f" The median from arrival was shortest at {fastest} sequences "
                f"(**{median.min():.1f} s**) and longer again at {high} (**{top:.1f} s**): for "
                "the typical request the longer steps there cost more than the shorter queue "
                "saved.")
    where = "the shortest of any level" if fastest == high else (
        f"within {CHANGED:.0%} of the shortest, {median.min():.1f} s at {fastest}")
    return f" The median from arrival was {top:.1f} s at {high} sequences, {where}."


def sweep_text(sweep: pd.DataFrame) -> str:
    """Chapter 05: throughput and both latencies from the fewest to the most sequences per
    step; ``sweep`` is indexed by level with ``output_tok_s``, ``tpot_ms_p99`` and
    ``latency_s_p99``."""
    first, last = sweep.iloc[0], sweep.iloc[-1]
    low, high = sweep.index[0], sweep.index[-1]
    speedup = last["output_tok_s"] / first["output_tok_s"]
    if speedup >= THROUGHPUT_SHOWN:
        output = (f"Going from {low} to {high} sequences per step raised output from "
                  f"**{first['output_tok_s']:.0f}** to **{last['output_tok_s']:.0f} tok/s** "
                  f"(**{speedup:.1f}×**).")
    else:
        output = (f"From {low} to {high} sequences per step output went from "
                  f"{first['output_tok_s']:.0f} to {last['output_tok_s']:.0f} tok/s "
                  f"({speedup:.1f}×): this run did not show batching's throughput gain.")
    tpot = _moved(first["tpot_ms_p99"], last["tpot_ms_p99"])
    running = (f"The time per output token of a running request (p99) {tpot}: "
               f"**{first['tpot_ms_p99']:.0f} → {last['tpot_ms_p99']:.0f} ms**.")
    arrival = _moved(first["latency_s_p99"], last["latency_s_p99"])
    queued = (f"The time from a request's arrival to its last token (p99) {arrival}: "
              f"**{first['latency_s_p99']:.1f} → {last['latency_s_p99']:.1f} s**")
    queued += (", because with a backlog running more at once empties the queue sooner."
               if arrival == "fell" else ".")
    best = sweep["latency_s_p99"].idxmin()
    if best not in (low, high):
        queued += (f" It was shortest at {best} sequences "
                   f"({sweep.loc[best, 'latency_s_p99']:.1f} s), not at the most: past that "
                   "point each step carried so many sequences that the longer steps cost more "
                   "than the shorter queue saved.")
    queued += _median_text(sweep)
    if tpot == "rose":
        meaning = ("The lesson's *worse tail latency* is the first of these: every step carries "
                   "more sequences and takes longer, so each stream slows. This run shows it. "
                   "Which one your users feel depends on whether they queue: under a backlog "
                   "the second can improve at the same time.")
    else:
        meaning = ("The lesson's *worse tail latency* means the first of these, the pace of a "
                   "running stream; it did not get worse in this run, so the cost the lesson "
                   "warns about did not show here.")
    return f"{output} {running} {queued}\n\n{meaning}"


def context_text(*, refusal: StartRefusal | None, refused_context: int, cache_tokens: int,
                 long_context: int, engine_concurrency: float, short_only: Mapping[str, float],
                 mixed: Mapping[str, float], long_requests: int, short_requests: int,
                 over_long: OverLong) -> str:
    """Chapter 05: what ``max_model_len`` decides, from a refused start, a request over the
    limit, and the short requests alone and beside ``long_requests`` long ones."""
    if refusal is not None:
        estimate = (f"; it estimated that {refusal.estimate:,} tokens would fit"
                    if refusal.estimate else "")
        start = (f"**At start-up.** Asked for `max_model_len={refusal.max_model_len:,}` on a "
                 f"cache of {refusal.available_gib} GiB, the engine refused to start: one "
                 f"full-length request needs {refusal.needed_gib} GiB{estimate}. The cache must "
                 "hold one request of the full length; that is the only room the limit "
                 "claims.")
    else:
        start = (f"**At start-up.** The start with `max_model_len={refused_context:,}` did not "
                 "fail with the expected message in this run, so the start-up rule is not "
                 "shown here.")
    asked = (f"A request of {over_long.prompt_tokens:,} prompt tokens asking for "
             f"{over_long.max_tokens} answer tokens, on a limit of {over_long.limit:,}")
    if over_long.message is None:
        admitted = f"**Per request.** {asked} was served: it was not refused in this run."
    else:
        admitted = (f"**Per request.** {asked}, was turned away before it ran: "
                    f"“{over_long.message}”")
    if over_long.names_room:
        admitted += (f" The message speaks of {over_long.room} answer tokens, not the "
                     f"{over_long.max_tokens} asked for: {over_long.room} is what the limit "
                     "leaves after the prompt. So the server measured the answer against the "
                     "room the prompt left, and with none left it refused.")
    reported = (f"The engine reported room for **{engine_concurrency:.2f}** requests of "
                f"{long_context:,} tokens in its {cache_tokens:,}-token cache")
    if short_only["running_max"] > engine_concurrency:
        said = (f"{reported}, yet **{short_only['running_max']:.0f}** short requests ran at "
                "once when they were alone: its number is only the cache divided by the limit.")
    else:
        said = (f"{reported}, and at most {short_only['running_max']:.0f} short requests were "
                "seen running at once, so this run does not show more requests than that "
                "number.")
    extra = mixed["preemptions"] - short_only["preemptions"]
    if extra > 0:
        crowd = (f"With **{long_requests}** long requests beside the **{short_requests}** short "
                 f"ones, the engine preempted **{mixed['preemptions']:.0f}** times (alone: "
                 f"{short_only['preemptions']:.0f}), and the short requests' p99 from send to "
                 f"last token went from **{short_only['e2e_ms_p99'] / 1000:.1f} s** to "
                 f"**{mixed['e2e_ms_p99'] / 1000:.1f} s**: a few long conversations took the "
                 "blocks of many short ones. So lowering `max_model_len` below the long "
                 "requests' length buys room by refusing them, and the short ones then run as "
                 "they did alone: the limit decides which conversations you accept, it "
                 "reserves nothing per user.")
    else:
        crowd = (f"With {long_requests} long requests beside the short ones the engine "
                 f"preempted {mixed['preemptions']:.0f} times (alone: "
                 f"{short_only['preemptions']:.0f}): this run did not show long conversations "
                 "pushing short ones out, so it cannot say what a lower limit would buy.")
    return "\n\n".join([start, f"{admitted} {said}", crowd])
