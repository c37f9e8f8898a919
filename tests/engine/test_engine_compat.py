"""Both supported engine versions, without a GPU: vLLM 0.32 (the CPU engine, fixtures captured
from a real server here) and vLLM 0.11.2 (the GPU engine, fixtures rendered by its own released
code; see tests/fixtures/README.md). Every parser of logs and metrics runs on both."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.engine
def test_the_smoke_command_passes_on_this_machine():
    done = subprocess.run(
        [sys.executable, "-m", "servelab.smoke"], capture_output=True, text=True, timeout=600
    )
    lines = done.stdout.strip().splitlines()
    checks = [line for line in lines if line.startswith(("PASS ", "FAIL "))]
    assert lines[-1] == f"{len(checks)} passed, 0 failed", done.stdout + done.stderr[-2000:]
    assert done.returncode == 0
    assert [line.split(":")[0] for line in checks] == [
        "PASS start",
        "PASS answer",
        "PASS capacity",
        "PASS batching",
        "PASS prefix cache",
        "PASS chunked prefill",
    ]
