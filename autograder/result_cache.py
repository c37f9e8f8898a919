"""The result cache: a sandboxed outcome computed once per chapter and answer, not per notebook.

Only the instructor's check cells and an answer literal ever run (autograder/answer.py), so what
a sandbox returns is fixed by the sources it runs (the literal, ``answer = "C"`` or
``answer = None``, and the test cell as nbgrader restored it from the gradebook), the limits,
whether bubblewrap is used, and the runner's version (its code and the kernel stack's versions).
The key is a SHA-256 over exactly those; nothing a student wrote beyond the normalised letter can
reach it, so one submission cannot change another's row. Entries are JSON data in the runner's
own result shape, read back through the same shape check as a fresh result; only outcomes
with status "ok" are stored, so a timeout on a busy machine is never repeated for a whole
class. Entries are written atomically, so two workers sharing the folder never read half a file.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sys
import tempfile
from dataclasses import asdict
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from autograder import sandbox

KERNEL_STACK = ("nbclient", "nbformat", "ipykernel", "ipython", "jupyter_client")
MAX_ENTRY_BYTES = 4 << 20


def _installed(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "absent"


@functools.cache
def runner_version() -> str:
    """A fingerprint of what runs the cells: the sandbox's code, Python and the kernel stack."""
    digest = hashlib.sha256()
    for path in (sandbox.RUNNER, Path(sandbox.__file__)):
        digest.update(path.read_bytes())
    digest.update(sys.version.encode())
    for package in KERNEL_STACK:
        digest.update(f"{package}={_installed(package)}".encode())
    return digest.hexdigest()


class ResultCache:
    """Sandbox results in `folder`, one JSON file per key."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @staticmethod
    def key(sources: list[str], timeout: int, limits: sandbox.Limits, sandboxed: bool) -> str:
        """Everything that decides a sandbox's outcome, hashed."""
        parts = {
            "sources": sources,
            "timeout": timeout,
            "limits": asdict(limits),
            "sandboxed": sandboxed,
            "runner": runner_version(),
        }
        return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def get(self, key: str, cells: int) -> sandbox.SandboxRun | None:
        """The stored result for `key`, or None (missing, unreadable or not of the right shape:
        then the notebook simply runs)."""
        path = self._path(key)
        try:
            if path.stat().st_size > MAX_ENTRY_BYTES:
                return None
            entry = json.loads(path.read_text(encoding="utf-8"))
            if entry["key"] != key:
                return None
            result = sandbox.result_from_data(entry["result"], cells)
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return result if result.status == "ok" else None

    def put(self, key: str, sources: list[str], result: sandbox.SandboxRun) -> None:
        """Store an "ok" result (anything else may not happen again), with the sources it ran
        for anyone auditing the cache."""
        if result.status != "ok":
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        entry = {"key": key, "sources": sources, "result": sandbox.result_to_data(result)}
        handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".entry-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(entry, out)
            os.replace(temporary, self._path(key))
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
