"""The words a printed table puts over its columns (servelab.tables)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from servelab.bench.spread import Spread
from servelab.tables import LABELS, MISSING, label, printed, readable, spread_view


@pytest.mark.parametrize(
    ("key", "words"),
    [
        ("ttft_ms_p99", "first token p99 (ms)"),
        ("tpot_ms_p50", "time per output token p50 (ms)"),
        ("itl_ms_mean", "gap between tokens mean (ms)"),
        ("e2e_s_p50", "whole request p50 (s)"),
    ],
)
def test_a_latency_key_reads_as_its_family_statistic_and_unit(key: str, words: str) -> None:
    assert label(key) == words


def test_a_listed_key_reads_as_its_entry_before_any_pattern() -> None:
    assert label("steady_output_tok_s") == "steady output (tok/s)"
    assert label("concurrency") == "users"
    assert label("served_s_p99") == LABELS["served_s_p99"]  # not read as a latency family


@pytest.mark.parametrize("key", ["preemptions", "foo_ms_p99", "ttft_ms_p", "TTFT p50 (ms)", ""])
def test_an_unknown_key_is_kept_as_it_is(key: str) -> None:
    assert label(key) == key


def test_readable_renames_columns_and_index_names_and_leaves_the_frame_alone() -> None:
    frame = pd.DataFrame(
        {
            "concurrency": [1, 4],
            "output_tok_s": [10.0, 35.0],
            "ttft_ms_p50": [80.0, 95.0],
            "made up": [1, 2],
        }
    )
    shown = readable(frame.set_index("concurrency"))
    assert list(shown.columns) == ["output (tok/s)", "first token p50 (ms)", "made up"]
    assert shown.index.name == "users"
    assert list(shown["output (tok/s)"]) == [10.0, 35.0]
    assert list(frame.columns) == ["concurrency", "output_tok_s", "ttft_ms_p50", "made up"]


def test_readable_renames_each_level_and_keeps_a_missing_index_name() -> None:
    levels = pd.MultiIndex.from_tuples([("vLLM", 1), ("vLLM", 16)], names=["engine", "concurrency"])
    assert list(readable(pd.DataFrame({"start_s": [30.0, 30.0]}, index=levels)).index.names) == [
        "engine",
        "users",
    ]
    unnamed = readable(pd.DataFrame({"user_tok_s": [1.0]}))
    assert unnamed.index.name is None and list(unnamed.columns) == ["each user's speed (tok/s)"]


def test_a_non_string_column_is_kept() -> None:
    assert list(readable(pd.DataFrame({0: [1], "failed": [0]})).columns) == [0, "failed requests"]


def test_a_spread_prints_as_its_median_and_range_and_a_single_value_alone():
    table = pd.DataFrame(
        [
            {**Spread(120.0, 100.0, 150.0, 3).columns("ttft_ms_p99"), "rate": 2.0},
            {**Spread(90.0, 90.0, 90.0, 1).columns("ttft_ms_p99"), "rate": 4.0},
        ]
    )
    view = spread_view(table.set_index("rate"), {"ttft_ms_p99": 0})
    assert list(view["ttft_ms_p99"]) == ["120 (100–150)", "90"]
    assert list(view.columns) == ["ttft_ms_p99"]  # the _low, _high and _n columns are folded in


def test_a_median_column_prints_to_its_digits_with_thousands_marked():
    table = pd.DataFrame({"kv_cache_tokens": [30000.0, 2560.0], "rate": [1.0, 2.0]})
    view = spread_view(table.set_index("rate"), {}, {"kv_cache_tokens": 0})
    assert list(view["kv_cache_tokens"]) == ["30,000", "2,560"]


def test_plain_numbers_print_to_their_digits_and_a_missing_one_as_a_dash():
    frame = pd.DataFrame(
        {"caching": ["on", "off"], "computed": [96.0, 2016.0], "hit_rate": [0.7, math.nan]}
    )
    view = printed(frame, {"hit_rate": 2})
    assert list(view["computed"]) == ["96", "2,016"]
    assert list(view["hit_rate"]) == ["0.70", MISSING]
    assert list(view["caching"]) == ["on", "off"]
