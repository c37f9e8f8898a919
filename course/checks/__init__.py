"""Multiple-choice checks: data files, the lesson-JSON importer and the notebook cells."""

from course.checks.cells import (
    ACCEPTED_FORM,
    CHECK_TAG,
    NBVAL_TAG,
    ROLES,
    answer_line,
    cell_grade_id,
    cells_with_role,
    chapter_of_cell,
    check_cells,
    grade_id,
    is_check_cell,
    role_of,
)
from course.checks.load import check_from_lesson, find_check_file, load_check
from course.checks.model import LETTERS, Check, CheckError, Option
from course.checks.notebook import write_check, write_checks

__all__ = [
    "ACCEPTED_FORM",
    "CHECK_TAG",
    "LETTERS",
    "NBVAL_TAG",
    "ROLES",
    "Check",
    "CheckError",
    "Option",
    "answer_line",
    "cell_grade_id",
    "cells_with_role",
    "chapter_of_cell",
    "check_cells",
    "check_from_lesson",
    "find_check_file",
    "grade_id",
    "is_check_cell",
    "load_check",
    "role_of",
    "write_check",
    "write_checks",
]
