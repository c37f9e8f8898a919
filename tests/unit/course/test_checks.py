"""Check data, the lesson-JSON importer, and the behaviour of the generated check cells."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat
import pytest

from course.checks import (
    CHECK_TAG,
    LETTERS,
    NBVAL_TAG,
    Check,
    CheckError,
    check_cells,
    check_from_lesson,
    grade_id,
    load_check,
    role_of,
    write_check,
)
from course.checks.__main__ import main as checks_main
from course.checks.notebook import write_checks
from course.lesson import lesson_file
from course.paths import CHAPTERS, CHECKS_DIR, source_notebook
from tests.support import FIXTURES, VALID_YAML, write_yaml

FIXTURE = FIXTURES / "lesson-check.json"

@pytest.fixture
def check(tmp_path: Path) -> Check:
    return load_check(write_yaml(tmp_path, VALID_YAML))


# --- data files -------------------------------------------------------------------------------


def test_every_chapter_has_a_valid_check_and_right_letters_vary() -> None:
    checks = [load_check(CHECKS_DIR / f"{chapter}.yml") for chapter in CHAPTERS]
    assert [c.chapter for c in checks] == list(CHAPTERS)
    assert {c.correct for c in checks} == set(LETTERS)
    for c in checks:
        for option in c.wrong_options:
            assert option.tempts and option.wrong, (c.chapter, option.letter)


def test_yaml_loads_with_the_right_letter(check: Check) -> None:
    assert check.chapter == "99-test"
    assert check.correct == "B"
    assert [o.letter for o in check.wrong_options] == ["A", "C", "D"]
    assert check.option("C").wrong == "Niceness is not it."


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["options"].pop("D"), "exactly the four letters"),
        (lambda d: d["options"].update(E={"text": "Fifth"}), "exactly the four letters"),
        (lambda d: d.update(correct="E"), "correct must be one of"),
        (lambda d: d.update(correct=["A", "B"]), "correct must be one of"),
        (lambda d: d["options"]["A"].pop("wrong"), "wrong option A needs `wrong`"),
        (lambda d: d["options"]["C"].pop("tempts"), "wrong option C needs `tempts`"),
        (lambda d: d["options"]["B"].update(wrong="x"), "takes no tempts or wrong"),
        (lambda d: d["options"]["D"].update(text="  "), "option D text must be non-empty"),
        (lambda d: d.update(hint="x"), "unknown key(s) hint"),
        (lambda d: d.pop("question"), "missing question"),
    ],
)
def test_yaml_errors_say_what_is_wrong(tmp_path: Path, change, message: str) -> None:
    data = copy.deepcopy(VALID_YAML)
    change(data)
    with pytest.raises(CheckError, match=r"99-test\.yml") as error:
        load_check(write_yaml(tmp_path, data))
    assert message in str(error.value)


def test_invalid_yaml_syntax_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "bad.yml"
    path.write_text("question: [unclosed\n", encoding="utf-8")
    with pytest.raises(CheckError, match="not valid YAML"):
        load_check(path)


# --- lesson-JSON importer --------------------------------------------------------------------


def test_lesson_import_uses_the_display_order() -> None:
    check = load_check(FIXTURE, "99-lesson")
    # order [3, 0, 2, 1]: the correct option (index 1) is shown last.
    first_words = [o.text.split()[0] for o in check.options]
    assert first_words == ["Splitting", "Buying", "Raising", "Keeping"]
    assert check.correct == "D"
    assert check.option("C").wrong.startswith("Temperature changes")
    assert check.option("C").tempts is None
    assert check.question.startswith("A server answers")


def test_reader_variant_and_bare_check_import_alike() -> None:
    lesson = json.loads(FIXTURE.read_text(encoding="utf-8"))
    from_lesson = check_from_lesson(lesson, "x")
    from_reader = check_from_lesson({"reader": {"check": lesson["reader"]["check"]}}, "x")
    assert from_reader == from_lesson
    bare = check_from_lesson(lesson["check"], "x")
    assert bare.correct == "B"  # no order: options keep their stored order
    assert bare.option("B").text == from_lesson.option("D").text


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda c: c["options"].pop(), "exactly four options; got 3"),
        (lambda c: c["options"][0].update(correct=True), "exactly one option must have correct"),
        (lambda c: c["options"][1].update(correct=False), "exactly one option must have correct"),
        (lambda c: c["options"][2].pop("tempting"), "wrong option C needs an explanation"),
        (lambda c: c.update(order=[0, 1, 1, 2]), "order must be a permutation"),
    ],
)
def test_lesson_import_errors(change, message: str) -> None:
    lesson = json.loads(FIXTURE.read_text(encoding="utf-8"))
    check_data = lesson["check"]
    change(check_data)
    with pytest.raises(CheckError) as error:
        check_from_lesson({"check": check_data}, "99-lesson")
    assert message in str(error.value)


# --- the generator ---------------------------------------------------------------------------


def make_notebook(path: Path, chapter: str = "99-test") -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["servelab"] = {"chapter": chapter}
    notebook.cells = [nbformat.v4.new_markdown_cell("# Title"), nbformat.v4.new_code_cell("1 + 1")]
    nbformat.write(notebook, path)
    return path


def test_cells_follow_the_contract(check: Check) -> None:
    question, answer, test = check_cells(check)
    assert [c.cell_type for c in (question, answer, test)] == ["markdown", "code", "code"]
    for cell, part in ((question, "question"), (answer, "answer"), (test, "test")):
        assert cell.metadata["tags"] == ([CHECK_TAG, NBVAL_TAG] if part == "test" else [CHECK_TAG])
        assert cell.metadata["nbgrader"]["grade_id"] == grade_id("99-test", part)
        assert cell.metadata["nbgrader"]["schema_version"] == 3
        assert role_of(cell) == part
    assert [o["text"] for o in test.outputs] == ["answer B: the form is right\n"]
    assert answer.outputs == []
    assert question.metadata["nbgrader"] == {
        "grade_id": "99-test-check-question", "schema_version": 3, "task": False,
        "locked": True, "solution": False, "grade": False,
    }
    assert answer.metadata["nbgrader"]["solution"] and not answer.metadata["nbgrader"]["locked"]
    assert test.metadata["nbgrader"]["grade"] and test.metadata["nbgrader"]["points"] == 1
    assert answer.source == '### BEGIN SOLUTION\nanswer = "B"\n### END SOLUTION'
    assert "- **C.** Third" in question.source
    assert "import" not in test.source and "servelab" not in test.source


def test_write_check_is_idempotent_and_replaces_old_cells(tmp_path: Path, check: Check) -> None:
    notebook_path = make_notebook(tmp_path / "99-test.ipynb")
    assert write_check(notebook_path, check) is True
    first = notebook_path.read_bytes()
    assert write_check(notebook_path, check) is False
    assert notebook_path.read_bytes() == first

    notebook = nbformat.read(notebook_path, as_version=4)
    notebook.cells.append(nbformat.v4.new_markdown_cell("Written after the check."))
    nbformat.write(notebook, notebook_path)
    changed = copy.deepcopy(VALID_YAML)
    changed["correct"] = "A"
    changed["options"]["A"] = {"text": "First"}
    changed["options"]["B"] = {"text": "Second", "tempts": "It was right.", "wrong": "Not now."}
    assert write_check(notebook_path, load_check(write_yaml(tmp_path, changed))) is True

    notebook = nbformat.read(notebook_path, as_version=4)
    tagged = [cell for cell in notebook.cells if CHECK_TAG in cell.metadata.get("tags", [])]
    assert len(notebook.cells) == 6 and notebook.cells[-3:] == tagged
    assert 'answer = "A"' in tagged[1].source
    assert notebook.metadata["servelab"] == {"chapter": "99-test"}


def test_write_check_refuses_a_notebook_of_another_chapter(tmp_path: Path, check: Check) -> None:
    notebook_path = make_notebook(tmp_path / "other.ipynb", chapter="01-serving-engine")
    with pytest.raises(CheckError, match="metadata says chapter '01-serving-engine'"):
        write_check(notebook_path, check)
    with pytest.raises(CheckError, match="does not exist"):
        write_check(tmp_path / "missing.ipynb", check)


# --- running the cells -----------------------------------------------------------------------


def test_old_notebooks_are_upgraded_to_carry_cell_ids(tmp_path: Path, check: Check) -> None:
    path = tmp_path / "old.ipynb"
    old = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# t"]}],
           "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    path.write_text(json.dumps(old), encoding="utf-8")
    write_check(path, check)
    nbformat.validate(nbformat.read(path, as_version=4))


def test_write_checks_command_covers_the_chapters_that_exist(tmp_path: Path) -> None:
    first, second = CHAPTERS[:2]
    path = source_notebook(second, tmp_path)
    path.parent.mkdir(parents=True)
    make_notebook(path, chapter=second)
    report = write_checks([], CHECKS_DIR, tmp_path)
    assert f"{first}: skipped, no source notebook yet" in report
    assert f"{second}: written" in report
    assert write_checks([second], CHECKS_DIR, tmp_path) == [f"{second}: unchanged"]
    with pytest.raises(CheckError, match="does not exist"):
        write_checks([first], CHECKS_DIR, tmp_path)
    with pytest.raises(CheckError, match="unknown chapter"):
        write_checks(["99-nope"], CHECKS_DIR, tmp_path)


def test_role_of_reads_only_check_grade_ids(check: Check) -> None:
    roles = [role_of(cell) for cell in check_cells(check)]
    assert roles == ["question", "answer", "test"]
    other = nbformat.v4.new_code_cell("x = 1")
    assert role_of(other) is None
    other.metadata["nbgrader"] = {"grade_id": "99-test-setup"}
    assert role_of(other) is None
    other.metadata["nbgrader"] = "broken"
    assert role_of(other) is None
    with pytest.raises(ValueError, match="role"):
        grade_id("99-test", "hint")


LESSON = lesson_file() if lesson_file().exists() else FIXTURE


def test_import_command_brings_a_lesson_check_into_the_course(tmp_path: Path, capsys) -> None:
    code = checks_main(["import", str(LESSON), "--chapter", "99-lesson",
                        "--checks-dir", str(tmp_path)])
    assert code == 0, capsys.readouterr().err
    imported = load_check(tmp_path / "99-lesson.json")
    original = check_from_lesson(json.loads(LESSON.read_text()), "99-lesson")
    assert imported == original
    assert "wrote" in capsys.readouterr().out
    (tmp_path / "99-lesson.yml").write_text("question: x\n")
    assert checks_main(["import", str(LESSON), "--chapter", "99-lesson",
                        "--checks-dir", str(tmp_path)]) == 1
    assert "already holds" in capsys.readouterr().err
