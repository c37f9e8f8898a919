"""The words of chapter 03: paging, the small cache's squeeze and admission, each from its findings
record (``paging.findings``). Each function says plainly when an effect did not show; the chapter
displays it in a cell tagged ``prose``.
"""

from __future__ import annotations

from servelab.lessons.paging.findings import (
    AdmissionFindings,
    PagingFindings,
    RanVerdict,
    SqueezeFindings,
    TokenCost,
)
from servelab.lessons.prediction import prediction_text


def _plural(count: int) -> str:
    return "s" if count != 1 else ""


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
