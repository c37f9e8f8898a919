"""Chapter 10's words: the plan as arithmetic the reader can follow, the engine's verdict on it,
and the same brief on published cards. Each picks phrases from the plan's and the check's
figures and verdicts; nothing here compares."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from servelab.lessons.capacity_plan.findings import KneeMiss, PlanCheck, PlanVerdict, TargetShares
from servelab.lessons.capacity_plan.plan import (
    STATED,
    Bound,
    CapacityPlan,
    DatasheetGap,
    PublishedPlan,
)
from servelab.lessons.device_model.words import foretold_text
from servelab.lessons.fold import fold
from servelab.lessons.guess import Aim, Unit
from servelab.lessons.plural import plural_s
from servelab.lessons.prediction import prediction_text


def plan_text(plan: CapacityPlan) -> str:
    """The plan, step by step, in this device's numbers."""
    brief, step, batch = plan.brief, plan.step, plan.max_num_seqs
    by_time = (
        "any batch: neither the steps nor the prompts grew with it"
        if plan.by_time is None
        else f"{plan.by_time} sequences"
    )
    bound = {
        Bound.TIME: "the time per token sets it",
        Bound.MEMORY: "the KV cache sets it, before the time per token does",
        Bound.MEASURED: (
            f"the plan stops at the largest batch the line was measured at, "
            f"{plan.largest_measured}, rather than stretch the line past "
            "it"
        ),
    }[plan.bound]
    lead = (
        f"**The plan.** `max_num_seqs` = **{batch}**: {bound}. One server's knee is then "
        f"**{plan.rate_req_s:.1f} requests a second**. The target of {brief.rate_req_s:g} "
        f"requests a second needs **{plan.replicas}** of them."
    )
    return lead + fold(
        f"A step of *B* sequences lasts {step.fixed_ms:.1f} + "
        f"{step.per_sequence_ms:.2f}·*B* ms, and reading one {brief.prompt_tokens}-token prompt "
        f"holds every decoding sequence up for {plan.prompt_ms:.1f} ms, so with *B* slots busy "
        f"each token takes {step.fixed_ms:.1f} + {step.per_sequence_ms:.2f}·*B* + *B*·"
        f"{plan.prompt_ms:.1f} ÷ {brief.answer_tokens} ms. One sequence's token takes "
        f"{step.at(1):.1f} ms and the brief allows {brief.tpot_factor:g}× that, "
        f"{plan.tpot_target_ms:.1f} ms: the pace stays within it up to {by_time}. The KV cache "
        f"holds {plan.by_memory:,} requests of {brief.tokens_per_request:,} tokens at once. So "
        f"`max_num_seqs` = **{batch}**; {bound}. Those requests' keys and values take "
        f"{plan.kv_mib:,.1f} MiB. Each token then takes {plan.pace_ms(batch):.1f} ms. A "
        f"request holds its slot through its first token, which takes at least an unloaded one's "
        f"{plan.first_token_ms:,.0f} ms, then its {brief.answer_tokens} tokens at that pace: "
        f"*W* = {plan.first_token_s:.2f} s + {brief.answer_tokens} × "
        f"{plan.pace_ms(batch):.1f} ms = {plan.request_s:.2f} s. With every slot busy, Little's "
        f"law gives the knee, {batch} ÷ {plan.request_s:.2f} s = **{plan.rate_req_s:.1f} "
        f"requests a second** for one server, and the target of {brief.rate_req_s:g} requests a "
        f"second needs **{plan.replicas}** of them. The first token's target is "
        f"{brief.ttft_factor:g}× the unloaded one, {plan.ttft_target_ms:,.0f} ms, and "
        f"{brief.share:.0%} of requests must meet both.",
        summary="The plan, step by step",
    )


VERDICT_WORDS = {
    PlanVerdict.HELD: "The plan held: below its knee every run met the share, above it none did.",
    PlanVerdict.CONSERVATIVE: (
        "The plan was cautious: even above its knee every run met the share. So this server "
        "serves more requests within the targets than the plan said, and fewer servers would "
        "do."
    ),
    PlanVerdict.OPTIMISTIC: (
        "The plan promised too much: below its knee no run met the share. So this server "
        "serves fewer requests within the targets than the plan said."
    ),
    PlanVerdict.UNTOLD: (
        "These runs cannot tell: at one of the rates some runs met the share and others did "
        "not. So the knee lies about there, and more or longer runs would decide."
    ),
}


def _bracket_text(check: PlanCheck) -> str:
    """How closely a plan that held placed the knee: between the two rates."""
    below, above = check.knee_bracket
    return f"So the engine's knee lies between {below:.0%} and {above:.0%} of the planned one."


def _binding_text(rate: float, shares: TargetShares, share: float) -> str:
    binding = shares.binding(share)
    within = (
        f"{shares.first_token.with_range(2)} met the first token's target and "
        f"{shares.pace.with_range(2)} the time per token's"
    )
    if binding is None:
        return f"At {rate:.1f} requests a second {within}: neither fell short."
    return f"At {rate:.1f} requests a second {within}: {binding} is the target that bound."


def _miss_text(miss: KneeMiss) -> str:
    plan = miss.plan
    return (
        f"The plan's knee was {miss.off_by:+.0%} against the saturated runs'. Those runs' "
        f"tokens came {miss.pace_ms:.1f} ms apart (the plan's pace: "
        f"{plan.pace_ms(plan.max_num_seqs):.1f} ms), and their rate means each request held its "
        f"slot *W* = {plan.max_num_seqs} ÷ {miss.served:.1f} = {miss.request_s:.2f} s: "
        f"{miss.answer_s:.2f} s of answer at that pace (the plan: {plan.answer_s:.2f} s) and "
        f"{miss.first_s:.2f} s besides (the plan's first token: "
        f"{plan.first_token_s:.2f} s). The plan missed {miss.missed} most."
    )


def queue_title(check: PlanCheck) -> str:
    """The queue plot's title: the most requests waiting on each side of the knee."""
    return (
        f"Most requests waiting: {check.waiting_below.median:.0f} below the planned knee, "
        f"{check.waiting_above.median:.0f} above it (medians of the runs)"
    )


def check_text(check: PlanCheck) -> str:
    """The engine's verdict, with the spreads it rests on, the target that bound at each rate,
    and, where the server fell behind, how far the plan's knee was and which term it missed."""
    share = f"{check.plan.brief.share:.0%}"
    lead = (
        f"{VERDICT_WORDS[check.verdict]} In the middle of the runs at "
        f"{check.rate_below:.1f} requests a second, below the knee, "
        f"{check.within_below.with_range(2)} of requests met both targets (the share asked "
        f"is {share}). At most {check.waiting_below.with_range()} waited in the server. "
        f"At {check.rate_above:.1f}, above it, {check.within_above.with_range(2)} did, and at "
        f"most {check.waiting_above.with_range()} waited."
    )
    lines: list[str] = []
    if check.verdict is PlanVerdict.HELD:
        lines.append(_bracket_text(check))
    for rate, shares in (
        (check.rate_below, check.targets_below),
        (check.rate_above, check.targets_above),
    ):
        if shares is not None:
            lines.append(_binding_text(rate, shares, check.plan.brief.share))
    if check.measured_replicas is not None and check.foretold is not None:
        lines.append(
            f"Above the knee the server fell behind in every run and finished "
            f"{check.served_above.with_range(1, ' requests a second')}, against the plan's "
            f"{check.plan.rate_req_s:.1f}: the model's knee fell "
            f"{foretold_text(check.foretold, check.served_above)}. Finishing at that rate, "
            "targets aside, "
            f"{check.plan.brief.rate_req_s:g} requests a second need {check.measured_replicas} "
            f"servers, where the plan said {check.plan.replicas}."
        )
        if check.miss is not None:
            lines.append(_miss_text(check.miss))
    else:
        lines.append(
            f"Above the knee the server kept up with the {check.rate_above:.1f} requests a "
            "second sent in at least one run, so these runs do not say how many it can finish."
        )
    return lead + fold(" ".join(lines), summary="Which target bound, and where the plan missed")


def _engine_words(row: PublishedPlan) -> str:
    if row.engine is None:
        return "none (datasheet alone)"
    whose = "the book's stated T4 step" if row.engine.fitted_in == STATED else "this device's"
    return (
        f"{whose}: +{row.engine.step_share:.0%} shared, "
        f"+{row.engine.sequence_share:.0%} per sequence"
    )


def published_text(published: Sequence[PublishedPlan]) -> str:
    """How far the T4's datasheet-only plan stands from the one with the book's stated T4 step,
    the step the GPU contract counts each chapter's wait with."""
    gap = DatasheetGap.of(published)
    bare, stated = gap.bare, gap.stated
    return (
        f"On a T4 the datasheet alone plans a knee of {bare.rate_req_s:.1f} requests a "
        f"second and {bare.replicas} server{plural_s(bare.replicas)} for "
        f"{bare.brief.rate_req_s:g}. With the engine's own work the book states for a T4, "
        f"the knee is {stated.rate_req_s:.1f}, and {stated.replicas} "
        f"server{plural_s(stated.replicas)} can carry the target. So the datasheet-only plan "
        f"promises {gap.promised:.1f}× the requests a second."
        + fold("That stated step is the one the GPU contract counts each chapter's wait with.")
    )


def published_table(plans: list[PublishedPlan]) -> pd.DataFrame:
    """The same brief on published cards, one row each: predictions, not measurements."""
    rows = []
    for row in plans:
        plan = row.plan
        rows.append(
            {
                "card": row.device.name,
                "model": row.model.name,
                "engine work": _engine_words(row),
                "step (ms)": f"{plan.step.fixed_ms:.2f} + {plan.step.per_sequence_ms:.4f}·B",
                "reading a prompt (ms)": round(plan.prompt_ms, 2),
                "max_num_seqs": plan.max_num_seqs,
                "set by": str(plan.bound),
                "KV cache for them (MiB)": round(plan.kv_mib),
                "first token (s)": round(plan.first_token_s, 3),
                "W (s)": round(plan.request_s, 2),
                "knee (req/s)": round(plan.rate_req_s, 1),
                f"servers for {plan.brief.rate_req_s:g} req/s": plan.replicas,
            }
        )
    return pd.DataFrame(rows).set_index("card")


def _runs_text(verdict: PlanVerdict) -> str:
    """What the engine's runs did, as the summary's closing clause: the verdict's own words."""
    return "disagreed at one rate" if verdict is PlanVerdict.UNTOLD else verdict.value


def summary_text(prediction: str, plan: CapacityPlan, check: PlanCheck) -> str:
    """The reader's prediction beside the plan and the engine's verdict."""
    return prediction_text(
        prediction,
        (
            f"a plan of `max_num_seqs` {plan.max_num_seqs}, {plan.rate_req_s:.1f} requests a "
            f"second a server and {plan.replicas} servers. The engine's runs "
            f"{_runs_text(check.verdict)}"
        ),
        [
            Aim("the plan's `max_num_seqs`", plan.max_num_seqs, Unit.COUNT),
            Aim("the knee of one server", plan.rate_req_s, Unit.REQ_S),
        ],
    )


def plan_against_runs(check: PlanCheck) -> pd.DataFrame:
    """What the plan said beside what the runs measured, one row per figure."""
    plan, share = check.plan, f"{check.plan.brief.share:.0%}"
    served = (
        check.served_above.with_range(1)
        if check.saturated
        else f"more than {check.rate_above:.1f} (it kept up)"
    )
    return pd.DataFrame(
        [
            {
                "": "requests a second one server finishes",
                "plan": f"{plan.rate_req_s:.1f}",
                "runs": served,
            },
            {
                "": f"share within both targets at {check.rate_below:.1f} req/s",
                "plan": f"at least {share}",
                "runs": check.within_below.with_range(2),
            },
            {
                "": f"share within both targets at {check.rate_above:.1f} req/s",
                "plan": f"below {share}, falling as the queue grows",
                "runs": check.within_above.with_range(2),
            },
            {
                "": f"servers for {plan.brief.rate_req_s:g} req/s",
                "plan": f"{plan.replicas}",
                "runs": "—" if check.measured_replicas is None else f"{check.measured_replicas}",
            },
        ]
    ).set_index("")
