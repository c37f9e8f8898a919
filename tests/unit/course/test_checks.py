"""course.checks: every chapter's check data (the loader, the cells, the notebook writer and the
command line have their own files in tests/unit/course/checks/)."""

from __future__ import annotations

from course.checks import LETTERS, load_check
from course.paths import CHAPTERS, CHECKS_DIR


def test_every_chapter_has_a_valid_check_and_right_letters_vary() -> None:
    checks = [load_check(CHECKS_DIR / f"{chapter}.yml") for chapter in CHAPTERS]
    assert [c.chapter for c in checks] == list(CHAPTERS)
    assert {c.correct for c in checks} == set(LETTERS)
    for c in checks:
        for option in c.wrong_options:
            assert option.tempts and option.wrong, (c.chapter, option.letter)
