"""Per-request prefill cost for chapter 04: how many prompt tokens the engine really computed.

Two ways to split a request's prompt tokens into ``computed`` (prefilled now) and ``from cache``
(reused from the prefix cache), both from the server's cumulative ``/metrics`` counters:

- vLLM 0.32 counts prompt tokens by source (``vllm:prompt_tokens_by_source_total``): the
  engine's own split, used wherever it is exported;
- vLLM 0.11.2 lacks that series, but both versions count prompt tokens
  (``vllm:prompt_tokens_total``) and prefix-cache hits in tokens
  (``vllm:prefix_cache_hits_total``): ``from cache`` is the hits and ``computed`` the rest.

Sending requests one at a time and reading the counters around each one splits the cost request
by request.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping

import pandas as pd
from openai import OpenAI

from servelab.bench.client import PlannedRequest, request_body
from servelab.bench.server_metrics import fetch_metrics
from servelab.engines.running import RunningServer

SPLIT = ("computed", "from cache")


def prompt_split(row: dict[str, float]) -> dict[str, float]:
    """Cumulative prompt tokens ``computed`` and ``from cache`` from one ``fetch_metrics`` row:
    the by-source counters where the server has them (0.32), else prompt tokens minus cache
    hits (0.11.2)."""
    computed, cached = row.get("prompt_tokens_computed"), row.get("prompt_tokens_cached")
    if (
        computed is not None
        and cached is not None
        and not (math.isnan(computed) or math.isnan(cached))
    ):
        return {"computed": computed, "from cache": cached}
    prompt, hits = row.get("prompt_tokens", math.nan), row.get("prefix_cache_hits", math.nan)
    if math.isnan(prompt) or math.isnan(hits):
        raise RuntimeError(
            "the server's /metrics has neither vllm:prompt_tokens_by_source_total "
            "nor both vllm:prompt_tokens_total and vllm:prefix_cache_hits_total"
        )
    return {"computed": prompt - hits, "from cache": hits}


def prompt_tokens_by_source(url: str) -> dict[str, float]:
    """Cumulative prompt tokens ``computed`` and ``from cache`` of the server at ``url``."""
    return prompt_split(fetch_metrics(url))


def prefill_probe(server: RunningServer, plan: list[PlannedRequest]) -> pd.DataFrame:
    """Send ``plan`` one request at a time, streamed; one row per request with ``ttft_ms`` and
    its prompt tokens split into ``computed`` and ``from cache`` (the server's counters read
    before and after it)."""
    return prefill_probes(server, {"plan": plan})["plan"]


def prefill_probes(
    server: RunningServer, plans: Mapping[str, list[PlannedRequest]]
) -> dict[str, pd.DataFrame]:
    """``prefill_probe`` for several plans at once, their requests taken in turn (the first of
    each plan, then the second of each, ...), so that a slow spell of the machine falls on
    every plan alike rather than on one of them."""
    client = OpenAI(base_url=server.base_url, api_key="servelab", max_retries=0)
    rows: dict[str, list[dict[str, float]]] = {name: [] for name in plans}
    longest = max((len(plan) for plan in plans.values()), default=0)
    for index in range(longest):
        for name, plan in plans.items():
            if index < len(plan):
                rows[name].append(
                    {"request": index + 1, **_probe_request(client, server, plan[index], index + 1)}
                )
    client.close()
    return {name: pd.DataFrame(found) for name, found in rows.items()}


def _probe_request(
    client: OpenAI, server: RunningServer, planned: PlannedRequest, number: int
) -> dict[str, float]:
    """One streamed request: its ``ttft_ms`` and the prompt tokens it computed and reused."""
    before = prompt_tokens_by_source(server.url)
    sent = time.perf_counter()
    first = None
    stream = client.completions.create(
        model=server.model,
        prompt=planned.prompt,
        max_tokens=planned.max_tokens,
        stream=True,
        extra_body=request_body(planned),
    )
    for chunk in stream:
        if first is None and chunk.choices:
            first = time.perf_counter()
    after = prompt_tokens_by_source(server.url)
    if first is None:
        raise RuntimeError(f"request {number} streamed no token")
    return {
        "ttft_ms": (first - sent) * 1000.0,
        **{name: after[name] - before[name] for name in SPLIT},
    }
