"""Chapter 00, the lesson in one notebook: the per-request prefix probe and the words each
measurement turns into. Every effect is found elsewhere, once, and shared with its deep-dive
chapter: batching in ``servelab.lessons.batching.findings`` (01, 02), paging in
``paging.findings`` (03), prefix reuse in ``prefix.reuse_findings`` (04), chunked prefill in
``chunking.findings`` (06, whose words chapter 00 shows too), and the summary's three
effects in ``serving_many_users.findings``. (Where the lesson comes from, and the credit its licence
asks for, is course tooling: ``course.lesson``.)

Every ``*_text`` function words a findings record in Markdown and says plainly when an effect
did not show; the chapter shows it with ``display(Markdown(...))``.
"""

from __future__ import annotations

from servelab.lessons.batching.findings import LESSON_GPU, BatchFindings
from servelab.lessons.batching.words import NOISE_TEXT, crowd_table, sweep_ranges
from servelab.lessons.chunking.findings import TradeFindings
from servelab.lessons.chunking.sizing import DocumentLoad
from servelab.lessons.compare import Compared, Placed, Shown
from servelab.lessons.fold import fold
from servelab.lessons.guess import Aim, Unit
from servelab.lessons.paging.findings import PagingFindings
from servelab.lessons.prediction import score_text
from servelab.lessons.prefix.reuse_findings import ReuseFindings
from servelab.lessons.serving_many_users.findings import LessonFindings
from servelab.lessons.untold_words import cannot_tell, overlap


# -- one stream against a batch ----------------------------------------------------------------
def batching_text(found: BatchFindings) -> str:
    """What the concurrency sweep showed, beside the lesson's figures."""
    lesson = (
        f"The lesson's GPU goes from {LESSON_GPU.single_total:,.0f} to "
        f"{LESSON_GPU.top_total:,.0f} tok/s with {LESSON_GPU.users} streams "
        f"({LESSON_GPU.gain:,.0f}×), each user keeping about {LESSON_GPU.kept:.0%} of the "
        "single-stream speed."
    )
    if found.within_noise:
        return (
            f"With **{found.users}** users the total ({found.basis}) was "
            f"**{found.gain:.1f}×** the single stream's{sweep_ranges(found)}, yet "
            f"{NOISE_TEXT}. {lesson}"
        )
    if found.verdict is Shown.NONE:
        return (
            f"With **{found.users}** users the total ({found.basis}) was only "
            f"**{found.gain:.1f}×** the single stream's ({found.top_total:,.0f} against "
            f"{found.single_total:,.0f} tok/s). So this run did not show the gain from "
            f"batching. Something else may have been using the processor. {lesson}"
        )
    measured = (
        f"With **{found.users}** users decoding together the server produced "
        f"**{found.gain:.1f}×** the total of one user alone ({found.basis})." + crowd_table(found)
    )
    if found.verdict is Shown.STRONG:
        cost = (
            f"Each user gave up {found.lost:.0%} of its speed and the machine did "
            f"{found.gain:,.1f}× the work: the same shape as the lesson's figure."
        )
    elif found.short_untold and found.kept_bounds is not None:
        cost = (
            f"By the medians each user lost more than in the lesson, but pairing the slowest "
            f"and quickest sweeps allows each user anything from {found.kept_bounds[0]:.0%} "
            f"to {found.kept_bounds[1]:.0%} of its speed, so this run cannot say it did."
        )
    else:
        cost = (
            f"Here each user lost more than in the lesson: a step carrying {found.users} "
            f"sequences took about {found.step_cost:.1f}× as long as a step carrying one, "
            "so on this device a bigger batch costs more per step than on the lesson's GPU."
        )
    return measured + fold(f"{lesson} {cost}")


def paging_text(paging: PagingFindings) -> str:
    """What the engine said fits (requests of the full context) against how many sequences the
    sweep's server ran at once (``running_max`` sampled from /metrics)."""
    fit = (
        f"The engine's log said its cache holds {paging.cache_tokens:,} tokens: room for "
        f"**{paging.engine_concurrency:.1f}** requests of the full "
        f"{paging.fit.context_limit:,}-token context at once."
    )
    if paging.ran_verdict is None:
        return f"{fit} This run sampled no running count to set beside it."
    if paging.ran_verdict is Placed.ABOVE:
        return (
            f"{fit} Yet **{paging.ran:,.0f}** sequences ran at once in the sweep: each held "
            "only the blocks its own tokens filled, not a whole context. That is paged "
            "attention (chapter 03)."
        )
    return (
        f"{fit} In the sweep at most {paging.ran:,.0f} ran at once, no more than reserving "
        "whole contexts would allow. So this run does not show what paging adds."
    )


# -- a shared system prompt, reused or not --------------------------------------------------


def prefix_text(reuse: ReuseFindings) -> str:
    """What the per-request probe showed with reuse on and off."""
    if not reuse.reused:
        return (
            f"After the first request, reuse on computed **{reuse.later_on:,.0f}** prompt "
            f"tokens per request and reuse off **{reuse.later_off:,.0f}**. This run did not "
            "show the cached prefix being reused."
        )
    tokens = (
        f"Every request sent **{reuse.prompt_tokens:,.0f}** prompt tokens. With reuse on, "
        f"the first one computed **{reuse.first_computed:,.0f}** of them and each later one "
        f"only **{reuse.later_on:,.0f}**. The rest came from cached blocks. With reuse off "
        f"each later request computed **{reuse.later_off:,.0f}**."
    )
    return f"{tokens} {_first_token_text(reuse)}"


def _first_token_text(reuse: ReuseFindings) -> str:
    """The later requests' first tokens with reuse on and off, medians beside their ranges."""
    on, off, verdict = reuse.ttft_on, reuse.ttft_off, reuse.ttft_verdict
    if on is None or off is None:
        return "The probe did not time first tokens."
    ranges = f"({on.range_text(' ms')} with reuse, {off.range_text(' ms')} without)"
    if verdict is Shown.STRONG:
        return (
            f"The later requests' median first token came after **{on.median:,.0f} ms** "
            f"instead of **{off.median:,.0f} ms** {ranges}. That is **{reuse.ttft_gain:.1f}×** "
            f"sooner, and even the slowest with reuse beat the quickest without. Skipping "
            f"the cached part removed {reuse.wait_removed:.0%} of the wait."
        )
    if verdict is Shown.WEAK:
        return (
            f"Yet the later requests' median first token came only {reuse.ttft_gain:.1f}× "
            f"sooner ({on.median:,.0f} ms against {off.median:,.0f} ms) {ranges}. So in "
            "this run most of the wait was not the prompt's prefill."
        )
    why = (
        "One later request a side gives no range to compare"
        if reuse.ttft_one_a_side
        else overlap(start=True)
    )
    return (
        f"The later requests' median first token came after {on.median:,.0f} ms with reuse "
        f"and {off.median:,.0f} ms without {ranges}. "
        + cannot_tell("whether reuse made first tokens sooner.", why)
    )


# -- the closing summary ----------------------------------------------------------------------
def prediction_beside_list_text(prediction: str) -> str:
    """The reader's own guess from the top of the chapter, set beside the list of measurements
    that ``summary_text`` writes above it ("Compare it with the list above"). Pages with one
    measured phrase use ``servelab.lessons.prediction.prediction_text`` instead."""
    if not prediction.strip():
        return (
            "You left `my_prediction` empty; write a guess there before a rerun, then "
            "compare it with the list above."
        )
    return f"You predicted: “{prediction.strip()}”. Compare it with the list above."


def _wait_words(chunks: TradeFindings) -> str:
    """The document's own first token either way, as the summary's clause."""
    chunked, whole = chunks.chunked.wait.median, chunks.whole.wait.median
    both = f"{chunked:.2f} s in slices against {whole:.2f} s in one step"
    if chunks.wait_verdict is Compared.HIGHER:
        return f"a document's first token came later, after {both}"
    if chunks.wait_verdict is Compared.LOWER:
        return f"a document's first token came sooner, after {both}"
    return (
        f"a document's first token came after {both}, ranges overlapping: no cost this run can tell"
    )


def summary_text(found: LessonFindings, prediction: str) -> str:
    """One line per effect saying what this run measured, then the reader's prediction."""
    batch, reuse, chunks = found.batching, found.reuse, found.chunking
    if batch.shown:
        batching = (
            f"**Batching:** {batch.users} users got {batch.gain:.1f}× the total of one "
            f"user{sweep_ranges(batch)}, each at {batch.kept:.0%} of its speed."
        )
    else:
        batching = (
            f"**Batching:** not shown in this run ({batch.gain:.1f}× at {batch.users} users)."
        )
    if reuse.reused:
        first = (
            f"first token {reuse.ttft_gain:.1f}× sooner (ranges apart)"
            if reuse.sooner
            else "first token not sooner beyond the spread"
        )
        prefix = (
            f"**Prefix caching:** a repeat of the shared prompt computed "
            f"{reuse.later_on:,.0f} tokens instead of {reuse.later_off:,.0f}; {first}."
        )
    else:
        prefix = "**Prefix caching:** no reuse showed in this run."
    whole, chunked = chunks.whole, chunks.chunked
    if chunks.pause_verdict is Shown.STRONG:
        chunking = (
            f"**Chunked prefill:** the users' longest pause fell from "
            f"{whole.pause_s:.2f} s to {chunked.pause_s:.2f} s "
            f"(medians over {chunks.pause_runs} runs a side, ranges "
            f"apart); {_wait_words(chunks)}."
        )
    else:
        chunking = (
            f"**Chunked prefill:** this run did not show a shorter pause beyond its "
            f"spread ({whole.pause_s:.2f} s in one step, "
            f"{chunked.pause_s:.2f} s in chunks)."
        )
    lines = [f"- {batching}", f"- {prefix}", f"- {chunking}"]
    aims = [
        Aim(f"the total at {batch.users} users against one", batch.gain, Unit.TIMES),
        Aim("each user's share of its speed", batch.kept, Unit.PERCENT),
        Aim("the tokens a repeat computed", reuse.later_on, Unit.TOKENS),
        Aim("the longest pause in one step", whole.pause.median, Unit.MS),
    ]
    scores = score_text(prediction, aims)
    return (
        "\n".join(lines)
        + "\n\n"
        + prediction_beside_list_text(prediction)
        + (f" {scores}" if scores else "")
    )


def batching_title(found: BatchFindings) -> str:
    """The concurrency plot's title: the total and each user's share."""
    return (
        f"{found.users} users: {found.gain:.1f}× the total of one, "
        f"each at {found.kept:.0%} of its speed"
    )


def reuse_title(reuse: ReuseFindings) -> str:
    """The reuse plot's title: the prompt tokens computed after the first request."""
    return (
        f"After the first request: {reuse.later_on:.0f} prompt tokens computed "
        f"with reuse, {reuse.later_off:.0f} without"
    )


def trade_title(findings: TradeFindings) -> str:
    """The chunking plot's title: the users' longest pause either way."""
    whole, chunked = findings.whole, findings.chunked
    return (
        f"A {findings.plan.document_tokens}-token prompt, {whole.pause.n} runs a side: the "
        f"users' longest pause was {whole.pause_s:.2f} s in one step, "
        f"{chunked.pause_s:.2f} s in slices (medians)"
    )


def lesson_summary(
    found: BatchFindings, reuse: ReuseFindings, findings: TradeFindings, prediction: str
) -> str:
    """The page's closing summary (:func:`summary_text`) from the three sections' findings."""
    return summary_text(LessonFindings(found, reuse, findings), prediction)


def load_line(load: DocumentLoad, user_tok_s: float) -> str:
    """The documents' spacing and the users' length, each user at ``user_tok_s`` (chapter 00)."""
    return (
        f"The document alone: {load.read_s:.2f} s to its first token, so the documents come "
        f"{load.spacing_s} s apart. At {user_tok_s:.1f} tok/s each, the {load.users} users "
        f"ask for {load.user_tokens} tokens."
    )
