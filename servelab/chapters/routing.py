"""Chapter 09: replicas behind vLLM's router. What each routing policy did with the tenants'
prompts, what users saw when a replica died, and two copies against one server.

Measuring (``measure_policy``, ``failure_rows``) is apart from the findings (``PolicyRun``,
``Failure``, ``copies_verdict``), and the findings apart from the words (``*_text``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from servelab.bench import run
from servelab.bench.frames import Result
from servelab.bench.prompts import PromptSource
from servelab.bench.server_metrics import fetch_metrics
from servelab.bench.workloads import FailureDuring, Tenants
from servelab.chapters.lesson import HIT_RATE_SHOWN, SAME_SPEED, TTFT_GAIN_SHOWN
from servelab.chapters.prediction import page_story
from servelab.replicas import Replicas
from servelab.router import Router


@dataclass(frozen=True)
class PolicyRun:
    """One routing policy's run of the tenants' traffic: the client's metrics, how many requests
    of each tenant each replica served (``spread``: a row per tenant, a column per replica), and
    each replica's prefix-cache counters during the run (prompt tokens looked up, found)."""

    policy: str
    summary: dict[str, float]
    spread: pd.DataFrame
    queries: tuple[float, ...]
    hits: tuple[float, ...]

    @property
    def hit_rate(self) -> float:
        """Share of the prompt tokens looked up that the replicas found cached, all together."""
        total = sum(self.queries)
        return sum(self.hits) / total if total else math.nan

    @property
    def replica_hit_rates(self) -> list[float]:
        return [h / q if q else math.nan for h, q in zip(self.hits, self.queries, strict=True)]

    @property
    def computed_tokens(self) -> float:
        """Prompt tokens the replicas computed rather than found."""
        return sum(self.queries) - sum(self.hits)

    @property
    def prefills(self) -> int:
        """How many times a tenant's system prompt had to be computed, at least: once on each
        replica that served any of that tenant's requests."""
        return int((self.spread > 0).to_numpy().sum())

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


def measure_policy(replicas: Replicas, policy: str, workload: Tenants, prompts: PromptSource,
                   **router_options: object) -> tuple[PolicyRun, Router]:
    """Start a router with ``policy`` in front of the running ``replicas``, send ``workload``
    through it, stop the router, and return what happened (and the stopped router, whose
    command line the page prints)."""
    router = Router(replicas, policy=policy, **router_options)
    with router:
        before = [fetch_metrics(replica.url) for replica in replicas]
        result = run(router, workload, prompts=prompts, metrics_interval=None)
        after = [fetch_metrics(replica.url) for replica in replicas]
    tenant_of = {record.planned.request_id: record.planned.user for record in result.records}
    spread = pd.DataFrame(0, index=pd.Index(range(workload.tenants), name="tenant"),
                          columns=[f"replica {index}" for index in range(len(replicas))])
    for request_id, index in replicas.served_by(tenant_of).items():
        spread.iloc[tenant_of[request_id], index] += 1
    return PolicyRun(
        policy=policy, summary=result.summary(), spread=spread,
        queries=tuple(a["prefix_cache_queries"] - b["prefix_cache_queries"]
                      for a, b in zip(after, before, strict=True)),
        hits=tuple(a["prefix_cache_hits"] - b["prefix_cache_hits"]
                   for a, b in zip(after, before, strict=True)),
    ), router


def policy_table(runs: Sequence[PolicyRun]) -> pd.DataFrame:
    """One row per policy: what the page compares."""
    return pd.DataFrame({
        "policy": [r.policy for r in runs],
        "tenant's requests on one replica": [r.kept_together for r in runs],
        "prompt computed (times)": [r.prefills for r in runs],
        "prompt tokens computed": [r.computed_tokens for r in runs],
        "hit rate": [r.hit_rate for r in runs],
        "TTFT p50 (ms)": [r.summary["ttft_ms_p50"] for r in runs],
        "TTFT p99 (ms)": [r.summary["ttft_ms_p99"] for r in runs],
        "output tok/s": [r.summary["output_tok_s"] for r in runs],
    })


def routing_text(spreading: PolicyRun, following: PolicyRun, workload: Tenants) -> str:
    """What the two policies did with the tenants' prompts, from the two runs."""
    replicas = spreading.spread.shape[1]
    expected = [run.expected_computed(workload.prefix_tokens, workload.question_tokens)
                for run in (spreading, following)]
    text = (f"{workload.tenants} tenants sent {workload.requests_per_tenant} requests each, "
            f"every one opening with its tenant's {workload.prefix_tokens}-token prompt. A "
            f"tenant's prompt has to be computed once on every replica that serves the tenant: "
            f"with {spreading.policy} that made {spreading.prefills} computations of a prompt "
            f"(on average {spreading.kept_together:.0%} of a tenant's requests went to one "
            f"replica), with {following.policy} {following.prefills} "
            f"({following.kept_together:.0%}). Add each request's {workload.question_tokens}-"
            f"token question and the replicas should compute {expected[0]:,} and "
            f"{expected[1]:,} prompt tokens; their own counters say "
            f"{spreading.computed_tokens:,.0f} and {following.computed_tokens:,.0f}, and found "
            f"{spreading.hit_rate:.0%} and {following.hit_rate:.0%} of the prompt tokens "
            "cached. ")
    if following.hit_rate - spreading.hit_rate >= HIT_RATE_SHOWN:
        text += (f"Following the prefixes kept more of the saving prefix caching offers: a "
                 f"spreading policy makes each of the {replicas} replicas compute every "
                 "tenant's prompt for itself. ")
    elif spreading.hit_rate - following.hit_rate >= HIT_RATE_SHOWN:
        text += ("Here the spreading policy found more in the cache, against what the policies "
                 "are built for: look at the spread above for the reason. ")
    else:
        text += ("The two hit rates are within a few points of each other: in this run routing "
                 "made no clear difference to the cache. ")
    fast, slow = following.summary["ttft_ms_p50"], spreading.summary["ttft_ms_p50"]
    if slow >= TTFT_GAIN_SHOWN * fast:
        text += (f"First tokens came sooner with {following.policy} (median {fast:,.0f} ms "
                 f"against {slow:,.0f} ms): a prompt found in the cache is not prefilled again.")
    elif fast >= TTFT_GAIN_SHOWN * slow:
        text += (f"Yet first tokens came later with {following.policy} (median {fast:,.0f} ms "
                 f"against {slow:,.0f} ms): keeping tenants together can pile their requests "
                 "onto one replica while the other idles.")
    else:
        text += (f"The median first token was {fast:,.0f} ms with {following.policy} and "
                 f"{slow:,.0f} ms with {spreading.policy}, not clearly apart in one run.")
    return text


@dataclass(frozen=True)
class Failure:
    """What users saw when a replica was killed during a run through the router: run-clock
    times (s) of the kill and of the router counting the replica down (NaN: it did not within
    the run), and the requests, split by when they were sent."""

    killed_s: float
    noticed_s: float
    failed_before: int  # sent before the kill and failed (in flight on the dead replica)
    failed_after: int   # sent after the kill and failed
    sent_before: int
    sent_after: int
    latency_s_before: float  # median arrival-to-last-token before the kill
    latency_s_worst_after: float  # worst of those sent after the kill that succeeded
    retries: float      # requests the router sent again, to another replica

    @property
    def failed(self) -> int:
        return self.failed_before + self.failed_after

    @property
    def detection_s(self) -> float:
        return self.noticed_s - self.killed_s


def failure_rows(result: Result) -> pd.DataFrame:
    """One row per request: when it was sent (s), whether it succeeded, its latency (s)."""
    return pd.DataFrame({
        "sent_s": [r.sent for r in result.records],
        "ok": [r.ok for r in result.records],
        "latency_s": [r.e2e if r.ok else math.nan for r in result.records],
        "error": [r.error or "" for r in result.records],
    })


def failure_of(result: Result, workload: FailureDuring, retries: float) -> Failure:
    """The findings of one failure run (``workload.events`` holds the kill and the notice)."""
    rows = failure_rows(result)
    killed = workload.events.get("failed", math.nan)
    before, after = rows[rows["sent_s"] < killed], rows[rows["sent_s"] >= killed]
    worst = after.loc[after["ok"], "latency_s"].max()
    return Failure(
        killed_s=killed, noticed_s=workload.events.get("noticed", math.nan),
        failed_before=int((~before["ok"]).sum()), failed_after=int((~after["ok"]).sum()),
        sent_before=len(before), sent_after=len(after),
        latency_s_before=float(before.loc[before["ok"], "latency_s"].median()),
        latency_s_worst_after=float(worst) if not pd.isna(worst) else math.nan,
        retries=retries,
    )


def failure_text(failure: Failure, interval_s: int, failures: int) -> str:
    """What users saw, in the order it happened."""
    if failure.failed_before:
        lost = (f"{failure.failed_before} of the {failure.sent_before} requests sent before it "
                "failed: the replica that died was answering them, and the router cannot retry "
                "a stream cut halfway")
    else:
        lost = f"None of the {failure.sent_before} requests sent before it failed"
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
    text += (f"Of the {failure.sent_after} requests sent after the kill, "
             f"{failure.failed_after} failed")
    if not math.isnan(failure.latency_s_worst_after):
        text += (f"; the slowest that succeeded took {failure.latency_s_worst_after:.1f} s, "
                 f"against a median of {failure.latency_s_before:.1f} s before the kill")
    return text + ". With the router's default health check (every 60 s, 3 failures) the dead " \
        "replica would have kept getting requests for minutes."


def copies_verdict(copies_tok_s: float, one_tok_s: float) -> str:
    """"copies", "one" or "same": which delivered more output, beyond ``SAME_SPEED``."""
    if copies_tok_s > (1 + SAME_SPEED) * one_tok_s:
        return "copies"
    if one_tok_s > (1 + SAME_SPEED) * copies_tok_s:
        return "one"
    return "same"


def copies_text(table: pd.DataFrame, device_kind: str, gpus: int) -> str:
    """Two replicas against one server (and, with two GPUs, one model split over both), from
    ``table``: a row per setup with "setup", "output tok/s" and "TPOT p50 (ms)"; the first row is
    the replicas, the second the one server."""
    copies, one = table.iloc[0], table.iloc[1]
    text = (f"The same closed loop of users gave {copies['output tok/s']:,.0f} output tok/s on "
            f"{copies['setup']} and {one['output tok/s']:,.0f} on {one['setup']}; a token took "
            f"{copies['TPOT p50 (ms)']:.0f} ms (median) against {one['TPOT p50 (ms)']:.0f} ms. ")
    verdict = copies_verdict(copies["output tok/s"], one["output tok/s"])
    if device_kind == "cpu":
        text += {
            "copies": "Two one-core copies delivered more than one server on both cores: on "
                      "this CPU a single engine did not turn two cores into twice one core's "
                      "work. ",
            "one": "One server with both cores delivered more than two one-core copies: one "
                   "engine batches every user's tokens into one step, and the copies each "
                   "carried the cost of a whole server on half the machine. ",
            "same": "Within this run's noise the two setups delivered the same: splitting two "
                    "cores into two copies bought no throughput, only a second process. ",
        }[verdict]
        text += ("On a CPU the copies share one memory bus, so this run cannot show what copies "
                 "on separate GPUs give; it shows what splitting one machine costs.")
    elif gpus < 2:
        text += ("Both copies shared one GPU here, each with part of its memory and both with "
                 "its compute: copies pay off when each has a device of its own.")
    else:
        text += {
            "copies": "Two copies, a GPU each, delivered more than one server on one GPU: each "
                      "copy brought a device of its own to the load. ",
            "one": "One server on one GPU delivered more than two copies on two: this load "
                   "did not need the second GPU, and the router's hop cost time. ",
            "same": "Within this run's noise the copies on two GPUs delivered what one GPU "
                    "did: the load did not need the second GPU. ",
        }[verdict]
    if len(table) > 2:
        split = table.iloc[2]
        text += (f"Split over two GPUs with tensor parallelism the model gave "
                 f"{split['output tok/s']:,.0f} tok/s at {split['TPOT p50 (ms)']:.0f} ms a "
                 "token: ")
        text += {
            "copies": "fewer tokens than two copies, as the lesson says: splitting a model "
                      "that fits on one card adds the GPUs' exchange to every step.",
            "one": "more than two copies, against the lesson's rule of thumb, on this model "
                   "and these GPUs.",
            "same": "about as much as two copies; the lesson's reason to prefer copies, the "
                    "GPUs' exchange at every step, did not show in throughput here.",
        }[copies_verdict(copies["output tok/s"], split["output tok/s"])]
    return text.rstrip()


def two_gpus_note(gpus: int) -> str:
    """Why the page does or does not compare a split model with two copies."""
    if gpus >= 2:
        return "This machine has two GPUs: the last row splits one model over both."
    return ("This machine has no second GPU, so the page does not run "
            "`--tensor-parallel-size 2`. With two GPUs (Kaggle's T4 x2) it would serve one "
            "model split over both and compare it with two copies, one per GPU: the lesson's "
            "rule is to split a model only when it does not fit on one card.")


def story(prediction: str, spreading: PolicyRun, following: PolicyRun, workload: Tenants,
          failure: Failure, health: tuple[int, int], copies: pd.DataFrame, device_kind: str,
          gpus: int) -> str:
    """The page's interpretation, in Markdown."""
    measured = (f"a hit rate of {spreading.hit_rate:.0%} with {spreading.policy} and "
                f"{following.hit_rate:.0%} with {following.policy}; {failure.failed} failed "
                f"requests when a replica died")
    return page_story(prediction, measured, [
        ("Routing and the prefix cache", routing_text(spreading, following, workload)),
        ("A replica dies", failure_text(failure, *health)),
        ("Two copies or one server", copies_text(copies, device_kind, gpus)),
    ])

