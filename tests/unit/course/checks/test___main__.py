"""course.checks.__main__: the command line that imports a lesson's check into the course, and
refuses to overwrite one."""

from __future__ import annotations

import json
from pathlib import Path

from course.checks import check_from_lesson, load_check
from course.checks.__main__ import main as checks_main
from course.lesson import lesson_file
from tests.unit.course.checks.test_load import FIXTURE

LESSON = lesson_file() if lesson_file().exists() else FIXTURE


def test_import_command_brings_a_lesson_check_into_the_course(tmp_path: Path, capsys) -> None:
    code = checks_main(
        ["import", str(LESSON), "--chapter", "99-lesson", "--checks-dir", str(tmp_path)]
    )
    assert code == 0, capsys.readouterr().err
    imported = load_check(tmp_path / "99-lesson.json")
    original = check_from_lesson(json.loads(LESSON.read_text()), "99-lesson")
    assert imported == original
    assert "wrote" in capsys.readouterr().out
    (tmp_path / "99-lesson.yml").write_text("question: x\n")
    assert (
        checks_main(
            ["import", str(LESSON), "--chapter", "99-lesson", "--checks-dir", str(tmp_path)]
        )
        == 1
    )
    assert "already holds" in capsys.readouterr().err
