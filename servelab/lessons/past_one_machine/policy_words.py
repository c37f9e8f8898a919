"""The words of chapter 09's routing section: the policies' table, the tenant-spread figure's
title and what the two policies did with the tenants' prompts, each read from
``RoutingFindings``.
"""

from __future__ import annotations

import math

import pandas as pd

from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared
from servelab.lessons.findings_table import findings_table
from servelab.lessons.fold import fold
from servelab.lessons.past_one_machine.findings import RoutingFindings


def policy_table(found: RoutingFindings) -> pd.DataFrame:
    """One row per policy (the index) as the page prints it: each figure the median over the
    runs with their range in brackets, the cold passes' and then the warm passes'."""
    rows = [
        {
            "policy": policy,
            "runs": f"{found.hit_rate[index].n}",
            "share of a tenant's requests on its busiest replica": found.kept_together[
                index
            ].with_range(2),
            "prompt's first visits (a run)": found.prefills[index].with_range(),
            "prompt computed again after its first visit (times a run)": found.recomputed[
                index
            ].with_range(),
            "prompt tokens computed": found.computed_tokens[index].with_range(),
            "hit rate": found.hit_rate[index].with_range(2),
            "first token p50 (ms)": found.ttft_ms_p50[index].with_range(),
            **(
                {}
                if found.warm_ttft_ms_p50 is None or found.warm_computations is None
                else {
                    "warm pass: prompt computed (times a run)": found.warm_computations[
                        index
                    ].with_range(),
                    "warm pass: first token p50 (ms)": found.warm_ttft_ms_p50[index].with_range(),
                }
            ),
        }
        for index, policy in enumerate(found.policies)
    ]
    return pd.DataFrame(rows).set_index("policy")


def _alike(spread: Spread) -> bool:
    """Every run's share rounds to the same percentage."""
    return f"{spread.low:.0%}" == f"{spread.high:.0%}"


def _share(spread: Spread) -> str:
    """``"61%"`` where every run rounds alike, else ``"61% (56–67%)"``."""
    return (
        f"{spread.median:.0%}"
        if _alike(spread)
        else f"{spread.median:.0%} ({spread.low:.0%}–{spread.high:.0%})"
    )


def spread_title(routed: RoutingFindings) -> str:
    """The tenant-spread figure's finding: each policy's share over the cold passes, which the
    figure draws a bar per run."""
    (spreading, following), kept = routed.policies, routed.kept_together
    return (
        f"{spreading}: {_share(kept[0])} of a tenant's requests on one replica in a run; "
        f"{following}: {_share(kept[1])} (median of {routed.runs} cold passes)"
    )


def _hit_shares(found: RoutingFindings) -> str:
    """Each policy's cached share over the runs: "found 49% of the prompt tokens cached with
    round_robin and 81% (80–83%) with cache_aware", saying which shares every run agreed on."""
    (spreading, following), hits = found.policies, found.hit_rate
    shares = [_share(s) for s in hits]
    text = (
        f"found {shares[0]} of the prompt tokens cached with {spreading} and {shares[1]} "
        f"with {following}"
    )
    if not hits[0].ranged:
        return text
    if _alike(hits[0]) and _alike(hits[1]):
        return text + ", each the same in every run"
    same = [policy for policy, spread in zip(found.policies, hits, strict=True) if _alike(spread)]
    return text + "".join(f", {policy}'s the same in every run" for policy in same)


def routing_text(found: RoutingFindings) -> str:
    """What the two policies did with the tenants' prompts, from the repeated runs: the cache
    and first-token verdicts first, the prompt arithmetic and the causes folded beneath."""
    work = found.workload
    (spreading, following) = found.policies
    ttft = found.ttft_ms_p50
    lead = (
        f"Each of {work.tenants} tenants sent {work.requests_per_tenant} requests, every one "
        f"opening with its tenant's {work.prefix_tokens:,}-token prompt. Each policy ran this "
        f"traffic {found.runs} times, interleaved, each time first on a cold cache (the cold "
        f"pass these figures describe). The replicas {_hit_shares(found)}. "
    )
    lead += {
        Compared.HIGHER: (
            "Following the prefixes kept more of the saving prefix caching offers, in every run. "
            f"A spreading policy makes each of the {found.replicas} replicas compute every "
            "tenant's prompt for itself. "
        ),
        Compared.LOWER: (
            "Here the spreading policy found more in the cache, in every run, against what the "
            "policies are built for. Look at the spread above for the reason. "
        ),
    }.get(
        found.cache,
        (
            "The runs cannot tell the two hit rates apart. Their ranges touch, or they differ by "
            "only a few points. In these runs routing made no clear difference to the cache. "
        ),
    )
    medians = (
        f"{ttft[1].median:,.0f} ms ({ttft[1].low:,.0f}–{ttft[1].high:,.0f}) "
        f"against {ttft[0].median:,.0f} ms ({ttft[0].low:,.0f}–{ttft[0].high:,.0f})"
    )
    lead += {
        Compared.LOWER: f"In the cold passes first tokens came sooner with {following}: median "
        f"{medians}.",
        Compared.HIGHER: (
            f"Yet in the cold passes first tokens came later with {following}, median "
            f"{medians}. Keeping tenants together can pile their requests onto one replica "
            "while the other idles."
        ),
    }.get(
        found.first_token,
        (
            f"In the cold passes the median first token with {following} against {spreading} was "
            f"{medians}. The runs cannot tell them apart."
        ),
    )
    backing = (
        "A tenant's prompt has to be computed once on every replica that serves the "
        f"tenant: with {spreading} that made {found.prefills[0].median:.0f} computations "
        f"of a prompt in a run (median; {found.kept_together[0].median:.0%} of a tenant's "
        f"requests went to one replica), with {following} "
        f"{found.prefills[1].median:.0f} ({found.kept_together[1].median:.0%}). Add each "
        f"request's {work.question_tokens}-token question and the replicas should compute "
        f"{found.expected_tokens[0].median:,.0f} and "
        f"{found.expected_tokens[1].median:,.0f} prompt tokens; their own counters say "
        f"{found.computed_tokens[0].median:,.0f} and "
        f"{found.computed_tokens[1].median:,.0f}. "
    )
    if found.first_token is Compared.LOWER:
        backing += _sooner_cause(found)
    return lead + fold(
        backing + _cold_start_text(found) + _crowding_text(found) + _warm_text(found)
    )


def _cold_start_text(found: RoutingFindings) -> str:
    """What the extra prompt computations are: a cold cache's one-off cost, which a warm
    service would not pay again (empty where the spreading policy computed no more)."""
    extra, first = found.extra_computations, found.extra_first_visits
    if not found.cold_start:
        return ""
    spreading = found.policies[0]
    share = ("all" if found.all_first_visits else f"{first:.0f}") + f" of the {extra:.0f}"
    return (
        f" Each run began on a cold cache, so {share} extra computations of a prompt that "
        f"{spreading} made in a run of {found.requests} requests are first visits: a "
        "tenant's first request on each replica. A service that keeps running pays those "
        "once."
    )


def _crowding_text(found: RoutingFindings) -> str:
    """Whether the tenants' prompts outgrew a replica's cache, and which policy computed them
    again beyond the first visits (empty where the cache's size is not known)."""
    work, (spreading, following) = found.workload, found.policies
    total = found.tenant_prompts_tokens
    if not found.cache_known:
        return ""
    room = f" Each replica's cache holds {found.cache_tokens:,} tokens"
    if not found.crowded:
        return (
            f"{room}, room for all {work.tenants} tenants' prompts at once ({total:,} "
            "tokens), so none was pushed out: after the first visits both replicas hold "
            f"every prompt, and {following} keeps its lead only where the prompts together "
            "outgrow one replica's cache, which this cache does not test."
        )
    again = found.recomputed
    text = (
        f"{room}, fewer than the {work.tenants} tenants' prompts together ({total:,}): a "
        "replica that serves every tenant pushes one prompt out to hold another and "
        "computes it again when that tenant comes back. Beyond the first visits, the "
        f"prompts computed again in a run numbered {again[0].with_range()} with {spreading} "
        f"and {again[1].with_range()} with {following}. "
    )
    return text + {
        Compared.LOWER: (
            f"So {following}'s lead is not only a cold start: with the prompts too many for one "
            "cache, keeping each tenant on one replica keeps its prompt from being pushed out, "
            "run after run."
        ),
        Compared.HIGHER: (
            f"Here {spreading} computed fewer again, against what following the prefixes is "
            "built for: look at the spread above for the reason."
        ),
    }.get(
        found.recompute,
        (
            "The runs' ranges do not set them apart, so these runs show no lead beyond the first "
            "visits."
        ),
    )


def _sooner_cause(found: RoutingFindings) -> str:
    """Why the prefix-following policy's median first token came sooner, from which policy's
    median request found its prompt cached."""
    spreading, following = found.policies
    if not found.median_hits[1]:
        return (
            f"Yet with {following} most requests in a run computed their tenant's prompt, so "
            "the median request was no cache hit and the cache does not explain this; these "
            "runs do not show what does."
        )
    if not found.median_hits[0]:
        return (
            f"With {following} the median request found its tenant's prompt in the cache "
            f"and with {spreading} it did not: a prompt found cached is not computed again."
        )
    if found.no_extra_computations:
        return (
            "The median request found its tenant's prompt cached under both policies, and "
            f"{spreading} computed no more prompts than {following}, so these runs do not "
            "show why."
        )
    alone = (
        ""
        if math.isnan(found.prompt_alone_s)
        else f" (one such prompt sent alone to a replica took {found.prompt_alone_s:.2f} s to "
        "its first token)"
    )
    return (
        f"The hit itself does not explain it: the median request found its tenant's prompt "
        f"cached under both policies (the replicas computed a prompt at most "
        f"{found.computations[0].high:.0f} and {found.computations[1].high:.0f} times in a "
        f"run of {found.requests} requests). What {spreading} added was "
        f"{found.extra_computations:.0f} more computations of a "
        f"{found.prompt_tokens:,}-token prompt in a run{alone}, and the requests that "
        "reached a replica meanwhile waited behind them or shared their steps."
    )


def _warm_text(found: RoutingFindings) -> str:
    """The warm passes: the same requests again on the caches their cold pass left, so that a
    prompt is computed only where it was pushed out; their first tokens against the cold ones
    and between the policies (empty in a recording without warm passes)."""
    warm, computed = found.warm_ttft_ms_p50, found.warm_computations
    against, between = found.warm_against_cold, found.warm_first_token
    if warm is None or computed is None or against is None or between is None:
        return ""
    spreading, following = found.policies
    cold = found.ttft_ms_p50
    computations = found.computations
    table = findings_table(
        [
            "Policy",
            "Prompts computed a run, cold",
            "Warm",
            "Median first token, cold (ms)",
            "Warm (ms)",
        ],
        [
            [
                policy,
                computations[side].with_range(),
                computed[side].with_range(),
                cold[side].with_range(),
                warm[side].with_range(),
            ]
            for side, policy in enumerate(found.policies)
        ],
    )
    text = (
        " After each cold pass a warm pass sent the same requests again under the same "
        "cache salt: no prompt is new there, so whatever a warm pass computes is a prompt "
        f"pushed out since its first visit. Cold and warm, each policy's runs:\n\n{table}"
        "\n\n"
    )
    sooner = [
        policy
        for policy, verdict in zip(found.policies, against, strict=True)
        if verdict is Compared.LOWER
    ]
    text += (
        f"Warm beat cold beyond the runs' ranges with {' and '.join(sooner)}. "
        if sooner
        else "For neither policy do the runs set the warm passes apart from the cold ones. "
    )
    return text + {
        Compared.LOWER: (
            f"Warm, {following} still gave sooner first tokens than {spreading}, beyond the "
            "runs' ranges: "
            + (
                "with fewer prompts computed again, that lead is what computing pushed-out "
                "prompts again costs, paid on every pass, not a cold start."
                if found.warm_recompute is Compared.LOWER
                else f"with no fewer prompts computed again under {following}, these runs do not "
                "show what that lead is made of."
            )
        ),
        Compared.HIGHER: (
            f"Warm, {following} gave later first tokens than {spreading}, beyond the runs' "
            "ranges: once every prompt has been seen, keeping tenants together cost more than "
            "it saved here."
        ),
    }.get(
        between,
        (
            "Warm, the runs cannot tell the two policies' first tokens apart: these runs show no "
            "first-token lead beyond the first visits."
        ),
    )
