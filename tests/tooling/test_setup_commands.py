"""The commands set-up builds: torch from PyTorch's CPU index, quiet pip.

The pip commands are checked as built, without running the install they describe; pip itself
runs only where it fails fast and offline.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from course.paths import REPO_ROOT


@pytest.mark.tooling  # a child process
def test_quiet_pip_prints_only_a_failure_without_the_noise() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "servelab.env",
            "pip",
            "install",
            "-q",
            "--no-index",
            "servelab-no-such-package==1",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1
    assert "servelab-no-such-package" in result.stderr
    assert "is ignored" not in result.stderr + result.stdout


@pytest.mark.tooling  # a child process
def test_env_module_needs_only_the_standard_library() -> None:
    """setup.sh runs it before anything is installed, the install cell right after servelab."""
    code = f"import sys; sys.path.insert(0, {str(REPO_ROOT)!r}); import servelab.env"
    result = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
