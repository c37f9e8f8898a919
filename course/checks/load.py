"""Reading check data: the project's YAML files and the course's lesson-JSON check format.

YAML (``assignments/checks/<id>.yml``)::

    question: Which ...?
    correct: C
    options:
      A: {text: ..., tempts: why it looks right, wrong: why it is not}
      B: {text: ..., tempts: ..., wrong: ...}
      C: {text: ...}
      D: {text: ..., tempts: ..., wrong: ...}

Lesson JSON: a lesson document with a ``check`` object (``question``, ``options[]`` with
``text``, ``correct`` and ``tempting``) and optionally ``reader.check.order``, the display order
of the options; or the ``reader.check`` variant alone, whose strings are wrapped as
``[{"text": ...}]`` lists; or a bare check object.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from course.checks.model import LETTERS, Check, CheckError, Option
from course.paths import CHECKS_DIR

CHECK_SUFFIXES = (".yml", ".yaml", ".json")
_TOP_KEYS = {"question", "options", "correct"}
_OPTION_KEYS = {"text", "tempts", "wrong"}


def load_check(path: Path, chapter: str | None = None) -> Check:
    """Load a check file of either format; ``chapter`` defaults to the file's stem."""
    path = Path(path)
    chapter = chapter or path.stem
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise CheckError(f"{path}: cannot read: {error}") from error
    if path.suffix in (".yml", ".yaml"):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as error:
            raise CheckError(f"{path}: not valid YAML: {error}") from error
        return _with_path(path, lambda: check_from_yaml_data(data, chapter))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise CheckError(f"{path}: not valid JSON: {error}") from error
    return _with_path(path, lambda: check_from_lesson(data, chapter))


def find_check_file(chapter: str, checks_dir: Path = CHECKS_DIR) -> Path:
    """The data file of a chapter's check, ``<checks_dir>/<id>.yml`` (or .yaml/.json)."""
    for suffix in CHECK_SUFFIXES:
        candidate = checks_dir / f"{chapter}{suffix}"
        if candidate.exists():
            return candidate
    raise CheckError(f"no check data for {chapter}: expected {checks_dir / chapter}.yml")


def check_from_yaml_data(data: Any, chapter: str) -> Check:
    if not isinstance(data, dict):
        raise CheckError("the file must be a mapping with question, correct and options")
    _no_unknown_keys(data, _TOP_KEYS, "top level")
    missing = _TOP_KEYS - data.keys()
    if missing:
        raise CheckError(f"missing {', '.join(sorted(missing))}")
    correct = str(data["correct"]).strip().upper()
    options_data = data["options"]
    if not isinstance(options_data, dict) or sorted(map(str, options_data)) != list(LETTERS):
        found = sorted(map(str, options_data)) if isinstance(options_data, dict) else options_data
        raise CheckError(f"options must map exactly the four letters A, B, C, D; got {found}")
    if correct not in LETTERS:
        raise CheckError(f"correct must be one of A, B, C, D; got {data['correct']!r}")
    options = tuple(
        _yaml_option(letter, options_data[letter], letter == correct) for letter in LETTERS
    )
    return Check(
        chapter=chapter,
        question=_text(data["question"], "question"),
        options=options,
        correct=correct,
    )


def check_from_lesson(data: Any, chapter: str) -> Check:
    """Import the lesson-JSON check format, options in their display order."""
    if not isinstance(data, dict):
        raise CheckError("a lesson check must be a JSON object")
    reader_check = (data.get("reader") or {}).get("check") if "reader" in data else None
    check_data = data.get("check") or reader_check or data
    if not isinstance(check_data, dict) or "options" not in check_data:
        raise CheckError("no check found: expected a `check` object with question and options")
    order = check_data.get("order") or (reader_check or {}).get("order")
    options = check_data["options"]
    if not isinstance(options, list) or len(options) != len(LETTERS):
        count = len(options) if isinstance(options, list) else options
        raise CheckError(f"a check needs exactly four options; got {count}")
    order = _display_order(order, len(options))
    right = [i for i, option in enumerate(options) if _is_option(option) and option.get("correct")]
    if len(right) != 1:
        raise CheckError(f"exactly one option must have correct: true; got {len(right)}")
    built = []
    for letter, index in zip(LETTERS, order, strict=True):
        option = options[index]
        if not _is_option(option):
            raise CheckError(f"option {index} must be an object with text")
        explanation = _optional_text(option.get("tempting"), f"option {index} tempting")
        built.append(
            Option(
                letter=letter,
                text=_text(option["text"], f"option {index} text"),
                wrong=None if index == right[0] else explanation,
            )
        )
    return Check(
        chapter=chapter,
        question=_text(check_data.get("question"), "question"),
        options=tuple(built),
        correct=LETTERS[order.index(right[0])],
    )


def _yaml_option(letter: str, data: Any, is_correct: bool) -> Option:
    if isinstance(data, str):
        data = {"text": data}
    if not isinstance(data, dict):
        raise CheckError(f"option {letter} must be text or a mapping with text")
    _no_unknown_keys(data, _OPTION_KEYS, f"option {letter}")
    if "text" not in data:
        raise CheckError(f"option {letter} has no text")
    if is_correct:
        if data.keys() & {"tempts", "wrong"}:
            raise CheckError(f"option {letter} is the correct one: it takes no tempts or wrong")
        return Option(letter=letter, text=_text(data["text"], f"option {letter} text"))
    for key, meaning in (("tempts", "why it looks right"), ("wrong", "why it is wrong")):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise CheckError(f"wrong option {letter} needs `{key}`: {meaning}")
    return Option(
        letter=letter,
        text=_text(data["text"], f"option {letter} text"),
        tempts=data["tempts"].strip(),
        wrong=data["wrong"].strip(),
    )


def _display_order(order: Any, count: int) -> list[int]:
    if order is None:
        return list(range(count))
    if not isinstance(order, list) or sorted(order) != list(range(count)):
        raise CheckError(f"order must be a permutation of 0..{count - 1}; got {order!r}")
    return order


def _is_option(option: Any) -> bool:
    return isinstance(option, dict) and "text" in option


def _optional_text(value: Any, what: str) -> str | None:
    """``_text`` of ``value``, or None where there is none."""
    return None if value is None else _text(value, what)


def _text(value: Any, what: str) -> str:
    """A plain string, unwrapping the reader variant's ``[{"text": ...}]`` lists."""
    if isinstance(value, list) and all(isinstance(part, dict) for part in value):
        value = "".join(str(part.get("text", "")) for part in value)
    if not isinstance(value, str) or not value.strip():
        raise CheckError(f"{what} must be non-empty text; got {value!r}")
    return " ".join(value.split())


def _no_unknown_keys(data: dict, allowed: set[str], where: str) -> None:
    unknown = set(map(str, data)) - allowed
    if unknown:
        raise CheckError(
            f"{where}: unknown key(s) {', '.join(sorted(unknown))}; allowed: "
            f"{', '.join(sorted(allowed))}"
        )


def _with_path(path: Path, build: Callable[[], Check]) -> Check:
    try:
        return build()
    except CheckError as error:
        raise CheckError(f"{path}: {error}") from None
