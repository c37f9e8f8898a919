"""The one way servelab's tools drive nbgrader: its own command line, in a subprocess. The
edition generator (`course.edition`) and the autograder's scratch course (`autograder.course`)
both run it through `run_nbgrader`.

`run_nbgrader("autograde", "*", cwd=course)` runs `python -m nbgrader autograde "*"` with the
`nbgrader_config.py` of `cwd` and no configuration from the home folder, the venv's `bin` on
PATH (nbgrader runs `alembic` when it creates a gradebook) and the repository root on PYTHONPATH:
the autograder's preprocessors and the course tooling they import (`course.checks`) are not
installed packages, and `cwd` is a scratch folder. Each run gets a temporary folder of its own,
removed when it ends.

FAST_IMPORTS: jsonschema imports the optional `rfc3987_syntax` when it is installed (the book's
tools pull it in), which builds a grammar for seconds on every start of nbformat; nbformat never
checks that URI format, so these processes start without it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from course.paths import REPO_ROOT

CONFIG_NAME = "nbgrader_config.py"  # a course's nbgrader configuration, in its root folder
FAST_IMPORTS = (
    'import sys; sys.modules["rfc3987_syntax"] = None; sys.argv[0] = "nbgrader"; '
    "from nbgrader.apps.nbgraderapp import main; main()"
)


def run_nbgrader(step: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python -m nbgrader STEP ARGS...` in `cwd`; the caller reads returncode and the log."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["JUPYTER_NO_CONFIG"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    # With JUPYTER_NO_CONFIG, jupyter_core makes a blank configuration folder in the temporary
    # folder and never removes it: one per run. The run's own temporary folder goes with it.
    with tempfile.TemporaryDirectory(prefix="servelab-nbgrader-") as scratch:
        env["TMPDIR"] = scratch
        return subprocess.run(
            [sys.executable, "-c", FAST_IMPORTS, step, *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
