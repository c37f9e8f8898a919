"""The words of chapters 03-05 (the KV cache, prefix caching, the dials).

Each ``*_text`` function words one findings record in Markdown and says plainly when an effect
did not show; the chapter displays it in a cell tagged ``prose``. The records are found apart:
paging and admission in ``servelab.chapters.paging_findings`` (shared with chapter 00), prefix
reuse in ``reuse_findings`` (shared with chapter 00), shared blocks in ``sharing``, the dials
in ``dial_findings``.
"""

from __future__ import annotations

from servelab.chapters.dial_findings import (
    ContextFindings,
    MedianVerdict,
    Movement,
    SweepFindings,
)
from servelab.chapters.paging_findings import (
    AdmissionFindings,
    PagingFindings,
    RanVerdict,
    SqueezeFindings,
    TokenCost,
)
from servelab.chapters.prediction import prediction_text
from servelab.chapters.reuse_findings import LoadReuseFindings, ReuseFindings
from servelab.chapters.sharing_findings import SharingFindings, counted
from servelab.chapters.thresholds import CHANGED


def _plural(count: int) -> str:
    return "s" if count != 1 else ""


# -- chapter 03 -------------------------------------------------------------------------------
def paging_prediction(prediction: str, paging: PagingFindings) -> str:
    """Chapter 03's prediction beside what fits with full reservation and with blocks."""
    fit = paging.fit
    return prediction_text(prediction, (
        f"reserving {fit.context_limit:,} tokens each, {fit.reserved} request"
        f"{_plural(fit.reserved)} fit this cache; in blocks of {fit.block}, {fit.paged} "
        f"did ({paging.paged_factor:.0f}× as many)"))


def _fit_text(paging: PagingFindings, cost: TokenCost) -> str:
    fit = paging.fit
    if paging.paging_gain:
        return (f"The engine's cache holds **{paging.cache_tokens:,}** tokens: reserving the full "
                f"context fits **{fit.reserved}** request{_plural(fit.reserved)} at a time, "
                f"blocks of {fit.block} fit **{fit.paged}**, **{paging.paged_factor:.0f}×** as "
                "many. The factor is how far real requests fall short of the limit, so it is "
                "set by your traffic, not by the card.")
    return (f"With {cost.request_tokens}-token requests in blocks of {fit.block}, paging fits "
            f"{fit.paged} and full reservation {fit.reserved}: no gain at these sizes.")


def _squeeze_text(squeeze: SqueezeFindings) -> str:
    if not squeeze.waited:
        return ("In the small cache no request had to wait in this run, so the squeeze did not "
                "show (a smoke-size run may be too small for it).")
    preempted = (f"the engine preempted **{squeeze.preemptions:.0f}** times"
                 if squeeze.preempted else "no sequence was preempted")
    text = (f"In the small cache at most **{squeeze.running:.0f}** ran at once while up to "
            f"**{squeeze.waiting:.0f}** waited, {preempted}, and the same work took "
            f"**{squeeze.cramped_s:.0f} s** instead of **{squeeze.roomy_s:.0f} s**.")
    if squeeze.all_completed:
        return (f"{text} Every request still completed: a cache that is too small makes "
                "requests wait, it does not make them fail.")
    return f"{text} {squeeze.failed:.0f} requests failed in this run."


def paging_text(paging: PagingFindings, cost: TokenCost, squeeze: SqueezeFindings) -> str:
    """Chapter 03: what one token costs, what fits, and what the two loads showed."""
    token = (f"One token costs **{cost.bytes_per_token:,} bytes** of cache in {cost.dtype}, so "
             f"a full {cost.context_limit:,}-token context takes **{cost.context_mib:.0f} MiB** "
             f"and a {cost.request_tokens}-token request **{cost.request_mib:.1f} MiB**.")
    if paging.ran_verdict is RanVerdict.PAST_RESERVATION:
        load = (f"Under load **{paging.ran:.0f}** sequences ran at once; at the busiest moment "
                f"each held about **{paging.tokens_per_sequence:.0f}** tokens of cache (whole "
                f"blocks of {paging.fit.block}), not {cost.context_limit:,}.")
    else:
        load = (f"Under load at most {paging.ran:.0f} sequences ran at once, no more than full "
                "reservation allows, so this run did not show paging's gain in practice.")
    return "\n\n".join([f"{token} {_fit_text(paging, cost)}", load, _squeeze_text(squeeze)])


def admission_text(admission: AdmissionFindings) -> str:
    """Chapter 03: why the running counts differ from what fits. Waiting beside free blocks is
    the step's token budget; running more than fits is optimistic admission, paid for with
    preemption."""
    parts = []
    if admission.budget_held:
        parts.append(
            f"In the roomy cache up to **{admission.roomy_waiting:.0f}** requests waited while "
            f"at most {admission.roomy_running:.0f} ran, though {admission.roomy_fit} would fit: "
            "memory was not what held them. A step has a token budget "
            "(`max_num_batched_tokens`), and prompts that arrive together are admitted a few "
            "per step, as the budget allows.")
    if admission.optimistic:
        preempted = (f"which is what its {admission.cramped_preemptions:.0f} preemptions were"
                     if admission.preempted else
                     "though in this run no answer grew far enough to need it")
        parts.append(
            f"In the small cache **{admission.cramped_running:.0f}** ran at once, more than the "
            f"{admission.cramped_fit} whole requests it holds: the engine admits a request once "
            "its prompt's blocks are free, betting that not every answer reaches its full "
            "length at the same time. When the blocks run out mid-answer it preempts a "
            f"sequence (frees its blocks and computes it again later), {preempted}.")
    return " ".join(parts)


# -- chapter 04 -------------------------------------------------------------------------------
def reuse_prediction(prediction: str, reuse: ReuseFindings, load: LoadReuseFindings) -> str:
    """Chapter 04's prediction beside the second request's computed tokens and the TTFT ratio."""
    return prediction_text(prediction, (
        f"with caching on the second request computed {reuse.second_computed:.0f} of its "
        f"{reuse.prompt_tokens:.0f} prompt tokens, and under load the median first token came "
        f"{load.gain:.1f}× sooner than with caching off"))


def reuse_text(reuse: ReuseFindings, load: LoadReuseFindings) -> str:
    """Chapter 04: prompt tokens computed per request by the probe, and the load's first tokens
    with caching on and off."""
    if reuse.reused:
        cost = (f"With caching on, the first request computed **{reuse.first_computed:.0f}** of "
                f"its {reuse.prompt_tokens:.0f} prompt tokens and each later one "
                f"**{reuse.later_on:.0f}** on average; the rest came from cached blocks. With "
                f"caching off each later one computed **{reuse.later_off:.0f}**. Only full "
                "blocks are reused, so the question and the partly filled last block of the "
                "shared prompt are computed again every time.")
    else:
        cost = (f"Later requests computed {reuse.later_on:.0f} prompt tokens with caching on and "
                f"{reuse.later_off:.0f} with it off: this run did not show the reuse.")
    on, off = load.on, load.off
    opening = (f"Under load ({on.n} requests, after one warm-up request with the shared "
               f"prompt) the median first token came after")
    ranges = (f"(each request: {on.range_text(' ms')} with caching, "
              f"{off.range_text(' ms')} without)")
    if load.sooner:
        wait = (f"{opening} **{on.median:.0f} ms** with caching and **{off.median:.0f} ms** "
                f"without, **{load.gain:.1f}×** sooner {ranges}: even the slowest request with "
                "the cache beat the quickest without it, so most of the wait was the shared "
                "prompt's prefill.")
    else:
        wait = (f"{opening} {on.median:.0f} ms with caching and {off.median:.0f} ms without "
                f"({load.gain:.1f}×) {ranges}: the ranges overlap or the gap is small, so this "
                "run cannot say the cache made first tokens sooner under load.")
    hits = (f"The server counted a prefix-cache hit rate of **{load.hit_rate:.0%}** with caching "
            "on: the share of prompt tokens it found already cached." if load.hits_counted else
            "The server reported no prefix-cache queries with caching on.")
    return "\n\n".join([cost, f"{wait} {hits}"])


def sharing_text(sharing: SharingFindings) -> str:
    """Chapter 04: the blocks ``n`` samples, identical and different prompts held at the peak,
    against the counts expected shared and not."""
    expect = sharing.expect
    counts = (f"{expect.copies} sequences of {expect.prompt_tokens} + {expect.output_tokens} "
              f"tokens need **{expect.shared}** blocks of {expect.block_size} if the first "
              f"{expect.shared_blocks} blocks of the prompt are shared and **{expect.unshared}** "
              f"if not. ({expect.shared_blocks} blocks, not {expect.prompt_tokens} ÷ "
              f"{expect.block_size}: a later sample reuses at most "
              f"{expect.reusable_tokens} of the {expect.prompt_tokens} prompt tokens, because "
              "the engine always computes a prompt's last token itself.)")
    n4_on, n4_off = sharing.n4_on, sharing.n4_off
    if sharing.shared:
        shared = (f"`n={expect.copies}` held about **{n4_on:.0f}** blocks at its peak with "
                  f"prefix caching on and **{n4_off:.0f}** with it off: the children shared "
                  f"the prompt only when prefix caching was on (the server counted "
                  f"{counted(sharing.hits_on)} prompt tokens found in the cache, against "
                  f"{counted(sharing.hits_off)} without).")
    else:
        shared = (f"`n={expect.copies}` held about {n4_on:.0f} blocks with prefix caching on "
                  f"and {n4_off:.0f} with it off: this run did not show the children sharing "
                  "the prompt (peaks are sampled, so a short run can miss them).")
    if sharing.twins_match:
        twin = (f"Four *separate* requests with an identical prompt held "
                f"**{sharing.same_on:.0f}**, about the same as `n={expect.copies}`: the engine "
                "treats the samples as separate requests that happen to share a prefix.")
    else:
        twin = (f"Four separate identical requests held {sharing.same_on:.0f} blocks against "
                f"{n4_on:.0f} for `n={expect.copies}`: in this run they did not match.")
    if sharing.different_held_more:
        other = (f"Four *different* prompts of the same length held "
                 f"**{sharing.different_on:.0f}**: nothing to share.")
    else:
        other = (f"Four different prompts held {sharing.different_on:.0f} blocks, not clearly "
                 f"more than `n={expect.copies}`, so this control did not separate them in this "
                 "run.")
    return "\n\n".join([counts, f"{shared} {twin} {other}"])


# -- chapter 05 -------------------------------------------------------------------------------
def dials_prediction(prediction: str, sweep: SweepFindings, context: ContextFindings) -> str:
    """Chapter 05's two predictions beside the sweep's ratios and the short requests' fate."""
    return prediction_text(prediction, (
        f"(1) from {sweep.low} to {sweep.high} sequences per step, output "
        f"{sweep.speedup:.1f}×, time per token of a running request {sweep.tpot_ratio:.1f}×, "
        f"arrival to last token (p99) {sweep.arrival_ratio:.2f}×; (2) beside long requests "
        f"the engine preempted {context.preemptions_mixed:.0f} times (short ones alone: "
        f"{context.preemptions_alone:.0f}) and the short ones took a p99 of "
        f"{context.short_p99_mixed_s:.1f} s instead of {context.short_p99_alone_s:.1f} s"))


def _median_text(sweep: SweepFindings) -> str:
    verdict = sweep.median_verdict
    if verdict is MedianVerdict.NOT_MEASURED:
        return ""
    if verdict is MedianVerdict.LONGER_AGAIN:
        return (f" The median from arrival was shortest at {sweep.median_fastest_level} "
                f"sequences (**{sweep.median_shortest_s:.1f} s**) and longer again at "
                f"{sweep.high} (**{sweep.median_top_s:.1f} s**): for the typical request the "
                "longer steps there cost more than the shorter queue saved.")
    where = ("the shortest of any level" if verdict is MedianVerdict.SHORTEST_AT_TOP else
             f"within {CHANGED:.0%} of the shortest, {sweep.median_shortest_s:.1f} s at "
             f"{sweep.median_fastest_level}")
    return (f" The median from arrival was {sweep.median_top_s:.1f} s at {sweep.high} "
            f"sequences, {where}.")


def sweep_text(sweep: SweepFindings) -> str:
    """Chapter 05: throughput and both latencies from the fewest to the most sequences per
    step."""
    low, high = sweep.low, sweep.high
    if sweep.shows_gain:
        output = (f"Going from {low} to {high} sequences per step raised output from "
                  f"**{sweep.output_low:.0f}** to **{sweep.output_high:.0f} tok/s** "
                  f"(**{sweep.speedup:.1f}×**).")
    else:
        output = (f"From {low} to {high} sequences per step output went from "
                  f"{sweep.output_low:.0f} to {sweep.output_high:.0f} tok/s "
                  f"({sweep.speedup:.1f}×): this run did not show batching's throughput gain.")
    running = (f"The time per output token of a running request (p99) {sweep.tpot_moved}: "
               f"**{sweep.tpot_low_ms:.0f} → {sweep.tpot_high_ms:.0f} ms**.")
    queued = (f"The time from a request's arrival to its last token (p99) {sweep.arrival_moved}: "
              f"**{sweep.arrival_low_s:.1f} → {sweep.arrival_high_s:.1f} s**")
    queued += (", because with a backlog running more at once empties the queue sooner."
               if sweep.arrival_moved is Movement.FELL else ".")
    if sweep.best_in_between:
        queued += (f" It was shortest at {sweep.best_level} sequences "
                   f"({sweep.best_arrival_s:.1f} s), not at the most: past that point each step "
                   "carried so many sequences that the longer steps cost more than the shorter "
                   "queue saved.")
    queued += _median_text(sweep)
    if sweep.tpot_moved is Movement.ROSE:
        meaning = ("The lesson's *worse tail latency* is the first of these: every step carries "
                   "more sequences and takes longer, so each stream slows. This run shows it. "
                   "Which one your users feel depends on whether they queue: under a backlog "
                   "the second can improve at the same time.")
    else:
        meaning = ("The lesson's *worse tail latency* means the first of these, the pace of a "
                   "running stream; it did not get worse in this run, so the cost the lesson "
                   "warns about did not show here.")
    return f"{output} {running} {queued}\n\n{meaning}"


def _start_text(context: ContextFindings) -> str:
    refusal = context.refusal
    if refusal is None:
        return (f"**At start-up.** The start with `max_model_len={context.refused_context:,}` "
                "did not fail with the expected message in this run, so the start-up rule is "
                "not shown here.")
    estimate = (f"; it estimated that {refusal.estimate:,} tokens would fit"
                if refusal.estimate else "")
    return (f"**At start-up.** Asked for `max_model_len={refusal.max_model_len:,}` on a cache "
            f"of {refusal.available_gib} GiB, the engine refused to start: one full-length "
            f"request needs {refusal.needed_gib} GiB{estimate}. The cache must hold one request "
            "of the full length; that is the only room the limit claims.")


def _admitted_text(context: ContextFindings) -> str:
    over = context.over_long
    asked = (f"A request of {over.prompt_tokens:,} prompt tokens asking for {over.max_tokens} "
             f"answer tokens, on a limit of {over.limit:,}")
    if over.message is None:
        admitted = f"**Per request.** {asked} was served: it was not refused in this run."
    else:
        admitted = (f"**Per request.** {asked}, was turned away before it ran: "
                    f"“{over.message}”")
    if over.names_room:
        admitted += (f" The message speaks of {over.room} answer tokens, not the "
                     f"{over.max_tokens} asked for: {over.room} is what the limit leaves after "
                     "the prompt. So the server measured the answer against the room the prompt "
                     "left, and with none left it refused.")
    reported = (f"The engine reported room for **{context.engine_concurrency:.2f}** requests of "
                f"{context.long_context:,} tokens in its {context.cache_tokens:,}-token cache")
    if context.ran_past_engine_count:
        said = (f"{reported}, yet **{context.short_running:.0f}** short requests ran at once "
                "when they were alone: its number is only the cache divided by the limit.")
    else:
        said = (f"{reported}, and at most {context.short_running:.0f} short requests were seen "
                "running at once, so this run does not show more requests than that number.")
    return f"{admitted} {said}"


def context_text(context: ContextFindings) -> str:
    """Chapter 05: what ``max_model_len`` decides, from a refused start, a request over the
    limit, and the short requests alone and beside long ones."""
    if context.crowded_out:
        crowd = (f"With **{context.long_requests}** long requests beside the "
                 f"**{context.short_requests}** short ones, the engine preempted "
                 f"**{context.preemptions_mixed:.0f}** times (alone: "
                 f"{context.preemptions_alone:.0f}), and the short requests' p99 from send to "
                 f"last token went from **{context.short_p99_alone_s:.1f} s** to "
                 f"**{context.short_p99_mixed_s:.1f} s**: a few long conversations took the "
                 "blocks of many short ones. So lowering `max_model_len` below the long "
                 "requests' length buys room by refusing them, and the short ones then run as "
                 "they did alone: the limit decides which conversations you accept, it "
                 "reserves nothing per user.")
    else:
        crowd = (f"With {context.long_requests} long requests beside the short ones the engine "
                 f"preempted {context.preemptions_mixed:.0f} times (alone: "
                 f"{context.preemptions_alone:.0f}): this run did not show long conversations "
                 "pushing short ones out, so it cannot say what a lower limit would buy.")
    return "\n\n".join([_start_text(context), _admitted_text(context), crowd])
