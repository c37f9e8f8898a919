"""Running pip and uv: their commands, quietly, and what a failure says.

Only the GPU engine goes through uv (:func:`install_gpu_engine`); every other install is pip's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

# Noise from pip configurations that list index folders holding only some projects.
PIP_NOISE = ("is ignored: it is neither a file nor a directory", "WARNING: Retrying (Retry(")


class SetupError(RuntimeError):
    """Installing failed; the message says why in plain words and what to do."""

    def _render_traceback_(self) -> list[str]:
        # IPython shows this instead of a traceback: the message is the whole story.
        return [f"{type(self).__name__}: {self}"]


class PipError(RuntimeError):
    """pip exited with an error; ``output`` is the end of what it printed, noise removed."""

    def __init__(self, command: list[str], output: str) -> None:
        super().__init__(f"{' '.join(command)} failed:\n{output}")
        self.command = command
        self.output = output


def pip_command(*args: str) -> list[str]:
    """pip of this interpreter, without the version check."""
    return [sys.executable, "-m", "pip", "--disable-pip-version-check", *args]


def readable(output: str) -> str:
    """``output`` without the lines of :data:`PIP_NOISE`."""
    return "\n".join(
        line for line in output.splitlines() if not any(noise in line for noise in PIP_NOISE)
    )


def uv_command(*args: str) -> list[str] | None:
    """uv's pip aimed at this interpreter, where ``uv`` is on the path (Colab has it); else None.

    ``--python`` names the interpreter pip would install into; outside a virtual environment uv
    also wants ``--system``. Only the GPU engine goes through uv: the CPU engine's torch relies on
    pip's configuration (``find-links``), which uv does not read.
    """
    uv = shutil.which("uv")
    if uv is None:
        return None
    target = ["--python", sys.executable, *([] if sys.prefix != sys.base_prefix else ["--system"])]
    return [uv, "pip", args[0], *target, *args[1:]]


def uv_env() -> dict[str, str]:
    """This process's environment without uv's own settings, so that only the command line
    decides what uv installs: Colab's image sets ``UV_CONSTRAINT`` (and ``UV_BUILD_CONSTRAINT``,
    ``UV_PRERELEASE``) for building itself, which would hold the engine to Colab's own pins or
    name files that are not there (googlecolab/colabtools#5237)."""
    return {name: value for name, value in os.environ.items() if not name.startswith("UV_")}


def run_installer(command: list[str], env: dict[str, str] | None = None) -> None:
    """Run an installer's ``command``; raise :class:`PipError` with its output if it fails."""
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if result.returncode != 0:
        raise PipError(command, readable(result.stdout + result.stderr)[-4000:])


def pip(*args: str, env: dict[str, str] | None = None) -> None:
    """Run pip with ``args``, quietly; raise :class:`PipError` with its output if it fails."""
    run_installer(pip_command(*args), env)


def install_gpu_engine(args: list[str]) -> str:
    """Install the GPU pins with uv where it is on the path, else with pip; say which did it.

    uv resolves the same exact pins and installs them in a fraction of pip's time
    (benchmarks/install_time.py measures both side by side). Should uv fail, pip tries next,
    so a runtime whose uv misbehaves still gets its engine.
    """
    command = uv_command(*args)
    if command is not None:
        try:
            run_installer(command, uv_env())
            return "uv"
        except PipError as error:
            last = error.output.strip().splitlines()[-1:] or ["no output"]
            print(f"uv could not install the engine ({last[0]}); trying pip.", flush=True)
    pip(*args)
    return "pip"
