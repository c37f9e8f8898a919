"""course.launch: the install cell ends in the bootstrap and needs only the standard library (the
launch on a fresh runtime: tests/engine/test_fresh_runtime.py)."""

from __future__ import annotations

import sys

from course.launch import install_cell_source
from tests.unit.course.test_edition import FORK


def test_install_cell_ends_in_bootstrap_and_needs_only_the_standard_library() -> None:
    code = install_cell_source(FORK)
    assert code.rstrip().endswith(
        "from servelab.env import bootstrap  # noqa: E402\n\nruntime = bootstrap(started=_started)"
    )
    before = code.split("from servelab.env")[0]
    imported = {
        line.split()[1].split(".")[0] for line in before.splitlines() if line.startswith("import ")
    }
    assert imported <= set(sys.stdlib_module_names)
    assert f"servelab @ git+{FORK.url}@{FORK.install_ref}" in code
    compile(code, "install-cell", "exec")
