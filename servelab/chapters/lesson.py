"""Chapter 00, the lesson in one notebook: the per-request prefix probe, the chunk budget, and
the text each measurement turns into. Batching's findings and the lesson's GPU figures are
``servelab.chapters.batch_findings``, shared with chapters 01 and 02. (Where the lesson comes
from, and the credit its licence asks for, is course tooling: ``course.lesson``.)

Every ``*_text`` function returns Markdown computed from the numbers it is given and says
plainly when an effect did not show; the chapter shows it with ``display(Markdown(...))``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd
from openai import OpenAI

from servelab.bench.client import PlannedRequest, request_body
from servelab.chapters.batch_findings import LESSON_GPU, BatchFindings, BatchVerdict
from servelab.chapters.prefix import prompt_tokens_by_source
from servelab.server import Capacity

# The other effects' bars (batching's are in ``servelab.chapters.batch_findings``).
REUSE_SHOWN = 0.5         # later requests computed under half the prompt tokens of the control
TTFT_GAIN_SHOWN = 1.5     # first token that many times sooner with reuse
PAUSE_GAIN_SHOWN = 1.5    # longest pause that many times shorter with chunking
SAME_TTFT = 0.05          # document's first token within 5 % counts as "about the same"
HIT_RATE_SHOWN = 0.05     # prefix-cache hit rates that many points apart differ (routing)
SAME_SPEED = 0.15         # output rates within 15 % count as the same (two copies, one server)
# A slice's step ran over its plan (the lone-prompt prefill rate applied to the budget) when it
# took more than this many times the plan; below it the plan held within timing noise.
SLICE_OVER_PLAN = 1.5


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


def paging_text(capacity: Capacity, sweep: pd.DataFrame) -> str:
    """What the engine said fits (requests of the full context) against how many sequences the
    sweep's server ran at once (``running_max`` sampled from /metrics)."""
    ran = float(sweep["running_max"].max()) if "running_max" in sweep else math.nan
    fit = (f"The engine's log said its cache holds {capacity.kv_cache_tokens:,} tokens: room for "
           f"**{capacity.max_concurrency:.1f}** requests of the full {capacity.max_model_len:,}-"
           "token context at once.")
    if math.isnan(ran):
        return f"{fit} This run sampled no running count to set beside it."
    if ran > capacity.max_concurrency:
        return (f"{fit} Yet **{ran:.0f}** sequences ran at once in the sweep: each held only the "
                "blocks its own tokens filled, not a whole context. That is paged attention "
                "(chapter 03).")
    return (f"{fit} In the sweep at most {ran:.0f} ran at once, no more than reserving whole "
            "contexts would allow, so this run does not show what paging adds.")


# -- a shared system prompt, reused or not --------------------------------------------------
def prefill_probe(server: object, plan: list[PlannedRequest]) -> pd.DataFrame:
    """Send ``plan`` one request at a time, streamed; one row per request with ``ttft_ms`` and
    its prompt tokens split into ``computed`` and ``from cache`` (the server's counters read
    before and after it)."""
    client = OpenAI(base_url=server.base_url, api_key="servelab", max_retries=0)
    rows = []
    for number, planned in enumerate(plan, start=1):
        before = prompt_tokens_by_source(server.url)
        sent = time.perf_counter()
        first = None
        stream = client.completions.create(model=server.model, prompt=planned.prompt,
                                           max_tokens=planned.max_tokens, stream=True,
                                           extra_body=request_body(planned))
        for chunk in stream:
            if first is None and chunk.choices:
                first = time.perf_counter()
        after = prompt_tokens_by_source(server.url)
        if first is None:
            raise RuntimeError(f"request {number} streamed no token")
        rows.append({"request": number, "ttft_ms": (first - sent) * 1000.0,
                     **{name: after[name] - before[name] for name in after}})
    client.close()
    return pd.DataFrame(rows)


def _later(frame: pd.DataFrame, column: str) -> float:
    """Mean of ``column`` over every request after the first (the first fills the cache)."""
    return float(frame[column].iloc[1:].mean())


def prefix_text(reuse: pd.DataFrame, control: pd.DataFrame) -> str:
    """What the per-request probe showed with reuse on (``reuse``) and off (``control``)."""
    prompt = float(reuse[["computed", "from cache"]].sum(axis=1).iloc[0])
    computed_on, computed_off = _later(reuse, "computed"), _later(control, "computed")
    ttft_on, ttft_off = _later(reuse, "ttft_ms"), _later(control, "ttft_ms")
    if computed_on >= REUSE_SHOWN * computed_off:
        return (f"After the first request, reuse on computed **{computed_on:.0f}** prompt tokens "
                f"per request and reuse off **{computed_off:.0f}**: this run did not show the "
                "cached prefix being reused.")
    tokens = (f"Every request sent **{prompt:.0f}** prompt tokens. With reuse on, the first one "
              f"computed **{reuse['computed'].iloc[0]:.0f}** of them and each later one only "
              f"**{computed_on:.0f}**; the rest came from cached blocks. With reuse off each "
              f"later request computed **{computed_off:.0f}**.")
    gain = ttft_off / ttft_on
    if gain >= TTFT_GAIN_SHOWN:
        wait = (f"A later request's first token came after **{ttft_on:.0f} ms** instead of "
                f"**{ttft_off:.0f} ms**, **{gain:.1f}×** sooner: skipping the cached part "
                f"removed {1 - 1 / gain:.0%} of the wait.")
    else:
        wait = (f"Yet a later request's first token came only {gain:.1f}× sooner "
                f"({ttft_on:.0f} ms against {ttft_off:.0f} ms), so in this run most of the wait "
                "was not the prompt's prefill.")
    return f"{tokens} {wait}"


# -- a long prompt arriving mid-decode --------------------------------------------------------
@dataclass(frozen=True)
class SlicePlan:
    """How the chunked run was planned: at most ``budget`` tokens a step, which the prefill rate
    of a lone prompt says a step reads in about ``estimate_ms``, for a ``document_tokens``
    prompt."""

    budget: int
    estimate_ms: float
    document_tokens: int

    @property
    def slices(self) -> int:
        return math.ceil(self.document_tokens / self.budget)


class SliceVerdict(StrEnum):
    """How the slices' steps compared with their plan."""

    AS_PLANNED = "as planned"          # even the longest pause stayed near the plan
    ONE_STEP_OVER = "a step over"      # a typical slice near the plan, the longest far over it
    ALL_OVER = "every slice over"      # even the average slice ran over the plan


def average_slice_ms(plan: SlicePlan, chunked: Mapping[str, float]) -> float:
    """The document's wait for its first token shared by its slices: what a slice's step took
    on average (an upper bound, since the wait also holds the step that made the token)."""
    return 1000.0 * chunked["document_ttft_s"] / plan.slices


def slice_verdict(plan: SlicePlan, chunked: Mapping[str, float]) -> SliceVerdict:
    """The longest pause and the average slice of the chunked run against the plan."""
    bar = SLICE_OVER_PLAN * plan.estimate_ms
    if chunked["users_longest_gap_ms"] <= bar:
        return SliceVerdict.AS_PLANNED
    if average_slice_ms(plan, chunked) <= bar:
        return SliceVerdict.ONE_STEP_OVER
    return SliceVerdict.ALL_OVER


class TailVerdict(StrEnum):
    """What slicing did to the slowest 1 % of the users' gaps, pooled over the run."""

    WORSE = "worse"
    BETTER = "better"
    SAME = "not clearly changed"


def tail_verdict(chunked: Mapping[str, float], whole: Mapping[str, float]) -> TailVerdict:
    """The pooled p99 gap in slices against in one step, by chapter 00's pause bar."""
    on, off = chunked["users_itl_ms_p99"], whole["users_itl_ms_p99"]
    if on > PAUSE_GAIN_SHOWN * off:
        return TailVerdict.WORSE
    if off > PAUSE_GAIN_SHOWN * on:
        return TailVerdict.BETTER
    return TailVerdict.SAME


def _plan_text(plan: SlicePlan, chunked: Mapping[str, float]) -> str:
    longest = chunked["users_longest_gap_ms"]
    average = average_slice_ms(plan, chunked)
    planned = (f"Each slice was planned to take about **{plan.estimate_ms:.0f} ms**: the rate at "
               f"which the first server read a lone prompt, applied to {plan.budget} tokens.")
    verdict = slice_verdict(plan, chunked)
    if verdict is SliceVerdict.AS_PLANNED:
        return (f"{planned} The longest pause in slices, {longest:.0f} ms, stayed within "
                f"{SLICE_OVER_PLAN:g}× of that plan.")
    left_out = ("The plan counts only a slice's own tokens read alone; in the run every step "
                "also carried the users' tokens, and each later slice attends to all the "
                "document's tokens before it, work the plan leaves out.")
    spread = (f"The document's {chunked['document_ttft_s']:.2f} s wait for its first token, "
              f"shared by its {plan.slices} slices, comes to about **{average:.0f} ms** a slice")
    if verdict is SliceVerdict.ONE_STEP_OVER:
        return (f"{planned} {spread}, within {SLICE_OVER_PLAN:g}× of the plan, yet the longest "
                f"pause was **{longest:.0f} ms**, {longest / plan.estimate_ms:.2f}× the plan, "
                f"past that bar: a single step can run over the plan while the average slice "
                f"does not. {left_out}")
    return (f"{planned} {spread}, {average / plan.estimate_ms:.1f}× the plan, and the longest "
            f"pause was **{longest:.0f} ms**: on this device a slice cost more than the rate of "
            f"a lone prompt predicts. {left_out}")


def _tail_text(chunked: Mapping[str, float], whole: Mapping[str, float]) -> str:
    on, off = chunked["users_itl_ms_p99"], whole["users_itl_ms_p99"]
    verdict = tail_verdict(chunked, whole)
    if verdict is TailVerdict.WORSE:
        return (f"Slicing has a price in the ordinary gaps, though: the document's slices shared "
                f"many steps with the users, and the slowest 1 % of all their gaps (p99) grew "
                f"from **{off:.0f} ms** in one step to **{on:.0f} ms** in slices. One long "
                "freeze became many shorter ones, each still longer than a usual gap.")
    if verdict is TailVerdict.BETTER:
        return (f"The slowest 1 % of all the users' gaps (p99) fell from **{off:.0f} ms** in one "
                f"step to **{on:.0f} ms** in slices: the single freeze had set the tail.")
    return (f"The slowest 1 % of all the users' gaps (p99) was {on:.0f} ms in slices and "
            f"{off:.0f} ms in one step, within {PAUSE_GAIN_SHOWN:g}× of each other, so this "
            "run did not show slicing changing that tail.")


def chunking_text(chunked: Mapping[str, float], whole: Mapping[str, float],
                  plan: SlicePlan) -> str:
    """What the users felt and what the document paid, with chunks planned by ``plan``
    (``chunked``) and with the document read in one step (``whole``): rows of
    ``servelab.chapters.chunked_prefill.compare``."""
    budget, document_tokens = plan.budget, plan.document_tokens
    ratio = whole["users_longest_gap_ms"] / chunked["users_longest_gap_ms"]
    normal = whole["users_itl_ms_p50"]
    if ratio >= PAUSE_GAIN_SHOWN:
        pauses = (f"Read in one step, the {document_tokens}-token prompt froze the other users "
                  f"for **{whole['users_longest_gap_ms'] / 1000:.2f} s** at the longest, against "
                  f"a usual gap of **{normal:.0f} ms** between their tokens. Read in slices of "
                  f"at most {budget} tokens, the longest pause was "
                  f"**{chunked['users_longest_gap_ms'] / 1000:.2f} s**, {ratio:.1f}× shorter.")
    else:
        pauses = (f"The users' longest pause was {chunked['users_longest_gap_ms'] / 1000:.2f} s "
                  f"in slices of {budget} tokens and "
                  f"{whole['users_longest_gap_ms'] / 1000:.2f} s in one step: this run did not "
                  "show chunking shortening the freeze.")
    on, off = chunked["document_ttft_s"], whole["document_ttft_s"]
    if abs(on - off) <= SAME_TTFT * off:
        paid = (f"The document's own first token came at about the same time either way "
                f"({on:.2f} s chunked, {off:.2f} s whole).")
    elif on > off:
        paid = (f"The document's sender paid for it: their first token came after **{on:.2f} s** "
                f"in slices against **{off:.2f} s** in one step.")
    else:
        paid = (f"The document's first token came no later in slices ({on:.2f} s against "
                f"{off:.2f} s in one step), so this run charged the smoother stream to nobody.")
    return (f"{pauses} {_plan_text(plan, chunked)} {_tail_text(chunked, whole)}\n\n{paid}")


# -- the closing summary ----------------------------------------------------------------------
def prediction_beside_list_text(prediction: str) -> str:
    """The reader's own guess from the top of the chapter, set beside the list of measurements
    that ``summary_text`` writes above it ("Compare it with the list above"). Pages with one
    measured phrase use ``servelab.chapters.prediction.prediction_text`` instead."""
    if not prediction.strip():
        return ("You left `my_prediction` empty; write a guess there before a rerun, then "
                "compare it with the list above.")
    return f"You predicted: “{prediction.strip()}”. Compare it with the list above."


def summary_text(found: BatchFindings, reuse: pd.DataFrame, control: pd.DataFrame,
                 chunked: Mapping[str, float], whole: Mapping[str, float],
                 prediction: str) -> str:
    """One line per effect saying what this run measured, then the reader's prediction."""
    if found.shown:
        batching = (f"**Batching:** {found.users} users got {found.gain:.1f}× the total of one "
                    f"user, each at {found.kept:.0%} of its speed.")
    else:
        batching = (f"**Batching:** not shown in this run ({found.gain:.1f}× at {found.users} "
                    "users).")
    computed_on, computed_off = _later(reuse, "computed"), _later(control, "computed")
    if computed_on < REUSE_SHOWN * computed_off:
        ttft_gain = _later(control, "ttft_ms") / _later(reuse, "ttft_ms")
        prefix = (f"**Prefix caching:** a repeat of the shared prompt computed "
                  f"{computed_on:.0f} tokens instead of {computed_off:.0f}; first token "
                  f"{ttft_gain:.1f}× sooner.")
    else:
        prefix = "**Prefix caching:** no reuse showed in this run."
    ratio = whole["users_longest_gap_ms"] / chunked["users_longest_gap_ms"]
    if ratio >= PAUSE_GAIN_SHOWN:
        chunking = (f"**Chunked prefill:** the longest pause fell from "
                    f"{whole['users_longest_gap_ms'] / 1000:.2f} s to "
                    f"{chunked['users_longest_gap_ms'] / 1000:.2f} s; the document's first token "
                    f"came at {chunked['document_ttft_s']:.2f} s instead of "
                    f"{whole['document_ttft_s']:.2f} s.")
    else:
        chunking = f"**Chunked prefill:** no shorter pause in this run ({ratio:.1f}×)."
    lines = [f"- {batching}", f"- {prefix}", f"- {chunking}"]
    return "\n".join(lines) + "\n\n" + prediction_beside_list_text(prediction)


def plot_prefix(reuse: pd.DataFrame, control: pd.DataFrame, title: str):
    """Prompt tokens computed and time to first token, request by request, reuse on and off."""
    import matplotlib.pyplot as plt

    from servelab.plots import SERIES_COLORS, style

    x = np.arange(len(reuse))
    with style():
        figure, axes = plt.subplots(1, 2, figsize=(10.0, 3.8))
        for ax, column, label in ((axes[0], "computed", "prompt tokens computed (tokens)"),
                                  (axes[1], "ttft_ms", "time to first token (ms)")):
            ax.bar(x - 0.2, reuse[column], width=0.4, label="reuse on",
                   color=SERIES_COLORS[0])
            ax.bar(x + 0.2, control[column], width=0.4, label="reuse off",
                   color=SERIES_COLORS[1])
            ax.set_xticks(x, [str(n) for n in reuse["request"]])
            ax.set_xlabel("request, in the order sent")
            ax.set_ylabel(label)
        axes[0].legend()
        figure.suptitle(title, fontweight="bold")
        figure.tight_layout()
    return figure
