"""The GitHub workflows pass actionlint (which also runs shellcheck on their scripts where
shellcheck is installed), and a broken one does not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from course.paths import REPO_ROOT

pytestmark = pytest.mark.tooling  # runs actionlint (and through it shellcheck)

WORKFLOWS = sorted((REPO_ROOT / ".github" / "workflows").glob("*.yml"))


def actionlint(*paths: Path) -> subprocess.CompletedProcess[str]:
    """The venv's actionlint (the ``tools`` extra) on ``paths``; exit 1 means findings."""
    binary = Path(sys.executable).parent / "actionlint"
    return subprocess.run(
        [str(binary), "-no-color", *map(str, paths)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_workflows_pass_actionlint() -> None:
    assert WORKFLOWS, "no workflow in .github/workflows"
    result = actionlint(*WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_reports_a_broken_workflow(tmp_path: Path) -> None:
    """The check above can fail: the site workflow with one step id misspelled where its output
    is read."""
    site = REPO_ROOT / ".github" / "workflows" / "book.yml"
    text = site.read_text(encoding="utf-8")
    read = "steps.pip-cache.outputs"
    assert read in text
    broken = tmp_path / "book.yml"
    broken.write_text(text.replace(read, "steps.pip-cahce.outputs", 1), encoding="utf-8")
    result = actionlint(broken)
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'property "pip-cahce" is not defined' in result.stdout


def test_the_site_workflow_publishes_the_answers_only_when_the_repository_asks() -> None:
    """The self-study site (every check's key) joins the deployed site only behind the
    repository variable, and before the upload of the site it joins."""
    steps = yaml.safe_load(
        (REPO_ROOT / ".github" / "workflows" / "book.yml").read_text(encoding="utf-8")
    )["jobs"]["build"]["steps"]
    names = [step.get("name", "") for step in steps]
    self_study = next(step for step in steps if "make self-study" in step.get("run", ""))
    assert self_study.get("if") == "vars.SELF_STUDY == 'true'"
    assert "_build/html/self-study" in self_study["run"]
    assert names.index(self_study["name"]) < names.index("Upload the site")
    assert all(
        "make self-study" not in step.get("run", "") for step in steps if step is not self_study
    )
