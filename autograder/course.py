"""The scratch nbgrader course grading works in: sources copied from the real course, a gradebook
inside the output folder, and nbgrader's commands run as subprocesses (course.nbgrader_cli).

Submissions are split into batches, one per worker; batch k lives in `submitted-k/`,
`autograded-k/` and `feedback-k/`, so each worker's `nbgrader autograde "*"` and
`nbgrader generate_feedback "*"` see only their own notebooks, while the gradebook is shared.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry

from course.nbgrader_cli import CONFIG_NAME, run_nbgrader
from course.paths import COURSE_ROOT

EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)(?::|$)")
REPO_COURSE = COURSE_ROOT
DEFAULT_TIMEOUT = 20
AUTOGRADE_STEPS = (
    "autograder.preprocessors.SandboxedExecute",  # in place of nbgrader's Execute
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
)
FEEDBACK_STEPS = (
    "autograder.preprocessors.FeedbackOnly",
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
)


def course_chapters(course_root: Path) -> list[str]:
    """Chapter ids of a course: every source/<id>/<id>.ipynb."""
    source = course_root / "source"
    if not source.is_dir():
        return []
    return sorted(d.name for d in source.iterdir() if (d / f"{d.name}.ipynb").is_file())


def db_url(root: Path) -> str:
    return f"sqlite:///{root / 'gradebook.db'}?timeout=60"


def config_text(
    course_root: Path, root: Path, timeout: int, sandboxed: bool, cache_dir: Path | None
) -> str:
    """The scratch course's nbgrader_config.py: the course's own config, pointed at `root`;
    `cache_dir` None runs every notebook's checks (--no-result-cache)."""
    lines = [
        '"""Written by the autograder: the course\'s config, redirected into this folder."""',
        "c = get_config()  # noqa: F821",
    ]
    if (course_root / CONFIG_NAME).is_file():
        lines.append(f"load_subconfig({str(course_root / CONFIG_NAME)!r})  # noqa: F821")
    lines += [
        f"c.CourseDirectory.root = {str(root)!r}",
        # the course's own config may point these into the repo (release → book/); never there
        *(
            f"c.CourseDirectory.{step}_directory = {step!r}"
            for step in ("source", "release", "submitted", "autograded", "feedback")
        ),
        # workers share the gradebook; a writer waits up to a minute for the other's lock
        f"c.CourseDirectory.db_url = {db_url(root)!r}",
        'c.CourseDirectory.course_id = ""',
        "c.OverwriteCells.add_missing_cells = True",
        "c.LimitOutput.max_lines = 200",
        f"c.Autograde.autograde_preprocessors = {list(AUTOGRADE_STEPS)!r}",
        f"c.SandboxedExecute.timeout = {int(timeout)}",
        f"c.SandboxedExecute.sandboxed = {bool(sandboxed)}",
        f"c.SandboxedExecute.cache_dir = {str(cache_dir or '')!r}",
        f"c.GenerateFeedback.preprocessors = {list(FEEDBACK_STEPS)!r}",
        # a second layer behind FeedbackOnly's text-only outputs: nbconvert's HTML sanitiser
        "c.HTMLExporter.sanitize_html = True",
    ]
    return "\n".join(lines) + "\n"


def _failure(log: str) -> str:
    """The last exception line nbgrader logged, for a grades.csv reason."""
    raised = [line.strip() for line in log.splitlines() if EXCEPTION_LINE.match(line.strip())]
    tail = (raised or [line for line in log.splitlines() if line.strip()] or ["no log"])[-1]
    return f"nbgrader could not process it ({tail[:160]})"


@dataclass
class ScratchCourse:
    """An nbgrader course under `root` (OUT/nbgrader) built from the sources of `course_root`."""

    course_root: Path
    root: Path
    timeout: int = DEFAULT_TIMEOUT
    sandboxed: bool = True
    result_cache: bool = True

    def __post_init__(self) -> None:
        self.chapters = course_chapters(self.course_root)
        self.db_url = db_url(self.root)
        self.cache_dir = self.root / "result-cache" if self.result_cache else None

    def path(self, step: str, student: str, chapter: str, batch: int = 0) -> Path:
        """Where a batch keeps a student's notebook in `step` (submitted, autograded, feedback)."""
        return self.root / f"{step}-{batch}" / student / chapter / f"{chapter}.ipynb"

    def release(self, chapter: str) -> Path:
        return self.root / "release" / chapter / f"{chapter}.ipynb"

    def prepare(self) -> dict[str, str]:
        """Copy the sources, fill the gradebook with the check cells, clear the last run's work.

        Returns, for each chapter whose source nbgrader could not process, the reason.
        """
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / CONFIG_NAME).write_text(
            config_text(self.course_root, self.root, self.timeout, self.sandboxed, self.cache_dir)
        )
        for old in self.root.glob("*-[0-9]*"):
            if old.name.split("-")[0] in ("submitted", "autograded", "feedback"):
                shutil.rmtree(old)
        pending = self.root / "pending"
        shutil.rmtree(pending, ignore_errors=True)
        changed = self._stage_changed(pending)
        if not changed:
            return {}
        self._forget(changed)
        broken = self._generate_changed(changed)
        for chapter in changed:
            if chapter not in broken:
                copy = self.root / "source" / chapter / f"{chapter}.ipynb"
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(pending / chapter / f"{chapter}.ipynb", copy)
        shutil.rmtree(pending)
        return broken

    def _stage_changed(self, pending: Path) -> list[str]:
        """Copy each chapter whose source changed since it was last released into ``pending``."""
        changed = []
        for chapter in self.chapters:
            source = self.course_root / "source" / chapter / f"{chapter}.ipynb"
            copy = self.root / "source" / chapter / f"{chapter}.ipynb"
            if (
                copy.is_file()
                and copy.read_bytes() == source.read_bytes()
                and self.release(chapter).is_file()
            ):
                continue
            changed.append(chapter)
            copy.unlink(missing_ok=True)
            (pending / chapter).mkdir(parents=True)
            shutil.copyfile(source, pending / chapter / f"{chapter}.ipynb")
        return changed

    def _generate_changed(self, changed: list[str]) -> dict[str, str]:
        """Release the staged chapters; the reason for each that nbgrader could not process."""
        broken = {}
        if self._generate("*"):
            # one run covers every changed chapter; only when it failed, find which and why
            for chapter in changed:
                if not self._released(chapter):
                    why = self._generate(chapter) or "nbgrader wrote no release"
                    broken[chapter] = f"the chapter's source notebook could not be prepared: {why}"
        return broken

    def _released(self, chapter: str) -> bool:
        return self.release(chapter).is_file() and self.max_score(chapter) is not None

    def _forget(self, chapters: list[str]) -> None:
        """A changed source invalidates earlier grades of its chapter, and nbgrader refuses to
        change cells that have submissions: those chapters start afresh in the gradebook."""
        for chapter in chapters:
            shutil.rmtree(self.release(chapter).parent, ignore_errors=True)
        if not (self.root / "gradebook.db").is_file():
            return
        with Gradebook(self.db_url) as gb:
            for assignment in list(gb.assignments):
                if assignment.name in chapters:
                    gb.remove_assignment(assignment.name)

    def _generate(self, pattern: str) -> str:
        done = run_nbgrader(
            "generate_assignment",
            pattern,
            "--force",
            "--CourseDirectory.source_directory=pending",
            cwd=self.root,
        )
        return "" if done.returncode == 0 else _failure(done.stdout + done.stderr)

    def add_students(self, students: set[str]) -> None:
        with Gradebook(self.db_url) as gb:
            for student in sorted(students):
                gb.update_or_create_student(student)

    def autograde_batch(self, batch: int) -> str:
        """Autograde every notebook of a batch (check cells only, in the sandbox), then write
        their feedback; '' if nbgrader reported no failure, else its last error."""
        dirs = [
            f"--CourseDirectory.{step}_directory={step}-{batch}"
            for step in ("submitted", "autograded", "feedback")
        ]
        failures = []
        for step in ("autograde", "generate_feedback"):
            done = run_nbgrader(step, "*", "--force", *dirs, cwd=self.root)
            if done.returncode != 0:
                failures.append(_failure(done.stdout + done.stderr))
        return failures[0] if failures else ""

    def score(self, student: str, chapter: str) -> tuple[float, float] | None:
        """(score, max_score) from the gradebook, or None when nbgrader has no submission."""
        with Gradebook(self.db_url) as gb:
            try:
                nb = gb.find_submission_notebook(chapter, chapter, student)
            except MissingEntry:
                return None
            return float(nb.score), float(nb.max_score)

    def max_score(self, chapter: str) -> float | None:
        if not (self.root / "gradebook.db").is_file():
            return None
        with Gradebook(self.db_url) as gb:
            try:
                return float(gb.find_notebook(chapter, chapter).max_score)
            except MissingEntry:
                return None
