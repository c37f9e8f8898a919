"""Each snapshotted chapter's whole story, rendered from one real run's recorded findings, equals
its reviewed snapshot (tests/snapshots/<chapter>/<machine>.md); every chapter has one; and a
chapter that declares its story (``servelab.lessons.story``) shows its sections on the page in
the story's order, so that the snapshot is the page's own assembly.

A change to a chapter's words shows here as a diff to review, not as edits to sentence-pinning
tests: ``pytest tests/unit/test_story_snapshots.py --update-snapshots`` rewrites the snapshots from
the findings, and the diff goes into review with the change. The findings come from
``tests/snapshots/record.py``, which runs the chapter for real.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
from pathlib import Path
from typing import Any

import nbformat
import pytest

from course.paths import REPO_ROOT, source_notebook
from servelab.book import CHAPTERS
from servelab.lessons import recorded
from servelab.lessons.story import declared
from servelab.results import expected_names

SNAPSHOTS = REPO_ROOT / "tests" / "snapshots"
RECORDED = sorted(SNAPSHOTS.glob("*/*.json"))
STORIES = declared()


def render(findings: Path, **given: Any) -> str:
    """The chapter's whole story from the findings recorded at ``findings``, ``given`` replacing
    some (the reader's prediction)."""
    story = STORIES[findings.parent.name]
    return story.render(recorded.load(findings, story.kinds()) | given)


def test_every_chapter_has_a_recorded_snapshot_it_can_render():
    recorded_chapters = {path.parent.name for path in RECORDED}
    assert recorded_chapters == {chapter.id for chapter in CHAPTERS}
    assert all(path.with_suffix(".md").is_file() for path in RECORDED)
    assert set(STORIES) == recorded_chapters  # every chapter declares the story it renders


def test_a_recording_that_holds_the_record_rebuilds_the_figures_the_grader_read():
    """A recording made since the record is made from the story (issue #62) keeps the record's
    findings too, so the figures a run recorded come back from its snapshot's findings."""
    rebuilt = []
    for path in RECORDED:
        story = STORIES[path.parent.name]
        found = recorded.load(path, story.kinds())
        fields = [field.name for field in dataclasses.fields(story.findings_record)]
        if all(name in found for name in fields):
            record = story.findings_record(**{name: found[name] for name in fields})
            assert set(record.figures().by_name()) == expected_names(record.chapter, "cpu")
            rebuilt.append(path)
    assert rebuilt, "no recording holds its chapter's whole record yet"


def test_every_chapter_has_a_recording_that_holds_its_whole_story():
    """Older recordings may predate a section (their snapshot says so in its place); the
    newest words of every section are reviewed on at least one full recording."""
    for chapter, story in STORIES.items():
        gaps = [
            story.missing(recorded.load(path, story.kinds()))
            for path in RECORDED
            if path.parent.name == chapter
        ]
        assert {} in gaps, f"{chapter}: every recording lacks something: {gaps}"


def _calls(chapter: str) -> list[ast.Call]:
    """Every call in the chapter's code cells, in page order."""
    calls: list[ast.Call] = []
    for cell in nbformat.read(source_notebook(chapter), as_version=4).cells:
        if cell.cell_type == "code":
            python = "\n".join(
                "" if line.startswith("%") else line for line in cell.source.splitlines()
            )
            found = [node for node in ast.walk(ast.parse(python)) if isinstance(node, ast.Call)]
            calls += sorted(found, key=lambda call: (call.lineno, call.col_offset))
    return calls


def shown_sections(chapter: str) -> list[str]:
    """The story sections the chapter's notebook shows, in page order: every
    ``STORY.show(name, …)`` and ``STORY.title(name, …)``."""
    return [
        ast.literal_eval(call.args[0])
        for call in _calls(chapter)
        if isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == "STORY"
        and call.func.attr in ("show", "title")
    ]


@pytest.mark.parametrize("chapter", sorted(STORIES))
def test_the_page_shows_every_section_of_its_story_once_in_order(chapter: str):
    assert shown_sections(chapter) == list(STORIES[chapter].names)
    # and writes no paragraph of its own beside them
    assert not [call for call in _calls(chapter) if getattr(call.func, "id", "") == "Markdown"]


@pytest.mark.parametrize("findings", RECORDED, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_the_story_from_recorded_findings_matches_its_snapshot(findings: Path, request):
    story = render(findings) + "\n"
    snapshot = findings.with_suffix(".md")
    if request.config.getoption("--update-snapshots"):
        snapshot.write_text(story)
    assert snapshot.is_file(), f"no snapshot yet: run with --update-snapshots and review {snapshot}"
    expected = snapshot.read_text()
    diff = "".join(
        difflib.unified_diff(
            expected.splitlines(True),
            story.splitlines(True),
            f"{snapshot.name} (reviewed)",
            "rendered now",
        )
    )
    assert story == expected, f"the story changed; review, then --update-snapshots:\n{diff}"


# A prediction with a number in every unit a page scores: each chapter's story sets at least one
# of its measured figures beside it (servelab.lessons.guess), from the same recorded findings.
EVERY_UNIT = "5x, 50%, 100 tokens, 300 ms, 1,000 tok/s, 2 req/s, about 10"


@pytest.mark.parametrize(
    "findings",
    [path for path in RECORDED if "avx512-bf16" in path.stem],
    ids=lambda path: path.parent.name,
)
def test_a_prediction_with_numbers_is_scored_on_every_page(findings: Path):
    assert "Against your numbers:" in render(findings, prediction=EVERY_UNIT)
    assert "Against your numbers:" not in render(findings, prediction="much faster")
