"""The GPU environment's constraints resolve, without installing, on Colab's and Kaggle's Pythons.

pip resolves the engine and servelab's own dependencies under ``servelab/constraints-gpu.txt``
for Linux x86_64 CPython 3.11 and 3.12 from wheels only (a dry run against PyPI, so this needs
PyPI), and must pick exactly the pinned versions: the file is complete and self-consistent.
"""

from __future__ import annotations

import importlib.util

from course.paths import REPO_ROOT
from servelab import env

_spec = importlib.util.spec_from_file_location(
    "gpu_constraints", REPO_ROOT / "env" / "gpu_constraints.py"
)
gpu_constraints = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gpu_constraints)


def test_the_constraints_hold_the_engine_pin_and_servelabs_dependencies():
    pins = gpu_constraints.pinned("3.11")
    assert env.engine_pin("cuda") == ("vllm", pins["vllm"])
    for requirement in gpu_constraints.requirements()[1:]:
        name = gpu_constraints.canonical(requirement.split(">=")[0].split("<")[0].strip())
        assert name in pins, f"{name} is a servelab dependency but has no GPU pin"
