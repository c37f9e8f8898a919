"""uv against pip the way Colab installs the GPU engine: over another torch, bytecode counted.

A fresh Colab runtime already holds a CUDA torch newer than vLLM 0.11.2's pin, so the install
cell's command (``servelab.env.engine_install_args("cuda")``: ``install -q -c
servelab/constraints-gpu.txt vllm==0.11.2``) must replace it, and uv, unlike pip, writes no
bytecode: the first import compiles what it touches. This script gives each installer a fresh
venv that already holds ``PREINSTALLED`` (taken from this machine's own pip configuration,
untimed), an empty download cache, and pip's configuration set aside so that pip, like uv,
downloads everything from PyPI. It then times, one installer after the other in one run:

- the install cell's command, with pip, with uv, and with uv's ``--compile-bytecode``;
- the first import of vLLM's API server module after it (empty bytecode cache for plain uv),
  and a second one (warm cache).

It prints each, and the ratios of install plus first import against pip's::

    python benchmarks/install_time.py     # about 11 GB of disk at a time, 3 x 4 GB down

Last line:  colab-install: uv/pip=<r> (uv+compile)/pip=<r> counting install and first import
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from servelab import env

PREINSTALLED = "torch==2.13.0"  # not the pins' 2.9.0: the install must replace it, as on Colab
API_SERVER = "import vllm.entrypoints.openai.api_server"
INSTALLERS = ("pip", "uv", "uv+compile")
QUIET_IMPORT = {"VLLM_NO_USAGE_STATS": "1", "HF_HUB_OFFLINE": "1"}
PIP_LOCAL = ("PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CONSTRAINT")


def command(name: str, python: Path, uv: str) -> list[str]:
    """The install cell's command for ``name``, aimed at the venv of ``python``
    (``env.pip_command`` and ``env.uv_command`` aim it at the kernel's own interpreter)."""
    args = env.engine_install_args("cuda")
    if name == "pip":
        return [str(python), "-m", "pip", "--disable-pip-version-check", *args]
    compile_flag = ["--compile-bytecode"] if name == "uv+compile" else []
    return [uv, "pip", args[0], "--python", str(python), *compile_flag, *args[1:]]


def installer_env(name: str, cache: Path) -> dict[str, str]:
    """uv as ``env.uv_env`` runs it; pip without this machine's local wheels and indexes;
    each with an empty download cache of its own."""
    if name == "pip":
        base = {k: v for k, v in os.environ.items() if k not in PIP_LOCAL}
        return {**base, "PIP_CONFIG_FILE": os.devnull, "PIP_CACHE_DIR": str(cache)}
    return {**env.uv_env(), "UV_CACHE_DIR": str(cache)}


def run_seconds(argv: list[str], extra_env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, env=extra_env)
    return time.perf_counter() - start


def torch_version(python: Path) -> str:
    return subprocess.run(
        [str(python), "-c", "import torch; print(torch.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def measure(name: str, uv: str, scratch: Path) -> dict[str, float]:
    """Install with ``name`` over ``PREINSTALLED`` in a fresh venv, then import the API server
    twice; seconds for each, after which the venv and its cache are removed."""
    venv, cache = scratch / "venv", scratch / "cache"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", PREINSTALLED], check=True)
    before = torch_version(python)
    install = run_seconds(command(name, python, uv), installer_env(name, cache))
    after = torch_version(python)
    imports = {**os.environ, **QUIET_IMPORT}
    first = run_seconds([str(python), "-c", API_SERVER], imports)
    second = run_seconds([str(python), "-c", API_SERVER], imports)
    print(
        f"{name}: torch {before} -> {after}; install {install:.0f} s, first import "
        f"{first:.1f} s, second {second:.1f} s",
        flush=True,
    )
    shutil.rmtree(venv)
    shutil.rmtree(cache, ignore_errors=True)
    return {"install": install, "first": first, "second": second}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--scratch",
        type=Path,
        default=None,
        help="where each venv and its cache are made, one at a time",
    )
    args = parser.parse_args()
    uv = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))
    if not Path(uv).exists():
        print(
            "colab-install: uv is not installed here (env/requirements-tools.txt pins it)",
            file=sys.stderr,
        )
        return 1
    results: dict[str, dict[str, float]] = {}
    for name in INSTALLERS:
        with tempfile.TemporaryDirectory(dir=args.scratch) as scratch:
            results[name] = measure(name, uv, Path(scratch))
    total = {name: r["install"] + r["first"] for name, r in results.items()}
    pip = results["pip"]
    print(
        f"colab-install: install uv/pip={results['uv']['install'] / pip['install']:.2f} "
        f"(uv+compile)/pip={results['uv+compile']['install'] / pip['install']:.2f}; "
        f"first import uv/pip={results['uv']['first'] / pip['first']:.2f} "
        f"(uv+compile)/pip={results['uv+compile']['first'] / pip['first']:.2f}"
    )
    print(
        f"colab-install: uv/pip={total['uv'] / total['pip']:.2f} "
        f"(uv+compile)/pip={total['uv+compile'] / total['pip']:.2f} counting install and "
        f"first import (pip {total['pip']:.0f} s, uv {total['uv']:.0f} s, uv+compile "
        f"{total['uv+compile']:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
