"""Runs inside the sandbox (see autograder/sandbox.py): executes one notebook's cells in a fresh
kernel and writes what they printed, capped, to a result file.

Standard library, nbformat and nbclient only; it never imports the autograder, which the sandbox
does not contain. Usage: ``python sandbox_runner.py SETTINGS_JSON`` with ``notebook``, ``result``,
``timeout``, ``limits`` (resource name -> value) and ``max_output_bytes``/``max_output_lines``.
"""

from __future__ import annotations

import json
import resource
import sys


def apply_limits(limits: dict[str, int]) -> None:
    """Set hard and soft rlimits on this process; the kernel and its children inherit them."""
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (value, value))


def cap(text: str, max_bytes: int, max_lines: int) -> str:
    lines = text.splitlines(keepends=True)
    kept = "".join(lines[:max_lines])
    kept = kept.encode()[:max_bytes].decode(errors="ignore")
    if kept != text:
        kept += f"\n[output cut to {max_lines} lines / {max_bytes} bytes by the grader]\n"
    return kept


def capped_outputs(outputs: list, max_bytes: int, max_lines: int) -> list[dict[str, object]]:
    """Stream and error outputs only (rich outputs are dropped), each capped."""
    kept: list[dict[str, object]] = []
    for output in outputs:
        kind = output.get("output_type")
        if kind == "stream":
            kept.append(
                {
                    "output_type": "stream",
                    "name": str(output.get("name")),
                    "text": cap(str(output.get("text", "")), max_bytes, max_lines),
                }
            )
        elif kind == "error":
            kept.append(
                {
                    "output_type": "error",
                    "ename": cap(str(output.get("ename", "")), 200, 1),
                    "evalue": cap(str(output.get("evalue", "")), max_bytes, max_lines),
                    "traceback": [],
                }
            )
    return kept


def main(settings_path: str) -> int:
    with open(settings_path) as handle:
        settings = json.load(handle)
    apply_limits(settings["limits"])
    # See course/nbgrader_cli.py: FAST_IMPORTS. None in sys.modules makes importing a module
    # fail at once (the import system's documented way to block one); typeshed types the
    # mapping's values as modules only, hence the two ignores.
    sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]
    # jupyter_client packs messages with orjson when it is installed (vllm-router brings it);
    # under the memory limit a kernel packing one large output with orjson dies where the json
    # packer hands the output over to be cut. Client and kernel both use json.
    sys.modules["orjson"] = None  # type: ignore[assignment]
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    nb = nbformat.read(settings["notebook"], as_version=4)
    client = NotebookClient(
        nb,
        timeout=settings["timeout"],
        kernel_name="python3",
        allow_errors=True,
        interrupt_on_timeout=False,
        shutdown_kernel="immediate",
        record_timing=False,
        extra_arguments=[
            "--HistoryManager.hist_file=:memory:",
            "--IPKernelApp.log_level=ERROR",
            "--Session.packer=json",
            "--Session.unpacker=json",
        ],
        resources={"metadata": {"path": settings["workdir"]}},
    )
    status, detail = "ok", ""
    try:
        client.execute()
    except CellTimeoutError:
        status, detail = "timeout", f"a cell ran longer than {settings['timeout']} s"
    except DeadKernelError as error:
        status, detail = "dead-kernel", str(error)[:300]
    except Exception as error:  # anything else: reported, the parent decides
        status, detail = "error", f"{type(error).__name__}: {str(error)[:300]}"
    result = {
        "status": status,
        "detail": detail,
        "cells": [
            capped_outputs(
                cell.get("outputs", []), settings["max_output_bytes"], settings["max_output_lines"]
            )
            for cell in nb.cells
        ],
    }
    with open(settings["result"], "w") as handle:
        json.dump(result, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
