"""The words of chapter 05: the ``max_num_seqs`` sweep and what ``max_model_len`` decided, from
``the_dials.findings`` (what splitting the model over two GPUs did is ``tp_words``; the step model's
prediction, ``step_words``). Each function says plainly when an effect did not show; the chapter
displays them in cells tagged ``prose``.
"""

from __future__ import annotations

from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared
from servelab.lessons.fold import fold
from servelab.lessons.guess import Aim, Unit
from servelab.lessons.paging.findings import DrawnRun
from servelab.lessons.plural import plural_s
from servelab.lessons.prediction import prediction_text
from servelab.lessons.the_dials.findings import (
    ContextFindings,
    LimitVerdict,
    MedianVerdict,
    QueueVerdict,
    SweepFindings,
)
from servelab.lessons.the_dials.runs import StartRefusal
from servelab.lessons.the_dials.thresholds import CHANGED
from servelab.lessons.untold_words import cannot_tell, overlap


def dials_prediction(prediction: str, sweep: SweepFindings, context: ContextFindings) -> str:
    """Chapter 05's two predictions beside the sweep's ratios and the short requests' fate."""
    return prediction_text(
        prediction,
        (
            f"first, from {sweep.low} to {sweep.high} sequences per step, output "
            f"{sweep.speedup:.1f}×, time per token {sweep.tpot_ratio:.1f}×, arrival to last token "
            f"(p99) {sweep.arrival_ratio:.2f}×. Second, beside long requests the engine preempted "
            f"{_times(context.preemptions_mixed)} (short ones alone: "
            f"{_times(context.preemptions_alone)}). The short ones took a p99 of "
            f"{context.short_p99_mixed_s.with_range(1, ' s')} instead of "
            f"{context.short_p99_alone_s.with_range(1, ' s')}"
        ),
        [Aim(f"the output from {sweep.low} to {sweep.high} sequences", sweep.speedup, Unit.TIMES)],
    )


def _times(count: Spread) -> str:
    """``"5 times a run (4–6)"``, ``"4 times in every run"`` or, from one run, ``"4 times"``."""
    times = f"{count.median:,.0f} times"
    if not count.ranged:
        return times
    span = count.span(0)
    return f"{times} in every run" if "–" not in span else f"{times} a run ({span})"


def _with_runs(spread: Spread, digits: int, unit: str) -> str:
    """``"1.21 s (runs 1.21–1.26 s)"``: a median, then its runs' range where there are
    several."""
    median = f"{spread.median:,.{digits}f} {unit}"
    return median if not spread.ranged else f"{median} (runs {spread.span(digits)} {unit})"


def _median_text(sweep: SweepFindings) -> str:
    verdict = sweep.median_verdict
    if verdict is MedianVerdict.NOT_MEASURED:
        return ""
    top, rival = _with_runs(sweep.median_top, 2, "s"), _with_runs(sweep.median_rival, 2, "s")
    level, high = sweep.median_rival_level, sweep.high
    if verdict is MedianVerdict.SHORTEST_AT_TOP:
        return (
            f" The median from arrival was {top} at {high} sequences, the shortest of any "
            "level: its runs were all below every other level's; the next shortest was "
            f"{rival} at {level}."
        )
    if verdict is MedianVerdict.LONGER_AGAIN:
        return (
            f" The median from arrival was shortest at {level} sequences, {rival}, and "
            f"longer again at {high}, {top}, the ranges apart: for the typical request the "
            "longer steps there cost more than the shorter queue saved."
        )
    if verdict is MedianVerdict.NEAR_SHORTEST:
        return (
            f" The median from arrival was {top} at {high} sequences, within "
            f"{CHANGED:.0%} of the shortest, {rival} at {level}."
        )
    why = overlap() if sweep.repeated else "one run a level has no range"
    return (
        f" The median from arrival was {top} at {high} sequences and {rival} at {level}: "
        + cannot_tell("which of the two gave the typical request the shorter wait.", why)
    )


def _queue_text(sweep: SweepFindings) -> str:
    """Why the p99 from arrival fell, as far as the requests that waited for a slot show."""
    verdict, low, high = sweep.queue_verdict, sweep.low, sweep.high
    waited = f"{sweep.queued_high.span(0)} requests waited for a slot"
    if verdict is QueueVerdict.AT_TOP:
        return (
            ", because with a backlog running more at once empties the queue sooner: even "
            f"at {high} sequences {waited} in every pass."
        )
    if verdict is QueueVerdict.BELOW_TOP:
        return (
            f", because at {low} the requests queued for a slot, while at {high} none "
            "waited in any pass: there the figure is the requests' own time, with no queue "
            "in it."
        )
    if verdict is QueueVerdict.SOME_PASSES:
        return (
            f", because running more at once empties the queue sooner; at {high} "
            f"sequences {waited} in some passes and none in others."
        )
    return (
        f". Not every pass had requests waiting for a slot even at {low}, so this run "
        "does not show a queue emptying."
    )


MOVED = {
    Compared.HIGHER: "rose",
    Compared.LOWER: "fell",
    Compared.ALIKE: "stayed about the same",
    Compared.UNTOLD: "moved no further than its runs' spread",
}


def ends(before: Spread, after: Spread, digits: int, unit: str) -> str:
    """``"**35 → 90 ms** (runs 33–37 and 80–95 ms)"``: two medians, then their ranges."""
    moved = f"**{before.median:,.{digits}f} → {after.median:,.{digits}f} {unit}**"
    if not (before.ranged and after.ranged):
        return moved
    return f"{moved} (runs {before.span(digits)} and {after.span(digits)} {unit})"


def sweep_title(sweep: SweepFindings) -> str:
    """The sweep plot's title: the three ratios from the fewest to the most sequences."""
    return (
        f"{sweep.high} sequences per step: {sweep.speedup:.1f}× the output, each token "
        f"{sweep.tpot_ratio:.1f}× as slow, the last arrival done {sweep.arrival_sooner:.1f}× "
        "sooner"
    )


def refusal_line(refusal: StartRefusal) -> str:
    """The refused start as the run log prints it: its numbers, not the dataclass."""
    longest = (
        "" if refusal.estimate is None else f"; the longest it says fits: {refusal.estimate:,}"
    )
    return (
        f"refused at start-up: max_model_len {refusal.max_model_len:,} needs "
        f"{refusal.needed_gib:.2f} GiB of KV cache for one full-length request, "
        f"{refusal.available_gib:.2f} GiB available{longest}"
    )


def crowded_title(context: ContextFindings, crowded: DrawnRun, alone: DrawnRun) -> str:
    """The mixed load's plot title: the first run it draws, against the short ones' first run
    alone."""
    return (
        f"{context.long_requests} long requests beside {context.short_requests} short ones, "
        f"first run: {crowded.preemptions:.0f} preemptions (alone: {alone.preemptions:.0f})"
    )


def sweep_text(sweep: SweepFindings) -> str:
    """Chapter 05: throughput and both latencies from the fewest to the most sequences per
    step, medians of the sweep's passes with their ranges."""
    low, high = sweep.low, sweep.high
    output = ends(sweep.output_low, sweep.output_high, 0, "tok/s")
    passes = (
        f" Each level ran {sweep.passes} times, the levels in turn. Each figure is the "
        "median of its runs."
        if sweep.repeated
        else ""
    )
    if sweep.shows_gain:
        output = (
            f"Going from {low} to {high} sequences per step raised output "
            f"{output}, **{sweep.speedup:.1f}×**.{passes}"
        )
    else:
        output = (
            f"From {low} to {high} sequences per step output went {output} "
            f"({sweep.speedup:.1f}×). This run did not show batching's throughput gain "
            f"beyond its runs' spread.{passes}"
        )
    running = (
        f"The time per output token of a running request (p99) "
        f"{MOVED[sweep.tpot_moved]}: "
        f"{ends(sweep.tpot_low_ms, sweep.tpot_high_ms, 0, 'ms')}."
    )
    queued = (
        f"The time from a request's arrival to its last token (p99) "
        f"{MOVED[sweep.arrival_moved]}: "
        f"{ends(sweep.arrival_low_s, sweep.arrival_high_s, 1, 's')}"
    )
    queued += _queue_text(sweep) if sweep.arrival_moved is Compared.LOWER else "."
    if sweep.best_in_between:
        queued += (
            f" It was shortest at {sweep.best_level} sequences "
            f"({sweep.best_arrival_s.median:.1f} s), not at the most: past that point "
            "each step carried so many sequences that the longer steps cost more than "
            "the shorter queue saved."
        )
    queued += _median_text(sweep)
    if sweep.tpot_moved is Compared.HIGHER:
        meaning = (
            "The lesson's *worse tail latency* is the first of these. Every step carries "
            "more sequences and takes longer, so each stream slows. This run shows it. "
            "Which one your users feel depends on whether they queue: under a backlog "
            "the second can improve at the same time."
        )
    else:
        meaning = (
            "The lesson's *worse tail latency* means the first of these, the pace of a "
            "running stream. It did not get worse beyond the runs' spread in this run. So "
            "the cost the lesson warns about did not show here."
        )
    return f"{output} {running} {queued}\n\n{meaning}"


def _start_text(context: ContextFindings) -> str:
    refusal = context.refusal
    if refusal is None:
        return (
            f"**At start-up.** The start with `max_model_len={context.refused_context:,}` "
            "did not fail with the expected message in this run, so the start-up rule is "
            "not shown here."
        )
    estimate = (
        f". It estimated that {refusal.estimate:,} tokens would fit" if refusal.estimate else ""
    )
    return (
        f"**At start-up.** Asked for `max_model_len={refusal.max_model_len:,}` on a cache "
        f"of {refusal.available_gib} GiB, the engine refused to start. One full-length "
        f"request needs {refusal.needed_gib} GiB{estimate}. The cache must hold one request "
        "of the full length. That is the only room the limit claims."
    )


def _prompt_text(context: ContextFindings) -> str:
    """The request whose prompt alone is over the limit."""
    probe = context.long_prompt
    asked = (
        f"**Per request.** A prompt of {probe.prompt_tokens:,} tokens, over the limit of "
        f"{probe.limit:,}"
    )
    if context.prompt_verdict is LimitVerdict.REFUSED:
        counted = ""
        if probe.message and "at least" in probe.message:
            counted = (
                f" (It says “at least” {probe.counted_to:,} for the "
                f"{probe.prompt_tokens:,} tokens sent because it stops tokenizing one "
                "token past the limit: that is already enough to refuse.)"
            )
        return (
            f"{asked}, was turned away before it ran. The engine said: “{probe.message}” "
            "The prompt alone "
            f"did not fit, so no answer length could have saved it.{counted}"
        )
    return (
        f"{asked}, was served in this run ({probe.answer_tokens} answer tokens, finish "
        f"reason `{probe.finish_reason}`), so the refusal of an over-long prompt is not "
        "shown here."
    )


def _answer_text(context: ContextFindings) -> str:
    """The request whose prompt fits but whose answer would pass the limit."""
    probe = context.long_answer
    asked = (
        f"A prompt of {probe.prompt_tokens:,} tokens asking for {probe.max_tokens} answer "
        f"tokens, where the limit leaves room for {probe.room}"
    )
    verdict = context.answer_verdict
    if verdict is LimitVerdict.SHORTENED:
        return (
            f"{asked}, was served: its answer stopped after **{probe.answer_tokens}** "
            f"tokens with finish reason `{probe.finish_reason}`. So what this engine turns "
            "away is a prompt that leaves no room after it; a prompt that leaves some gets "
            "its answer cut to that room, without an error."
        )
    if verdict is LimitVerdict.REFUSED:
        return (
            f"{asked}, was turned away too: “{probe.message}” So this engine counts the "
            "prompt and the answer asked for together against the limit and refuses a "
            "request whose sum does not fit, rather than shorten its answer."
        )
    return (
        f"{asked}, was served with {probe.answer_tokens} answer tokens (finish reason "
        f"`{probe.finish_reason}`): this run does not show what the limit does to an "
        "answer that would pass it."
    )


def _count_text(context: ContextFindings) -> str:
    """The engine's start-up count of full-length requests against what ran."""
    reported = (
        f"The engine reported room for **{context.engine_concurrency:.2f}** requests of "
        f"{context.long_context:,} tokens in its {context.cache_tokens:,}-token cache"
    )
    if context.ran_past_engine_count:
        return (
            f"{reported}, yet **{context.short_running:.0f}** short requests ran at once "
            "when they were alone: its number is only the cache divided by the limit."
        )
    return (
        f"{reported}, and at most {context.short_running:.0f} short requests were seen "
        "running at once, so this run does not show more requests than that number."
    )


def _lower_limit_text(context: ContextFindings) -> str:
    """What a lower limit would buy, as far as the two requests past it showed."""
    if context.prompt_verdict is not LimitVerdict.REFUSED:
        return (
            " This run did not show the limit turning a request away, so it cannot say "
            "what a lower limit would buy."
        )
    text = (
        " A limit below the long requests' prompts would buy room by turning them away, "
        "as the over-long prompt above was: the limit decides which conversations you "
        "accept, it reserves nothing per user."
    )
    if context.answer_verdict is LimitVerdict.SHORTENED:
        text += (
            " A limit that only their answers would pass buys less: this engine serves "
            "such a request with its answer cut short, so it still grows up to the "
            "limit."
        )
    elif context.answer_verdict is LimitVerdict.REFUSED:
        text += (
            " On this engine a limit that only their answers would pass turns them away "
            "as well, as it refused the request whose prompt fitted but whose answer did "
            "not."
        )
    return text


def _crowd_cost_text(context: ContextFindings) -> str:
    """What the preemptions cost the short requests, by how their p99 moved."""
    moved = context.short_p99_moved
    if moved is Compared.HIGHER:
        return ". A few long conversations took the blocks of many short ones."
    if moved is Compared.UNTOLD:
        why = (
            overlap("runs'", start=True)
            if context.short_p99_mixed_s.ranged
            else "One run a load has no range"
        )
        return ". " + cannot_tell("whether the preemptions cost the short ones time.", why)
    where = f"within {CHANGED:.0%}" if moved is Compared.ALIKE else "shorter, the ranges apart"
    return (
        f", {where}. The long conversations caused preemptions, yet this run shows no "
        "time they cost the short ones."
    )


def _first_token_text(context: ContextFindings) -> str:
    """How the short requests' first tokens moved beside the long ones, where measured."""
    moved = context.first_p99_moved
    if moved is None or context.first_p99_alone_ms is None or context.first_p99_mixed_ms is None:
        return ""
    numbers = (
        f" Their first tokens' p99 went from "
        f"{context.first_p99_alone_ms.with_range(0, ' ms')} to "
        f"{context.first_p99_mixed_ms.with_range(0, ' ms')}"
    )
    if moved is Compared.HIGHER:
        return (
            numbers + ": later, beyond the runs' spread, as the long prompts were read in "
            "the same steps and preempted requests waited to be computed again."
        )
    if moved is Compared.UNTOLD:
        return f"{numbers}: " + cannot_tell("whether they moved.", overlap("runs'"))
    if moved is Compared.ALIKE:
        return numbers + f": within {CHANGED:.0%}, so the wait for a first token held."
    return numbers + ": sooner, the ranges apart, which the long requests do not explain."


def context_text(context: ContextFindings) -> str:
    """Chapter 05: what ``max_model_len`` decides, from a refused start, two requests past the
    limit, and the short requests alone and beside long ones."""
    runs = (
        f"over {context.short_p99_mixed_s.n} runs of each load"
        if context.short_p99_mixed_s.ranged
        else "one run each"
    )
    mixed, alone = _times(context.preemptions_mixed), _times(context.preemptions_alone)
    longs = f"{context.long_requests} long request{plural_s(context.long_requests)}"
    if context.crowded_out:
        crowd = (
            f"With **{longs}** beside the "
            f"**{context.short_requests}** short ones, the engine preempted **{mixed}** "
            f"(alone: {alone}). The short requests' p99 from send to last "
            f"token went from **{context.short_p99_alone_s.with_range(1, ' s')}** to "
            f"**{context.short_p99_mixed_s.with_range(1, ' s')}** ({runs})"
        )
        limit = _lower_limit_text(context) if context.short_p99_moved is Compared.HIGHER else ""
        backing = limit + _first_token_text(context)
        crowd += _crowd_cost_text(context) + (fold(backing) if backing else "")
    else:
        crowd = (
            f"With {longs} beside the short ones the engine "
            f"preempted {mixed} (alone: {alone}; {runs}). Not every run beside "
            "them preempted more than any run of the short ones alone. So this run did not "
            "show long conversations pushing short ones out, and cannot say what a lower "
            "limit would buy."
        )
    per_request = f"{_prompt_text(context)} {_answer_text(context)} {_count_text(context)}"
    return "\n\n".join([_start_text(context), per_request, crowd])
