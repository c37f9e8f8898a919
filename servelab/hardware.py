"""The device this runtime has, the engine flags that follow from it, and the CPU cores an
engine computes on.

The CPU and GPU paths are one code path: the same `Server` and the same vLLM flags; only the
installed engine package, the model and the device flags below differ.

Core placement, one for the whole book: ``available_cores`` lists the cores this process may run
on, and every engine computes on all of them (llama.cpp's server gets one thread per core: its
own default would use only half of them). Left to itself (``VLLM_CPU_OMP_THREADS_BIND=auto``)
vLLM 0.32's CPU engine binds its threads to all cores but one and reserves that one for the
server's other processes: on a 2-core machine the model would run on a single core, so chapters
that left it there measured another machine than chapters that bound every core.
``benchmarks/placement.py`` measured both placements side by side; ``engine_env`` binds every
core. Only servers that split the cores between them
(``servelab.engines.placement.side_by_side``) name other cores, with ``bind_env``.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from servelab.settings import DEVICE

DeviceKind = Literal["cpu", "cuda"]
# vLLM's CUDA wheels carry kernels from compute capability 7.0; below 8.0 there is no bfloat16.
MIN_COMPUTE_CAPABILITY = (7, 0)
BF16_COMPUTE_CAPABILITY = (8, 0)
# /proc/cpuinfo flags of processors with native bf16 matrix arithmetic.
BF16_CPU_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})
# Below 8.0 (a T4 is 7.5) FlashAttention does not run and vLLM 0.11.2 ranks FlashInfer next
# (vllm/platforms/cuda.py, _get_backend_priorities), whose kernels are compiled with nvcc on
# first use: minutes inside the server's start, or a failure where nvcc is missing. Triton's
# attention backend is valid on every compute capability and needs no nvcc (Triton brings its
# own compiler). vLLM 0.11.2 has no flag for it; it reads VLLM_ATTENTION_BACKEND.
PRE_AMPERE_ATTENTION_BACKEND = "TRITON_ATTN"


@dataclass(frozen=True)
class Device:
    """What serves the model: ``kind`` is "cpu" or "cuda"."""

    kind: DeviceKind
    name: str
    count: int = 1
    memory_gib: float = 0.0
    compute_capability: tuple[int, int] | None = None
    note: str = ""
    reserved_gib: float = 0.0  # of memory_gib, what the driver keeps for itself (nvidia-smi)

    @property
    def cuda_memory_gib(self) -> float:
        """The card's memory as CUDA reports its total (``torch.cuda.mem_get_info``): what vLLM
        multiplies by ``--gpu-memory-utilization``. nvidia-smi's total (``memory_gib``) also
        counts what the driver reserves: 15.0 GiB on a T4, of which CUDA reports 14.74."""
        return self.memory_gib - self.reserved_gib

    @property
    def label(self) -> str:
        if self.kind == "cpu":
            return f"CPU {self.name} ({os.cpu_count()} cores)"
        cc = ".".join(map(str, self.compute_capability or ()))
        many = f"{self.count}x " if self.count > 1 else ""
        return f"GPU {many}{self.name} ({self.memory_gib:.0f} GiB, compute {cc})"


def cpu_name() -> str:
    """The processor's model name, from /proc/cpuinfo where there is one."""
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def query_gpus() -> list[tuple[str, tuple[int, int], float]]:
    """(name, compute capability, memory GiB) for each NVIDIA GPU that nvidia-smi reports."""
    if shutil.which("nvidia-smi") is None:
        return []
    try:
        out = subprocess.run(
            [
                "nvidia-smi",
                "--query-gpu=name,compute_cap,memory.total",
                "--format=csv,noheader,nounits",
            ],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    gpus = []
    for line in out.strip().splitlines():
        name, cc, mem = (part.strip() for part in line.split(","))
        major, minor = cc.split(".")
        gpus.append((name, (int(major), int(minor)), float(mem) / 1024))
    return gpus


def query_reserved_gib() -> list[float]:
    """GiB the driver reserves on each GPU (nvidia-smi's ``memory.reserved``); an empty list
    where nvidia-smi is missing or its driver does not report it."""
    if shutil.which("nvidia-smi") is None:
        return []
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=memory.reserved", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        ).stdout
        return [float(line) / 1024 for line in out.split()]
    except (OSError, subprocess.SubprocessError, ValueError):
        return []


def detect_device() -> Device:
    """The GPU if vLLM can run on it, else the CPU (with a note saying why).

    ``SERVELAB_DEVICE=cpu`` forces the CPU path even where a GPU exists.
    """
    cpu = Device(kind="cpu", name=cpu_name())
    if DEVICE.value() == "cpu":
        return cpu
    gpus = query_gpus()
    if not gpus:
        return cpu
    name, cc, memory = gpus[0]
    if cc < MIN_COMPUTE_CAPABILITY:
        need = ".".join(map(str, MIN_COMPUTE_CAPABILITY))
        note = (
            f"{name} has compute capability {cc[0]}.{cc[1]}; vLLM needs at least {need}, so "
            "this book runs on the CPU engine instead (on Kaggle, choose the 'GPU T4 x2' "
            "accelerator)."
        )
        return Device(kind="cpu", name=cpu.name, note=note)
    reserved = query_reserved_gib()
    return Device(
        kind="cuda",
        name=name,
        count=len(gpus),
        memory_gib=memory,
        compute_capability=cc,
        reserved_gib=reserved[0] if reserved else 0.0,
    )


def cpu_flags(cpuinfo: str | None = None) -> set[str]:
    """The instruction-set flags of the first processor in ``/proc/cpuinfo`` text (this
    machine's when not given; empty where there is no such file)."""
    if cpuinfo is None:
        try:
            with open("/proc/cpuinfo") as handle:
                cpuinfo = handle.read()
        except OSError:
            cpuinfo = ""
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return set(value.split())
    return set()


def _before_bf16(device: Device) -> bool:
    """A GPU without bf16 (compute capability below 8.0); one whose capability is unknown is
    taken for one, since fp16 runs on every GPU and bf16 does not."""
    capability = device.compute_capability
    return capability is None or capability < BF16_COMPUTE_CAPABILITY


def default_dtype(device: Device, flags: set[str] | None = None) -> str | None:
    """The dtype the engine computes in on ``device``.

    GPU: ``half`` below compute capability 8.0 (no bf16 there), else the model's own (bf16).
    CPU: the model's own where the processor has bf16 instructions (``BF16_CPU_FLAGS``); on the
    others vLLM's CPU kernels emulate bf16 and ``float32`` is several times faster (measured on
    a 2-core AVX2 EPYC: a 512-token prefill took 14.4 s in bf16 and 2.3 s in float32). Where the
    instructions are there, bf16 is the faster (``benchmarks/dtype.py`` on a 2-core AVX-512 BF16
    EPYC: float32 gave 0.67× one stream's speed and 0.65× the prefill rate).
    ``flags`` are the processor's /proc/cpuinfo flags (read here when not given).
    """
    if device.kind == "cuda":
        return "half" if _before_bf16(device) else None
    flags = cpu_flags() if flags is None else flags
    return None if flags & BF16_CPU_FLAGS else "float32"


#: Bytes of one value in each dtype name vLLM accepts for ``--dtype`` (and a model's config).
DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "half": 2, "float32": 4, "float": 4}


BIND_VARIABLE = "VLLM_CPU_OMP_THREADS_BIND"


def available_cores() -> list[int]:
    """The cores this process may run on, in order."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:
        return list(range(os.cpu_count() or 1))


def bind_env(cores: Sequence[int]) -> dict[str, str]:
    """The environment that binds a vLLM CPU engine's threads to exactly ``cores``."""
    if not cores:
        raise ValueError("at least one core is needed")
    return {BIND_VARIABLE: ",".join(str(core) for core in sorted(cores))}


def engine_env(device: Device) -> dict[str, str]:
    """Environment variables the engine needs on ``device`` (set for the server's process): on
    the CPU, its threads bound to every core (the book's one placement, see the module's
    docstring); on a GPU without bf16, the attention backend."""
    if device.kind == "cpu":
        return bind_env(available_cores())
    if _before_bf16(device):
        return {"VLLM_ATTENTION_BACKEND": PRE_AMPERE_ATTENTION_BACKEND}
    return {}


def engine_cores_label() -> str:
    """The cores the CPU engine computes on, for a page's *Measured on* line, e.g. "engine on 2
    cores (0,1)"."""
    cores = available_cores()
    noun = "core" if len(cores) == 1 else "cores"
    return f"engine on {len(cores)} {noun} ({bind_env(cores)[BIND_VARIABLE]})"


def engine_distribution() -> str | None:
    """The installed engine package: ``vllm-cpu`` or ``vllm``, or None."""
    for dist in ("vllm-cpu", "vllm"):
        try:
            importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
        return dist
    return None


def engine_label() -> str:
    """E.g. ``vLLM 0.32.0 (vllm-cpu)``."""
    dist = engine_distribution()
    if dist is None:
        return "vLLM (not installed)"
    return f"vLLM {importlib.metadata.version(dist)} ({dist})"
