"""servelab.lessons.continuous_batching.record: chapter 02's figures from a real run's recorded
findings."""

from __future__ import annotations

from course.paths import REPO_ROOT
from servelab.bench.bandwidth import Ceiling
from servelab.lessons import recorded
from servelab.lessons.continuous_batching.chapter import CHAPTER
from servelab.lessons.continuous_batching.record import ContinuousBatchingRecord
from servelab.lessons.continuous_batching.story import STORY

RUN = REPO_ROOT / "tests" / "snapshots" / CHAPTER.id / "avx512-bf16.json"


def test_chapter_02s_record_gives_every_declared_figure() -> None:
    run = recorded.load(RUN, STORY.kinds())
    found, fit = run["found"], run["gain"].fit
    record = ContinuousBatchingRecord(
        found=found,
        top=found.users,
        limit=Ceiling(bandwidth_gb_s=20.0, weight_bytes=270_000_000),
        weight_read_ms=13.5,
        flops=2.5e11,
        fit=fit,
        here=run["here"],
        found_waves=run["waves"],
    )
    figures = record.figures().by_name()
    assert record.chapter == "02-continuous-batching"
    assert set(figures) == set(CHAPTER.figures)
    assert figures["top_users"] == found.users
    assert (figures["bandwidth_gb_s"], figures["weight_read_ms"]) == (20.0, 13.5)
    assert figures["matmul_gflop_s"] == 250.0
    assert figures["step_per_sequence_ms"] == fit.per_sequence_ms
    assert figures["predicted_gain_high"] == run["here"].gain_high
    assert figures["continuous_speedup"] == run["waves"].speedup
