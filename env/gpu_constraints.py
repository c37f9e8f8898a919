"""Write the GPU environment's pins, ``servelab/constraints-gpu.txt`` (run this file with Python).

The GPU path installs ``vllm==0.11.2`` into Colab's or Kaggle's runtime. Left to itself pip takes
today's release of every dependency 0.11.2 leaves open (openai, fastapi, pydantic, ...), which
0.11.2 was never run with. This resolves the engine together with servelab's own dependencies
for Linux x86_64 on Python 3.11 (Kaggle) and 3.12 (Colab), from wheels only and from what PyPI
held the day after 0.11.2 was released (``--uploaded-prior-to``), and writes every pin; where
the two Pythons resolve a package differently the pin carries a ``python_version`` marker. The
bootstrap installs the engine with this file as pip's constraints (``servelab.env``).

pip runs with no configuration file (``PIP_CONFIG_FILE=/dev/null``) against PyPI, so a machine's
local wheel folders and indexes cannot leak into the result. Needs network access to PyPI only.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "servelab" / "constraints-gpu.txt"
ENGINE = ROOT / "env" / "requirements-gpu.txt"
PYTHONS = ("3.11", "3.12")
# vllm 0.11.2 was uploaded to PyPI on 2025-11-20; resolve as of the end of that day.
UPLOADED_PRIOR_TO = "2025-11-21T00:00:00Z"
INDEX = "https://pypi.org/simple"
# pip does not widen a manylinux_2_X platform to older tags; Colab and Kaggle run glibc 2.35.
PLATFORMS = [f"manylinux_2_{minor}_x86_64" for minor in range(35, 4, -1)] + [
    "manylinux2014_x86_64",
    "manylinux2010_x86_64",
    "manylinux1_x86_64",
]


def requirements() -> list[str]:
    """The engine pin (env/requirements-gpu.txt) and servelab's own dependencies."""
    engine = [
        line.strip()
        for line in ENGINE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return engine + list(project["dependencies"])


def resolve_command(python: str, report: Path, reqs: list[str]) -> list[str]:
    """pip's dry run that resolves ``reqs`` for Linux x86_64 CPython ``python``."""
    platforms = [arg for tag in PLATFORMS for arg in ("--platform", tag)]
    # fast-deps reads each wheel's METADATA by HTTP range requests: vllm 0.11.2, torch and the
    # CUDA wheels publish no separate metadata file, and without it pip's dry run downloads
    # every wheel in full (about 5 GB per Python).
    return [
        sys.executable,
        "-m",
        "pip",
        "--disable-pip-version-check",
        "install",
        "--dry-run",
        "--use-feature=fast-deps",
        "--quiet",
        "--ignore-installed",
        "--report",
        str(report),
        "--only-binary=:all:",
        "--python-version",
        python,
        "--implementation",
        "cp",
        *platforms,
        "--index-url",
        INDEX,
        "--uploaded-prior-to",
        UPLOADED_PRIOR_TO,
        *reqs,
    ]


def resolve(python: str, reqs: list[str]) -> dict[str, str]:
    """{distribution name: version} of everything pip would install on ``python``."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        subprocess.run(
            resolve_command(python, report, reqs),
            check=True,
            env={**os.environ, "PIP_CONFIG_FILE": os.devnull},
        )
        installed = json.loads(report.read_text())["install"]
    return {canonical(item["metadata"]["name"]): item["metadata"]["version"] for item in installed}


def canonical(name: str) -> str:
    """A distribution name as PEP 503 (``prometheus_client`` is ``prometheus-client``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(resolved: dict[str, dict[str, str]]) -> list[str]:
    """One line per package; a ``python_version`` marker where the Pythons disagree."""
    lines = []
    for name in sorted(set().union(*resolved.values())):
        versions = {python: found[name] for python, found in resolved.items() if name in found}
        if len(versions) == len(resolved) and len(set(versions.values())) == 1:
            lines.append(f"{name}=={next(iter(versions.values()))}")
            continue
        lines += [
            f'{name}=={version}; python_version == "{python}"'
            for python, version in versions.items()
        ]
    return lines


def pinned(python: str, constraints: Path = OUTPUT) -> dict[str, str]:
    """What ``constraints`` (as :func:`pins` writes them) pin for ``python``, by name."""
    found = {}
    for line in constraints.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        requirement, _, marker = line.partition(";")
        if marker and f'"{python}"' not in marker:
            continue
        name, version = requirement.strip().split("==")
        found[name] = version
    return found


def main() -> None:
    reqs = requirements()
    resolved = {python: resolve(python, reqs) for python in PYTHONS}
    header = [
        f"# Generated by env/gpu_constraints.py: do not edit. Resolved {', '.join(reqs)}",
        f"# for CPython {' and '.join(PYTHONS)} on Linux x86_64, wheels only, from PyPI "
        f"as of {UPLOADED_PRIOR_TO}.",
    ]
    OUTPUT.write_text("\n".join(header + pins(resolved)) + "\n")
    print(f"wrote {OUTPUT.relative_to(ROOT)}: {len(pins(resolved))} pins")


if __name__ == "__main__":
    main()
