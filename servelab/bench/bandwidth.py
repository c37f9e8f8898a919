"""The memory-bandwidth ceiling of single-stream decoding.

Decoding one token for one user reads every weight once, so a single stream can go no faster
than (memory bandwidth) ÷ (bytes of weights). The bandwidth is measured with a large copy —
numpy on the CPU, torch on a GPU — which reads and writes the array once each.

On a GPU the copy runs in a short child process: vLLM already holds most of the card's memory,
and a tensor allocated in the notebook's own process would stay reserved by torch's caching
allocator (and a CUDA context) for the rest of the session. The child's memory is returned to
the card when it exits.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from servelab.engine import DTYPE_BYTES

COPY_BYTES = {"cpu": 512 * 2**20, "cuda": 256 * 2**20}
REPEATS = 5
GB = 1e9
CHILD_TIMEOUT_S = 300


def measure_bandwidth(kind: str = "cpu", nbytes: int | None = None, repeats: int = REPEATS,
                      *, isolated: bool | None = None) -> float:
    """Best copy bandwidth in GB/s (bytes read + bytes written, per second) on ``kind``.

    ``isolated`` measures in a child process; by default only on a GPU (see the module text).
    """
    if kind not in COPY_BYTES:
        raise ValueError(f"device kind must be 'cpu' or 'cuda', not {kind!r}")
    nbytes = COPY_BYTES[kind] if nbytes is None else nbytes
    if nbytes < 2**20 or repeats < 1:
        raise ValueError("copy at least 1 MiB at least once")
    if isolated is None:
        isolated = kind == "cuda"
    if isolated:
        return _in_child(kind, nbytes, repeats)
    if kind == "cuda":
        return _torch_cuda_bandwidth(nbytes, repeats)
    return _numpy_bandwidth(nbytes, repeats)


def _in_child(kind: str, nbytes: int, repeats: int) -> float:
    code = (f"from {__name__} import measure_bandwidth as m; "
            f"print(m({kind!r}, {nbytes}, {repeats}, isolated=False))")
    command = [sys.executable, "-c", code]
    done = subprocess.run(command, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise RuntimeError(f"the {kind} bandwidth probe failed (exit {done.returncode}):\n{tail}")
    return float(done.stdout.split()[-1])


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
    ``"auto"`` means the dtype the weights are stored in, i.e. the size of the ``*.safetensors``
    files. A hub name (not a folder) is looked up in the local Hugging Face cache only; nothing
    is downloaded.
    """
    if dtype in (None, "auto"):
        return sum(f.stat().st_size for f in _safetensors_files(model_path))
    if dtype not in DTYPE_BYTES:
        raise ValueError(f"unknown dtype {dtype!r}; known: {sorted(DTYPE_BYTES)}")
    return parameter_count(model_path) * DTYPE_BYTES[dtype]


def parameter_count(model_path: str | Path) -> int:
    """How many parameters the model's ``*.safetensors`` files hold (read from their headers)."""
    return sum(_parameters_in(f) for f in _safetensors_files(model_path))


def _safetensors_files(model_path: str | Path) -> list[Path]:
    folder = Path(model_path)
    if not folder.is_dir():
        from huggingface_hub import snapshot_download

        try:
            folder = Path(snapshot_download(str(model_path), local_files_only=True,
                                            allow_patterns=["*.safetensors"]))
        except Exception as error:
            raise FileNotFoundError(
                f"no local weights for {model_path}; pass weights= yourself"
            ) from error
    files = sorted(folder.glob("*.safetensors"))
    if not files:
        raise FileNotFoundError(f"no *.safetensors files in {folder}")
    return files


def _parameters_in(path: Path) -> int:
    """Parameters in one safetensors file, from its header (8-byte length, then JSON)."""
    with path.open("rb") as handle:
        length = int.from_bytes(handle.read(8), "little")
        header = json.loads(handle.read(length))
    return sum(math.prod(entry["shape"]) for name, entry in header.items()
               if name != "__metadata__")


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
        text = (f"bandwidth {self.bandwidth_gb_s:.1f} GB/s ÷ weights "
                f"{self.weight_bytes / 1e6:.0f} MB = ceiling {self.ceiling_tok_s:.0f} tok/s")
        if self.measured_tok_s is not None:
            text += (f"; measured {self.measured_tok_s:.1f} tok/s = "
                     f"{self.fraction:.0%} of the ceiling")
        return text


def ceiling(server: object, measured_tok_s: float | None = None,
            *, weights: int | None = None) -> Ceiling:
    """The single-stream ceiling of ``server``'s model on its device.

    ``measured_tok_s`` is a measured single-stream decode speed, e.g.
    ``closed_loop(server, users=1, ...).summary()["user_tok_s"]``.
    """
    kind = getattr(getattr(server, "device", None), "kind", "cpu")
    dtype = getattr(server, "flags", {}).get("dtype")
    size = weights if weights is not None else weight_bytes(server.model_path, dtype)
    return Ceiling(bandwidth_gb_s=measure_bandwidth(kind), weight_bytes=size,
                   measured_tok_s=measured_tok_s)

