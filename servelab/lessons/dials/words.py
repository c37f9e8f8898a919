"""The words of chapter 05: the ``max_num_seqs`` sweep, what ``max_model_len`` decided and what
splitting the model over two GPUs did, from ``dials.findings``. Each function says plainly when
an effect did not show; the chapter displays the first two in cells tagged ``prose``, and the
third under the tensor-parallel table, in the cell that runs only on two GPUs.
"""

from __future__ import annotations

from servelab.bench.spread import Spread
from servelab.lessons.dials.findings import (
    ContextFindings,
    MedianVerdict,
    Movement,
    SweepFindings,
    TensorParallelFindings,
)
from servelab.lessons.prediction import prediction_text
from servelab.lessons.thresholds import CHANGED


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


def _ends(before: Spread, after: Spread, digits: int, unit: str) -> str:
    """``"**35 → 90 ms** (runs 33–37 and 80–95 ms)"``: two medians, then their ranges."""
    moved = f"**{before.median:,.{digits}f} → {after.median:,.{digits}f} {unit}**"
    if min(before.n, after.n) < 2:
        return moved
    return (f"{moved} (runs {before.span(digits)} and {after.span(digits)} {unit})")


def sweep_text(sweep: SweepFindings) -> str:
    """Chapter 05: throughput and both latencies from the fewest to the most sequences per
    step, medians of the sweep's passes with their ranges."""
    low, high = sweep.low, sweep.high
    output = _ends(sweep.output_low, sweep.output_high, 0, "tok/s")
    passes = (f"Each level ran {sweep.passes} times, the levels in turn; each figure is the "
              "median of its runs. " if sweep.passes > 1 else "")
    if sweep.shows_gain:
        output = (f"{passes}Going from {low} to {high} sequences per step raised output "
                  f"{output}, **{sweep.speedup:.1f}×**.")
    else:
        output = (f"{passes}From {low} to {high} sequences per step output went {output} "
                  f"({sweep.speedup:.1f}×): this run did not show batching's throughput gain "
                  "beyond its runs' spread.")
    running = (f"The time per output token of a running request (p99) {sweep.tpot_moved}: "
               f"{_ends(sweep.tpot_low_ms, sweep.tpot_high_ms, 0, 'ms')}.")
    queued = (f"The time from a request's arrival to its last token (p99) {sweep.arrival_moved}: "
              f"{_ends(sweep.arrival_low_s, sweep.arrival_high_s, 1, 's')}")
    queued += (", because with a backlog running more at once empties the queue sooner."
               if sweep.arrival_moved is Movement.FELL else ".")
    if sweep.best_in_between:
        queued += (f" It was shortest at {sweep.best_level} sequences "
                   f"({sweep.best_arrival_s.median:.1f} s), not at the most: past that point "
                   "each step carried so many sequences that the longer steps cost more than "
                   "the shorter queue saved.")
    queued += _median_text(sweep)
    if sweep.tpot_moved is Movement.ROSE:
        meaning = ("The lesson's *worse tail latency* is the first of these: every step carries "
                   "more sequences and takes longer, so each stream slows. This run shows it. "
                   "Which one your users feel depends on whether they queue: under a backlog "
                   "the second can improve at the same time.")
    else:
        meaning = ("The lesson's *worse tail latency* means the first of these, the pace of a "
                   "running stream; it did not get worse beyond the runs' spread in this run, so "
                   "the cost the lesson warns about did not show here.")
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


def _untold(found: TensorParallelFindings) -> str:
    """Why a difference past ``CHANGED`` is still not a finding."""
    why = "the runs' ranges overlap" if found.runs > 1 else "one run a side has no range"
    return f"{why}, so this run cannot tell whether the split changed it"


def _alone_text(found: TensorParallelFindings) -> str:
    speed = _ends(found.alone_one, found.alone_split, 1, "tok/s")
    moved = found.alone_moved
    if moved is Movement.FELL:
        return (f"Split over two GPUs, one user's stream was **slower**: {speed}. A single "
                "request gives each step little arithmetic to share out, while after every "
                "layer the two GPUs must exchange their partial results, so every token pays "
                "for that traffic.")
    if moved is Movement.ROSE:
        return (f"Split over two GPUs, one user's stream was **faster**: {speed}. Each GPU "
                "read only half of the weights for every token, and here that saved more time "
                "than the exchange after every layer cost.")
    if moved is Movement.SAME:
        return (f"Split over two GPUs, one user's stream kept about its speed: {speed}, within "
                f"{CHANGED:.0%}.")
    return f"One user's speed went {speed} with the split, but {_untold(found)}."


def _crowd_text(found: TensorParallelFindings) -> str:
    output = _ends(found.crowd_one, found.crowd_split, 0, "tok/s")
    users = found.users
    moved = found.crowd_moved
    if moved is Movement.ROSE:
        return (f"With {users} users at once the split gave **more output**: {output}. Every "
                "step's work was shared by two GPUs' compute and memory bandwidth, and on this "
                "runtime that outweighed the exchange after every layer.")
    if moved is Movement.FELL:
        return (f"With {users} users at once the split gave **less output**: {output}. The "
                "exchange after every layer cost more than the second GPU's compute added.")
    if moved is Movement.SAME:
        return (f"With {users} users at once the output stayed about the same: {output}, "
                f"within {CHANGED:.0%}; a second GPU did not buy more throughput.")
    return f"With {users} users the output went {output}, but {_untold(found)}."


def _cache_text(found: TensorParallelFindings) -> str:
    held = (f"{found.cache_one:,} tokens of KV cache on one GPU, {found.cache_split:,} split "
            "over two")
    if found.more_cache:
        return (f"The servers held **{held}** ({found.cache_ratio:.1f}×): each GPU keeps only "
                "half of the weights and half of every token's cache, so the memory the "
                "weights no longer take holds more tokens.")
    return (f"The servers held {held}: this run did not show the larger cache that halving "
            "each GPU's weights should leave.")


def tensor_parallel_text(found: TensorParallelFindings) -> str:
    """Chapter 05: one GPU against two for one user and for many (medians of each server's
    repeats, with their ranges), the cache each server had, and what that says about a model
    that fits on one card."""
    runs = (f"Each server ran one user, then {found.users} users, in turn, {found.runs} times; "
            "each figure is the median of its runs. " if found.runs > 1 else "")
    text = f"{runs}{_alone_text(found)} {_crowd_text(found)} {_cache_text(found)}"
    if found.crowd_moved is Movement.ROSE:
        return (f"{text}\n\nSo on this runtime the split paid off under load even though the "
                "model fits on one card; whether it does for yours depends on the load and on "
                "how quickly your GPUs exchange results.")
    if found.alone_moved is Movement.FELL:
        return (f"{text}\n\nFor a model that already fits on one card, this run shows the "
                "split's cost to a single stream and no gain for the crowd beyond its runs' "
                "spread to set against it.")
    return text
