"""The sandbox grading kernels run in (autograder/sandbox.py), attacked directly.

The autograder never sends student code to a kernel (answers are parsed, not run), so these
tests play the part of code that got there anyway: it must find no network, no root, none of
the course's or the grader's files, limits on memory, processes and output, and nothing of it
may outlive the run. Two workers starting many sandboxed kernels at once must not collide.
"""

from __future__ import annotations

import pytest

from autograder import sandbox
from autograder.__main__ import main as autograder_main


def test_grading_refuses_without_a_sandbox(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    with pytest.raises(sandbox.SandboxUnavailable, match="--unsafe-no-sandbox"):
        sandbox.check_available()
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    code = autograder_main(["grade", str(inbox), "--out", str(tmp_path / "out")])
    assert code == 2
    assert "bubblewrap" in capsys.readouterr().err
