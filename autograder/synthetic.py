"""A small demo course built with the real check cells, and synthetic classes built from it.

Tests and benchmarks/grading.py use it; it is also a quick way to try the autograder. Each demo
chapter's check comes from course.checks.check_cells, exactly as a real chapter's does, and
every demo chapter has measurement cells that would fail loudly (and leave a marker file) if
grading ever ran them.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.course import REPO_COURSE, ScratchCourse
from course.checks import LETTERS, Check, Option, cells_with_role, check_cells
from course.nbgrader_cli import CONFIG_NAME
from course.paths import CHAPTERS

MEASUREMENT_MARKER = "measurement-cell-ran"


def correct_letter(chapter: str) -> str:
    """The right option of a demo chapter (varies by chapter so 'always C' cannot pass)."""
    return LETTERS[int(chapter[:2]) % len(LETTERS)]


def demo_check(chapter: str) -> Check:
    correct = correct_letter(chapter)
    options = tuple(
        Option(letter, f"statement {letter.lower()} about {chapter}")
        if letter == correct
        else Option(
            letter,
            f"statement {letter.lower()} about {chapter}",
            tempts=f"Option {letter} of {chapter} is tempting",
            wrong=f"but wrong because of reason {letter.lower()}7",
        )
        for letter in LETTERS
    )
    return Check(chapter, f"Which option is right for {chapter}?", options, correct)


def explanation(chapter: str, letter: str) -> str:
    """What a student who picked the wrong `letter` is told; the feedback must carry it."""
    return demo_check(chapter).feedback(letter)


def source_notebook(chapter: str) -> NotebookNode:
    """Instructor edition of a demo chapter: prose, measurement cells, then the check cells."""
    measurement = (
        "import pathlib\n"
        f"pathlib.Path({MEASUREMENT_MARKER!r}).touch()\n"
        "raise SystemExit('measurement cell ran: grading must never start a server')\n"
    )
    locked_setup = new_code_cell(measurement)
    locked_setup.metadata["nbgrader"] = {
        "grade": False,
        "grade_id": f"{chapter}-setup",
        "locked": True,
        "schema_version": 3,
        "solution": False,
        "task": False,
    }
    cells = [
        new_markdown_cell(f"# {chapter}\n\nA demo chapter."),
        locked_setup,
        new_code_cell(measurement),
        *check_cells(demo_check(chapter)),
    ]
    nb = new_notebook(cells=cells)
    nb.metadata["servelab"] = {"chapter": chapter}
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


def write_course(root: Path, chapters: tuple[str, ...] = CHAPTERS) -> Path:
    """Write a demo nbgrader course (the real course's config, demo sources) under `root`."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(REPO_COURSE / CONFIG_NAME, root / CONFIG_NAME)
    for chapter in chapters:
        folder = root / "source" / chapter
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(source_notebook(chapter), folder / f"{chapter}.ipynb")
    return root


def answer_cell(nb: NotebookNode) -> NotebookNode:
    """The answer cell of an edition."""
    return cells_with_role(nb, "answer")[-1]


def answered(edition: NotebookNode, source: str) -> NotebookNode:
    """A copy of a student edition whose answer cell holds `source`."""
    nb = nbformat.from_dict(json.loads(json.dumps(edition)))
    answer_cell(nb).source = source
    return nb


def editions(course: Path, work: Path) -> dict[str, NotebookNode]:
    """The student edition nbgrader makes of each chapter of `course` (built under `work`)."""
    scratch = ScratchCourse(course, work)
    scratch.prepare()
    return {
        ch: nbformat.read(scratch.release(ch), as_version=4)
        for ch in scratch.chapters
        if scratch.release(ch).is_file()
    }


def write_class(inbox: Path, books: dict[str, NotebookNode], students: int) -> int:
    """A class of `students`, each answering every chapter: A, B, C, D or nothing in rotation,
    as Canvas-style files in `inbox`; returns the number of notebooks."""
    inbox.mkdir(parents=True, exist_ok=True)
    count = 0
    for n in range(students):
        for chapter, edition in books.items():
            choice = (*LETTERS, None)[n % (len(LETTERS) + 1)]
            nb = edition if choice is None else answered(edition, f'answer = "{choice}"')
            nbformat.write(nb, inbox / f"student{n:03d}_{1000 + n}_{chapter}.ipynb")
            count += 1
    return count


def write_mixed_class(inbox: Path, books: dict[str, NotebookNode]) -> None:
    """Eight students over the chapters of `books`, plus the rows a shard must neither lose nor
    split: a duplicate pair (one with a leftover line), a corrupt file and files that name no
    student or no chapter."""
    write_class(inbox, books, 8)
    chapter, edition = sorted(books.items())[-1]
    older = inbox / f"twice_1_{chapter}.ipynb"
    nbformat.write(answered(edition, 'answer = "A"'), older)
    newer = inbox / f"twice_1_{chapter} (1).ipynb"
    nbformat.write(answered(edition, f'answer = "{correct_letter(chapter)}"\nprint(1)'), newer)
    os.utime(older, (1_000_000, 1_000_000))
    os.utime(newer, (2_000_000, 2_000_000))
    (inbox / f"corrupt_2_{chapter}.ipynb").write_text("{not json")
    nbformat.write(edition, inbox / f"{chapter}.ipynb")
    (inbox / "mystery.ipynb").write_text("{}")


def graded_files(out: Path) -> dict[str, bytes]:
    """What a grader reads from an OUT: grades.csv and every feedback page, with their bytes."""
    files = {"grades.csv": (out / "grades.csv").read_bytes()}
    feedback = out / "feedback"
    files |= {
        f"feedback/{p.relative_to(feedback)}": p.read_bytes()
        for p in sorted(feedback.rglob("*"))
        if p.is_file()
    }
    return files
