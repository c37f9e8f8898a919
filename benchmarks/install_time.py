"""pip against uv on the GPU engine's install: the same pins, two fresh venvs, one run.

A chapter's install cell on Colab spends most of its time installing the GPU pins
(``servelab/constraints-gpu.txt``: vLLM 0.11.2, torch and about 160 more packages). This script
installs exactly those pins twice, side by side, into fresh virtual environments made by the
same Python: once with ``pip`` and once with ``uv pip``, each with no download cache (pip's
``--no-cache-dir``, uv's ``--no-cache``), so both download everything. It prints both wall times
and their ratio, which ``env/gpu_contract/t4_wait.py`` applies to the Colab pip figure::

    python benchmarks/install_time.py            # about 11 GB of disk while it runs

Last line:  install: pip=<s> uv=<s> uv/pip=<ratio> (<n> packages each)
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / "servelab" / "constraints-gpu.txt"


def fresh_venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    return where / "bin" / "python"


def installers(python: Path, uv: str) -> dict[str, list[str]]:
    """Each installer's command for the same pins into the venv of ``python``."""
    return {
        "pip": [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                "--no-cache-dir", "-r", str(CONSTRAINTS)],
        "uv": [uv, "pip", "install", "-q", "--no-cache", "--python", str(python),
               "-r", str(CONSTRAINTS)],
    }


def timed_install(name: str, uv: str, scratch: Path) -> tuple[float, int]:
    """Seconds to install the pins with ``name`` into a fresh venv, and the packages it holds."""
    python = fresh_venv(scratch / name)
    command = installers(python, uv)[name]
    start = time.perf_counter()
    subprocess.run(command, check=True)
    seconds = time.perf_counter() - start
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze"],
                            capture_output=True, text=True, check=True).stdout
    shutil.rmtree(scratch / name)
    return seconds, len(listed.splitlines())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scratch", type=Path, default=None,
                        help="where the two venvs are made, one at a time (default: a temp dir)")
    args = parser.parse_args()
    uv = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))
    if not Path(uv).exists():
        print("install: uv is not installed here (env/requirements-tools.txt pins it)",
              file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(dir=args.scratch) as scratch:
        results = {name: timed_install(name, uv, Path(scratch)) for name in ("pip", "uv")}
    (pip_s, pip_n), (uv_s, uv_n) = results["pip"], results["uv"]
    print(f"install: pip={pip_s:.0f} uv={uv_s:.0f} uv/pip={uv_s / pip_s:.2f} "
          f"({pip_n} and {uv_n} packages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
