"""What `pip install servelab` gives students, against the course tooling that stays behind.

Students install the packages pyproject.toml's ``[tool.setuptools.packages.find]`` selects. The
instructor and grader tools (``course/``: edition generator, launch and install cells, the
check-cell contract; ``autograder/``) run from the repository root and must not be among them,
and nothing installed may import them.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from course.paths import REPO_ROOT

TOOLING = ("course", "autograder")  # top-level packages of the repository, never installed
TOOLING_MODULES = ("edition", "launch", "checks")


def installed_packages() -> list[str]:
    """setuptools' own choice, in a subprocess: importing setuptools here would replace
    distutils for every later test of this process."""
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    find = pyproject["tool"]["setuptools"]["packages"]["find"]
    code = (
        "import json, sys, setuptools; print(json.dumps(setuptools.find_packages("
        "where=sys.argv[1], include=json.loads(sys.argv[2]), "
        "exclude=json.loads(sys.argv[3]))))"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            str(REPO_ROOT),
            json.dumps(find["include"]),
            json.dumps(find.get("exclude", [])),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def imported_top_levels(path: Path) -> set[str]:
    """The top-level names a module imports absolutely (relative imports stay in its package)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.tooling  # setuptools' choice, in a child process
def test_students_get_servelab_without_the_course_tooling() -> None:
    packages = installed_packages()
    assert "servelab" in packages
    assert [p for p in packages if p.split(".")[0] in TOOLING] == []
    modules = {
        f"{package}.{path.stem}"
        for package in packages
        for path in (REPO_ROOT / package.replace(".", "/")).glob("*.py")
    } | set(packages)
    tooling = [m for m in modules if m.split(".")[-1] in TOOLING_MODULES]
    assert tooling == [], f"course tooling in the student package: {tooling}"


@pytest.mark.tooling  # setuptools' choice, in a child process
def test_the_student_package_imports_nothing_from_the_tooling() -> None:
    offenders = []
    for package in installed_packages():
        for path in sorted((REPO_ROOT / package.replace(".", "/")).glob("*.py")):
            if found := imported_top_levels(path) & set(TOOLING):
                offenders.append(f"{path.relative_to(REPO_ROOT)}: {', '.join(sorted(found))}")
    assert offenders == [], f"installed modules importing course tooling: {offenders}"
