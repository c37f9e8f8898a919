"""The words of chapter 03: paging, the small cache's squeeze and admission, each from its findings
record (``paging.findings``). Each function says plainly when an effect did not show; the chapter
displays it in a cell tagged ``prose``.
"""

from __future__ import annotations

from servelab.lessons.compare import Compared, Placed
from servelab.lessons.device_model.foretold import Foretold
from servelab.lessons.device_model.kept import StepLine
from servelab.lessons.device_model.words import foretold_text, line_source
from servelab.lessons.fold import fold
from servelab.lessons.guess import Aim, Unit
from servelab.lessons.paged_attention.pace import RoomyPace
from servelab.lessons.paging.findings import (
    AdmissionFindings,
    DrawnRun,
    PagingFindings,
    SqueezeFindings,
    TokenCost,
)
from servelab.lessons.paging.kv import BlockTable, RequestFit
from servelab.lessons.paging.thresholds import SQUEEZE_SLOWER
from servelab.lessons.plural import plural_s
from servelab.lessons.prediction import prediction_text
from servelab.lessons.untold_words import overlap


def paging_prediction(prediction: str, paging: PagingFindings) -> str:
    """Chapter 03's prediction beside what fits with full reservation and with blocks."""
    fit = paging.fit
    return prediction_text(
        prediction,
        (
            f"reserving {fit.context_limit:,} tokens for each request leaves room for "
            f"{fit.reserved} request{plural_s(fit.reserved)} in this cache "
            f"({fit.full_contexts:.2f} "
            f"full contexts). Blocks of {fit.block} leave room for {fit.paged}, each holding "
            f"{fit.request_held:,} tokens where a reservation holds {fit.held_factor:,.0f}× as much"
        ),
        [
            Aim(
                "the requests that fit with blocks against a reservation",
                paging.counts_ratio,
                Unit.TIMES,
            )
        ],
    )


def _rounding_text(paging: PagingFindings) -> str:
    fit = paging.fit
    if not paging.counts_ratio_off:
        return ""
    return fold(
        f"Dividing the counts gives {paging.counts_ratio:,.0f}×, not "
        f"{fit.held_factor:,.0f}×, only because each is rounded down to whole requests. "
        f"The cache holds {fit.full_contexts:.2f} full contexts, so {fit.reserved} whole "
        f"one{plural_s(fit.reserved)}."
    )


def _fit_text(paging: PagingFindings, cost: TokenCost) -> str:
    fit = paging.fit
    if paging.paging_gain:
        return (
            f"The engine's cache holds **{paging.cache_tokens:,}** tokens, {fit.blocks} blocks "
            f"of {fit.block} for sequences. Reserving the full context "
            f"({fit.context_blocks} blocks) fits **{fit.reserved}** request"
            f"{plural_s(fit.reserved)} at a time. A {cost.request_tokens}-token request "
            f"holds {fit.request_blocks} block{plural_s(fit.request_blocks)}, so "
            f"**{fit.paged}** fit. One reservation holds **{fit.held_factor:,.0f}×** what a "
            "request in blocks holds. That factor is how far real requests fall short of "
            "the limit, so it is set by your traffic, not by the card." + _rounding_text(paging)
        )
    return (
        f"With {cost.request_tokens}-token requests in blocks of {fit.block}, paging fits "
        f"{fit.paged} and full reservation {fit.reserved}: no gain at these sizes."
    )


def _duration_text(squeeze: SqueezeFindings) -> str:
    """The two loads' times over their runs, and whether the runs tell them apart."""
    small, roomy = squeeze.cramped_s, squeeze.roomy_s
    times = (
        f"The same work took **{small.with_range(unit=' s')}** in the small cache and "
        f"**{roomy.with_range(unit=' s')}** in the roomy one (median of {small.n} and "
        f"{roomy.n} runs, range in brackets)"
    )
    if squeeze.duration is Compared.HIGHER:
        return (
            f"{times}: the waiting cost {squeeze.time_ratio:.1f}× the time, with "
            f"the ranges apart and more than the {SQUEEZE_SLOWER:.0%} this book allows "
            "for noise."
        )
    if squeeze.duration is Compared.LOWER:
        return (
            f"{times}: the small cache finished sooner, in {squeeze.time_ratio:.1f}× "
            "the time, with the ranges apart. In these runs the roomy cache's fuller steps "
            "cost more time than the small cache's waiting did."
        )
    if squeeze.duration is Compared.ALIKE:
        return (
            f"{times}: the medians are within {SQUEEZE_SLOWER:.0%} of each other, so these "
            "runs cannot say the waiting cost any time."
        )
    return f"{times}: {overlap()}, so these runs cannot say the waiting cost any time."


def _squeeze_text(squeeze: SqueezeFindings) -> str:
    if not squeeze.waited:
        return (
            "In the small cache no request had to wait in these runs, so the squeeze did not "
            "show (a smoke-size run may be too small for it)."
        )
    preempted = (
        f"The engine preempted up to **{squeeze.preemptions:,.0f}** times in one run"
        if squeeze.preempted
        else "No sequence was preempted"
    )
    text = (
        f"In the small cache the samples, about every {squeeze.sample_s:.2f} s, saw up to "
        f"**{squeeze.running:,.0f}** running at once and up to **{squeeze.waiting:,.0f}** "
        f"waiting. {preempted}. {_duration_text(squeeze)}"
    )
    text += _tokens_text(squeeze)
    if squeeze.all_completed:
        return (
            f"{text} Every request still completed: a cache that is too small makes "
            "requests wait, it does not make them fail."
        )
    return f"{text} {squeeze.failed:,.0f} requests failed over these runs."


def _tokens_text(squeeze: SqueezeFindings) -> str:
    """A request's own tokens once it ran, in the small cache against the roomy one."""
    cramped, roomy = squeeze.cramped_tpot_ms, squeeze.roomy_tpot_ms
    if cramped is None or roomy is None:
        return ""
    both = (
        f"a time per output token of {cramped.with_range(unit=' ms')} in the small cache "
        f"and {roomy.with_range(unit=' ms')} in the roomy one"
    )
    if squeeze.tokens_faster:
        return (
            f" Once running, though, a request's tokens came faster in the small cache, "
            f"{both}: with fewer sequences running, each step carried fewer of them and "
            "took less time."
            + (
                " The small cache cost its requests time in the queue, not per token."
                if squeeze.took_longer
                else ""
            )
        )
    return (
        f" Once running, a request had {both}; the ranges do not put the small cache's "
        "tokens ahead."
    )


def paging_text(paging: PagingFindings, cost: TokenCost, squeeze: SqueezeFindings) -> str:
    """Chapter 03: what one token costs, what fits, and what the two loads showed."""
    token = (
        f"One token costs **{cost.bytes_per_token:,} bytes** of cache in {cost.dtype}, so "
        f"a full {cost.context_limit:,}-token context takes **{cost.context_mib:,.0f} MiB** "
        f"and a {cost.request_tokens}-token request **{cost.request_mib:.1f} MiB**."
    )
    if paging.ran_verdict is Placed.ABOVE:
        load = (
            f"Under load **{paging.ran:,.0f}** sequences ran at once; at the busiest moment "
            f"each held about **{paging.tokens_per_sequence:,.0f}** tokens of cache (whole "
            f"blocks of {paging.fit.block}), not {cost.context_limit:,}."
        )
    else:
        load = (
            f"Under load at most {paging.ran:,.0f} sequences ran at once, no more than full "
            "reservation allows, so this run did not show paging's gain in practice."
        )
    return "\n\n".join([token, _fit_text(paging, cost), load, _squeeze_text(squeeze)])


def _budget_text(admission: AdmissionFindings) -> str:
    step = admission.step
    if not admission.budget_held:
        return ""
    text = (
        f"In the roomy cache up to **{admission.roomy_waiting:,.0f}** requests waited while "
        f"at most {admission.roomy_running:,.0f} were seen running, though "
        f"{admission.roomy_fit} would fit. Memory was not what held them. A step has a token "
        "budget (`max_num_batched_tokens`)"
    )
    budget = step.budget
    if step.one_step:
        return (
            f"{text}, here **{budget:,}** tokens as the servers were started, which holds all "
            f"{step.prompts} prompts of {step.prompt_tokens} tokens "
            f"({step.total_tokens:,} tokens) in one step. The budget does not explain the "
            "wait in this run either."
        )
    return (
        f"{text}, here **{budget:,}** tokens as the servers were started. A step of {budget:,} "
        f"tokens holds **{step.per_step}** whole prompts of {step.prompt_tokens} tokens. "
        f"The {step.prompts} prompts that arrived together are {step.total_tokens:,} tokens. "
        f"So by that arithmetic reading them takes **{step.steps}** steps, and "
        f"{step.left_waiting} of them wait for a later step."
    )


def _blocks_text(admission: AdmissionFindings) -> str:
    room = admission.cramped_room
    return (
        f"The small cache has **{room.blocks}** blocks of {room.block} for sequences. A "
        f"{room.request_tokens}-token request needs **{room.request_blocks}** at its full "
        f"length, so **{admission.cramped_fit}** fit whole. Its "
        f"{admission.step.prompt_tokens}-token prompt needs "
        f"{admission.prompt_blocks}. So on their prompts' blocks alone the engine can admit "
        f"up to **{admission.admitted_on_prompts}**."
    )


def _optimistic_text(admission: AdmissionFindings) -> str:
    if not admission.optimistic:
        return ""
    bet = (
        "The engine admits a request once its prompt's blocks are free, betting that not "
        "every answer reaches its full length at the same time; when the blocks run out "
        "mid-answer it preempts a sequence (frees its blocks and computes it again later)"
    )
    seen = (
        f"The samples, about every {admission.sample_s:.2f} s, saw "
        f"**{admission.cramped_running:,.0f}** running at once"
    )
    if not admission.seen_past_fit:
        return (
            f"{_blocks_text(admission)} {seen}, no more than fit whole, but a peak can fall "
            f"between two samples: the **{admission.cramped_preemptions:,.0f}** preemptions "
            "show that more were admitted than the blocks could carry to the end. "
            f"{bet}."
        )
    paid = (
        f"which is what its {admission.cramped_preemptions:,.0f} preemptions were"
        if admission.preempted
        else "though in this run no answer grew far enough to need it"
    )
    return (
        f"{_blocks_text(admission)} {seen}, more than the {admission.cramped_fit} that fit "
        f"whole. {bet}, {paid}."
    )


def admission_text(admission: AdmissionFindings) -> str:
    """Chapter 03: why the running counts differ from what fits. Waiting beside free blocks is
    the step's token budget, counted in prompts per step; running more than fits is optimistic
    admission, paid for with preemption, shown with the small cache's block arithmetic."""
    return "\n\n".join(
        part for part in (_budget_text(admission), _optimistic_text(admission)) if part
    )


def pace_forecast_text(line: StepLine | None, batch: int) -> str:
    """What the step line predicts for a token before the load runs."""
    if line is None:
        return "No step line to predict from: the load runs without a prediction."
    return (
        f"The step line predicts about {line.fit.at(batch):,.0f} ms a token with {batch} "
        "sequences running."
    )


def pace_text(pace: RoomyPace) -> str:
    """The roomy load's time per token beside the step line's prediction, and the miss."""
    predicted, measured, found = pace.predicted_ms, pace.measured, pace.foretold
    if predicted is None or pace.line is None:
        return "No step line was to hand, so nothing predicted this load's time per token."
    text = (
        f"**The step line predicted {predicted:,.0f} ms a token** with {pace.batch:,.0f} "
        f"sequences running at once (from {line_source(pace.line.fitted_in)})."
    )
    if measured is None or found is None:
        return f"{text} The runs did not time their tokens, so nothing checks it."
    text += (
        f" The roomy runs measured {measured.with_range(0, ' ms')}: the prediction "
        f"{foretold_text(found, measured)}."
    )
    if found is not Foretold.OFF:
        return text
    if pace.slower:
        return (
            f"{text} The tokens came {pace.gap_size_ms:,.0f} ms slower than the line. The line "
            f"was timed on sequences that only decode. Here the steps also read "
            f"{pace.prompts_read:,.0f} prompt tokens while answers of {pace.answer_tokens} "
            f"tokens streamed, and each sequence's context grew to {pace.context_tokens:,} "
            "tokens."
        )
    return (
        f"{text} The tokens came {pace.gap_size_ms:,.0f} ms faster than the line. The line "
        f"counts every step at the busiest moment's {pace.batch:,.0f} sequences; as answers "
        "finished, most steps carried fewer."
    )


def room_title(room: RequestFit) -> str:
    """The fit plot's title: requests that fit paged against reserving the context."""
    return f"Paging fits {room.paged} requests where full reservation fits {room.reserved}"


def block_table_title(table: BlockTable) -> str:
    """The block table's title: what a few requests hold against reserving the context."""
    return (
        f"{table.holders} request{plural_s(table.holders)} hold {table.held} blocks of "
        f"{table.block}; reserving the context would take {table.reserved}"
    )


def roomy_title(paging: PagingFindings) -> str:
    """The roomy cache's plot title: the sequences it ran against what reserving would fit."""
    return (
        f"{paging.ran:.0f} sequences at once in a cache that full reservation would give to "
        f"{paging.fit.reserved}"
    )


def cramped_title(drawn: DrawnRun, squeeze: SqueezeFindings) -> str:
    """The small cache's plot title: the drawn run's queue and preemptions."""
    return (
        f"A third of the room, first run: up to {drawn.running:.0f} running, "
        f"{drawn.waiting:.0f} waiting (sampled every {squeeze.sample_s:.2f} s), "
        f"{drawn.preemptions:.0f} preemptions"
    )
