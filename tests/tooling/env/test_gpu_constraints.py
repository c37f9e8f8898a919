"""The GPU environment's constraints resolve, without installing, on Colab's and Kaggle's Pythons.

pip resolves the engine and servelab's own dependencies under ``servelab/constraints-gpu.txt``
for Linux x86_64 CPython 3.11 and 3.12 from wheels only (a dry run against PyPI, so this needs
PyPI), and must pick exactly the pinned versions: the file is complete and self-consistent.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from course.paths import REPO_ROOT
from servelab import env

_spec = importlib.util.spec_from_file_location(
    "gpu_constraints", REPO_ROOT / "env" / "gpu_constraints.py"
)
gpu_constraints = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gpu_constraints)


@pytest.mark.parametrize("python", gpu_constraints.PYTHONS)
@pytest.mark.tooling  # pip's dry run against PyPI
def test_the_gpu_constraints_resolve_to_themselves(python, tmp_path):
    report = tmp_path / "report.json"
    command = gpu_constraints.resolve_command(python, report, gpu_constraints.requirements())
    cutoff = command.index("--uploaded-prior-to")
    del command[cutoff : cutoff + 2]  # the pins alone must decide
    command += ["-c", env.gpu_constraints()]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PIP_CONFIG_FILE": os.devnull},
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    resolved = {
        gpu_constraints.canonical(item["metadata"]["name"]): item["metadata"]["version"]
        for item in json.loads(report.read_text())["install"]
    }
    assert resolved == gpu_constraints.pinned(python)
    assert resolved["vllm"] == "0.11.2" and sys.version_info >= (3, 11)
