"""Where a chapter runs (platform, device, engine, model, size profile), the bootstrap that
prepares it, and the line each page prints about it."""

from __future__ import annotations

import datetime
import os
import sys
from dataclasses import dataclass

from servelab.env.install import ensure_engine, ensure_offline_model
from servelab.hardware import Device, detect_device, engine_cores_label, engine_label
from servelab.models import model_name
from servelab.sizes import Knobs, Profile, profile_for, sizes_for
from servelab.wall_time import CLOCK


@dataclass(frozen=True)
class Runtime:
    """Platform, device, engine and model of this run."""

    platform: str
    device: Device
    engine: str
    model: str
    size_profile: Profile

    def summary(self) -> str:
        """Platform, device (on the CPU, the cores the engine computes on), engine, model, sizes."""
        device = (
            self.device.label
            if self.device.kind == "cuda"
            else f"{self.device.label}, {engine_cores_label()}"
        )
        return (
            f"{self.platform} | {device} | {self.engine} | model {self.model} | "
            f"sizes {self.size_profile}"
        )

    def sizes(self, chapter: str) -> Knobs:
        """``chapter``'s workload sizes at this run's profile (``servelab.sizes``)."""
        return sizes_for(chapter, self.size_profile)

    def measured_on(self) -> str:
        """The line each measured page prints near its top."""
        return f"Measured on: {self.summary()} | {datetime.date.today().isoformat()}"


def detect_platform() -> str:
    """``Colab``, ``Kaggle`` or ``local``."""
    if "google.colab" in sys.modules or os.environ.get("COLAB_RELEASE_TAG"):
        return "Colab"
    if os.environ.get("KAGGLE_KERNEL_RUN_TYPE"):
        return "Kaggle"
    return "local"


def no_gpu_note(platform: str, device: Device) -> str | None:
    """On Colab or Kaggle without a usable GPU: how to get one (the chapter still runs)."""
    if device.kind != "cpu" or device.note or platform not in ("Colab", "Kaggle"):
        return None
    how = (
        "Runtime > Change runtime type > T4 GPU"
        if platform == "Colab"
        else "Settings > Accelerator > GPU T4 x2"
    )
    return (
        f"No GPU in this runtime: the chapter runs on the CPU engine with a small model, "
        f"more slowly. For the GPU path choose {how}, then run the notebook again."
    )


def describe(device: Device | None = None) -> Runtime:
    """The runtime of ``device`` (this machine's, by default), installing nothing."""
    device = device or detect_device()
    model = model_name(device.kind, device.memory_gib)
    return Runtime(
        platform=detect_platform(),
        device=device,
        engine=engine_label(),
        model=model,
        size_profile=profile_for(device.kind),
    )


def bootstrap(quiet: bool = False, started: float | None = None) -> Runtime:
    """Prepare this runtime, print what it measures on; ``started``: the install cell's start."""
    device = detect_device()
    note = device.note or no_gpu_note(detect_platform(), device)
    if note:
        print(note)
    ensure_engine(device)
    if device.kind == "cpu":
        ensure_offline_model()
    runtime = describe(device)
    CLOCK.installed(started)
    if not quiet:
        print(runtime.measured_on())
    return runtime
