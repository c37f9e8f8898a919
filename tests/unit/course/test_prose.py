"""course.prose: the prose a page shows before a fold is opened, and the book's aims for it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import nbformat
import pytest

from course.paths import REPO_ROOT
from course.prose import MEAN_SENTENCE_WORDS, PARAGRAPH_WORDS, Prose, in_view, words

SNAPSHOTS = sorted((REPO_ROOT / "tests" / "snapshots").glob("*/*.md"))
PAGE = """\
The total rose **13.1×** at 32 users. Each user kept 41%.

<details><summary>The ranges</summary>

A long caveat that the reader opens only if they wish to, with many words in it.

</details>

| Streams | Total |
| :-- | --: |
| 1 | 9 |

*Plot title:* 32 users: 13× the single-stream total

## A heading

Slots stood idle 80% of the time in waves – and 38% continuously.
"""


def test_the_prose_in_view_leaves_out_folds_tables_titles_and_headings() -> None:
    assert in_view(PAGE) == [
        "The total rose **13.1×** at 32 users. Each user kept 41%.",
        "Slots stood idle 80% of the time in waves – and 38% continuously.",
    ]


def test_words_sentences_and_paragraphs_are_counted_in_view() -> None:
    prose = Prose.of(PAGE)
    assert words("waves – and") == 2  # a lone dash is not a word
    assert (prose.words, prose.paragraphs) == (23, 2)
    assert prose.mean_sentence == pytest.approx((7 + 4 + 12) / 3)
    assert (prose.longest_sentence, prose.longest_paragraph) == (12, 12)
    assert prose.misses() == []


def test_a_wall_of_words_misses_both_aims() -> None:
    sentence = " ".join(["word"] * (MEAN_SENTENCE_WORDS + 5)) + "."
    prose = Prose.of(" ".join([sentence] * 5))
    assert prose.longest_paragraph > PARAGRAPH_WORDS
    assert [miss.split()[0] for miss in prose.misses()] == ["mean", "a"]


def test_an_empty_page_has_no_prose_and_misses_nothing() -> None:
    assert Prose.of("") == Prose(0, 0, 0, 0, 0)
    assert Prose.of("").misses() == []


@pytest.mark.parametrize("path", SNAPSHOTS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_recorded_story_meets_the_aims(path: Path) -> None:
    assert Prose.of(path.read_text(encoding="utf-8")).misses() == []


def test_the_report_reads_what_an_executed_notebook_displayed(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "prose_report", REPO_ROOT / "benchmarks" / "prose.py"
    )
    assert spec and spec.loader
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("Hand-written words are not the generated prose."),
            nbformat.v4.new_code_cell(
                "STORY.show('x')",
                outputs=[
                    nbformat.v4.new_output(
                        "display_data", data={"text/markdown": "One finding, in view."}
                    )
                ],
            ),
        ]
    )
    nbformat.write(notebook, tmp_path / "00-a-chapter.ipynb")
    assert report.executed_pages(tmp_path) == {"00-a-chapter": "One finding, in view."}
    assert len(report.snapshot_pages()) == len(SNAPSHOTS) > 0
