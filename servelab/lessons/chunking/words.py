"""Chapter 06's words, in Markdown, from ``chunking.findings`` and the budget's plan: each
function only picks phrases and formats the figures the findings computed. ``effect_text`` is
also chapter 00's section on the same effect, and ``sizing_text`` its sizing; the ``_title``
functions are the plots' titles. The lines the page shows as it sizes the load are in
``forecast_words``."""

from __future__ import annotations

from servelab.bench.prefill import PrefillFit
from servelab.bench.spread import Spread
from servelab.lessons.chunking.findings import TradeFindings
from servelab.lessons.chunking.sizing import BudgetPlan, Reading, Sizing
from servelab.lessons.chunking.thresholds import (
    HITCH_CHUNK_SHARE,
    PAUSE_GAIN_SHOWN,
    PAUSE_OFF_TARGET,
)
from servelab.lessons.compare import Compared, Placed, Shown
from servelab.lessons.findings_table import findings_table
from servelab.lessons.fold import fold
from servelab.lessons.guess import Aim, Unit
from servelab.lessons.plural import plural_s
from servelab.lessons.prediction import page_story
from servelab.lessons.untold_words import cannot_tell, overlap


def _first_run(plan: BudgetPlan) -> str:
    """How the first run read the document, as a phrase."""
    if plan.first_read is Reading.ONE_STEP:
        return "in one step"
    return f"in {plan.first_chunks} chunks"


def _default_text(plan: BudgetPlan) -> str:
    text = (
        "In vLLM's current engine chunked prefill is on by default. "
        "`--no-enable-chunked-prefill` turns it off, and vLLM then warns that the model does "
        "not officially support running without it. So the dial here is "
        "`max_num_batched_tokens`, whose default depends on the device and the engine "
        "version. (A second one, `--long-prefill-token-threshold`, counts a prompt longer "
        "than it as long and caps how much of it one step may take, without shrinking every "
        "step's budget; its default, 0, sets no cap.) The first server was given "
        f"{plan.first_budget:,} tokens per step, "
    )
    if plan.first_read is Reading.ONE_STEP:
        return text + (
            f"enough for the whole {plan.document_tokens:,}-token document, so it read "
            "the document in a single step, as an engine without chunking would. "
        )
    return text + (
        f"less than the {plan.document_tokens:,}-token document, so even the first "
        f"run read it {_first_run(plan)}. "
    )


def _share_side(share: Spread, counted: bool) -> str:
    """A share of hitches against the 1 in 100 a p99 needs (``counted``: over it)."""
    return f"{share.median:.1%} of the users' gaps, {'over' if counted else 'under'} 1 in 100"


def _pooled_text(findings: TradeFindings) -> str:
    """The p99 pooled over each whole run, and why it can miss the longest pause: a percentile
    lesson from the share of gaps that were hitches."""
    whole, chunked = findings.whole.pooled, findings.chunked.pooled
    caught_whole, caught_chunked = findings.p99_counts_hitches
    moved = {
        Shown.REVERSED: "higher with chunks beyond the spread",
        Shown.STRONG: "lower with chunks beyond the spread",
        Shown.WEAK: "lower with chunks beyond the spread",
        Shown.UNTOLD: overlap(),
    }[findings.pooled_verdict]
    text = (
        f"Pooled over each whole run, as `vllm bench serve` reports it, the users' "
        f"99th-percentile gap was {whole.median:,.0f} ms ({whole.range_text(' ms', 0, 'runs')})"
        f" in one step and {chunked.median:,.0f} ms ({chunked.range_text(' ms', 0, 'runs')}) "
        f"with chunks: {moved}. A 99th percentile is the gap that 1 gap in 100 exceeds, so it "
        f"lands on the documents' hitches (gaps of {findings.plan.hitch_ms:,.0f} ms or longer "
        f"while one was read: the usual step and {HITCH_CHUNK_SHARE:g} of a chunk's reading) "
        "only where they are more than 1 in 100 of all gaps: in one step they were "
        f"{_share_side(findings.whole.hitch_share, caught_whole)}, with chunks "
        f"{_share_side(findings.chunked.hitch_share, caught_chunked)}. "
    )
    if not caught_whole and caught_chunked:
        return text + (
            "So the pooled p99 missed the long stalls and counted the short hitches: "
            "read alone, it makes chunking look worse, whatever the longest pause "
            "did. "
        )
    if not caught_whole:
        return text + "So neither run's pooled p99 saw its pauses; the longest pause does. "
    if caught_chunked:
        shown = findings.pooled_to_pause
        return text + (
            f"So both runs' pooled p99 falls among their hitches, at {shown[0]:.0%} "
            f"of the longest pause in one step and {shown[1]:.0%} with chunks: a "
            "percentile of every gap shows how often hitches come, the longest pause "
            "how long the worst one lasted. "
        )
    return text + "So the pooled p99 saw the one-step stalls and missed the chunked hitches. "


def _hitch_count(count: float) -> str:
    return f"{count:.0f} hitch" if round(count) == 1 else f"{count:.0f} hitches"


def _hitches_text(findings: TradeFindings) -> str:
    """How the one stall became a hitch per chunk, and whether the later ones cost more."""
    whole, chunked = findings.whole.hitches.median, findings.chunked.hitches.median
    text = (
        f"While a document was read, each user had {_hitch_count(whole)} in one step and "
        f"{_hitch_count(chunked)} with chunks (medians over the runs; the budget cuts the "
        f"document into {findings.plan.chunks} chunks): each chunk is a step of its own, and "
        "every step pays the engine's fixed work again. "
    )
    first, last = findings.first_hitch, findings.last_hitch
    if first is None or last is None or findings.hitch_growth is None:
        return text
    both = (
        f"a chunked document's first hitch took {first.median:,.0f} ms "
        f"({first.range_text(' ms', 0, 'runs')}) and its last {last.median:,.0f} ms "
        f"({last.range_text(' ms', 0, 'runs')})"
    )
    if findings.hitch_growth is Shown.STRONG:
        return text + (
            f"Within a document the hitches grew: {both}, since each later chunk "
            "attends to all the tokens cached before it. "
        )
    return text + (
        f"Each later chunk attends to more cached tokens, but here {both}: the ranges "
        "do not say the later ones cost more. "
    )


def _users_table(findings: TradeFindings) -> str:
    """Each run's longest pause and the users' own runs, a row a way of reading the document."""
    rows = [
        [how.capitalize(), run.pause.with_range(), run.done.with_range(1)]
        for how, run in (
            (_first_run(findings.plan), findings.whole),
            (f"in {findings.plan.budget}-token chunks", findings.chunked),
        )
    ]
    runs, head = (
        findings.whole.pause,
        ["The document read", "Longest pause (ms)", "Each user's own run (s)"],
    )
    return f"\n\n{findings_table(head, rows)}" + (
        f"\n\nMedians over {runs.n} runs, lowest to highest in brackets." if runs.ranged else ""
    )


def _users_text(findings: TradeFindings) -> str:
    plan, whole, chunked = findings.plan, findings.whole, findings.chunked
    table = _users_table(findings)
    usual = f"In these runs a normal gap between their tokens was {findings.usual_gap_ms:,.0f} ms. "
    reading = (
        f"While each document was being read, the users' 99th-percentile gap was "
        f"{whole.tail.median:,.0f} ms ({whole.tail.range_text(' ms', 0, 'runs')}) with "
        f"the document read {_first_run(plan)} and {chunked.tail.median:,.0f} ms "
        f"({chunked.tail.range_text(' ms', 0, 'runs')}) with chunks. "
    )
    if findings.pause_verdict is None:
        return (
            "The second run read the document in one step too, so whatever differs between "
            f"the two runs is their own noise, not chunking.{table} "
            + usual
            + reading
            + _pooled_text(findings)
        ).rstrip()
    backing = fold(
        usual + _target_text(findings) + _hitches_text(findings) + reading + _pooled_text(findings)
    )
    if findings.pause_verdict is Shown.UNTOLD:
        return (
            "With one run a side there is no spread to weigh the difference against. So "
            "this run cannot say whether chunking shortened the worst pause." + table + backing
        )
    if findings.pause_verdict is Shown.NONE:
        return (
            "These runs did not show chunking shortening the worst pause by more than the "
            "spread between them. A longer document or a smaller budget would separate them. "
            + _deal_text(findings)
            + table
            + backing
        )
    return _reading_tail_text(findings) + " " + _deal_text(findings) + table + backing


def _target_text(findings: TradeFindings) -> str:
    """The chunked pauses against the pause the budget was sized for, as a sentence."""
    target, verdict = findings.plan.pause_ms, findings.target_verdict
    if verdict is Placed.INSIDE:
        return (
            f"Against the {target:,.0f} ms the budget was sized for, the chunked pauses came "
            f"within {PAUSE_OFF_TARGET:g}× of the target: the sizing held. "
        )
    if verdict is Placed.ABOVE:
        return (
            f"Every run's longest chunked pause was over {PAUSE_OFF_TARGET:g}× the "
            f"{target:,.0f} ms the budget was sized for ({findings.pause_over_target:.1f}× at "
            f"the median). {_chunk_alone_text(findings)}"
        )
    return (
        f"Every run's longest chunked pause was under the {target:,.0f} ms the budget "
        f"was sized for by more than {PAUSE_OFF_TARGET:g}× ({findings.pause_over_target:.2f}× "
        "at the median): the run read prompts faster than the rate the budget was sized "
        "from, so a larger budget would still have met the target. "
    )


def _chunk_alone_text(findings: TradeFindings) -> str:
    """What one chunk took with nothing else running, against what the sizing expected."""
    chunk_ms = findings.chunk_alone_ms
    if chunk_ms is None:
        return (
            "This run did not read the document alone in chunks, so it cannot say where "
            "the extra time went. "
        )
    return (
        f"Read alone on the chunked server, a chunk took {chunk_ms:,.0f} ms on average, "
        f"where the rate the budget was sized from gives {findings.chunk_planned_ms:,.0f} ms "
        f"for its reading, and the usual step {findings.plan.step_ms:,.0f} ms more. "
    )


def effect_text(findings: TradeFindings) -> str:
    """What the users felt and what the document paid, in two paragraphs: chapter 06's
    middle and chapter 00's section on the same effect."""
    return f"{_users_text(findings)}\n\n{_document_text(findings)}"


def _reading_tail_text(findings: TradeFindings) -> str:
    """The tail while a document was read, once the worst pause shrank beyond the spread."""
    verdict = findings.tail_verdict
    if verdict is Shown.REVERSED:
        return (
            f"Each long stall became up to {findings.plan.chunks} shorter ones, the longest "
            f"{findings.pause_over_usual:.1f}× a normal gap. There were enough of them "
            f"that the tail while a document was read got worse beyond its spread. Chunking "
            f"shortened the worst pause, but it did not make the stream even."
        )
    if verdict is Shown.STRONG:
        return (
            f"The worst pause shrank beyond the spread. The tail while a document was "
            f"read fell too, beyond its spread and by more than {PAUSE_GAIN_SHOWN:g}×."
        )
    if verdict is Shown.WEAK:
        return (
            f"The worst pause shrank beyond the spread. The tail while a document was "
            f"read was lower beyond its spread too, but by less than {PAUSE_GAIN_SHOWN:g}×."
        )
    return (
        "The worst pause shrank beyond the spread. The tails while a document was read "
        "overlap between the documents, so this run cannot call either one better."
    )


def _deal_text(findings: TradeFindings) -> str:
    """Whether chunking was the better deal for the users, their own runs weighed in (the
    table beside it holds the figures)."""
    verdict = findings.deal_verdict
    if verdict is Shown.NONE:
        return "With no shorter worst pause shown, this run makes no case for chunking."
    if verdict is Shown.UNTOLD:
        return (
            "One run a side gives no range to weigh the users' own runs by. So these runs "
            "cannot say whether chunking served the users better overall."
        )
    if verdict is Shown.WEAK:
        worse = [
            cost
            for cost, held in (
                ("their answers took longer in all, beyond the spread", findings.runs_longer),
                (
                    "their tail while a document was read got worse",
                    findings.tail_verdict is Shown.REVERSED,
                ),
            )
            if held
        ]
        return (
            f"The users' worst pause shrank, but {' and '.join(worse)}. So chunking was a "
            "trade for them here, not the better deal."
        )
    return (
        "The users' own runs took no longer beyond the spread. With the worst pause shorter "
        "as well, chunking was the better deal for the users here."
    )


def _queue_text(findings: TradeFindings) -> str:
    """Whether a document arrived before the one ahead of it had its first token."""
    if findings.whole.queued == 0 and findings.chunked.queued == 0:
        return (
            " Every document arrived after the one before it had its first token, so none "
            "of these waits includes queueing behind another document."
        )
    counts = [
        f"{queued} document{plural_s(queued)}" if queued else "no document"
        for queued in (findings.whole.queued, findings.chunked.queued)
    ]
    return (
        f" In the one-step run {counts[0]} and with chunks {counts[1]} arrived before the "
        "one ahead of it had its first token; such a figure includes waiting behind that "
        "document, not only its own read."
    )


def _document_text(findings: TradeFindings) -> str:
    plan, before, after = findings.plan, findings.whole.wait, findings.chunked.wait
    second = (
        f"with {plan.chunks} chunks" if plan.second_read is Reading.CHUNKS else "in the second run"
    )
    numbers = (
        f"A document's sender waited {before.median:.2f} s for a first token "
        f"{_first_run(plan)} ({before.range_text(' s', 2, 'runs')}). "
        f"{second[0].upper()}{second[1:]} it waited {after.median:.2f} s "
        f"({after.range_text(' s', 2, 'runs')})"
    )
    queue = _queue_text(findings)
    if findings.wait_verdict is None:
        return numbers + (
            ". That run read it in one step too, so whatever separates the two "
            "waits is not chunking's doing." + fold(queue)
        )
    if findings.wait_verdict is Compared.HIGHER:
        return (
            numbers + f", {findings.wait_ratio:.1f}× as long." + fold(queue + _cost_text(findings))
        )
    if findings.wait_verdict is Compared.LOWER:
        return numbers + (
            ": sooner beyond the spread, which is not the usual outcome. On a "
            "busy machine the single long step can be the slower one." + fold(queue)
        )
    return f"{numbers}. {cannot_tell('the two waits apart.', overlap(start=True))}" + fold(queue)


def _cost_text(findings: TradeFindings) -> str:
    """The chunked read's extra time alone, in all and per chunk, beside the runs' difference."""
    verdict, alone, chunk_ms = findings.alone_cost, findings.alone, findings.extra_chunk_ms
    if verdict is None or alone is None or chunk_ms is None:
        return (
            " This run did not read the document alone in chunks, so it cannot say how much "
            "of the later first token is chunking's own cost."
        )
    if verdict is Shown.UNTOLD:
        return (
            f" Alone, with nothing else running, the document took {alone.one_step_s:.2f} s "
            f"in one step, longer than any of its reads beside the users "
            f"({findings.whole.wait.range_text(' s', 2, 'runs')}): the reads alone were "
            "disturbed, so these runs cannot say how much of the later first token is "
            "chunking's own cost."
        )
    both = (
        f" Alone, with nothing else running, the document took {alone.one_step_s:.2f} s in "
        f"one step and {alone.chunked_s:.2f} s in {findings.plan.chunks} chunks"
    )
    if verdict is Shown.NONE:
        return both + (
            ": no slower in chunks, so these reads show no cost of chunking itself; "
            f"beside the users, the medians above differ by "
            f"{findings.wait_extra_s:.2f} s."
        )
    return both + (
        f": {alone.extra_s:+.2f} s, {chunk_ms:+,.0f} ms a chunk. Beside the "
        f"users, the medians above differ by {findings.wait_extra_s:.2f} s." + _load_text(findings)
    )


def _load_text(findings: TradeFindings) -> str:
    """The reads beside the users against the reads alone, and what each chunk's step carried."""
    extra, chunk_ms, step_ms = findings.load_extra_s, findings.load_chunk_ms, findings.plan.step_ms
    if extra is None or chunk_ms is None:
        return ""
    carried = (
        f"about the users' usual step ({step_ms:,.0f} ms), the decoding each chunk's step "
        "also carried"
        if findings.load_chunk_is_a_step
        else f"not one of the users' usual steps ({step_ms:,.0f} ms): the queue of documents "
        "and the machine's other work count too"
    )
    return (
        f" Against the reads alone, beside the users the document took {extra[0]:+.2f} s in "
        f"one step and {extra[1]:+.2f} s in chunks, {chunk_ms:+,.0f} ms a chunk: {carried}."
    )


def sizing_text(plan: BudgetPlan, fit: PrefillFit | None = None) -> str:
    """How the chunked run's budget followed from the measured prefill rate (chapters 00, 06);
    given the ``fit`` it came from, the rate is named once, in the fit's own words."""
    bought = (
        f"A step that carries a chunk lasts about as long as the users' usual step plus "
        f"the chunk's reading. The usual step took {plan.step_ms:,.0f} ms when the budget "
        "was sized: their decoding and the engine's fixed work per step. "
        f"So a pause of about {plan.pause_ms:,.0f} ms "
    )
    bought += (
        f"leaves {plan.read_ms:,.0f} ms to read in, which buys {plan.whole_tokens:,} tokens. "
        if plan.leaves_read_time
        else "leaves no time to read a chunk in. "
    )
    if fit is None:
        text = (
            f"Alone, the document was read at {plan.prefill_tok_s:,.0f} tokens/s on this "
            f"device. {bought}"
        )
    else:
        text = f"This device: {fit}. {bought}"
    if plan.sizing is Sizing.FLOOR:
        return text + (
            f"A step must have room for every sequence it may hold, so the second run's "
            f"budget is {plan.budget} tokens, and its pauses will be longer than aimed "
            f"for."
        )
    if plan.sizing is Sizing.WHOLE:
        return text + (
            "That covers the whole document, so the second run cannot split it: this "
            "device reads prompts fast enough that one step is already short."
        )
    if plan.under_a_block:
        return text + (
            f"That is less than one of this engine's {plan.block}-token blocks, so "
            f"it is not rounded: the second run's budget is {plan.budget} tokens."
        )
    return text + (
        f"Rounded down to whole blocks of {plan.block} tokens (this engine's block), "
        f"the second run's budget is {plan.budget} tokens."
    )


def gaps_title(findings: TradeFindings) -> str:
    """The gaps plot's title: the median longest pause either way, first runs drawn."""
    return (
        f"Over {findings.pause_runs} runs a side, the median longest pause was "
        f"{findings.whole.pause.median:,.0f} ms in one step, "
        f"{findings.chunked.pause.median:,.0f} ms with {findings.plan.budget}-token chunks "
        "(first runs drawn)"
    )


def trade_title(findings: TradeFindings) -> str:
    """The trade plot's title: the worst pause and the document's first token, either way."""
    return (
        f"Median worst pause {findings.whole.pause.median:,.0f} → "
        f"{findings.chunked.pause.median:,.0f} ms; document's first token "
        f"{findings.whole.wait.median:.2f} → {findings.chunked.wait.median:.2f} s"
    )


def story(findings: TradeFindings, prediction: str) -> str:
    """The page's interpretation, in Markdown, from the findings of the two runs."""
    plan = findings.plan
    measured = (
        f"a median longest pause of {findings.whole.pause.median:,.0f} ms "
        f"{_first_run(plan)} and {findings.chunked.pause.median:,.0f} ms in "
        f"{plan.budget}-token chunks. The document's first token came after "
        f"{findings.whole.wait.median:.2f} s and {findings.chunked.wait.median:.2f} s."
    )
    return page_story(
        prediction,
        measured,
        [
            ("What the engine did", _default_text(plan) + sizing_text(plan)),
            ("What the users felt", _users_text(findings)),
            ("What the document paid", _document_text(findings)),
            (
                "The dial",
                "Without a cap on the step, one long prompt stalls everyone who is already "
                "reading an answer. A cap turns the stall into several shorter hitches, and "
                "can make the long prompt's own first token later. The budget decides where "
                "on that line a server sits. The plot above shows the two points this run "
                "measured. The users' own runs say which side of the trade they came out "
                "on.",
            ),
        ],
        [
            Aim(f"the longest pause {how}", run.pause.median, Unit.MS)
            for how, run in (("in one step", findings.whole), ("in chunks", findings.chunked))
        ],
    )
