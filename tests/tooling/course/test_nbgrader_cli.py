"""course.nbgrader_cli: nbgrader's command line in a subprocess, leaving nothing behind."""

from __future__ import annotations

import pytest

from course.nbgrader_cli import run_nbgrader


@pytest.mark.tooling  # runs nbgrader
def test_a_run_leaves_no_folder_in_the_temporary_folder(tmp_path, monkeypatch):
    system_tmp = tmp_path / "tmp"
    system_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(system_tmp))
    # validate reads nbgrader's configuration (here: none) before it fails for want of a notebook
    done = run_nbgrader("validate", cwd=tmp_path)
    assert "Must provide path to notebook" in done.stderr
    assert list(system_tmp.iterdir()) == []
