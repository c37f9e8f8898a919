"""servelab.lessons.past_one_machine.record: chapter 09's figures from one real run's recorded
findings, with tensor parallelism not run (NaN) and then run."""

from __future__ import annotations

import dataclasses
import math

from course.paths import REPO_ROOT
from servelab.lessons import recorded
from servelab.lessons.past_one_machine.chapter import CHAPTER
from servelab.lessons.past_one_machine.record import RoutingRecord
from servelab.lessons.past_one_machine.story import STORY

RUN = REPO_ROOT / "tests" / "snapshots" / CHAPTER.id / "avx2-float32.json"


def test_the_record_gives_every_declared_figure_from_its_findings() -> None:
    run = recorded.load(RUN, STORY.kinds())
    routed, failures, copied = run["routed"], run["failures"], run["copied"]
    record = RoutingRecord(routed=routed, failures=failures, copied=copied)
    figures = record.figures().by_name()
    assert record.chapter == "09-past-one-machine"
    assert set(figures) == set(CHAPTER.figures)
    assert figures["hit_rate_round_robin"] == routed.hit_rate[0].median
    assert figures["hit_rate_cache_aware"] == routed.hit_rate[1].median
    assert figures["ttft_ms_p50_warm_cache_aware"] == routed.warm_ttft_ms_p50[1].median
    assert (figures["failed_requests"], figures["retries"]) == (
        failures.failed.median,
        failures.retries.median,
    )
    assert len(failures.runs) >= 2  # the failure run repeated
    assert figures["output_tok_s_one_server"] == copied.one.output_tok_s.median
    assert copied.split is None and math.isnan(figures["output_tok_s_tensor_parallel"])
    assert math.isnan(figures["tpot_ms_p50_tensor_parallel"])
    split = dataclasses.replace(copied, split=copied.one)
    both = RoutingRecord(routed=routed, failures=failures, copied=split).figures().by_name()
    assert both["tpot_ms_p50_tensor_parallel"] == copied.one.tpot_ms_p50.median
