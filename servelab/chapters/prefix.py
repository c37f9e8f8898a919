"""Per-request prefill cost for chapter 04: how many prompt tokens the engine really computed.

vLLM counts every prompt token by where its KV came from: ``local_compute`` (prefilled now) or
``local_cache_hit`` (reused from the prefix cache). Sending requests one at a time and reading
those counters around each request splits the cost request by request.
"""

from __future__ import annotations

import urllib.request

import pandas as pd
from openai import OpenAI
from prometheus_client.parser import text_string_to_metric_families

from servelab.bench.client import PlannedRequest, request_body

SOURCE_METRIC = "vllm:prompt_tokens_by_source_total"
SOURCES = {"local_compute": "computed", "local_cache_hit": "from cache"}


def prompt_tokens_by_source(url: str) -> dict[str, float]:
    """Cumulative prompt tokens per source (``computed``, ``from cache``) from ``/metrics``."""
    with urllib.request.urlopen(url.rstrip("/") + "/metrics", timeout=10) as response:
        text = response.read().decode()
    counts = dict.fromkeys(SOURCES.values(), 0.0)
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            source = SOURCES.get(sample.labels.get("source", ""))
            if sample.name == SOURCE_METRIC and source:
                counts[source] += sample.value
    return counts


def prefill_cost(server: object, plan: list[PlannedRequest]) -> pd.DataFrame:
    """Send ``plan`` one request at a time; one row per request with its prompt tokens split
    into ``computed`` and ``from cache``."""
    client = OpenAI(base_url=server.base_url, api_key="servelab", max_retries=0)
    rows = []
    for planned in plan:
        before = prompt_tokens_by_source(server.url)
        client.completions.create(model=server.model, prompt=planned.prompt,
                                  max_tokens=planned.max_tokens, extra_body=request_body(planned))
        after = prompt_tokens_by_source(server.url)
        rows.append({"request": planned.index,
                     **{name: after[name] - before[name] for name in SOURCES.values()}})
    client.close()
    return pd.DataFrame(rows)
