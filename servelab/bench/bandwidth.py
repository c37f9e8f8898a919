"""What the device can do at most, and the memory-bandwidth ceiling of single-stream decoding.

Decoding one token for one user reads every weight once, so a single stream can go no faster
than (memory bandwidth) ÷ (bytes of weights). The bandwidth is measured with a large copy —
numpy on the CPU, torch on a GPU — which reads and writes the array once each; the arithmetic
rate with a square matrix multiply in the dtype the server computes in.

On a GPU the probes run before the server starts, in a short child process: once vLLM holds
most of the card's memory there may be no room for their CUDA context and tensors, and a tensor
allocated in the notebook's own process would stay reserved by torch's caching allocator (with a
CUDA context) for the rest of the session. The child's memory is returned to the card when it
exits.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from servelab.hardware import DTYPE_BYTES, Device

COPY_BYTES = {"cpu": 512 * 2**20, "cuda": 256 * 2**20}
REPEATS = 5
GB = 1e9
CHILD_TIMEOUT_S = 300
MATMUL_SIZE = 1024
# vLLM's --dtype names, as torch names them.
TORCH_DTYPES = {
    "half": "float16",
    "float16": "float16",
    "bfloat16": "bfloat16",
    "float": "float32",
    "float32": "float32",
}


class ModelServer(Protocol):
    """What the probes read of a vLLM server, started or not (``servelab.Server`` fits): the
    device it serves on, its flags (``dtype``), its model's folder and whether it runs."""

    @property
    def device(self) -> Device: ...

    @property
    def flags(self) -> Mapping[str, object]: ...

    @property
    def model_path(self) -> str: ...

    @property
    def running(self) -> bool: ...


def _check_kind(kind: str) -> None:
    if kind not in COPY_BYTES:
        raise ValueError(f"device kind must be 'cpu' or 'cuda', not {kind!r}")


def measure_bandwidth(
    kind: str = "cpu",
    nbytes: int | None = None,
    repeats: int = REPEATS,
    *,
    isolated: bool | None = None,
) -> float:
    """Best copy bandwidth in GB/s (bytes read + bytes written, per second) on ``kind``.

    ``isolated`` measures in a child process; by default only on a GPU (see the module text).
    """
    _check_kind(kind)
    nbytes = COPY_BYTES[kind] if nbytes is None else nbytes
    if nbytes < 2**20 or repeats < 1:
        raise ValueError("copy at least 1 MiB at least once")
    if isolated is None:
        isolated = kind == "cuda"
    if isolated:
        return float(_in_child("measure_bandwidth", (kind, nbytes, repeats), kind, isolated=False))
    if kind == "cuda":
        return _torch_cuda_bandwidth(nbytes, repeats)
    return _numpy_bandwidth(nbytes, repeats)


def _in_child(function: str, args: tuple[object, ...], kind: str, **options: object) -> Any:
    """This module's ``function(*args, **options)`` called in a child process; its value comes
    back as JSON (so typed as whatever the JSON holds)."""
    code = (
        f"import json; from {__name__} import {function}; "
        f"print(json.dumps({function}(*{args!r}, **{options!r})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=CHILD_TIMEOUT_S
    )
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise RuntimeError(f"the {kind} probe failed (exit {done.returncode}):\n{tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def matmul_flops(
    kind: str = "cpu", dtype: str = "float32", size: int = MATMUL_SIZE, repeats: int = REPEATS
) -> float:
    """Best FLOP/s of a square matrix multiply in ``dtype`` (a torch name) with torch on
    ``kind``, in this process."""
    import torch

    device = "cuda" if kind == "cuda" else "cpu"
    a = torch.ones(size, size, dtype=getattr(torch, dtype), device=device)
    b = torch.ones_like(a)
    torch.matmul(a, b)
    best = math.inf
    for _ in range(repeats):
        if device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        torch.matmul(a, b)
        if device == "cuda":
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    return 2.0 * size**3 / best


@dataclass(frozen=True)
class DeviceLimits:
    """The device's copy bandwidth and its matrix-multiply rate in ``dtype``."""

    bandwidth_gb_s: float
    flops: float
    dtype: str

    @property
    def balance(self) -> float:
        """Operations the device can do in the time it moves one byte."""
        return self.flops / (self.bandwidth_gb_s * GB)

    def __str__(self) -> str:
        return (
            f"memory bandwidth {self.bandwidth_gb_s:.1f} GB/s; {self.dtype} matrix multiply "
            f"{self.flops / 1e9:.0f} GFLOP/s; balance {self.balance:.0f} operations per "
            "byte"
        )


def compute_dtype(server: ModelServer) -> str:
    """The torch dtype ``server`` computes in: its ``--dtype``, else the one its model's
    ``config.json`` names (bfloat16 where it names none or is not a local folder)."""
    flag = server.flags.get("dtype")
    if flag in (None, "auto"):
        config = Path(server.model_path) / "config.json"
        stored = json.loads(config.read_text()) if config.is_file() else {}
        flag = stored.get("torch_dtype") or stored.get("dtype") or "bfloat16"
    if flag not in TORCH_DTYPES:
        raise ValueError(f"unknown dtype {flag!r}; known: {sorted(TORCH_DTYPES)}")
    return TORCH_DTYPES[flag]


def probe_limits(kind: str, dtype: str) -> list[float]:
    """Bandwidth (GB/s) and matrix-multiply rate (FLOP/s) of ``kind``, in this process."""
    return [measure_bandwidth(kind, isolated=False), matmul_flops(kind, dtype)]


def device_limits(server: ModelServer) -> DeviceLimits:
    """The bandwidth and arithmetic rate of ``server``'s device, in the dtype it computes in.

    Call it before the server starts: on a GPU both probes run in one child process, and a
    running server is refused (see the module text).
    """
    kind = server.device.kind
    _check_kind(kind)
    dtype = compute_dtype(server)
    if kind == "cuda":
        if server.running:
            raise RuntimeError(
                "measure the device before starting the server: vLLM holds most "
                "of the GPU's memory once it runs"
            )
        bandwidth, flops = _in_child("probe_limits", (kind, dtype), kind)
    else:
        bandwidth, flops = probe_limits(kind, dtype)
    return DeviceLimits(bandwidth_gb_s=bandwidth, flops=flops, dtype=dtype)


def _numpy_bandwidth(nbytes: int, repeats: int) -> float:
    source = np.ones(nbytes // 8, dtype=np.float64)
    target = np.empty_like(source)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        np.copyto(target, source)
        best = min(best, time.perf_counter() - start)
    return 2 * source.nbytes / best / GB


def _torch_cuda_bandwidth(nbytes: int, repeats: int) -> float:
    import torch

    source = torch.ones(nbytes // 4, dtype=torch.float32, device="cuda")
    target = torch.empty_like(source)
    target.copy_(source)
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        target.copy_(source)
        torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    return 2 * source.nbytes / best / GB


def weight_bytes(model_path: str | Path, dtype: str | None = None) -> int:
    """Bytes of weights one decoding step reads: the model's parameters × the bytes of ``dtype``.

    ``dtype`` is the one the server computes in (``Server.flags["dtype"]``); ``None`` or
    ``"auto"`` means the dtype the weights are stored in, i.e. the bytes of the tensors in the
    ``*.safetensors`` files. A hub name (not a folder) is looked up in the local Hugging Face
    cache only; nothing is downloaded. Only what vLLM loads counts (``loaded_tensors``).
    """
    if dtype in (None, "auto"):
        return sum(end - start for _, (start, end) in loaded_tensors(model_path))
    if dtype not in DTYPE_BYTES:
        raise ValueError(f"unknown dtype {dtype!r}; known: {sorted(DTYPE_BYTES)}")
    return parameter_count(model_path) * DTYPE_BYTES[dtype]


def parameter_count(model_path: str | Path) -> int:
    """How many parameters vLLM loads from the model's ``*.safetensors`` files (read from their
    headers; see ``loaded_tensors``)."""
    return sum(math.prod(shape) for shape, _ in loaded_tensors(model_path))


# A checkpoint may store the output projection although its config ties it to the input
# embedding; vLLM then loads one matrix for both (the tie), and a step reads it once.
TIED_OUTPUT = "lm_head.weight"


def loaded_tensors(model_path: str | Path) -> list[tuple[list[int], tuple[int, int]]]:
    """(shape, byte range) of each tensor in the model's ``*.safetensors`` files that vLLM
    loads: all of them but a stored ``lm_head.weight`` when ``config.json`` ties the word
    embeddings (``tie_word_embeddings``)."""
    files = _safetensors_files(model_path)
    config = files[0].parent / "config.json"
    tied = config.is_file() and json.loads(config.read_text()).get("tie_word_embeddings", False)
    tensors = []
    for path in files:
        with path.open("rb") as handle:
            length = int.from_bytes(handle.read(8), "little")
            header = json.loads(handle.read(length))
        tensors += [
            (entry["shape"], tuple(entry["data_offsets"]))
            for name, entry in header.items()
            if name != "__metadata__" and not (tied and name == TIED_OUTPUT)
        ]
    return tensors


def _safetensors_files(model_path: str | Path) -> list[Path]:
    folder = Path(model_path)
    if not folder.is_dir():
        from huggingface_hub import snapshot_download

        try:
            folder = Path(
                snapshot_download(
                    str(model_path),
                    local_files_only=True,
                    allow_patterns=["*.safetensors", "config.json"],
                )
            )
        except Exception as error:
            raise FileNotFoundError(
                f"no local weights for {model_path}; pass weights= yourself"
            ) from error
    files = sorted(folder.glob("*.safetensors"))
    if not files:
        raise FileNotFoundError(f"no *.safetensors files in {folder}")
    return files


@dataclass(frozen=True)
class Ceiling:
    """Bandwidth, weights, the single-stream ceiling, and how close a measurement comes."""

    bandwidth_gb_s: float
    weight_bytes: int
    measured_tok_s: float | None = None

    @property
    def ceiling_tok_s(self) -> float:
        return self.bandwidth_gb_s * GB / self.weight_bytes

    @property
    def fraction(self) -> float | None:
        """Measured single-stream speed ÷ ceiling."""
        if self.measured_tok_s is None:
            return None
        return self.measured_tok_s / self.ceiling_tok_s

    def __str__(self) -> str:
        text = (
            f"bandwidth {self.bandwidth_gb_s:.1f} GB/s ÷ weights "
            f"{self.weight_bytes / 1e6:.0f} MB = ceiling {self.ceiling_tok_s:.0f} tok/s"
        )
        if self.measured_tok_s is not None:
            text += (
                f"; measured {self.measured_tok_s:.1f} tok/s = {self.fraction:.0%} of the ceiling"
            )
        return text


def ceiling(
    server: ModelServer,
    measured_tok_s: float | None = None,
    *,
    bandwidth_gb_s: float | None = None,
    weights: int | None = None,
) -> Ceiling:
    """The single-stream ceiling of ``server``'s model on its device.

    ``measured_tok_s`` is a measured single-stream decode speed, e.g.
    ``closed_loop(server, users=1, ...).summary()["user_tok_s"]``. ``bandwidth_gb_s`` is the
    device's, measured before the server started (``device_limits``); measured now if not given.
    """
    kind = server.device.kind
    flag = server.flags.get("dtype")
    dtype = flag if isinstance(flag, str) else None
    size = weights if weights is not None else weight_bytes(server.model_path, dtype)
    if bandwidth_gb_s is None:
        bandwidth_gb_s = measure_bandwidth(kind)
    return Ceiling(bandwidth_gb_s=bandwidth_gb_s, weight_bytes=size, measured_tok_s=measured_tok_s)
