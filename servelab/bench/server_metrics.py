"""The server's own view during a run: its Prometheus ``/metrics``, sampled into a time series.

The text is parsed with ``prometheus_client``'s parser. Series with several label sets (one per
engine, per model) are summed, except KV-cache usage, a fraction, of which the largest is kept.
Counters (``*_total``) are cumulative since the server started: subtract the first sample of a
run to get what happened during it (``Result.summary`` does).
"""

from __future__ import annotations

import asyncio
import time

import httpx
from prometheus_client.parser import text_string_to_metric_families

# column name -> vLLM 0.32 sample name
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
COUNTERS = ("prefix_cache_queries", "prefix_cache_hits", "preemptions", "prompt_tokens",
            "generation_tokens")
KEEP_LARGEST = {"kv_cache_usage"}


def parse_metrics(text: str) -> dict[str, float]:
    """One sample of ``SERIES`` from a ``/metrics`` text; a series the server lacks is NaN."""
    by_sample: dict[str, list[float]] = {}
    wanted = set(SERIES.values())
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name in wanted:
                by_sample.setdefault(sample.name, []).append(sample.value)
    row = {}
    for column, sample_name in SERIES.items():
        values = by_sample.get(sample_name)
        if not values:
            row[column] = float("nan")
        elif column in KEEP_LARGEST:
            row[column] = max(values)
        else:
            row[column] = sum(values)
    return row


class MetricsSampler:
    """Scrapes ``{url}/metrics`` every ``interval`` seconds into ``rows``: ``t_s`` (when the
    answer came), ``scrape_s`` (how long the server took to answer) and the ``SERIES``."""

    def __init__(self, url: str, clock_zero: float, interval: float = 2.0) -> None:
        if interval <= 0:
            raise ValueError(f"the sampling interval must be positive, not {interval}")
        self.url = url.rstrip("/") + "/metrics"
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
