"""servelab.lessons.capacity_plan.record: chapter 10's figures from one real run's recorded
check."""

from __future__ import annotations

from course.paths import REPO_ROOT
from servelab.lessons import recorded
from servelab.lessons.capacity_plan.chapter import CHAPTER
from servelab.lessons.capacity_plan.record import CapacityRecord
from servelab.lessons.capacity_plan.story import STORY

RUN = REPO_ROOT / "tests" / "snapshots" / CHAPTER.id / "avx512-bf16.json"


def test_the_record_gives_every_declared_figure_from_its_findings() -> None:
    check = recorded.load(RUN, STORY.kinds())["check"]
    record = CapacityRecord(step=check.plan.step, plan=check.plan, check=check)
    figures = record.figures().by_name()
    assert record.chapter == "10-capacity-plan"
    assert set(figures) == set(CHAPTER.figures)
    assert figures["step_fixed_ms"] == check.plan.step.fixed_ms
    assert figures["plan_rate_req_s"] == check.plan.rate_req_s
    assert figures["within_below"] == check.within_below.median == 0.705
    assert figures["within_above"] == check.within_above.median == 0.2675
