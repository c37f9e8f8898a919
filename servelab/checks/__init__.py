"""Multiple-choice checks: data files, the lesson-JSON importer and the notebook cells."""

from servelab.checks.cells import CHECK_TAG, check_cells, is_check_cell
from servelab.checks.load import check_from_lesson, find_check_file, load_check
from servelab.checks.model import LETTERS, Check, CheckError, Option
from servelab.checks.notebook import write_check, write_checks

__all__ = [
    "CHECK_TAG",
    "LETTERS",
    "Check",
    "CheckError",
    "Option",
    "check_cells",
    "check_from_lesson",
    "find_check_file",
    "is_check_cell",
    "load_check",
    "write_check",
    "write_checks",
]
