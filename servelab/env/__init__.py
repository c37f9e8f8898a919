"""Where a chapter runs, what it needs installed, and the line that says what it measured on.

``bootstrap()`` is every chapter's first call (from the install cell): it finds the platform
(Colab, Kaggle or local) and the device, installs what is missing (the engine pinned for that
device, replacing another version of it; on a GPU under the exact pins of
``servelab/constraints-gpu.txt``; the offline model, which like chapter 08's llama.cpp keeps
those pins beside the GPU engine), and prints one summary line. env/setup.sh uses the same
installers through ``python -m servelab.env`` (``__main__``); this package needs only the
standard library, so that works before servelab's dependencies are installed.

One job a module: ``installers`` runs pip and uv, ``pins`` says what each install asks for,
``install`` holds the install steps and ``runtime`` the platform, the :class:`Runtime` and the
bootstrap. Their public names are all importable from here, as the chapters import them.
"""

from servelab.env.install import (
    TORCH_EXTRAS,
    ensure_engine,
    ensure_offline_model,
    ensure_router,
    index_reachable,
    install_cpu_torch,
    remove_torch_extras,
    verify_transformers,
)
from servelab.env.installers import (
    PIP_NOISE,
    PipError,
    SetupError,
    install_gpu_engine,
    pip,
    pip_command,
    readable,
    run_installer,
    uv_command,
    uv_env,
)
from servelab.env.pins import (
    CONVERSION_PACKAGES,
    CPU_TORCH,
    ENGINE_DISTRIBUTIONS,
    GPU_CONSTRAINTS,
    MODEL_PACKAGE,
    TORCH_CPU_INDEX,
    conversion_requirements,
    engine_install_args,
    engine_pin,
    engine_requirements,
    extra_requirements,
    gpu_constraints,
    installed_kind,
    installed_version,
    pin_args,
    pinned_names,
    torch_install_args,
)
from servelab.env.runtime import Runtime, bootstrap, describe, detect_platform, no_gpu_note

__all__ = [
    "CONVERSION_PACKAGES",
    "CPU_TORCH",
    "ENGINE_DISTRIBUTIONS",
    "GPU_CONSTRAINTS",
    "MODEL_PACKAGE",
    "PIP_NOISE",
    "TORCH_CPU_INDEX",
    "TORCH_EXTRAS",
    "PipError",
    "Runtime",
    "SetupError",
    "bootstrap",
    "conversion_requirements",
    "describe",
    "detect_platform",
    "engine_install_args",
    "engine_pin",
    "engine_requirements",
    "ensure_engine",
    "ensure_offline_model",
    "ensure_router",
    "extra_requirements",
    "gpu_constraints",
    "index_reachable",
    "install_cpu_torch",
    "install_gpu_engine",
    "installed_kind",
    "installed_version",
    "no_gpu_note",
    "pin_args",
    "pip",
    "pip_command",
    "pinned_names",
    "readable",
    "remove_torch_extras",
    "run_installer",
    "torch_install_args",
    "uv_command",
    "uv_env",
    "verify_transformers",
]
