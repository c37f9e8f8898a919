"""servelab.lessons.batching.record: chapters 01's and 02's figures from real runs' recorded
findings and made-up sweep rows."""

from __future__ import annotations

import pandas as pd

from course.paths import REPO_ROOT
from servelab.bench.bandwidth import Ceiling
from servelab.lessons import recorded
from servelab.lessons.batching.chapter import CONTINUOUS_BATCHING, SERVING_ENGINE
from servelab.lessons.batching.record import ContinuousBatchingRecord, ServingEngineRecord
from servelab.lessons.story import declared

SNAPSHOTS = REPO_ROOT / "tests" / "snapshots"


def run_of(chapter: str) -> dict:
    return recorded.load(SNAPSHOTS / chapter / "avx512-bf16.json", declared()[chapter].kinds())


def test_chapter_01s_record_gives_every_declared_figure() -> None:
    run = run_of(SERVING_ENGINE.id)
    one = pd.Series({"steady_output_tok_s": 7.0, "steady_user_tok_s": 7.0, "ttft_ms_p50": 90.0})
    many = pd.Series({"steady_output_tok_s": 77.0, "steady_user_tok_s": 4.8,
                      "ttft_ms_p50": 400.0})
    record = ServingEngineRecord(one=one, many=many, found=run["found"],
                                 client_tokens=run["client_tokens"], server_tokens=4890.0)
    figures = record.figures().by_name()
    assert record.chapter == "01-serving-engine"
    assert set(figures) == set(SERVING_ENGINE.figures)
    assert (figures["steady_tok_s_one_user"], figures["steady_tok_s_all_users"]) == (7.0, 77.0)
    assert (figures["user_tok_s_all_users"], figures["ttft_ms_p50_all_users"]) == (4.8, 400.0)
    assert figures["batching_gain"] == run["found"].gain
    assert (figures["generated_tokens_client"], figures["generated_tokens_server"]) == (
        4896.0, 4890.0)


def test_chapter_02s_record_gives_every_declared_figure() -> None:
    run = run_of(CONTINUOUS_BATCHING.id)
    found, fit = run["found"], run["gain"].fit
    record = ContinuousBatchingRecord(
        found=found, top=found.users, limit=Ceiling(bandwidth_gb_s=20.0, weight_bytes=270_000_000),
        weight_read_ms=13.5, flops=2.5e11, fit=fit, here=run["here"], found_waves=run["waves"])
    figures = record.figures().by_name()
    assert record.chapter == "02-continuous-batching"
    assert set(figures) == set(CONTINUOUS_BATCHING.figures)
    assert figures["top_users"] == found.users
    assert (figures["bandwidth_gb_s"], figures["weight_read_ms"]) == (20.0, 13.5)
    assert figures["matmul_gflop_s"] == 250.0
    assert figures["step_per_sequence_ms"] == fit.per_sequence_ms
    assert figures["predicted_gain_high"] == run["here"].gain_high
    assert figures["continuous_speedup"] == run["waves"].speedup
