"""What `pip install servelab` gives students, against the course tooling that stays behind.

Students install the packages pyproject.toml's ``[tool.setuptools.packages.find]`` selects. The
instructor and grader tools (``course/``: edition generator, launch and install cells, the
check-cell contract; ``autograder/``) run from the repository root and must not be among them,
and nothing installed may import them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from course.paths import REPO_ROOT, RepositoryNotFound, find_repo_root


def test_the_repository_root_is_found_by_its_contents(tmp_path: Path) -> None:
    assert (REPO_ROOT / "_config.yml").is_file() and (REPO_ROOT / "assignments").is_dir()
    assert find_repo_root(REPO_ROOT / "course" / "checks") == REPO_ROOT
    assert find_repo_root(tmp_path, REPO_ROOT / "book") == REPO_ROOT
    with pytest.raises(RepositoryNotFound, match="_config.yml and assignments"):
        find_repo_root(tmp_path)


def test_the_repository_map_names_every_module() -> None:
    """Each top-level folder's entry in CONTRIBUTING.md's "How the repository reads" names, in
    backticks, every module and subpackage the folder holds (``__init__`` and ``__main__``
    aside)."""
    guide = (REPO_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = guide.split("## How the repository reads", 1)[1].split("\n## ", 1)[0]
    entries = {
        match[1]: match[2]
        for match in re.finditer(
            r"^- `(\w+)/` — (.*?)(?=^- `|\Z)", section, flags=re.MULTILINE | re.DOTALL
        )
    }
    missing = []
    for package in ("servelab", "course", "autograder", "benchmarks", "env"):
        folder = REPO_ROOT / package
        names = {path.stem for path in folder.glob("*.py") if not path.stem.startswith("__")}
        names |= {path.name for path in folder.iterdir() if (path / "__init__.py").is_file()}
        names |= {path.name for path in folder.glob("*.sh")}
        text = entries.get(package, "")
        missing += [
            f"{package}/{name}"
            for name in sorted(names)
            if not re.search(rf"`{re.escape(name)}(?:/|\.py)?`|`{re.escape(name)}`", text)
        ]
    assert missing == [], f"CONTRIBUTING.md's repository map does not name: {missing}"
