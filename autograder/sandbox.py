"""The sandbox every grading kernel runs in: bubblewrap, no network, not root, its own files only.

One notebook's cells run in a fresh kernel inside `bwrap` (Debian's `bubblewrap` package; set-up
installs it). The sandbox has its own user, PID, network, IPC, UTS and cgroup namespaces and
sees a read-only /usr, the read-only Python installation and venv, a private /tmp and /proc, and
one writable folder holding a temporary copy of the notebook — nothing of the course, the
gradebook, the repository or the home folder. Inside its user namespace it runs as uid/gid 65534
with no capabilities (bwrap is started by the grader's own user), with rlimits on memory,
processes, CPU time, file size and open files; it dies with the grader, and the whole PID
namespace is killed when the notebook ends or the wall-clock limit passes. Each sandbox has its
own loopback interface, so kernels of parallel workers cannot race for ports. It cannot make user
namespaces of its own (`--disable-userns`), so no code in it can gain capabilities in a new
namespace. Only the caller reads the result and writes grades.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat import NotebookNode

RUNNER = Path(__file__).with_name("sandbox_runner.py")
SANDBOX_ID = 65534  # nobody's ids, inside the sandbox's user namespace
INSIDE_RUNNER = "/opt/autograder/runner.py"
INSIDE_WORK = "/sandbox"
MAX_RESULT_BYTES = 4 << 20
STARTUP_SECONDS = 30  # a kernel's start on a busy 2-core machine, on top of the cells' own time


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot start here; the message says what to do."""


@dataclass(frozen=True)
class Limits:
    """What one sandboxed notebook may use (every process in it gets the same rlimits)."""

    memory_bytes: int = 1 << 30
    processes: int = 256  # threads count too; a fork bomb stops here
    cpu_seconds: int = 60
    file_bytes: int = 16 << 20
    open_files: int = 256
    output_bytes: int = 20_000  # per output, kept in the notebook and the feedback
    output_lines: int = 200

    def rlimits(self) -> dict[str, int]:
        return {
            "RLIMIT_AS": self.memory_bytes,
            "RLIMIT_NPROC": self.processes,
            "RLIMIT_CPU": self.cpu_seconds,
            "RLIMIT_FSIZE": self.file_bytes,
            "RLIMIT_NOFILE": self.open_files,
            "RLIMIT_CORE": 0,
        }


@dataclass
class SandboxRun:
    """What came back: "ok", "timeout", "dead-kernel" or "error"; outputs per cell."""

    status: str
    detail: str = ""
    outputs: list[list[NotebookNode]] = field(default_factory=list)


def _bwrap() -> str:
    found = shutil.which("bwrap")
    if not found:
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is not installed: run env/setup.sh (it installs Debian's "
            "bubblewrap) or `apt-get install bubblewrap`; or pass --unsafe-no-sandbox to run "
            "untrusted code with the grader's own rights"
        )
    return found


def _open_path(path: str | Path) -> int:
    return os.open(path, os.O_PATH | os.O_CLOEXEC)


def _bwrap_argv(fds: dict[str, int], command: list[str]) -> list[str]:
    """bwrap's arguments; `fds` maps a path inside to an O_PATH descriptor of what it shows."""
    argv = [
        _bwrap(),
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--uid",
        str(SANDBOX_ID),
        "--gid",
        str(SANDBOX_ID),
        "--ro-bind",
        "/usr",
        "/usr",
    ]
    for link in ("bin", "lib", "lib64", "sbin"):
        target = os.readlink(f"/{link}") if os.path.islink(f"/{link}") else None
        if target:
            argv += ["--symlink", target, f"/{link}"]
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for inside, fd in fds.items():
        flag = "--bind-fd" if inside == INSIDE_WORK else "--ro-bind-fd"
        argv += [flag, str(fd), inside]
    env = {
        "HOME": "/tmp/home",
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "IPYTHONDIR": "/tmp/ipython",
        "JUPYTER_CONFIG_DIR": "/tmp/jupyter-config",
        "JUPYTER_DATA_DIR": "/tmp/jupyter-data",
        "JUPYTER_RUNTIME_DIR": "/tmp/jupyter-runtime",
        "JUPYTER_PLATFORM_DIRS": "1",
        "PYTHONNOUSERSITE": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MPLBACKEND": "Agg",
        "LANG": "C.UTF-8",
    }
    argv += ["--clearenv", "--chdir", INSIDE_WORK]
    for name, value in env.items():
        argv += ["--setenv", name, value]
    return [*argv, "--", *command]


def _mounts(work: Path) -> dict[str, int]:
    """The read-only Python installation and venv, the runner, and the writable work folder."""
    paths = {
        sys.base_prefix: sys.base_prefix,
        sys.prefix: sys.prefix,
        INSIDE_RUNNER: str(RUNNER),
        INSIDE_WORK: str(work),
    }
    return {inside: _open_path(outside) for inside, outside in paths.items()}


def check_available() -> None:
    """Start an empty sandbox once; SandboxUnavailable with bwrap's words if that fails."""
    with tempfile.TemporaryDirectory(prefix="autograder-check-") as tmp:
        work = Path(tmp)
        fds = _mounts(work)
        try:
            result = subprocess.run(
                _bwrap_argv(fds, [sys.executable, "-c", "import json, resource"]),
                capture_output=True,
                text=True,
                timeout=60,
                pass_fds=tuple(fds.values()),
                check=False,
            )
        finally:
            for fd in fds.values():
                os.close(fd)
    if result.returncode != 0:
        raise SandboxUnavailable(
            f"bubblewrap cannot start a sandbox here ({result.stderr.strip()[-300:]}); "
            "it needs unprivileged user namespaces. Fix that, or pass --unsafe-no-sandbox to "
            "run untrusted code with the grader's own rights"
        )


def execute(
    sources: list[str], timeout: int, *, sandboxed: bool = True, limits: Limits = Limits()
) -> SandboxRun:
    """Run `sources` as the code cells of a fresh notebook, each for at most `timeout` seconds.

    Without `sandboxed` the same runner starts directly as the grader's user (the rlimits still
    apply), for `--unsafe-no-sandbox`.
    """
    tmp = Path(tempfile.mkdtemp(prefix="autograder-sandbox-"))
    try:
        work = tmp / "work"
        work.mkdir()
        inside = INSIDE_WORK if sandboxed else str(work)
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
        nb.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
        nbformat.write(nb, work / "notebook.ipynb")
        settings = {
            "notebook": f"{inside}/notebook.ipynb",
            "result": f"{inside}/result.json",
            "workdir": inside,
            "timeout": timeout,
            "limits": limits.rlimits(),
            "max_output_bytes": limits.output_bytes,
            "max_output_lines": limits.output_lines,
        }
        (work / "settings.json").write_text(json.dumps(settings))
        wall = timeout * len(sources) + STARTUP_SECONDS
        status = _run(work, tmp / "sandbox.log", sandboxed, wall)
        if status:
            return SandboxRun(
                status,
                f"the notebook ran longer than {wall} s and was killed"
                if status == "timeout"
                else _tail(tmp / "sandbox.log"),
            )
        return _read_result(work / "result.json", len(sources), tmp / "sandbox.log")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(work: Path, log: Path, sandboxed: bool, wall: float) -> str:
    """Start the runner (in bwrap unless unsafe), wait, kill what is left; '' or "timeout"."""
    command = [
        sys.executable,
        INSIDE_RUNNER if sandboxed else str(RUNNER),
        f"{INSIDE_WORK if sandboxed else work}/settings.json",
    ]
    fds: dict[str, int] = {}
    if sandboxed:
        fds = _mounts(work)
        command = _bwrap_argv(fds, command)
    try:
        with log.open("wb") as out:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                pass_fds=tuple(fds.values()),
                start_new_session=True,
            )
    finally:
        for fd in fds.values():
            os.close(fd)
    try:
        process.wait(timeout=wall)
        return ""
    except subprocess.TimeoutExpired:
        return "timeout"
    finally:
        # bwrap's own child and the whole PID namespace die with it (--die-with-parent)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _tail(log: Path, size: int = 600) -> str:
    with contextlib.suppress(OSError), log.open("rb") as handle:
        handle.seek(max(0, log.stat().st_size - size))
        return handle.read().decode(errors="replace").strip()
    return ""


def _read_result(path: Path, cells: int, log: Path) -> SandboxRun:
    """The runner's report, trusted for nothing but its shape: sizes capped, types checked."""
    try:
        if path.stat().st_size > MAX_RESULT_BYTES:
            return SandboxRun("error", "the sandbox's result was too large")
        return result_from_data(json.loads(path.read_text(encoding="utf-8")), cells)
    except (OSError, ValueError, KeyError, TypeError) as error:
        return SandboxRun("error", f"the sandbox gave no result ({error}); {_tail(log)}")


def result_from_data(raw: dict, cells: int) -> SandboxRun:
    """A run from the runner's JSON shape (also the result cache's), checked: ValueError,
    KeyError or TypeError when it is not that shape or not for `cells` cells."""
    outputs = [[_output(o) for o in cell_outputs] for cell_outputs in raw["cells"]]
    status = raw["status"] if raw["status"] in ("ok", "timeout", "dead-kernel") else "error"
    if len(outputs) != cells:
        raise ValueError("the sandbox's result does not match the notebook")
    return SandboxRun(status, str(raw.get("detail", ""))[:400], outputs)


def result_to_data(result: SandboxRun) -> dict:
    """The runner's JSON shape of `result`; result_from_data reads it back unchanged."""
    return {
        "status": result.status,
        "detail": result.detail,
        "cells": [[dict(o) for o in outputs] for outputs in result.outputs],
    }


def _output(raw: dict) -> NotebookNode:
    if raw["output_type"] == "stream":
        name = "stderr" if raw["name"] == "stderr" else "stdout"
        return nbformat.v4.new_output("stream", name=name, text=str(raw["text"]))
    if raw["output_type"] == "error":
        return nbformat.v4.new_output(
            "error", ename=str(raw["ename"]), evalue=str(raw["evalue"]), traceback=[]
        )
    raise ValueError(f"unexpected output type {raw['output_type']!r}")
