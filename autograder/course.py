"""The scratch nbgrader course grading works in: sources copied from the real course, a gradebook
inside the output folder, and nbgrader's converters run in-process (one run per chapter)."""

from __future__ import annotations

import logging
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.converters import Autograde, GenerateAssignment, GenerateFeedback
from nbgrader.converters.base import NbGraderException
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import (
    AssignLatePenalties,
    CheckCellMetadata,
    Execute,
    IgnorePattern,
    LimitOutput,
    SaveAutoGrades,
)
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from autograder.checks_only import SKIP_TAG, ChecksOnly, KeepProbe

EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)(?::|$)")
REPO_COURSE = Path(__file__).resolve().parent.parent / "assignments"
DEFAULT_TIMEOUT = 20


def course_chapters(course_root: Path) -> list[str]:
    """Chapter ids of a course: every source/<id>/<id>.ipynb."""
    source = course_root / "source"
    if not source.is_dir():
        return []
    return sorted(d.name for d in source.iterdir() if (d / f"{d.name}.ipynb").is_file())


def course_config(course_root: Path, work_root: Path, timeout: int) -> Config:
    """The course's own nbgrader config, pointed at the scratch course; only check cells run."""
    config = Config()
    config_file = course_root / "nbgrader_config.py"
    if config_file.is_file():
        config.merge(PyFileConfigLoader(config_file.name, path=str(course_root)).load_config())
    config.CourseDirectory.root = str(work_root)
    for step in ("source", "release", "submitted", "autograded", "feedback"):
        # the course's own config may point these into the repo (release → book/); never write there
        config.CourseDirectory[f"{step}_directory"] = step
    # grading workers share the gradebook; a writer waits up to a minute for the other's lock
    config.CourseDirectory.db_url = f"sqlite:///{work_root / 'gradebook.db'}?timeout=60"
    config.CourseDirectory.course_id = ""
    config.Execute.timeout = timeout
    config.Execute.interrupt_on_timeout = True
    config.Execute.shutdown_kernel = "immediate"
    config.Execute.skip_cells_with_tag = SKIP_TAG
    config.Execute.extra_arguments = ["--HistoryManager.hist_file=:memory:",
                                      "--IPKernelApp.log_level=ERROR"]
    config.OverwriteCells.add_missing_cells = True
    config.LimitOutput.max_lines = 200
    config.Autograde.autograde_preprocessors = [
        ChecksOnly, Execute, KeepProbe, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
        SaveAutoGrades, AssignLatePenalties, CheckCellMetadata]
    return config


@dataclass
class ScratchCourse:
    """An nbgrader course under `root` (OUT/nbgrader) built from the sources of `course_root`."""

    course_root: Path
    root: Path
    timeout: int = DEFAULT_TIMEOUT
    log: logging.Logger = logging.getLogger("autograder.nbgrader")

    def __post_init__(self) -> None:
        self.config = course_config(self.course_root, self.root, self.timeout)
        self.chapters = course_chapters(self.course_root)

    @property
    def db_url(self) -> str:
        return self.config.CourseDirectory.db_url

    def path(self, step: str, student: str, chapter: str) -> Path:
        """Where nbgrader keeps a student's notebook in `step` (submitted, autograded, feedback)."""
        return self.root / step / student / chapter / f"{chapter}.ipynb"

    def release(self, chapter: str) -> Path:
        return self.root / "release" / chapter / f"{chapter}.ipynb"

    def prepare(self) -> dict[str, str]:
        """Copy the sources, fill the gradebook with the check cells, clear the last run's work.

        Returns, for each chapter whose source nbgrader could not process, the reason.
        """
        # nbgrader runs the `alembic` command when it creates a gradebook; it lives next to python.
        bin_dir = str(Path(sys.executable).parent)
        if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
            os.environ["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])
        self.root.mkdir(parents=True, exist_ok=True)
        for step in ("submitted", "autograded", "feedback"):
            shutil.rmtree(self.root / step, ignore_errors=True)
        broken = {}
        for chapter in self.chapters:
            source = self.course_root / "source" / chapter / f"{chapter}.ipynb"
            copy = self.root / "source" / chapter / f"{chapter}.ipynb"
            if copy.is_file() and copy.read_bytes() == source.read_bytes() and \
                    self.release(chapter).is_file():
                continue
            # a changed source invalidates earlier grades of the chapter, and nbgrader refuses to
            # change cells that have submissions: start the chapter afresh in the gradebook
            with Gradebook(self.db_url) as gb:
                if any(a.name == chapter for a in gb.assignments):
                    gb.remove_assignment(chapter)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, copy)
            failure = self._run(GenerateAssignment, chapter, student=".")
            if failure:
                copy.unlink()
                broken[chapter] = f"the chapter's source notebook could not be prepared: {failure}"
        return broken

    def add_students(self, students: set[str]) -> None:
        with Gradebook(self.db_url) as gb:
            for student in sorted(students):
                gb.update_or_create_student(student)

    def autograde(self, chapter: str, student: str) -> str:
        """Autograde a student's notebook of one chapter (the check cells run in a fresh kernel),
        then write its feedback; '' if that worked, else why not."""
        failure = self._run(Autograde, chapter, student=student)
        return failure or self._run(GenerateFeedback, chapter, student=student)

    def score(self, student: str, chapter: str) -> tuple[float, float] | None:
        """(score, max_score) from the gradebook, or None when nbgrader has no submission."""
        with Gradebook(self.db_url) as gb:
            try:
                nb = gb.find_submission_notebook(chapter, chapter, student)
            except MissingEntry:
                return None
            return float(nb.score), float(nb.max_score)

    def max_score(self, chapter: str) -> float | None:
        with Gradebook(self.db_url) as gb:
            try:
                return float(gb.find_notebook(chapter, chapter).max_score)
            except MissingEntry:
                return None

    def _run(self, converter: type, chapter: str, *, student: str) -> str:
        """Run an nbgrader converter in-process; '' if it worked, else the error it logged."""
        coursedir = CourseDirectory(config=self.config, log=self.log)
        coursedir.assignment_id = chapter
        coursedir.student_id = student
        app = converter(coursedir=coursedir, config=self.config, log=self.log)
        app.force = True
        last_error = LastError()
        self.log.addHandler(last_error)
        try:
            app.start()
        except NbGraderException:
            return f"nbgrader could not process it ({last_error.line or 'see nbgrader -v log'})"
        finally:
            self.log.removeHandler(last_error)
        return ""


class LastError(logging.Handler):
    """Keeps the last line of the last traceback nbgrader logged (it logs, then raises)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.line = ""

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage().strip()
        if text.startswith("Traceback"):
            raised = [line for line in text.splitlines() if EXCEPTION_LINE.match(line)]
            self.line = (raised or text.splitlines())[-1][:160]


def quiet_log(log: logging.Logger, verbose: bool) -> None:
    """nbgrader's log goes to the console only with -v; errors end up in grades.csv anyway."""
    log.setLevel(logging.INFO if verbose else logging.ERROR)
    log.propagate = verbose
