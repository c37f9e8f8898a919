"""Chapter 09: replicas behind vLLM's router. What each routing policy did with the tenants'
prompts, what users saw when a replica died, and two copies against one server.

Measuring (``measure_policies``, ``measure_setup``, ``failure_of``) is apart from the findings
(``RoutingFindings``, ``Failure``, ``CopiesFindings``: numbers and named verdicts), and the
findings apart from the words (``*_text``, ``story``). Each comparison rests on repeated runs: two
figures are called apart only when their ranges are (``servelab.bench.spread``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd

from servelab.bench import run, warm_up
from servelab.bench.frames import Result
from servelab.bench.prompts import PromptSource
from servelab.bench.server_metrics import fetch_metrics
from servelab.bench.spread import Spread
from servelab.bench.workloads import ClosedLoop, FailureDuring, Tenants
from servelab.engines.replicas import Replicas
from servelab.engines.router import Router
from servelab.engines.vllm_server import Server
from servelab.lessons.prediction import page_story
from servelab.lessons.thresholds import HIT_RATE_SHOWN, SAME_SPEED, TTFT_GAIN_SHOWN

# vllm-router's own defaults for --health-check-interval-secs and --health-failure-threshold
# (its --help); servelab's Router checks far more often (servelab.engines.router.HEALTH_INTERVAL_S).
ROUTER_DEFAULT_HEALTH = (60, 3)


@dataclass(frozen=True)
class PolicyRun:
    """One routing policy's run of the tenants' traffic: the client's metrics, how many requests
    of each tenant each replica served (``spread``: a row per tenant, a column per replica), each
    replica's prefix-cache counters during the run (prompt tokens looked up, found), and the
    router's command line."""

    policy: str
    summary: dict[str, float]
    spread: pd.DataFrame
    queries: tuple[float, ...]
    hits: tuple[float, ...]
    command_line: str = ""

    @property
    def hit_rate(self) -> float:
        """Share of the prompt tokens looked up that the replicas found cached, all together."""
        total = sum(self.queries)
        return sum(self.hits) / total if total else math.nan

    @property
    def computed_tokens(self) -> float:
        """Prompt tokens the replicas computed rather than found."""
        return sum(self.queries) - sum(self.hits)

    @property
    def prefills(self) -> int:
        """How many times a tenant's system prompt had to be computed, at least: once on each
        replica that served any of that tenant's requests."""
        return int((self.spread > 0).to_numpy().sum())

    def prompt_computations(self, prefix_tokens: int, question_tokens: int) -> int:
        """How many times the replicas computed a tenant's prompt, by their own counters: the
        prompt tokens they computed, less every request's question, in prompts (rounded)."""
        requests = int(self.spread.to_numpy().sum())
        return max(0, round((self.computed_tokens - requests * question_tokens) / prefix_tokens))

    def expected_computed(self, prefix_tokens: int, question_tokens: int) -> int:
        """Prompt tokens the replicas should compute if each tenant's prompt is computed once per
        replica that served the tenant and every other request computes only its question."""
        requests = int(self.spread.to_numpy().sum())
        return self.prefills * prefix_tokens + requests * question_tokens

    @property
    def kept_together(self) -> float:
        """Mean share of a tenant's requests served by the replica that served most of them
        (1: every tenant stayed on one replica; 1/replicas: spread evenly)."""
        totals = self.spread.sum(axis=1)
        return float((self.spread.max(axis=1) / totals).mean())


# What a crowded replica's cache keeps beside the prompts it holds: the block the engine holds
# back and one for the running requests' own tokens (blocks of 128 tokens on the CPU engine).
CROWDED_SPARE_TOKENS = 256


def crowded_cache_tokens(tenants: int, prefix_tokens: int, max_model_len: int) -> int:
    """A replica's KV cache, in tokens, that holds every tenant's prompt but one: the prompts of
    ``tenants - 1`` tenants, or the longest request the server accepts where that is more (vLLM
    will not start a server that cannot hold one), with ``CROWDED_SPARE_TOKENS`` beside them.
    Whether that is fewer than all the prompts depends on the sizes; ``RoutingFindings.crowded``
    says, from the cache the engine reports."""
    return max(max_model_len, (tenants - 1) * prefix_tokens) + CROWDED_SPARE_TOKENS


def measure_policy(replicas: Replicas, policy: str, workload: Tenants,
                   prompts: PromptSource) -> PolicyRun:
    """Start a router with ``policy`` in front of the running ``replicas``, send ``workload``
    through it (on a cold cache: each run salts its requests), stop the router, and return what
    happened."""
    router = Router(replicas, policy=policy)
    with router:
        warm_up(router)  # through the router, not measured: its first requests pay its set-up
        before = [fetch_metrics(replica.url) for replica in replicas]
        result = run(router, workload, prompts=prompts, metrics_interval=None)
        after = [fetch_metrics(replica.url) for replica in replicas]
    tenant_of = {record.planned.request_id: record.planned.user for record in result.records}
    counts = np.zeros((workload.tenants, len(replicas)), dtype=int)
    for request_id, index in replicas.served_by(tenant_of).items():
        counts[tenant_of[request_id], index] += 1
    spread = pd.DataFrame(counts, index=pd.Index(range(workload.tenants), name="tenant"),
                          columns=[f"replica {index}" for index in range(len(replicas))])
    return PolicyRun(
        policy=policy, summary=result.summary(), spread=spread,
        queries=tuple(a["prefix_cache_queries"] - b["prefix_cache_queries"]
                      for a, b in zip(after, before, strict=True)),
        hits=tuple(a["prefix_cache_hits"] - b["prefix_cache_hits"]
                   for a, b in zip(after, before, strict=True)),
        command_line=router.command_line,
    )


def measure_policies(replicas: Replicas, policies: Sequence[str], workload: Tenants,
                     prompts: PromptSource, repeats: int) -> dict[str, list[PolicyRun]]:
    """``repeats`` runs of ``workload`` under each policy, interleaved (A, B, A, B, ...) so that
    a drift in the machine's speed falls on both alike."""
    runs: dict[str, list[PolicyRun]] = {policy: [] for policy in policies}
    for _ in range(repeats):
        for policy in policies:
            runs[policy].append(measure_policy(replicas, policy, workload, prompts))
    return runs


def _first_token(spreading: Spread, following: Spread) -> str:
    """"sooner", "later" or "unclear": the median first token with the prefix-following policy,
    called apart only when the ranges are and the medians differ ``TTFT_GAIN_SHOWN``-fold."""
    if following.below_by(spreading, TTFT_GAIN_SHOWN):
        return "sooner"
    if following.above_by(spreading, TTFT_GAIN_SHOWN):
        return "later"
    return "unclear"


def _cache(spreading: Spread, following: Spread) -> str:
    """"following", "spreading" or "same": which policy found more prompt tokens cached, by
    ``HIT_RATE_SHOWN`` points or more and beyond the runs' ranges."""
    if following.above(spreading) and following.median - spreading.median >= HIT_RATE_SHOWN:
        return "following"
    if following.below(spreading) and spreading.median - following.median >= HIT_RATE_SHOWN:
        return "spreading"
    return "same"


def _by_policy(both: tuple[Sequence[PolicyRun], Sequence[PolicyRun]],
               figure: Callable[[PolicyRun], float]) -> tuple[Spread, Spread]:
    """``figure``'s spread over each policy's runs."""
    return (Spread.of(figure(r) for r in both[0]), Spread.of(figure(r) for r in both[1]))


@dataclass(frozen=True)
class RoutingFindings:
    """What two policies did with the same tenants' traffic over repeated runs, ``spreading``
    first and ``following`` second in each pair: prompt computations, the share of a tenant's
    requests kept on one replica, prompt tokens expected and counted, hit rate and median first
    token, each over the runs; the requests per tenant and replica summed over the runs; and the
    verdicts ``cache`` (``_cache``) and ``first_token`` (``_first_token``)."""

    policies: tuple[str, str]
    workload: Tenants
    replicas: int
    runs: int
    prefills: tuple[Spread, Spread]
    kept_together: tuple[Spread, Spread]
    expected_tokens: tuple[Spread, Spread]
    computed_tokens: tuple[Spread, Spread]
    hit_rate: tuple[Spread, Spread]
    ttft_ms_p50: tuple[Spread, Spread]
    ttft_ms_p99: tuple[Spread, Spread]
    recomputed: tuple[Spread, Spread]  # prompt computations a run beyond the first visits
    pooled_spreads: dict[str, pd.DataFrame]
    cache: str
    first_token: str
    prompt_alone_s: float = math.nan  # one tenant's prompt read alone on a replica (NaN: not timed)
    cache_tokens: int = 0  # the smaller replica's KV cache, in tokens (0: not known)

    @classmethod
    def of(cls, spreading: Sequence[PolicyRun], following: Sequence[PolicyRun],
           workload: Tenants, prompt_alone_s: float = math.nan,
           cache_tokens: int = 0) -> RoutingFindings:
        """``prompt_alone_s``: the first token of one tenant's prompt sent alone to a replica,
        to set beside the prompt computations a policy added; ``cache_tokens``: the smaller
        replica's KV cache, to say whether the tenants' prompts outgrew it."""
        both = (spreading, following)
        hits = _by_policy(both, lambda r: r.hit_rate)
        ttft = _by_policy(both, lambda r: r.summary["ttft_ms_p50"])
        return cls(
            policies=(spreading[0].policy, following[0].policy), workload=workload,
            replicas=spreading[0].spread.shape[1], runs=min(len(spreading), len(following)),
            prefills=_by_policy(both, lambda r: r.prefills),
            kept_together=_by_policy(both, lambda r: r.kept_together),
            expected_tokens=_by_policy(both, lambda r: r.expected_computed(
                workload.prefix_tokens, workload.question_tokens)),
            computed_tokens=_by_policy(both, lambda r: r.computed_tokens),
            hit_rate=hits, ttft_ms_p50=ttft,
            ttft_ms_p99=_by_policy(both, lambda r: r.summary["ttft_ms_p99"]),
            recomputed=_by_policy(both, lambda r: max(0, r.prompt_computations(
                workload.prefix_tokens, workload.question_tokens) - r.prefills)),
            pooled_spreads={runs[0].policy: sum((r.spread for r in runs[1:]), runs[0].spread)
                            for runs in both},
            cache=_cache(*hits), first_token=_first_token(*ttft), prompt_alone_s=prompt_alone_s,
            cache_tokens=cache_tokens,
        )

    @property
    def requests(self) -> int:
        """Requests in one run of the traffic."""
        return self.workload.tenants * self.workload.requests_per_tenant

    @property
    def median_hits(self) -> tuple[bool, bool]:
        """Whether, under each policy, the median request found its tenant's prompt cached: in
        every run fewer than half the requests were the ones that computed a prompt."""
        spreading, following = self.prefills
        return (2 * spreading.high < self.requests, 2 * following.high < self.requests)

    @property
    def crowded(self) -> bool:
        """The tenants' prompts together outgrow one replica's cache: a replica serving every
        tenant must push one prompt out to hold another."""
        work = self.workload
        return 0 < self.cache_tokens < work.tenants * work.prefix_tokens

    @property
    def recompute(self) -> str:
        """"following", "spreading" or "same": which policy computed prompts again beyond their
        first visits less often, the runs' ranges apart."""
        spreading, following = self.recomputed
        if following.below(spreading):
            return "following"
        if spreading.below(following):
            return "spreading"
        return "same"

    @property
    def extra_prefills(self) -> float:
        """Prompt computations a run made under the spreading policy beyond the following one's
        (medians)."""
        return self.prefills[0].median - self.prefills[1].median


def policy_table(found: RoutingFindings) -> pd.DataFrame:
    """One row per policy (the index) as the page prints it: each figure the median over the
    runs with their range in brackets."""
    rows = [{
        "policy": policy, "runs": f"{found.hit_rate[index].n}",
        "share of a tenant's requests on its busiest replica":
            found.kept_together[index].with_range(2),
        "prompt computed (times a run)": found.prefills[index].with_range(),
        "prompt computed again after its first visit (times a run)":
            found.recomputed[index].with_range(),
        "prompt tokens computed": found.computed_tokens[index].with_range(),
        "hit rate": found.hit_rate[index].with_range(2),
        "first token p50 (ms)": found.ttft_ms_p50[index].with_range(),
    } for index, policy in enumerate(found.policies)]
    return pd.DataFrame(rows).set_index("policy")


def spread_title(found: RoutingFindings) -> str:
    """The tenant-spread figure's finding."""
    (spreading, following), kept = found.policies, found.kept_together
    return (f"{spreading}: {kept[0].median:.0%} of a tenant's requests on one replica; "
            f"{following}: {kept[1].median:.0%} (medians of {found.runs} runs; the bars add "
            "up every run)")


def _share(spread: Spread) -> str:
    """A share over the runs: "82% (80–83%)", or "82% (every run)" when they agree."""
    if f"{spread.low:.0%}" == f"{spread.high:.0%}":
        return f"{spread.median:.0%} (every run)"
    return f"{spread.median:.0%} ({spread.low:.0%}–{spread.high:.0%})"


def routing_text(found: RoutingFindings) -> str:
    """What the two policies did with the tenants' prompts, from the repeated runs."""
    work = found.workload
    (spreading, following) = found.policies
    hits, ttft = found.hit_rate, found.ttft_ms_p50
    text = (f"{work.tenants} tenants sent {work.requests_per_tenant} requests each, every one "
            f"opening with its tenant's {work.prefix_tokens}-token prompt; each policy ran this "
            f"traffic {found.runs} times, interleaved, each time on a cold cache. A tenant's "
            "prompt has to be computed once on every replica that serves the tenant: with "
            f"{spreading} that made {found.prefills[0].median:.0f} computations of a prompt in a "
            f"run (median; {found.kept_together[0].median:.0%} of a tenant's requests went to one "
            f"replica), with {following} {found.prefills[1].median:.0f} "
            f"({found.kept_together[1].median:.0%}). Add each request's {work.question_tokens}-"
            f"token question and the replicas should compute "
            f"{found.expected_tokens[0].median:,.0f} and {found.expected_tokens[1].median:,.0f} "
            "prompt tokens; "
            f"their own counters say {found.computed_tokens[0].median:,.0f} and "
            f"{found.computed_tokens[1].median:,.0f}, and found {_share(hits[0])} and "
            f"{_share(hits[1])} of the prompt tokens cached. ")
    text += {
        "following": ("Following the prefixes kept more of the saving prefix caching offers, in "
                      f"every run: a spreading policy makes each of the {found.replicas} replicas "
                      "compute every tenant's prompt for itself. "),
        "spreading": ("Here the spreading policy found more in the cache, in every run, against "
                      "what the policies are built for: look at the spread above for the "
                      "reason. "),
        "same": ("The runs cannot tell the two hit rates apart: their ranges touch, or they "
                 "differ by only a few points. In these runs routing made no clear difference "
                 "to the cache. "),
    }[found.cache]
    medians = (f"{ttft[1].median:,.0f} ms ({ttft[1].low:,.0f}–{ttft[1].high:,.0f}) "
               f"against {ttft[0].median:,.0f} ms ({ttft[0].low:,.0f}–{ttft[0].high:,.0f})")
    text += {
        "sooner": f"First tokens came sooner with {following} (median {medians}). "
                  + _sooner_cause(found),
        "later": (f"Yet first tokens came later with {following} (median {medians}): keeping "
                  "tenants together can pile their requests onto one replica while the other "
                  "idles."),
        "unclear": (f"The median first token with {following} against {spreading} was "
                    f"{medians}: the runs cannot tell them apart."),
    }[found.first_token]
    return text + _cold_start_text(found)


def _cold_start_text(found: RoutingFindings) -> str:
    """What the extra prompt computations are: a cold cache's one-off cost, which a warm
    service would not pay again (empty where the spreading policy computed no more)."""
    if found.extra_prefills <= 0:
        return ""
    spreading, following = found.policies
    return (f" Each run began on a cold cache, so {found.extra_prefills:.0f} of the extra "
            f"computations of a prompt that {spreading} made in a run of {found.requests} "
            "requests are first visits: a tenant's first request on each replica. A service "
            "that keeps running pays those once." + _crowding_text(found))


def _crowding_text(found: RoutingFindings) -> str:
    """Whether the tenants' prompts outgrew a replica's cache, and which policy computed them
    again beyond the first visits (empty where the cache's size is not known)."""
    work, (spreading, following) = found.workload, found.policies
    total = work.tenants * work.prefix_tokens
    if found.cache_tokens <= 0:
        return ""
    room = f" Each replica's cache holds {found.cache_tokens:,} tokens"
    if not found.crowded:
        return (f"{room}, room for all {work.tenants} tenants' prompts at once ({total:,} "
                "tokens), so none was pushed out: after the first visits both replicas hold "
                f"every prompt, and {following} keeps its lead only where the prompts together "
                "outgrow one replica's cache, which this cache does not test.")
    again = found.recomputed
    text = (f"{room}, fewer than the {work.tenants} tenants' prompts together ({total:,}): a "
            "replica that serves every tenant pushes one prompt out to hold another and "
            "computes it again when that tenant comes back. Beyond the first visits, "
            f"{spreading} computed a prompt again {again[0].with_range()} times a run and "
            f"{following} {again[1].with_range()}. ")
    return text + {
        "following": (f"So {following}'s lead is not only a cold start: with the prompts too "
                      "many for one cache, keeping each tenant on one replica keeps its prompt "
                      "from being pushed out, run after run."),
        "spreading": (f"Here {spreading} computed fewer again, against what following the "
                      "prefixes is built for: look at the spread above for the reason."),
        "same": ("The runs' ranges do not set them apart, so these runs show no lead beyond the "
                 "first visits."),
    }[found.recompute]


def _sooner_cause(found: RoutingFindings) -> str:
    """Why the prefix-following policy's median first token came sooner, from which policy's
    median request found its prompt cached."""
    spreading, following = found.policies
    if not found.median_hits[1]:
        return (f"Yet with {following} most requests in a run computed their tenant's prompt, so "
                "the median request was no cache hit and the cache does not explain this; these "
                "runs do not show what does.")
    if not found.median_hits[0]:
        return (f"With {following} the median request found its tenant's prompt in the cache "
                f"and with {spreading} it did not: a prompt found cached is not computed again.")
    if found.extra_prefills <= 0:
        return ("The median request found its tenant's prompt cached under both policies, and "
                f"{spreading} computed no more prompts than {following}, so these runs do not "
                "show why.")
    prompt = found.workload.prefix_tokens + found.workload.question_tokens
    alone = ("" if math.isnan(found.prompt_alone_s) else
             f" (one such prompt sent alone to a replica took {found.prompt_alone_s:.2f} s to "
             "its first token)")
    return (f"The hit itself does not explain it: the median request found its tenant's prompt "
            f"cached under both policies (at most {found.prefills[0].high:.0f} and "
            f"{found.prefills[1].high:.0f} of the {found.requests} requests in a run computed "
            f"it). What {spreading} added was {found.extra_prefills:.0f} more computations of a "
            f"{prompt:,}-token prompt in a run{alone}, and the requests that reached a replica "
            "meanwhile waited behind them or shared their steps.")


class Survivors(StrEnum):
    """How long the requests that succeeded after the kill took against those before it."""

    FASTER = "faster"
    SLOWER = "slower"
    ALIKE = "the ranges overlap"
    UNTOLD = "too few requests on one side"


@dataclass(frozen=True)
class Failure:
    """What users saw when a replica was killed during a run through the router: run-clock
    times (s) of the kill and of the router counting the replica down (NaN: it did not within
    the run), and the requests, split by when they were sent."""

    killed_s: float
    noticed_s: float
    failed_before: int  # sent before the kill and failed (in flight on the dead replica)
    failed_after: int   # sent after the kill and failed
    failed_unnoticed: int  # of those, sent before the router counted the replica down
    sent_before: int
    sent_after: int
    latency_before: Spread | None  # sent to last token (s) of those that succeeded
    latency_after: Spread | None
    errors_after: tuple[str, ...]  # what the requests that failed after the kill reported
    retries: float      # requests the router sent again, to another replica
    health_interval_s: int  # how often the router checked each replica's /health
    health_failures: int    # failed checks in a row before it counted a replica down

    @property
    def failed(self) -> int:
        return self.failed_before + self.failed_after

    @property
    def detection_s(self) -> float:
        return self.noticed_s - self.killed_s

    @property
    def survivors(self) -> Survivors:
        """The answers after the kill against those before, apart only when every one on one
        side took less than every one on the other."""
        before, after = self.latency_before, self.latency_after
        if before is None or after is None or min(before.n, after.n) < 2:
            return Survivors.UNTOLD
        if after.below(before):
            return Survivors.FASTER
        if after.above(before):
            return Survivors.SLOWER
        return Survivors.ALIKE


def failure_rows(result: Result) -> pd.DataFrame:
    """One row per request: when it was sent (s), whether it succeeded, its latency (s)."""
    return pd.DataFrame({
        "sent_s": [r.sent for r in result.records],
        "ok": [r.ok for r in result.records],
        "latency_s": [r.e2e if r.ok else math.nan for r in result.records],
        "error": [r.error or "" for r in result.records],
    })


def _latencies(rows: pd.DataFrame) -> Spread | None:
    """The spread of the succeeded requests' latencies among ``rows``; None: none succeeded."""
    latencies = rows.loc[rows["ok"], "latency_s"]
    return Spread.of(latencies) if len(latencies) else None


def failure_of(result: Result, workload: FailureDuring, router: Router, retries: float) -> Failure:
    """The findings of one failure run through ``router`` (``workload.events`` holds the kill
    and the notice; ``retries``, the router's own count)."""
    rows = failure_rows(result)
    killed = workload.events.get("failed", math.nan)
    noticed = workload.events.get("noticed", math.nan)
    before, after = rows[rows["sent_s"] < killed], rows[rows["sent_s"] >= killed]
    lost = after[~after["ok"]]
    unnoticed = lost if math.isnan(noticed) else lost[lost["sent_s"] < noticed]
    return Failure(
        killed_s=killed, noticed_s=noticed,
        failed_before=int((~before["ok"]).sum()), failed_after=len(lost),
        failed_unnoticed=len(unnoticed), sent_before=len(before), sent_after=len(after),
        latency_before=_latencies(before), latency_after=_latencies(after),
        errors_after=tuple(lost["error"]),
        retries=retries, health_interval_s=router.health_interval_s,
        health_failures=router.health_failures,
    )


def failure_line(failure: Failure) -> str:
    """The failure run's figures on one line, as the page prints them."""
    def took(spread: Spread | None) -> str:
        return "none succeeded" if spread is None else spread.with_range(1, " s")
    noticed = ("not counted down" if math.isnan(failure.noticed_s) else
               f"counted down at {failure.noticed_s:.1f} s")
    return (f"replica killed at {failure.killed_s:.1f} s, {noticed}; failed: "
            f"{failure.failed_before} of {failure.sent_before} sent before the kill, "
            f"{failure.failed_after} of {failure.sent_after} sent after; sent → last token, "
            f"median (low–high): {took(failure.latency_before)} before, "
            f"{took(failure.latency_after)} after; router retries: {failure.retries:.0f}")


def _lost_after_text(failure: Failure) -> str:
    """The requests sent after the kill that failed, and what the page knows of why."""
    text = (f"Of the {failure.sent_after} requests sent after the kill, "
            f"{failure.failed_after} failed")
    if not failure.failed_after:
        return text + ". "
    lost, unnoticed = failure.failed_after, failure.failed_unnoticed
    if unnoticed in (0, lost):
        which = "it was" if lost == 1 else "all were"
        when = "before the router counted" if unnoticed else "after the router had counted"
        text += f" ({which} sent {when} the replica down)"
    else:
        text += f" ({unnoticed} of them sent before the router counted the replica down)"
    if failure.retries:
        them = "it" if lost == 1 else "them"
        text += (", although the router does retry a request whose connection fails; the page "
                 f"does not show why no retry saved {them}")
    return text + f" (the first reported: \"{failure.errors_after[0][:80]}\"). "


def _survivors_text(failure: Failure) -> str:
    """How long the answers took after the kill against before it, by ``Failure.survivors``."""
    before, after = failure.latency_before, failure.latency_after
    if before is None or after is None or failure.survivors is Survivors.UNTOLD:
        return "Too few requests succeeded on one side of the kill to compare their times. "
    times = (f"The answers that came took {after.with_range(1, ' s')} from sending to the last "
             f"token after the kill against {before.with_range(1, ' s')} before it (median, "
             "then the quickest and slowest)")
    return times + {
        Survivors.FASTER: (": after the kill every answer came sooner than every answer before "
                           "it, with one replica instead of two. The page does not measure why; "
                           "one candidate is that the dead replica's processes no longer competed "
                           "with the survivor's for the machine's cores (on a CPU a replica's "
                           "binding pins only its engine's compute threads). "),
        Survivors.SLOWER: (": with one replica left, every answer after the kill took longer "
                           "than every answer before it, as the survivor carried the whole "
                           "stream. "),
        Survivors.ALIKE: (": the ranges overlap, so losing a replica did not measurably change "
                          "how long the answers took at this rate. "),
    }[failure.survivors]


def failure_text(failure: Failure) -> str:
    """What users saw, in the order it happened."""
    if failure.failed_before:
        lost = (f"{failure.failed_before} of the {failure.sent_before} requests sent before it "
                "failed: the replica that died was answering them, and the router cannot retry "
                "a stream cut halfway")
    else:
        lost = f"None of the {failure.sent_before} requests sent before it failed"
    interval_s, failures = failure.health_interval_s, failure.health_failures
    text = f"The replica was killed {failure.killed_s:.1f} s into the run. {lost}. "
    if math.isnan(failure.noticed_s):
        text += ("The router still counted the dead replica healthy when the run ended: its "
                 f"health check (every {interval_s} s, {failures} failures in a row) had not "
                 "caught up. ")
    else:
        text += (f"The router counted it down {failure.detection_s:.1f} s after the kill (it "
                 f"checks every {interval_s} s and needs {failures} failures in a row). ")
    if failure.retries:
        text += (f"Meanwhile it sent requests there and, when a connection failed, sent them "
                 f"again to the survivor ({failure.retries:.0f} retries). ")
    text += _lost_after_text(failure) + _survivors_text(failure)
    default_s, default_failures = ROUTER_DEFAULT_HEALTH
    return text + (f"With the router's default health check (every {default_s} s, "
                   f"{default_failures} failures) the dead replica would have kept getting "
                   "requests for minutes.")


def measure_setup(target: Router | Server, users: ClosedLoop, repeats: int) -> list[Result]:
    """``repeats`` runs of the closed loop ``users`` against one running setup, after one
    short request through it that is not measured (a fresh router's first requests once put an
    'ITL p50 0 ms' into the median)."""
    warm_up(target)
    return [run(target, users, metrics_interval=None) for _ in range(repeats)]


@dataclass(frozen=True)
class SetupRuns:
    """One setup's repeated closed-loop runs: its output rate and median time per token."""

    label: str
    output_tok_s: Spread
    tpot_ms_p50: Spread

    @classmethod
    def of(cls, label: str, results: Sequence[Result]) -> SetupRuns:
        summaries = [result.summary() for result in results]
        return cls(label, Spread.of(float(s["output_tok_s"]) for s in summaries),
                   Spread.of(float(s["tpot_ms_p50"]) for s in summaries))


def copies_verdict(copies: Spread, other: Spread) -> str:
    """"copies", "one" or "same": which delivered more output, called apart only when the runs'
    ranges are and the medians differ by ``SAME_SPEED`` or more."""
    if copies.above_by(other, 1 + SAME_SPEED):
        return "copies"
    if copies.below_by(other, 1 + SAME_SPEED):
        return "one"
    return "same"


@dataclass(frozen=True)
class CopiesFindings:
    """Two replicas behind the router against one server with the whole device and, with two
    GPUs, one model split over both (``split``); ``verdict`` (copies against one server) and
    ``split_verdict`` (copies against the split model) from ``copies_verdict``."""

    copies: SetupRuns
    one: SetupRuns
    split: SetupRuns | None
    device_kind: str
    gpus: int
    verdict: str
    split_verdict: str | None

    @classmethod
    def of(cls, runs: Mapping[str, Sequence[Result]], device_kind: str,
           gpus: int) -> CopiesFindings:
        """``runs``: the replicas' runs first, then the one server's, then the split model's."""
        setups = [SetupRuns.of(label, results) for label, results in runs.items()]
        copies, one, split = setups[0], setups[1], (setups[2] if len(setups) > 2 else None)
        return cls(copies, one, split, device_kind, gpus,
                   copies_verdict(copies.output_tok_s, one.output_tok_s),
                   None if split is None else copies_verdict(copies.output_tok_s,
                                                             split.output_tok_s))

    @property
    def setups(self) -> list[SetupRuns]:
        return [self.copies, self.one, *([self.split] if self.split else [])]


def setup_table(found: CopiesFindings) -> pd.DataFrame:
    """One row per setup, medians over its runs with the output rate's range."""
    return pd.DataFrame([{
        "setup": setup.label, "runs": setup.output_tok_s.n,
        "output tok/s": setup.output_tok_s.median, "output tok/s low": setup.output_tok_s.low,
        "output tok/s high": setup.output_tok_s.high, "TPOT p50 (ms)": setup.tpot_ms_p50.median,
    } for setup in found.setups])


def setup_view(found: CopiesFindings) -> pd.DataFrame:
    """One row per setup (the index) as the page prints it: medians with the runs' range."""
    return pd.DataFrame([{
        "set-up": setup.label, "runs": f"{setup.output_tok_s.n}",
        "output (tok/s)": setup.output_tok_s.with_range(),
        "time per output token p50 (ms)": setup.tpot_ms_p50.with_range(),
    } for setup in found.setups]).set_index("set-up")


def copies_title(found: CopiesFindings, device_label: str) -> str:
    """The setups figure's finding."""
    return f"On {device_label}, " + {
        "copies": "two copies delivered more", "one": "one server delivered more",
        "same": "the runs cannot tell two copies from one server"}[found.verdict]


def _setup_text(setup: SetupRuns) -> str:
    rate = setup.output_tok_s
    return (f"{rate.median:,.0f} output tok/s ({rate.low:,.0f}–{rate.high:,.0f}) on "
            f"{setup.label}")


def copies_text(found: CopiesFindings) -> str:
    """Two replicas against one server (and, with two GPUs, one model split over both)."""
    copies, one = found.copies, found.one
    text = (f"Over {copies.output_tok_s.n} runs each, the same closed loop of users gave "
            f"{_setup_text(copies)} and {_setup_text(one)}; a token took "
            f"{copies.tpot_ms_p50.median:.0f} ms (median) against "
            f"{one.tpot_ms_p50.median:.0f} ms. ")
    if found.device_kind == "cpu":
        text += {
            "copies": "Two one-core copies delivered more than one server on both cores, in "
                      "every run: on this CPU a single engine did not turn two cores into twice "
                      "one core's work. ",
            "one": "One server with both cores delivered more than two one-core copies, in "
                   "every run: one engine batches every user's tokens into one step, and the "
                   "copies each carried the cost of a whole server on half the machine. ",
            "same": "The runs cannot tell the two setups apart: splitting two cores into two "
                    "copies bought no clear throughput, only a second process. ",
        }[found.verdict]
        text += ("On a CPU the copies share one memory bus, so this run cannot show what copies "
                 "on separate GPUs give; it shows what splitting one machine costs.")
    elif found.gpus < 2:
        text += ("Both copies shared one GPU here, each with part of its memory and both with "
                 "its compute: copies pay off when each has a device of its own.")
    else:
        text += {
            "copies": "Two copies, a GPU each, delivered more than one server on one GPU: each "
                      "copy brought a device of its own to the load. ",
            "one": "One server on one GPU delivered more than two copies on two: this load "
                   "did not need the second GPU, and the router's hop cost time. ",
            "same": "The runs cannot tell the copies on two GPUs from one GPU: the load did "
                    "not clearly need the second GPU. ",
        }[found.verdict]
    if found.split is not None:
        text += (f"Split over two GPUs with tensor parallelism the model gave "
                 f"{_setup_text(found.split)} at {found.split.tpot_ms_p50.median:.0f} ms a "
                 "token: ")
        text += {
            "copies": "fewer tokens than two copies, as the lesson says: splitting a model "
                      "that fits on one card adds the GPUs' exchange to every step.",
            "one": "more than two copies, against the lesson's rule of thumb, on this model "
                   "and these GPUs.",
            "same": "the runs cannot tell it from two copies; the lesson's reason to prefer "
                    "copies, the GPUs' exchange at every step, did not show in throughput here.",
        }[found.split_verdict or "same"]
    return text.rstrip()


def two_gpus_note(gpus: int) -> str:
    """Why the page does or does not compare a split model with two copies."""
    if gpus >= 2:
        return "This machine has two GPUs: the last row splits one model over both."
    return ("This machine has no second GPU, so the page does not run "
            "`--tensor-parallel-size 2`. With two GPUs (Kaggle's T4 x2) it would serve one "
            "model split over both and compare it with two copies, one per GPU. A split is how "
            "a model too large for one card is served at all; for one that fits, it gives each "
            "GPU half the weights, which frees memory for KV cache and brings both GPUs' "
            "compute to every token, at the price of the GPUs exchanging results after every "
            "layer.")


@dataclass(frozen=True)
class PastOneMachine:
    """The page's findings: routing, the failure, copies against one server."""

    routing: RoutingFindings
    failure: Failure
    copies: CopiesFindings


def story(prediction: str, found: PastOneMachine) -> str:
    """The page's interpretation, in Markdown."""
    (spreading, following), hits = found.routing.policies, found.routing.hit_rate
    measured = (f"a hit rate of {hits[0].median:.0%} with {spreading} and "
                f"{hits[1].median:.0%} with {following} (medians of {found.routing.runs} runs); "
                f"{found.failure.failed} failed requests when a replica died")
    return page_story(prediction, measured, [
        ("Routing and the prefix cache", routing_text(found.routing)),
        ("A replica dies", failure_text(found.failure)),
        ("Two copies or one server", copies_text(found.copies)),
    ])

