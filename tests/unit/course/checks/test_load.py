"""course.checks.load: a check read from its YAML file with the right letter, its errors said
plainly, and a lesson's JSON check imported in its display order."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from course.checks import Check, CheckError, check_from_lesson, load_check
from tests.support import FIXTURES, VALID_YAML, write_yaml


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


FIXTURE = FIXTURES / "lesson-check.json"


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
