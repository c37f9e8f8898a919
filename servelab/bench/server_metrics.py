"""The server's own view: its Prometheus ``/metrics``, read once or sampled into a time series.

``fetch_metrics`` is the one place that reads ``/metrics`` once; ``MetricsSampler`` samples it
during a run. Both parse with ``prometheus_client``'s parser into the same columns. Series with
several label sets (one per engine, per model) are summed, except KV-cache usage, a fraction, of
which the largest is kept. Counters (``*_total``) are cumulative since the server started:
subtract the first sample of a run to get what happened during it (``Result.summary`` does).

The ``SERIES`` exist in vLLM 0.32 and 0.11.2 alike. ``BY_SOURCE`` (prompt tokens split into
computed and cache hits) exists in 0.32 only and is NaN on 0.11.2; ``block_size`` comes from
the labels of ``vllm:cache_config_info`` (both versions).
"""

from __future__ import annotations

import asyncio
import math
import time
import urllib.request

import httpx
from prometheus_client.parser import text_string_to_metric_families

# column name -> sample name, in vLLM 0.32 and 0.11.2
SERIES = {
    "running": "vllm:num_requests_running",
    "waiting": "vllm:num_requests_waiting",
    "kv_cache_usage": "vllm:kv_cache_usage_perc",
    "prefix_cache_queries": "vllm:prefix_cache_queries_total",
    "prefix_cache_hits": "vllm:prefix_cache_hits_total",
    "preemptions": "vllm:num_preemptions_total",
    "prompt_tokens": "vllm:prompt_tokens_total",
    "generation_tokens": "vllm:generation_tokens_total",
}
# column name -> value of the ``source`` label of vllm:prompt_tokens_by_source_total (0.32 only)
BY_SOURCE_METRIC = "vllm:prompt_tokens_by_source_total"
BY_SOURCE = {"prompt_tokens_computed": "local_compute", "prompt_tokens_cached": "local_cache_hit"}
CACHE_CONFIG_METRIC = "vllm:cache_config_info"
COLUMNS = [*SERIES, *BY_SOURCE, "block_size"]
COUNTERS = (
    "prefix_cache_queries",
    "prefix_cache_hits",
    "preemptions",
    "prompt_tokens",
    "generation_tokens",
)
KEEP_LARGEST = {"kv_cache_usage"}


def _label_number(text: str | None) -> float:
    if text is None:
        return math.nan
    try:
        return float(text)
    except ValueError:
        return math.nan


def parse_metrics(text: str) -> dict[str, float]:
    """One sample of ``COLUMNS`` from a ``/metrics`` text; a series the server lacks is NaN."""
    by_sample: dict[str, list[float]] = {}
    by_source: dict[str, list[float]] = {}
    block_size = math.nan
    wanted = set(SERIES.values())
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name in wanted:
                by_sample.setdefault(sample.name, []).append(sample.value)
            elif sample.name == BY_SOURCE_METRIC:
                by_source.setdefault(sample.labels.get("source", ""), []).append(sample.value)
            elif sample.name == CACHE_CONFIG_METRIC:
                block_size = _label_number(sample.labels.get("block_size"))
    row = {}
    for column, sample_name in SERIES.items():
        values = by_sample.get(sample_name)
        if not values:
            row[column] = math.nan
        elif column in KEEP_LARGEST:
            row[column] = max(values)
        else:
            row[column] = sum(values)
    for column, source in BY_SOURCE.items():
        values = by_source.get(source)
        row[column] = sum(values) if values else math.nan
    row["block_size"] = block_size
    return row


def metrics_url(url: str) -> str:
    """The address of the Prometheus page of the server at ``url`` (e.g. ``server.url``)."""
    return url.rstrip("/") + "/metrics"


def fetch_metrics(url: str, timeout: float = 10.0) -> dict[str, float]:
    """One sample of ``COLUMNS`` from the server at ``url`` (e.g. ``server.url``)."""
    with urllib.request.urlopen(metrics_url(url), timeout=timeout) as response:
        return parse_metrics(response.read().decode())


class MetricsSampler:
    """Scrapes ``{url}/metrics`` every ``interval`` seconds into ``rows``: ``t_s`` (when the
    answer came), ``scrape_s`` (how long the server took to answer) and the ``SERIES``."""

    def __init__(self, url: str, clock_zero: float, interval: float = 2.0) -> None:
        if interval <= 0:
            raise ValueError(f"the sampling interval must be positive, not {interval}")
        self.url = metrics_url(url)
        self.clock_zero = clock_zero
        self.interval = interval
        self.rows: list[dict[str, float]] = []
        self.errors = 0

    async def sample(self, client: httpx.AsyncClient) -> None:
        asked = time.perf_counter()
        try:
            response = await client.get(self.url)
            response.raise_for_status()
        except httpx.HTTPError:
            self.errors += 1
            return
        answered = time.perf_counter()
        row = {"t_s": answered - self.clock_zero, "scrape_s": answered - asked}
        self.rows.append(row | parse_metrics(response.text))

    async def run(self) -> None:
        """Sample until cancelled, then take one last sample."""
        async with httpx.AsyncClient(timeout=5.0) as client:
            try:
                while True:
                    await self.sample(client)
                    await asyncio.sleep(self.interval)
            except asyncio.CancelledError:
                await self.sample(client)
                raise
