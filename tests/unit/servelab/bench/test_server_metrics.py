"""servelab.bench.server_metrics: the Prometheus page of vLLM read into one row: labelled series
summed, usage at its largest, missing series NaN, and every column on both engine versions' pages
(tests/fixtures)."""

from __future__ import annotations

import math

import pytest

from servelab.bench.server_metrics import parse_metrics
from tests.support import FIXTURES
from tests.unit.test_engine_compat import VERSIONS, fixture

FIXTURE = FIXTURES / "vllm-0.32" / "metrics.prom"


def test_prometheus_text_of_vllm_is_parsed() -> None:
    text = FIXTURE.read_text()
    row = parse_metrics(text)
    assert row["prefix_cache_queries"] == 47.0
    assert row["prefix_cache_hits"] == 0.0
    assert row["generation_tokens"] == 37.0
    assert row["running"] == 0.0 and row["kv_cache_usage"] == 0.0


def test_label_sets_are_summed_and_usage_takes_the_largest() -> None:
    labels = '{engine="%s",model_name="SmolLM2-135M-Instruct"}'
    text = FIXTURE.read_text()
    for name, second in [("prefix_cache_queries_total", 3.0), ("kv_cache_usage_perc", 0.25)]:
        line = next(line for line in text.splitlines() if line.startswith(f"vllm:{name}{{"))
        text = text.replace(line, f"{line}\nvllm:{name}{labels % 1} {second}")
    row = parse_metrics(text)
    assert row["prefix_cache_queries"] == 50.0
    assert row["kv_cache_usage"] == 0.25


def test_missing_series_are_nan() -> None:
    row = parse_metrics("# TYPE other counter\nother_total 3.0\n")
    assert math.isnan(row["prefix_cache_hits"])


BLOCK_SIZE = {"vllm-0.32": 128, "vllm-0.11.2": 16}


@pytest.mark.parametrize("version", VERSIONS)
def test_every_metrics_column_but_the_by_source_split_exists_in_both(version):
    row = parse_metrics(fixture(version, "metrics.prom"))
    by_source = {"prompt_tokens_computed", "prompt_tokens_cached"}
    missing = {column for column, value in row.items() if math.isnan(value)}
    assert missing == (set() if version == "vllm-0.32" else by_source)
    assert row["prompt_tokens"] > 0 and row["generation_tokens"] > 0
    assert row["prefix_cache_queries"] >= row["prefix_cache_hits"] >= 0
    assert row["block_size"] == BLOCK_SIZE[version]
