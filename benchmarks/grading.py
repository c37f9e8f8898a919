"""Grading throughput: build a synthetic class, grade it with and without the sandbox, print
notebooks per minute.

Uses the real course (assignments/source) when it has chapters, else (or with --demo) the demo
course of autograder.synthetic. Students start from the student editions nbgrader makes of the
course and answer A, B, C, D or nothing, in rotation. Both runs grade the same class into fresh
folders; the unsandboxed one is only for comparison (the autograder refuses it unless told
--unsafe-no-sandbox). The last lines are `grading: sandbox=on notebooks_per_minute=<x>` and the
same for `sandbox=off`; the issue's target is at least 30 with the sandbox, on 2 cores.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import nbformat

# The autograder and the course tooling it imports are not installed: they run from the
# repository root, which a script started as `python benchmarks/grading.py` does not see.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autograder import synthetic  # noqa: E402
from autograder.course import REPO_COURSE, ScratchCourse, course_chapters  # noqa: E402
from autograder.grade import DEFAULT_JOBS, grade  # noqa: E402
from course.checks import LETTERS  # noqa: E402


def editions(work: Path, demo: bool) -> tuple[Path, dict[str, nbformat.NotebookNode]]:
    """(course root, student edition per chapter) of the real course, or of the demo course."""
    course = REPO_COURSE
    if demo or not course_chapters(course):
        course = synthetic.write_course(work / "course")
    scratch = ScratchCourse(course, work / "editions")
    scratch.prepare()
    return course, {ch: nbformat.read(scratch.release(ch), as_version=4)
                    for ch in scratch.chapters if scratch.release(ch).is_file()}


def build_class(inbox: Path, books: dict[str, nbformat.NotebookNode], students: int) -> int:
    inbox.mkdir(parents=True)
    count = 0
    for n in range(students):
        for chapter, edition in books.items():
            choice = (*LETTERS, None)[n % (len(LETTERS) + 1)]  # every letter, and no answer
            nb = edition if choice is None else synthetic.answered(edition, f'answer = "{choice}"')
            nbformat.write(nb, inbox / f"student{n:03d}_{1000 + n}_{chapter}.ipynb")
            count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--students", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=DEFAULT_JOBS)
    parser.add_argument("--demo", action="store_true", help="grade the demo course")
    args = parser.parse_args()
    rates = {}
    with tempfile.TemporaryDirectory(prefix="servelab-grading-") as tmp:
        work = Path(tmp)
        course, books = editions(work, args.demo)
        count = build_class(work / "inbox", books, args.students)
        for sandboxed in (True, False):
            label = "on" if sandboxed else "off"
            start = time.perf_counter()
            rows = grade([work / "inbox"], work / f"out-{label}", course, jobs=args.jobs,
                         sandboxed=sandboxed)
            seconds = time.perf_counter() - start
            statuses = Counter(row["status"] for row in rows)
            print(f"grading: sandbox={label} course={course} chapters={len(books)} "
                  f"notebooks={count} jobs={args.jobs} seconds={seconds:.1f} "
                  f"statuses={dict(sorted(statuses.items()))}")
            rates[label] = count / seconds * 60
    for label, rate in rates.items():
        print(f"grading: sandbox={label} notebooks_per_minute={rate:.1f}")


if __name__ == "__main__":
    main()
