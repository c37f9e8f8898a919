"""Check data, the lesson-JSON importer, and the behaviour of the generated check cells."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest
from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

from course.checks import (
    Check,
    check_cells,
    check_from_lesson,
    is_check_cell,
    load_check,
    role_of,
)
from course.checks.cells import key_output
from course.nbgrader_cli import CONFIG_NAME, run_nbgrader
from course.paths import CHAPTERS, CHECKS_DIR, COURSE_ROOT, source_notebook
from tests.support import FIXTURES, VALID_YAML, write_yaml

FIXTURE = FIXTURES / "lesson-check.json"


@pytest.fixture
def check(tmp_path: Path) -> Check:
    return load_check(write_yaml(tmp_path, VALID_YAML))


# --- data files -------------------------------------------------------------------------------


# --- lesson-JSON importer --------------------------------------------------------------------


# --- the generator ---------------------------------------------------------------------------


# --- running the cells -----------------------------------------------------------------------

# Runs one cell's code in a fresh interpreter, the way a kernel would: an exception becomes a
# result, not a traceback on stderr, and the code's own stdout and stderr are captured.
HARNESS = textwrap.dedent(
    """
    import contextlib, io, json, sys
    code = sys.stdin.read()
    out, err, result = io.StringIO(), io.StringIO(), {}
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            exec(compile(code, "<cell>", "exec"), {"__name__": "__main__"})
        except Exception as error:
            result["error"] = [type(error).__name__, str(error)]
    result["stdout"], result["stderr"] = out.getvalue(), err.getvalue()
    print(json.dumps(result))
    """
)


def run_cells(*sources: str) -> dict:
    process = subprocess.run(
        [sys.executable, "-c", HARNESS],
        input="\n".join(sources),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert process.stderr == ""
    result = json.loads(process.stdout)
    assert result["stderr"] == "", result
    return result


def student_cells(check: Check) -> tuple[str, str]:
    """The answer and test cells as nbgrader's release step leaves them."""
    notebook = nbformat.v4.new_notebook(cells=check_cells(check))
    notebook.metadata["kernelspec"] = {"name": "python3", "language": "python"}
    stub = {"python": "answer = None  # replace None with the letter you choose, in quotes"}
    for preprocessor in (ClearSolutions(code_stub=stub), ClearHiddenTests()):
        notebook, _ = preprocessor.preprocess(notebook, {})
    return notebook.cells[1].source, notebook.cells[2].source


@pytest.mark.tooling  # nbgrader's release preprocessors
def test_student_edition_cells_have_no_answer(check: Check) -> None:
    answer, test = student_cells(check)
    assert answer == "answer = None  # replace None with the letter you choose, in quotes"
    assert "HIDDEN" not in test and "_feedback" not in test and "assert" not in test


@pytest.mark.parametrize("given", ['"b"', '" B "', '"B"'])
@pytest.mark.tooling  # runs the cells in a child interpreter
def test_form_check_accepts_one_letter_in_any_case(check: Check, given: str) -> None:
    _, test = student_cells(check)
    result = run_cells(f"answer = {given}", test)
    assert "error" not in result
    assert "answer B: the form is right" in result["stdout"]


@pytest.mark.parametrize(
    ("given", "shown"),
    [('"AB"', "'AB'"), ('"A or B"', "'A or B'"), ("2", "2"), ('["B"]', "['B']"), ('""', "''")],
)
@pytest.mark.tooling  # runs the cells in a child interpreter
def test_form_check_rejects_anything_but_one_letter(check: Check, given: str, shown: str) -> None:
    _, test = student_cells(check)
    result = run_cells(f"answer = {given}", test)
    kind, message = result["error"]
    assert kind == "ValueError"
    assert message.startswith("answer must be")
    assert message.endswith(f"got {shown}")


@pytest.mark.tooling  # runs the cells in a child interpreter
def test_no_answer_yet_does_not_raise(check: Check) -> None:
    answer, test = student_cells(check)
    result = run_cells(answer, test)
    assert "error" not in result
    assert result["stdout"].startswith("no answer yet")


@pytest.mark.tooling  # runs the cells in a child interpreter
def test_hidden_part_passes_on_the_right_letter(check: Check) -> None:
    _, test = check_cells(check)[1:]
    result = run_cells('answer = " b"', test.source)
    assert "error" not in result


@pytest.mark.parametrize("letter", ["A", "C", "D"])
@pytest.mark.tooling  # runs the cells in a child interpreter
def test_hidden_part_explains_the_chosen_wrong_option(check: Check, letter: str) -> None:
    _, test = check_cells(check)[1:]
    result = run_cells(f"answer = {letter.lower()!r}", test.source)
    kind, message = result["error"]
    assert kind == "AssertionError"
    assert message == check.feedback(letter)
    assert check.option(letter).wrong in message and check.option(letter).tempts in message
    other = next(o for o in check.wrong_options if o.letter != letter)
    assert other.wrong not in message


@pytest.mark.tooling  # runs the cells in a child interpreter
def test_hidden_part_fails_when_no_answer_was_given(check: Check) -> None:
    _, test = check_cells(check)[1:]
    result = run_cells("answer = None", test.source)
    assert result["error"][0] == "AssertionError"
    assert "no answer was given" in result["error"][1]
    assert result["stdout"].startswith("no answer yet")


@pytest.mark.parametrize("chapter", CHAPTERS)
@pytest.mark.tooling  # runs the cells in a child interpreter
def test_every_chapter_check_grades_its_right_letter(chapter: str) -> None:
    check = load_check(CHECKS_DIR / f"{chapter}.yml")
    test = check_cells(check)[2].source
    assert "error" not in run_cells(f"answer = {check.correct!r}", test)
    wrong = check.wrong_options[0].letter
    assert run_cells(f"answer = {wrong!r}", test)["error"][1] == check.feedback(wrong)


SOURCES = [chapter for chapter in CHAPTERS if source_notebook(chapter).exists()]


@pytest.mark.parametrize("chapter", SOURCES)
@pytest.mark.tooling  # runs the cells in a child interpreter
def test_instructor_source_check_passes_with_its_answer(chapter: str) -> None:
    """The check cells as they stand in the instructor source: its answer passes its hidden test."""
    notebook = nbformat.read(source_notebook(chapter), as_version=4)
    cells = [cell for cell in notebook.cells if is_check_cell(cell)]
    assert [cell.cell_type for cell in cells] == ["markdown", "code", "code"]
    answer, test = (cell.source for cell in cells[1:])
    result = run_cells(answer, test)
    assert "error" not in result, result
    assert result["stdout"].startswith("answer ")


@pytest.mark.tooling  # nbgrader generate_assignment
def test_the_student_test_cell_leaks_nothing_of_the_key(check: Check, tmp_path: Path) -> None:
    """nbgrader's generate_assignment, as the edition runs it, drops the key's stored output."""
    course = tmp_path / "course"
    source = course / "source" / "99-test"
    source.mkdir(parents=True)
    notebook = nbformat.v4.new_notebook(cells=check_cells(check))
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "language": "python",
        "display_name": "Python 3",
    }
    nbformat.write(notebook, source / "99-test.ipynb")
    (course / CONFIG_NAME).write_text((COURSE_ROOT / CONFIG_NAME).read_text())
    done = run_nbgrader(
        "generate_assignment",
        "99-test",
        "--force",
        f"--CourseDirectory.root={course}",
        f"--CourseDirectory.release_directory={course}/rel",
        f"--CourseDirectory.db_url=sqlite:///{course}/gb.db",
        cwd=course,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    edition = nbformat.read(course / "rel" / "99-test" / "99-test.ipynb", as_version=4)
    test = edition.cells[2]
    assert role_of(test) == "test" and test.outputs == []
    text = json.dumps(edition)
    assert key_output(check).strip() not in text and "HIDDEN" not in text
    assert '"B"' not in edition.cells[1].source


@pytest.mark.tooling  # a child process
def test_import_command_runs_as_a_module(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "course.checks",
            "import",
            str(FIXTURE),
            "--chapter",
            "99-lesson",
            "--checks-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    expected = check_from_lesson(json.loads(FIXTURE.read_text()), "99-lesson")
    assert load_check(tmp_path / "99-lesson.json") == expected
