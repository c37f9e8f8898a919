"""Chapter 00, the lesson in one notebook: the per-request prefix probe and the words each
measurement turns into. Every effect is found elsewhere, once, and shared with its deep-dive
chapter: batching in ``servelab.chapters.batch_findings`` (01, 02), paging in
``paging_findings`` (03), prefix reuse in ``reuse_findings`` (04), chunked prefill and the
summary's three effects in ``lesson_findings``. (Where the lesson comes from, and the credit its
licence asks for, is course tooling: ``course.lesson``.)

Every ``*_text`` function words a findings record in Markdown and says plainly when an effect
did not show; the chapter shows it with ``display(Markdown(...))``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from servelab.chapters.batch_findings import LESSON_GPU, BatchFindings, BatchVerdict
from servelab.chapters.lesson_findings import (
    ChunkFindings,
    DocumentVerdict,
    LessonFindings,
    SliceVerdict,
    TailVerdict,
)
from servelab.chapters.paging_findings import PagingFindings, RanVerdict
from servelab.chapters.reuse_findings import ReuseFindings
from servelab.chapters.thresholds import PAUSE_GAIN_SHOWN, SLICE_OVER_PLAN


# -- one stream against a batch ----------------------------------------------------------------
def batching_text(found: BatchFindings) -> str:
    """What the concurrency sweep showed, beside the lesson's figures."""
    lesson = (f"The lesson's GPU goes from {LESSON_GPU.single_total:.0f} to "
              f"{LESSON_GPU.top_total:,.0f} tok/s with {LESSON_GPU.users} streams "
              f"({LESSON_GPU.gain:.0f}×), each user keeping about {LESSON_GPU.kept:.0%} of the "
              "single-stream speed.")
    if found.verdict is BatchVerdict.NOT_SHOWN:
        return (f"With **{found.users}** users the total ({found.basis}) was only "
                f"**{found.gain:.1f}×** the single stream's ({found.top_total:.0f} against "
                f"{found.single_total:.0f} tok/s), so this run did not show the gain from "
                f"batching. Something else may have been using the processor. {lesson}")
    measured = (f"With **{found.users}** users decoding together the server produced "
                f"**{found.top_total:.0f} tok/s** in total ({found.basis}), "
                f"**{found.gain:.1f}×** the **{found.single_total:.0f} tok/s** of one user "
                f"alone, and each user decoded at **{found.top_each:.1f} tok/s**, "
                f"**{found.kept:.0%}** of the single-stream speed.")
    if found.verdict is BatchVerdict.AS_IN_LESSON:
        cost = ("Each user gave up a little speed and the machine did many times more work: "
                "the same shape as the lesson's figure.")
    else:
        cost = (f"Here each user lost more than in the lesson: a step carrying {found.users} "
                f"sequences took about {found.step_cost:.1f}× as long as a step carrying one, "
                "so on this device a bigger batch costs more per step than on the lesson's GPU.")
    return f"{measured} {lesson} {cost}"


def paging_text(paging: PagingFindings) -> str:
    """What the engine said fits (requests of the full context) against how many sequences the
    sweep's server ran at once (``running_max`` sampled from /metrics)."""
    fit = (f"The engine's log said its cache holds {paging.cache_tokens:,} tokens: room for "
           f"**{paging.engine_concurrency:.1f}** requests of the full "
           f"{paging.fit.context_limit:,}-token context at once.")
    if paging.ran_verdict is RanVerdict.NOT_SAMPLED:
        return f"{fit} This run sampled no running count to set beside it."
    if paging.ran_verdict is RanVerdict.PAST_RESERVATION:
        return (f"{fit} Yet **{paging.ran:.0f}** sequences ran at once in the sweep: each held "
                "only the blocks its own tokens filled, not a whole context. That is paged "
                "attention (chapter 03).")
    return (f"{fit} In the sweep at most {paging.ran:.0f} ran at once, no more than reserving "
            "whole contexts would allow, so this run does not show what paging adds.")


# -- a shared system prompt, reused or not --------------------------------------------------


def prefix_text(reuse: ReuseFindings) -> str:
    """What the per-request probe showed with reuse on and off."""
    if not reuse.reused:
        return (f"After the first request, reuse on computed **{reuse.later_on:.0f}** prompt "
                f"tokens per request and reuse off **{reuse.later_off:.0f}**: this run did not "
                "show the cached prefix being reused.")
    tokens = (f"Every request sent **{reuse.prompt_tokens:.0f}** prompt tokens. With reuse on, "
              f"the first one computed **{reuse.first_computed:.0f}** of them and each later one "
              f"only **{reuse.later_on:.0f}**; the rest came from cached blocks. With reuse off "
              f"each later request computed **{reuse.later_off:.0f}**.")
    if reuse.sooner:
        wait = (f"A later request's first token came after **{reuse.ttft_on_ms:.0f} ms** instead "
                f"of **{reuse.ttft_off_ms:.0f} ms**, **{reuse.ttft_gain:.1f}×** sooner: skipping "
                f"the cached part removed {reuse.wait_removed:.0%} of the wait.")
    else:
        wait = (f"Yet a later request's first token came only {reuse.ttft_gain:.1f}× sooner "
                f"({reuse.ttft_on_ms:.0f} ms against {reuse.ttft_off_ms:.0f} ms), so in this run "
                "most of the wait was not the prompt's prefill.")
    return f"{tokens} {wait}"


# -- a long prompt arriving mid-decode --------------------------------------------------------
def _plan_text(chunks: ChunkFindings) -> str:
    plan = chunks.plan
    planned = (f"Each slice was planned to take about **{plan.estimate_ms:.0f} ms**: the rate at "
               f"which the first server read a lone prompt, applied to {plan.budget} tokens.")
    verdict = chunks.slice_verdict
    if verdict is SliceVerdict.AS_PLANNED:
        return (f"{planned} The longest pause in slices, {chunks.longest_sliced_ms:.0f} ms, "
                f"stayed within {SLICE_OVER_PLAN:g}× of that plan.")
    left_out = ("The plan counts only a slice's own tokens read alone; in the run every step "
                "also carried the users' tokens, and each later slice attends to all the "
                "document's tokens before it, work the plan leaves out.")
    spread = (f"The document's {chunks.document_sliced_s:.2f} s wait for its first token, "
              f"shared by its {plan.slices} slices, comes to about "
              f"**{chunks.average_slice_ms:.0f} ms** a slice")
    if verdict is SliceVerdict.ONE_STEP_OVER:
        return (f"{planned} {spread}, within {SLICE_OVER_PLAN:g}× of the plan, yet the longest "
                f"pause was **{chunks.longest_sliced_ms:.0f} ms**, "
                f"{chunks.longest_over_plan:.2f}× the plan, past that bar: a single step can run "
                f"over the plan while the average slice does not. {left_out}")
    return (f"{planned} {spread}, {chunks.average_over_plan:.1f}× the plan, and the longest "
            f"pause was **{chunks.longest_sliced_ms:.0f} ms**: on this device a slice cost more "
            f"than the rate of a lone prompt predicts. {left_out}")


def _tail_text(chunks: ChunkFindings) -> str:
    on, off = chunks.tail_sliced_ms, chunks.tail_whole_ms
    if chunks.tail_verdict is TailVerdict.WORSE:
        return (f"Slicing has a price in the ordinary gaps, though: the document's slices shared "
                f"many steps with the users, and the slowest 1 % of all their gaps (p99) grew "
                f"from **{off:.0f} ms** in one step to **{on:.0f} ms** in slices. One long "
                "freeze became many shorter ones, each still longer than a usual gap.")
    if chunks.tail_verdict is TailVerdict.BETTER:
        return (f"The slowest 1 % of all the users' gaps (p99) fell from **{off:.0f} ms** in one "
                f"step to **{on:.0f} ms** in slices: the single freeze had set the tail.")
    return (f"The slowest 1 % of all the users' gaps (p99) was {on:.0f} ms in slices and "
            f"{off:.0f} ms in one step, within {PAUSE_GAIN_SHOWN:g}× of each other, so this "
            "run did not show slicing changing that tail.")


def _paid_text(chunks: ChunkFindings) -> str:
    on, off = chunks.document_sliced_s, chunks.document_whole_s
    if chunks.document_verdict is DocumentVerdict.SAME:
        return (f"The document's own first token came at about the same time either way "
                f"({on:.2f} s chunked, {off:.2f} s whole).")
    if chunks.document_verdict is DocumentVerdict.LATER:
        return (f"The document's sender paid for it: their first token came after "
                f"**{on:.2f} s** in slices against **{off:.2f} s** in one step.")
    return (f"The document's first token came no later in slices ({on:.2f} s against "
            f"{off:.2f} s in one step), so this run charged the smoother stream to nobody.")


def chunking_text(chunks: ChunkFindings) -> str:
    """What the users felt and what the document paid, read in slices and in one step."""
    budget, document_tokens = chunks.plan.budget, chunks.plan.document_tokens
    sliced_s, whole_s = chunks.longest_sliced_ms / 1000, chunks.longest_whole_ms / 1000
    if chunks.shortened:
        pauses = (f"Read in one step, the {document_tokens}-token prompt froze the other users "
                  f"for **{whole_s:.2f} s** at the longest, against a usual gap of "
                  f"**{chunks.usual_gap_ms:.0f} ms** between their tokens. Read in slices of at "
                  f"most {budget} tokens, the longest pause was **{sliced_s:.2f} s**, "
                  f"{chunks.pause_gain:.1f}× shorter.")
    else:
        pauses = (f"The users' longest pause was {sliced_s:.2f} s in slices of {budget} tokens "
                  f"and {whole_s:.2f} s in one step: this run did not show chunking shortening "
                  "the freeze.")
    return f"{pauses} {_plan_text(chunks)} {_tail_text(chunks)}\n\n{_paid_text(chunks)}"


# -- the closing summary ----------------------------------------------------------------------
def prediction_beside_list_text(prediction: str) -> str:
    """The reader's own guess from the top of the chapter, set beside the list of measurements
    that ``summary_text`` writes above it ("Compare it with the list above"). Pages with one
    measured phrase use ``servelab.chapters.prediction.prediction_text`` instead."""
    if not prediction.strip():
        return ("You left `my_prediction` empty; write a guess there before a rerun, then "
                "compare it with the list above.")
    return f"You predicted: “{prediction.strip()}”. Compare it with the list above."


def summary_text(found: LessonFindings, prediction: str) -> str:
    """One line per effect saying what this run measured, then the reader's prediction."""
    batch, reuse, chunks = found.batching, found.reuse, found.chunking
    if batch.shown:
        batching = (f"**Batching:** {batch.users} users got {batch.gain:.1f}× the total of one "
                    f"user, each at {batch.kept:.0%} of its speed.")
    else:
        batching = (f"**Batching:** not shown in this run ({batch.gain:.1f}× at {batch.users} "
                    "users).")
    if reuse.reused:
        prefix = (f"**Prefix caching:** a repeat of the shared prompt computed "
                  f"{reuse.later_on:.0f} tokens instead of {reuse.later_off:.0f}; first token "
                  f"{reuse.ttft_gain:.1f}× sooner.")
    else:
        prefix = "**Prefix caching:** no reuse showed in this run."
    if chunks.shortened:
        chunking = (f"**Chunked prefill:** the longest pause fell from "
                    f"{chunks.longest_whole_ms / 1000:.2f} s to "
                    f"{chunks.longest_sliced_ms / 1000:.2f} s; the document's first token came "
                    f"at {chunks.document_sliced_s:.2f} s instead of "
                    f"{chunks.document_whole_s:.2f} s.")
    else:
        chunking = (f"**Chunked prefill:** no shorter pause in this run "
                    f"({chunks.pause_gain:.1f}×).")
    lines = [f"- {batching}", f"- {prefix}", f"- {chunking}"]
    return "\n".join(lines) + "\n\n" + prediction_beside_list_text(prediction)


def plot_prefix(reuse: pd.DataFrame, control: pd.DataFrame, title: str):
    """Prompt tokens computed and time to first token, request by request, reuse on and off."""
    import matplotlib.pyplot as plt

    from servelab.plots import SERIES_COLORS, legend_below, style

    x = np.arange(len(reuse))
    with style():
        figure, axes = plt.subplots(1, 2, figsize=(10.0, 3.8), layout="constrained")
        for ax, column, label in ((axes[0], "computed", "prompt tokens computed (tokens)"),
                                  (axes[1], "ttft_ms", "time to first token (ms)")):
            ax.bar(x - 0.2, reuse[column], width=0.4, label="reuse on",
                   color=SERIES_COLORS[0])
            ax.bar(x + 0.2, control[column], width=0.4, label="reuse off",
                   color=SERIES_COLORS[1])
            ax.set_xticks(x, [str(n) for n in reuse["request"]])
            ax.set_xlabel("request, in the order sent")
            ax.set_ylabel(label)
        figure.suptitle(title, fontweight="bold")
        legend_below(figure)
    return figure
