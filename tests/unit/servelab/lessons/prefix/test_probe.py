"""servelab.lessons.prefix.probe: a prompt's tokens split into computed and cached on both engine
versions' metrics pages, the by-source counters first where they exist."""

from __future__ import annotations

import math

import pytest

from servelab.bench.server_metrics import parse_metrics
from servelab.lessons.prefix.probe import prompt_split
from tests.unit.test_engine_compat import VERSIONS, fixture


@pytest.mark.parametrize("version", VERSIONS)
def test_prompt_tokens_split_into_computed_and_cached_on_both(version):
    row = parse_metrics(fixture(version, "metrics.prom"))
    split = prompt_split(row)
    assert split["from cache"] == row["prefix_cache_hits"]
    assert split["computed"] + split["from cache"] == row["prompt_tokens"]


def test_the_by_source_counters_win_where_they_exist():
    row = parse_metrics(fixture("vllm-0.32", "metrics.prom"))
    row |= {"prompt_tokens_computed": 7.0, "prompt_tokens_cached": 5.0}
    assert prompt_split(row) == {"computed": 7.0, "from cache": 5.0}
    with pytest.raises(RuntimeError, match="neither"):
        prompt_split(row | {"prompt_tokens_computed": math.nan, "prefix_cache_hits": math.nan})
