"""A real vLLM OpenAI-compatible server as a context manager.

``Server`` runs ``python -m vllm.entrypoints.openai.api_server`` (the module behind ``vllm serve``;
the CPU build's ``vllm`` command fails its own version lookup) as a managed child process
(``servelab.process``: own process group, log file, health wait, the whole tree stopped however
the run ends), and reads the engine's capacity lines from its log.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from servelab.engine import Device, default_dtype, detect_device
from servelab.models import choose_model
from servelab.process import ServerProcess, ServerStartError, stop_all

API_SERVER_MODULE = "vllm.entrypoints.openai.api_server"
GIB = 2**30
# On the CPU engine the KV cache is sized in bytes; this is the book's default there.
DEFAULT_CPU_KV_CACHE_GIB = 2.0

_KV_LINE = re.compile(
    r"KV cache size: ([\d,]+) tokens, Maximum concurrency for ([\d,]+) tokens per request: "
    r"([\d.]+)x"
)

__all__ = ["Capacity", "Server", "ServerStartError", "parse_capacity", "stop_all"]


@dataclass(frozen=True)
class Capacity:
    """What the engine says it can hold, from its start-up log."""

    kv_cache_tokens: int
    max_model_len: int
    max_concurrency: float


def parse_capacity(log_text: str) -> Capacity | None:
    """The KV-cache capacity line of a vLLM log, or None if it has not been printed."""
    match = _KV_LINE.search(log_text)
    if match is None:
        return None
    tokens, model_len, concurrency = match.groups()
    return Capacity(
        kv_cache_tokens=int(tokens.replace(",", "")),
        max_model_len=int(model_len.replace(",", "")),
        max_concurrency=float(concurrency),
    )


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


class Server(ServerProcess):
    """One vLLM server. Keyword flags mirror vLLM's command line.

    ``None`` leaves a flag to vLLM's default. Booleans become ``--flag`` / ``--no-flag``.
    ``kv_cache_gib`` sizes the KV cache on the CPU engine, where ``gpu_memory_utilization``
    would claim a fraction of all RAM instead: it is passed as ``--kv-cache-memory-bytes``.
    ``extra_args`` are appended verbatim.
    """

    engine = "vLLM"

    def __init__(
        self,
        model: str | None = None,
        *,
        max_model_len: int | None = None,
        gpu_memory_utilization: float | None = None,
        kv_cache_gib: float | None = None,
        max_num_seqs: int | None = None,
        enable_prefix_caching: bool | None = None,
        enable_chunked_prefill: bool | None = None,
        max_num_batched_tokens: int | None = None,
        tensor_parallel_size: int | None = None,
        enforce_eager: bool | None = None,
        dtype: str | None = None,
        seed: int | None = 0,
        port: int | None = None,
        host: str = "127.0.0.1",
        device: Device | None = None,
        extra_args: list[str] | tuple[str, ...] = (),
        env: dict[str, str] | None = None,
        start_timeout: float = 600.0,
        log_dir: str | Path | None = None,
    ) -> None:
        self.device = device or detect_device()
        choice = choose_model(self.device.kind, self.device.memory_gib)
        self.model_path = model or choice.path
        self.model = choice.name if model is None else Path(model).name
        self.offline = choice.offline if model is None else Path(model).is_dir()
        super().__init__(port=port, host=host, start_timeout=start_timeout, log_dir=log_dir,
                         env=env)
        self.capacity: Capacity | None = None
        self.notes: list[str] = []

        if self.device.kind == "cpu":
            if gpu_memory_utilization is not None:
                self.notes.append(
                    "On the CPU engine --gpu-memory-utilization would reserve that fraction of "
                    "all RAM; the KV cache is sized with --kv-cache-memory-bytes instead."
                )
                gpu_memory_utilization = None
            kv_cache_gib = DEFAULT_CPU_KV_CACHE_GIB if kv_cache_gib is None else kv_cache_gib
        self.flags: dict[str, object] = {
            "max_model_len": max_model_len,
            "gpu_memory_utilization": gpu_memory_utilization,
            "kv_cache_memory_bytes": int(kv_cache_gib * GIB) if kv_cache_gib else None,
            "max_num_seqs": max_num_seqs,
            "enable_prefix_caching": enable_prefix_caching,
            "enable_chunked_prefill": enable_chunked_prefill,
            "max_num_batched_tokens": max_num_batched_tokens,
            "tensor_parallel_size": tensor_parallel_size,
            "enforce_eager": enforce_eager,
            "dtype": dtype or default_dtype(self.device),
            "seed": seed,
        }
        self.extra_args = list(extra_args)

    # -- the command ---------------------------------------------------------------------------
    def flag_args(self) -> list[str]:
        """The vLLM flags this server is given, as command-line words."""
        args: list[str] = []
        for name, value in self.flags.items():
            if value is None:
                continue
            if value is True:
                args.append(_flag(name))
            elif value is False:
                # enforce_eager has no --no- form worth showing: False is vLLM's default.
                if name != "enforce_eager":
                    args.append("--no-" + name.replace("_", "-"))
            else:
                args += [_flag(name), str(value)]
        return args + self.extra_args

    @property
    def command(self) -> list[str]:
        """The exact command line that starts (or started) this server."""
        return [
            sys.executable, "-m", API_SERVER_MODULE,
            "--model", self.model_path,
            "--served-model-name", self.model,
            "--host", self.host,
            "--port", str(self.shown_port),
            *self.flag_args(),
        ]

    def child_env(self) -> dict[str, str]:
        env = super().child_env()
        if self.offline:
            env.setdefault("HF_HUB_OFFLINE", "1")
        env.setdefault("VLLM_NO_USAGE_STATS", "1")
        env.setdefault("DO_NOT_TRACK", "1")
        return env

    def after_start(self) -> None:
        self.capacity = parse_capacity(self.log_text())
