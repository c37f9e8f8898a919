"""servelab's package: importing it hands every chapter's sizes down to servelab.sizes."""

from __future__ import annotations

from course.paths import CHAPTERS
from servelab.sizes import DECLARED


def test_every_chapter_hands_its_sizes_down() -> None:
    assert list(DECLARED) == list(CHAPTERS)
