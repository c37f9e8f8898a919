"""Grading a class: inputs → scratch nbgrader course → autograde → grades.csv and feedback."""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import os
import shutil
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from sqlalchemy.exc import SAWarning

from autograder import sandbox
from autograder.answer import Answer, parse_answer
from autograder.class_results import RESULTS_CSV, Row, class_rows, write_results
from autograder.course import DEFAULT_TIMEOUT, REPO_COURSE, ScratchCourse
from autograder.intake import InputFile, collect, student_of
from autograder.match import Unreadable, chapter_from_name, chapter_of, parse
from autograder.outcome import judge
from autograder.repair import repair
from autograder.result_feedback import add_results
from autograder.shard import Shard, clear_shard, write_shard
from autograder.workers import batches, grade_batches
from course.checks import cells_with_role

COLUMNS = ("student", "chapter", "score", "max_score", "status", "reason")
MARKER = ".autograder-output"
DEFAULT_JOBS = min(2, os.cpu_count() or 1)
log = logging.getLogger("autograder")


class GradingError(ValueError):
    """Grading cannot start (an unusable OUT folder, a course without chapters)."""


@dataclass
class Submission:
    """One input notebook on its way to a row of grades.csv."""

    file: InputFile
    ident: str = ""  # which input it is: the PATH's number and the file's label in it
    student: str = ""
    chapter: str = ""
    status: str = ""
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    notebook: nbformat.NotebookNode | None = None
    answer: Answer | None = None
    batch: int = 0
    score: float | None = None
    max_score: float | None = None

    @property
    def where(self) -> str:
        return self.file.label

    @property
    def order(self) -> list[str]:
        """Where its row goes in grades.csv, in a sharded run as in an unsharded one."""
        return [self.student, self.chapter, self.where]

    def row(self) -> dict[str, str]:
        reason = "; ".join(r for r in (self.reason, *self.notes) if r)
        if self.status not in ("ok", "no-answer", "bad-answer", "timeout"):
            reason = f"{self.where}: {reason}"
        return {
            "student": self.student,
            "chapter": self.chapter,
            "score": _number(self.score),
            "max_score": _number(self.max_score),
            "status": self.status,
            "reason": reason,
        }


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def check_out_folder(out: Path, inputs: list[Path]) -> None:
    """Refuse an OUT that overlaps an input or holds files the autograder did not write."""
    for path in inputs:
        path = path.resolve()
        if out == path or out.is_relative_to(path) or path.is_relative_to(out):
            raise GradingError(f"OUT {out} overlaps the input {path}; choose another")
    if out.exists() and any(out.iterdir()) and not (out / MARKER).exists():
        raise GradingError(f"{out} is not empty and was not written by the autograder")


def read_submissions(
    paths: list[Path], course: ScratchCourse, broken: dict[str, str]
) -> list[Submission]:
    """Every input notebook, parsed, matched to a student and chapter, or given a status."""
    releases = {
        ch: nbformat.read(course.release(ch), as_version=4)
        for ch in course.chapters
        if ch not in broken
    }
    questions = {
        ch: next((c.source for c in cells_with_role(nb, "question")), "")
        for ch, nb in releases.items()
    }
    submissions = []
    for number, path in enumerate(paths):
        for file in collect(path, course.chapters):
            student, notes = _student(file, course.chapters)
            sub = Submission(file, f"{number}:{file.label}", student=student, notes=notes)
            submissions.append(sub)
            try:
                if file.problem:
                    raise Unreadable(file.problem)
                sub.notebook = parse(file.data)
            except Unreadable as error:
                sub.status, sub.reason = file.status if file.problem else "malformed", str(error)
                sub.chapter = chapter_from_name(file.parts, course.chapters) or ""
                continue
            sub.chapter = chapter_of(sub.notebook, file.parts, course.chapters, questions) or ""
            if not sub.chapter:
                sub.status, sub.reason = (
                    "unmatched",
                    "no chapter of this course in its metadata, check cells or file name",
                )
            elif not sub.student:
                sub.status, sub.reason = (
                    "unmatched",
                    "cannot tell the student from its folder or file name",
                )
            elif sub.chapter in broken:
                sub.status, sub.reason = "error", broken[sub.chapter]
            else:
                try:
                    sub.notes += repair(sub.notebook, releases[sub.chapter])
                    sub.answer = literal_answer(sub.notebook)
                    if sub.answer and sub.answer.not_run:
                        sub.notes.append(sub.answer.reason_note)
                except Exception as error:  # one odd notebook must not stop the class's grading
                    sub.status = "error"
                    sub.reason = f"could not be prepared for grading ({error!r})"
    _pick_one_per_student(submissions)
    return submissions


def _student(file: InputFile, chapters: list[str]) -> tuple[str, list[str]]:
    """(student, notes): the platform's name for the file decides; an upload whose own paths
    name someone else is reported."""
    named = student_of(file.parts, chapters) or ""
    if file.owner and named and named != file.owner:
        return file.owner, [
            f"the upload's own paths name the student {named!r}, which is "
            f"ignored: graded as {file.owner!r}, whose upload it is"
        ]
    return file.owner or named, []


def literal_answer(nb: nbformat.NotebookNode) -> Answer | None:
    """Parse the (last) answer cell and replace its source by the literal the kernel will run
    (with a comment naming the lines that were not run); None when there is no answer cell."""
    answers = cells_with_role(nb, "answer")
    if not answers:
        return None
    cell = answers[-1]
    answer = parse_answer(cell.source)
    if cell.cell_type != "code":
        code = nbformat.v4.new_code_cell(answer.cell_source, metadata=cell.metadata)
        code.id = cell.get("id", code.id)
        nb.cells[nb.cells.index(cell)] = code
    else:
        cell.source = answer.cell_source
    return answer


def _pick_one_per_student(submissions: list[Submission]) -> None:
    """When a student sent a chapter twice, grade the newest file and mark the others duplicate."""
    groups: dict[tuple[str, str], list[Submission]] = {}
    for sub in submissions:
        if not sub.status:
            groups.setdefault((sub.student, sub.chapter), []).append(sub)
    for group in groups.values():
        group.sort(key=lambda s: (s.file.mtime, s.file.origin))
        for older in group[:-1]:
            older.status = "duplicate"
            older.reason = f"not graded: {group[-1].where} is a newer submission of this chapter"


def write_grades(path: Path, rows: list[dict[str, str]]) -> None:
    """grades.csv: the one writer of its bytes, for a class, a shard and a merge."""
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def mark_output(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "feedback", ignore_errors=True)
    (out / MARKER).write_text("written by python -m autograder\n")


def grade(
    paths: list[Path],
    out: Path,
    course_root: Path = REPO_COURSE,
    timeout: int = DEFAULT_TIMEOUT,
    jobs: int = DEFAULT_JOBS,
    sandboxed: bool = True,
    result_cache: bool = True,
    shard: Shard | None = None,
) -> list[dict[str, str]]:
    """Grade every notebook under `paths` into `out`; returns the rows written to grades.csv.

    With `shard`, only the students of that shard are graded, into `out`/shard-<I>, which also
    gets the shard's rows and manifest for `autograder.merge`. Raises GradingError for an
    unusable OUT or course, and sandbox.SandboxUnavailable when bubblewrap cannot start (unless
    `sandboxed` is False: --unsafe-no-sandbox).
    """
    out = out.resolve()
    if shard is not None:
        out = shard.folder(out)
    check_out_folder(out, paths)
    if sandboxed:
        sandbox.check_available()
    mark_output(out)
    clear_shard(out)
    course = ScratchCourse(
        course_root.resolve(), out / "nbgrader", timeout, sandboxed, result_cache
    )
    if not course.chapters:
        raise GradingError(f"no source/<id>/<id>.ipynb under {course_root}")
    with warnings.catch_warnings():
        # nbgrader's gradebook code trips SQLAlchemy warnings that say nothing about the class
        warnings.simplefilter("ignore", SAWarning)
        submissions, fingerprint, failures, results = _grade_all(paths, course, jobs, shard)
        for sub in submissions:
            _finish(sub, course, failures, out)
    ordered = sorted(submissions, key=lambda s: s.order)
    rows = [s.row() for s in ordered]
    write_grades(out / "grades.csv", rows)
    _write_results(out, results, shard)
    if shard is not None:
        write_shard(
            out,
            shard,
            fingerprint,
            [(s.order, s.ident, row) for s, row in zip(ordered, rows, strict=True)],
        )
    return rows


def _write_results(out: Path, results: list[Row], shard: Shard | None) -> None:
    """class-results.csv (a shard's: its students' rows), a table in each feedback page (medians
    over the whole class, which every shard reads) and, unsharded, the report; merge draws the
    report of a sharded class. Nothing here touches grades.csv."""
    write_results(
        out / RESULTS_CSV, [row for row in results if shard is None or shard.holds(row["student"])]
    )
    add_results(out / "feedback", results)
    if shard is None:
        from autograder.class_report import REPORT_HTML, write_report  # matplotlib: only here

        write_report(out / REPORT_HTML, results)


def inputs_fingerprint(submissions: list[Submission], course: ScratchCourse) -> str:
    """What a class was graded against: every input file (which, its bytes, its time, what was
    wrong with it), the course's sources and the settings that change grades."""
    digest = hashlib.sha256()
    for sub in submissions:
        item = [
            sub.ident,
            hashlib.sha256(sub.file.data).hexdigest(),
            sub.file.mtime,
            sub.file.problem,
            sub.file.status,
        ]
        digest.update(json.dumps(item).encode() + b"\n")
    for chapter in course.chapters:
        source = course.course_root / "source" / chapter / f"{chapter}.ipynb"
        digest.update(chapter.encode() + hashlib.sha256(source.read_bytes()).digest())
    digest.update(json.dumps([course.timeout, course.sandboxed]).encode())
    return digest.hexdigest()


def _grade_all(
    paths: list[Path], course: ScratchCourse, jobs: int, shard: Shard | None
) -> tuple[list[Submission], str, dict[int, str], list[Row]]:
    """Copy gradable submissions (of `shard`'s students) into the scratch course and autograde
    them; (the submissions of this run, the inputs' fingerprint, each batch's failure, the
    whole class's result rows: read from the outputs, never run)."""
    broken = course.prepare()
    submissions = read_submissions(paths, course, broken)
    fingerprint = inputs_fingerprint(submissions, course)
    results = class_rows(
        (s.student, s.chapter, s.notebook)
        for s in submissions
        if s.notebook is not None and s.student and s.chapter and s.status != "duplicate"
    )
    if shard is not None:
        submissions = [s for s in submissions if shard.holds(s.student)]
    graded = [s for s in submissions if not s.status]
    batch_of = batches([(s.chapter, s.student) for s in graded], jobs)
    for sub in graded:
        sub.batch = batch_of[(sub.chapter, sub.student)]
        target = course.path("submitted", sub.student, sub.chapter, sub.batch)
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(sub.notebook, target)
    course.add_students({s.student for s in graded})
    log.info("grading %d notebooks in %d batches", len(graded), len(set(batch_of.values())))
    return submissions, fingerprint, grade_batches(course, batch_of), results


def _finish(sub: Submission, course: ScratchCourse, failures: dict[int, str], out: Path) -> None:
    """Fill in score and status of one submission from the gradebook and the autograded notebook."""
    if sub.chapter:
        sub.max_score = course.max_score(sub.chapter)
    if sub.status:
        sub.score = 0.0 if sub.max_score is not None else None
        return
    autograded = course.path("autograded", sub.student, sub.chapter, sub.batch)
    scores = course.score(sub.student, sub.chapter)
    failure = failures.get(sub.batch, "")
    if not autograded.is_file() or scores is None:
        sub.score = 0.0
        sub.status, sub.reason = "error", failure or "nbgrader could not process it"
        return
    sub.score, sub.max_score = scores
    nb = nbformat.read(autograded, as_version=4)
    sub.status, sub.reason = judge(nb, sub.answer, sub.score, sub.max_score, course.timeout)
    if sub.status in ("error", "timeout"):
        sub.score = 0.0
    feedback = course.path("feedback", sub.student, sub.chapter, sub.batch).with_suffix(".html")
    if feedback.is_file():
        target = out / "feedback" / sub.student / f"{sub.chapter}.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(feedback, target)
    elif failure:
        sub.notes.append(f"no feedback: {failure}")
