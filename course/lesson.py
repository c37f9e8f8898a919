"""The lesson chapter 00 follows: where its document is, and the credit its licence asks for.

Course tooling (never installed): the tests compare chapter 00 with the lesson document, whose
check ``course.checks`` can import (``check_from_lesson``), and the page's attribution with
:meth:`LessonSource.attribution`, from the notebook's ``servelab.lesson`` metadata.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from servelab import settings

# The lesson document chapter 00 follows (course JSON format): tests compare the chapter with it.
LESSON_FILE = Path("shared") / "seed" / "000_10ad88a6f5cbc97c.txt"


def lesson_file() -> Path:
    """``$SERVELAB_LESSON_FILE``, else the lesson document kept beside the repository.

    "Beside" means ``shared/seed/<file>`` in the nearest folder above this module's file, or
    above the working directory, that has one. When none does, the place it would have beside a
    repository that is the working directory, for the caller to report as missing.
    """
    forced = settings.LESSON_FILE.value()
    if forced:
        return Path(forced)
    here = Path(__file__).resolve().parent
    for start in (here, Path.cwd().resolve()):
        for folder in (start, *start.parents):
            if (folder / LESSON_FILE).is_file():
                return folder / LESSON_FILE
    return Path.cwd().resolve().parent / LESSON_FILE


@dataclass(frozen=True)
class LessonSource:
    """Which lesson a chapter is based on, kept in the notebook's ``servelab.lesson`` metadata."""

    title: str
    course: str
    position: int
    of: int
    url: str
    licence: str
    licence_url: str
    citation: str

    @classmethod
    def from_lesson(cls, lesson: Mapping[str, Any]) -> LessonSource:
        """The source of a lesson document in the course's JSON format."""
        return cls(
            title=lesson["lesson"]["title"],
            course=lesson["course"]["title"],
            position=int(lesson["lesson"]["position"]),
            of=int(lesson["lesson"]["of"]),
            url=lesson["lesson"]["url"],
            licence=lesson["licence"]["name"],
            licence_url=lesson["licence"]["url"],
            citation=lesson["cite"],
        )

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any]) -> LessonSource:
        return cls(**metadata)

    def metadata(self) -> dict[str, Any]:
        return asdict(self)

    def attribution(self) -> str:
        """The credit the lesson's licence asks for: title, creator, source, licence, changes."""
        return (
            f"**Based on a lesson.** This chapter follows “{self.title}”, lesson "
            f"{self.position} of {self.of} in the course *{self.course}* ([source]({self.url})), "
            f"published under [{self.licence}]({self.licence_url}). Citation: {self.citation} "
            "Changes: the facts, figures and check come from the lesson; every sentence, "
            "measurement and line of code here was written for this book."
        )
