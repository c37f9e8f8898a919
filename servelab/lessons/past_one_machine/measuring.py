"""Chapter 09's measuring: each routing policy's runs of the tenants' traffic, closed-loop runs
of a setup, a replica killed mid-run, the replicas' crowded cache, and the rows the page's
figures plot. What the runs mean is ``past_one_machine.findings``.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Sequence
from dataclasses import replace

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
from servelab.lessons.past_one_machine.failures import Failure
from servelab.lessons.past_one_machine.findings import CopiesFindings, PolicyRun

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


def _counted(
    replicas: Replicas, router: Router, policy: str, workload: Tenants, prompts: PromptSource
) -> PolicyRun:
    """Send ``workload`` through ``router`` and return what happened, the replicas' prefix-cache
    counters read before and after."""
    before = [fetch_metrics(replica.url) for replica in replicas]
    result = run(router, workload, prompts=prompts, metrics_interval=None)
    after = [fetch_metrics(replica.url) for replica in replicas]
    tenant_of = {record.planned.request_id: record.planned.user for record in result.records}
    counts = np.zeros((workload.tenants, len(replicas)), dtype=int)
    for request_id, index in replicas.served_by(tenant_of).items():
        counts[tenant_of[request_id], index] += 1
    spread = pd.DataFrame(
        counts,
        index=pd.Index(range(workload.tenants), name="tenant"),
        columns=[f"replica {index}" for index in range(len(replicas))],
    )
    return PolicyRun(
        policy=policy,
        summary=result.summary(),
        spread=spread,
        queries=tuple(
            a["prefix_cache_queries"] - b["prefix_cache_queries"]
            for a, b in zip(after, before, strict=True)
        ),
        hits=tuple(
            a["prefix_cache_hits"] - b["prefix_cache_hits"]
            for a, b in zip(after, before, strict=True)
        ),
        command_line=router.command_line,
    )


def measure_policy(
    replicas: Replicas, policy: str, workload: Tenants, prompts: PromptSource
) -> tuple[PolicyRun, PolicyRun]:
    """Start a router with ``policy`` in front of the running ``replicas`` and send ``workload``
    through it twice under one cache salt of its own: a cold pass, where every tenant's prompt
    is new to the replicas, then a warm pass of the same requests, which computes a prompt only
    where the cold pass's copy was pushed out. Stop the router; return (cold, warm)."""
    salted = replace(workload, salt=secrets.token_hex(8))
    with Router(replicas, policy=policy) as router:
        warm_up(router)  # through the router, not measured: its first requests pay its set-up
        cold = _counted(replicas, router, policy, salted, prompts)
        return cold, _counted(replicas, router, policy, salted, prompts)


def measure_policies(
    replicas: Replicas,
    policies: Sequence[str],
    workload: Tenants,
    prompts: PromptSource,
    repeats: int,
) -> tuple[dict[str, list[PolicyRun]], dict[str, list[PolicyRun]]]:
    """``repeats`` cold and warm passes of ``workload`` under each policy
    (``measure_policy``), interleaved (A, B, A, B, ...) so that a drift in the machine's speed
    falls on both alike: the cold passes by policy, then the warm."""
    cold: dict[str, list[PolicyRun]] = {policy: [] for policy in policies}
    warm: dict[str, list[PolicyRun]] = {policy: [] for policy in policies}
    for _ in range(repeats):
        for policy in policies:
            first, second = measure_policy(replicas, policy, workload, prompts)
            cold[policy].append(first)
            warm[policy].append(second)
    return cold, warm


def measure_setup(target: Router | Server, users: ClosedLoop, repeats: int) -> list[Result]:
    """``repeats`` runs of the closed loop ``users`` against one running setup, after one
    short request through it that is not measured (a fresh router's first requests once put an
    'ITL p50 0 ms' into the median)."""
    warm_up(target)
    return [run(target, users, metrics_interval=None) for _ in range(repeats)]


def failure_rows(result: Result) -> pd.DataFrame:
    """One row per request: when it was sent (s), whether it succeeded, its latency (s)."""
    return pd.DataFrame(
        {
            "sent_s": [r.sent for r in result.records],
            "ok": [r.ok for r in result.records],
            "latency_s": [r.e2e if r.ok else math.nan for r in result.records],
            "error": [r.error or "" for r in result.records],
        }
    )


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
        killed_s=killed,
        noticed_s=noticed,
        failed_before=int((~before["ok"]).sum()),
        failed_after=len(lost),
        failed_unnoticed=len(unnoticed),
        sent_before=len(before),
        sent_after=len(after),
        latency_before=_latencies(before),
        latency_after=_latencies(after),
        errors_after=tuple(lost["error"]),
        retries=retries,
        health_interval_s=router.health_interval_s,
        health_failures=router.health_failures,
    )


def setup_table(found: CopiesFindings) -> pd.DataFrame:
    """One row per setup, medians over its runs with the output rate's range (the setups
    figure's data)."""
    return pd.DataFrame(
        [
            {
                "setup": setup.label,
                "runs": setup.output_tok_s.n,
                "output tok/s": setup.output_tok_s.median,
                "output tok/s low": setup.output_tok_s.low,
                "output tok/s high": setup.output_tok_s.high,
                "TPOT p50 (ms)": setup.tpot_ms_p50.median,
            }
            for setup in found.setups
        ]
    )
