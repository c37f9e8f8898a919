"""Each snapshotted chapter's whole story, rendered from one real run's recorded findings, equals
its reviewed snapshot (tests/snapshots/<chapter>/<machine>.md).

A change to a chapter's words shows here as a diff to review, not as edits to sentence-pinning
tests: ``pytest tests/unit/test_story_snapshots.py --update-snapshots`` rewrites the snapshots from
the findings, and the diff goes into review with the change. The findings come from
``tests/snapshots/record.py``, which runs the chapter for real.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from course.paths import REPO_ROOT
from servelab.lessons import recorded
from tests.snapshots.chapters import KINDS, RENDER

SNAPSHOTS = REPO_ROOT / "tests" / "snapshots"
RECORDED = sorted(SNAPSHOTS.glob("*/*.json"))


def test_every_recorded_chapter_can_be_rendered():
    assert RECORDED, "no recorded findings under tests/snapshots"
    assert {path.parent.name for path in RECORDED} <= set(RENDER) == set(KINDS)


@pytest.mark.parametrize("findings", RECORDED, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_the_story_from_recorded_findings_matches_its_snapshot(findings: Path, request):
    chapter = findings.parent.name
    story = RENDER[chapter](**recorded.load(findings, KINDS[chapter])) + "\n"
    snapshot = findings.with_suffix(".md")
    if request.config.getoption("--update-snapshots"):
        snapshot.write_text(story)
    assert snapshot.is_file(), f"no snapshot yet: run with --update-snapshots and review {snapshot}"
    expected = snapshot.read_text()
    diff = "".join(difflib.unified_diff(expected.splitlines(True), story.splitlines(True),
                                        f"{snapshot.name} (reviewed)", "rendered now"))
    assert story == expected, f"the story changed; review, then --update-snapshots:\n{diff}"


# A prediction with a number in every unit a page scores: each chapter's story sets at least one
# of its measured figures beside it (servelab.lessons.guess), from the same recorded findings.
EVERY_UNIT = "5x, 50%, 100 tokens, 300 ms, 1,000 tok/s, 2 req/s, about 10"


@pytest.mark.parametrize("findings", [path for path in RECORDED if "avx512-bf16" in path.stem],
                         ids=lambda path: path.parent.name)
def test_a_prediction_with_numbers_is_scored_on_every_page(findings: Path):
    chapter = findings.parent.name
    found = recorded.load(findings, KINDS[chapter])
    story = RENDER[chapter](**found, prediction=EVERY_UNIT)
    assert "Against your numbers:" in story
    assert "Against your numbers:" not in RENDER[chapter](**found, prediction="much faster")
