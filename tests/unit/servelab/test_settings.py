"""servelab.settings: the one list of SERVELAB_* variables, and the only reader of them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from course.paths import REPO_ROOT
from servelab import settings

NAME = re.compile(r"SERVELAB_[A-Z_]+[A-Z]")
# Reading a SERVELAB_ variable by its literal name, anywhere but settings itself.
DIRECT_READ = re.compile(r"(environ\.get|environ\[|getenv)\(?\s*[\"']SERVELAB_")


SOURCE_DIRS = ("servelab", "course", "tests", "env", "benchmarks", "autograder", ".ci")
SOURCE_SUFFIXES = {".py", ".sh", ".md", ".yml", ".cfg", ".toml"}


def sources(*folders: str) -> list[Path]:
    """The repository's own text files under ``folders`` (no virtual environment, no build)."""
    return [
        path
        for folder in folders
        for path in sorted((REPO_ROOT / folder).rglob("*"))
        if path.is_file()
        and path.suffix in SOURCE_SUFFIXES
        and not {".venv", "__pycache__", "_build"} & set(path.parts)
    ]


def test_every_variable_the_repository_names_is_declared_with_help() -> None:
    declared = {setting.name for setting in settings.SETTINGS}
    named = set()
    documents = [REPO_ROOT / name for name in ("README.md", "CONTRIBUTING.md", "instructors.md")]
    for path in [*sources(*SOURCE_DIRS), REPO_ROOT / "Makefile", *documents]:
        named |= set(NAME.findall(path.read_text(encoding="utf-8", errors="replace")))
    assert named - declared == set(), "declare these in servelab/settings.py"
    assert all(setting.help for setting in settings.SETTINGS)


def test_only_settings_reads_them_in_the_package_and_the_course_tooling() -> None:
    readers = [
        path
        for path in sources("servelab", "course")
        if path.suffix == ".py"
        and path.name != "settings.py"
        and DIRECT_READ.search(path.read_text(encoding="utf-8"))
    ]
    assert readers == []


@pytest.mark.parametrize(
    ("raw", "value", "on"),
    [
        (None, None, False),
        ("  ", None, False),
        (" smoke ", "smoke", False),
        ("1", "1", True),
    ],
)
def test_a_setting_is_read_stripped_and_empty_is_unset(monkeypatch, raw, value, on) -> None:
    if raw is None:
        monkeypatch.delenv(settings.SIZE.name, raising=False)
    else:
        monkeypatch.setenv(settings.SIZE.name, raw)
    assert (settings.SIZE.value(), settings.SIZE.on()) == (value, on)
