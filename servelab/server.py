"""A real vLLM OpenAI-compatible server as a context manager.

``Server`` runs ``python -m vllm.entrypoints.openai.api_server`` (the module behind ``vllm serve``;
the CPU build's ``vllm`` command fails its own version lookup) as a child process in its own
process group, logs to a file, waits for ``/health``, reads the engine's capacity lines from the
log, and takes the whole process tree down again on ``stop()``, at exit, or when the parent dies.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from servelab.engine import Device, default_dtype, detect_device
from servelab.models import choose_model

API_SERVER_MODULE = "vllm.entrypoints.openai.api_server"
GIB = 2**30
# On the CPU engine the KV cache is sized in bytes; this is the book's default there.
DEFAULT_CPU_KV_CACHE_GIB = 2.0
LOG_TAIL_LINES = 40

_KV_LINE = re.compile(
    r"KV cache size: ([\d,]+) tokens, Maximum concurrency for ([\d,]+) tokens per request: "
    r"([\d.]+)x"
)

_running: set[Server] = set()


class ServerStartError(RuntimeError):
    """vLLM did not come up; the message ends with the tail of its log."""


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


def free_port(preferred: int | None = None, host: str = "127.0.0.1") -> int:
    """``preferred`` if nothing listens there, else a port the OS hands out."""
    if preferred:
        with socket.socket() as probe:
            try:
                probe.bind((host, preferred))
            except OSError:
                pass
            else:
                return preferred
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def _die_with_parent() -> None:
    """Runs in the child before exec: SIGTERM it when the parent (e.g. a kernel) dies."""
    os.setsid()
    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


class Server:
    """One vLLM server. Keyword flags mirror vLLM's command line.

    ``None`` leaves a flag to vLLM's default. Booleans become ``--flag`` / ``--no-flag``.
    ``kv_cache_gib`` sizes the KV cache on the CPU engine, where ``gpu_memory_utilization``
    would claim a fraction of all RAM instead: it is passed as ``--kv-cache-memory-bytes``.
    ``extra_args`` are appended verbatim.
    """

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
        self.host = host
        self.requested_port = port
        self.port: int | None = None
        self.start_timeout = start_timeout
        self.extra_env = dict(env or {})
        self.log_dir = Path(log_dir) if log_dir else Path(tempfile.gettempdir()) / "servelab-logs"
        self.log_path: Path | None = None
        self.capacity: Capacity | None = None
        self.notes: list[str] = []
        self._process: subprocess.Popen[bytes] | None = None

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
        port = self.port if self.port is not None else (self.requested_port or 8000)
        return [
            sys.executable, "-m", API_SERVER_MODULE,
            "--model", self.model_path,
            "--served-model-name", self.model,
            "--host", self.host,
            "--port", str(port),
            *self.flag_args(),
        ]

    @property
    def command_line(self) -> str:
        return shlex.join(self.command)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """What an OpenAI client takes as ``base_url``."""
        return f"{self.url}/v1"

    # -- life cycle ----------------------------------------------------------------------------
    def start(self) -> Server:
        if self.running:
            return self
        self.port = free_port(self.requested_port, self.host)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = self.log_dir / f"vllm-{self.port}-{int(time.time())}.log"
        env = {**os.environ, **self.extra_env}
        if self.offline:
            env.setdefault("HF_HUB_OFFLINE", "1")
        env.setdefault("VLLM_NO_USAGE_STATS", "1")
        env.setdefault("DO_NOT_TRACK", "1")
        with self.log_path.open("wb") as log:
            self._process = subprocess.Popen(
                self.command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env=env, preexec_fn=_die_with_parent,
            )
        _running.add(self)
        try:
            self._wait_until_healthy()
        except BaseException:
            self.stop()
            raise
        self.capacity = parse_capacity(self.log_text())
        return self

    def _wait_until_healthy(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            code = self._process.poll()
            if code is not None:
                raise ServerStartError(
                    f"vLLM exited with code {code} while starting.\n{self.describe_failure()}"
                )
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            time.sleep(0.5)
        raise ServerStartError(
            f"vLLM was not healthy after {self.start_timeout:.0f} s.\n{self.describe_failure()}"
        )

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def stop(self, grace: float = 15.0) -> None:
        """End the server's whole process group: SIGTERM, then SIGKILL after ``grace`` s."""
        process = self._process
        if process is None:
            return
        pgid = process.pid  # the child called setsid(): its pid is its group id
        _signal_group(pgid, signal.SIGTERM)
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        deadline = time.monotonic() + grace
        while _group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.2)
        _signal_group(pgid, signal.SIGKILL)
        if process.poll() is None:
            process.wait()
        _running.discard(self)

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what it says --------------------------------------------------------------------------
    def log_text(self) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def describe_failure(self) -> str:
        return (
            f"Command: {self.command_line}\n"
            f"Log ({self.log_path}), last lines:\n{self.log_tail()}"
        )

    def __repr__(self) -> str:
        state = f"running on {self.url}" if self.running else "stopped"
        return f"<Server {self.model} {state}>"


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def stop_all() -> None:
    """Stop every server this process started and has not stopped yet."""
    for server in list(_running):
        server.stop()


atexit.register(stop_all)
