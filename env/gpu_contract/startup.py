"""vLLM 0.11.2's server start-up, up to its KV-cache report, and the log it writes on the way.

Runs in an environment with ``vllm==0.11.2`` after :func:`t4.simulate_t4s`. The API server's part
is 0.11.2's own sequence from ``vllm/entrypoints/openai/api_server.py``: ``cli_env_setup``, the
parser (whose default configs log before anything else), ``validate_parsed_serve_args``, the
process prefix, ``setup_server``'s first records, ``AsyncEngineArgs.from_cli_args`` and
``create_engine_config``. The engine core's part writes its config record from
``vllm/v1/engine/core.py`` with that config and sizes the cache with ``get_kv_cache_configs``,
which checks that one request of ``max_model_len`` fits (the refusal chapter 05 shows) and logs
the capacity lines. What it cannot know without a GPU is the memory left after profiling: with
``--kv-cache-memory-bytes`` that is the flag's value, as on a GPU; with
``--gpu-memory-utilization`` it is the card's share less :data:`ASSUMED_NON_KV_BYTES`, so the
capacity numbers are of the right form and order, not a measurement.
"""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import vllm
from t4 import T4_MEMORY_BYTES
from vllm.config import VllmConfig
from vllm.engine.arg_utils import AsyncEngineArgs
from vllm.entrypoints.openai.api_server import validate_api_server_args
from vllm.entrypoints.openai.cli_args import make_arg_parser, validate_parsed_serve_args
from vllm.entrypoints.utils import cli_env_setup, log_non_default_args
from vllm.usage.usage_lib import UsageContext
from vllm.utils.argparse_utils import FlexibleArgumentParser
from vllm.utils.system_utils import decorate_logs
from vllm.v1.core.kv_cache_utils import get_kv_cache_configs
from vllm.v1.kv_cache_interface import FullAttentionSpec

# Weights of a 0.6B model in float16 (1.1 GiB), activations at the step budget, CUDA graphs and
# the CUDA context: what a T4 worker holds besides the KV cache (an estimate, per worker).
ASSUMED_NON_KV_BYTES = int(2.5 * 2**30)
API_SERVER, ENGINE_CORE = "APIServer", "EngineCore_DP0"


@dataclass
class Start:
    """One start: the config vLLM built (None if it refused earlier), the log, the refusal."""

    config: VllmConfig | None
    log: str
    error: str | None = None


class _Log:
    """stdout and the vllm logger's handler redirected into one text, as a server's log file."""

    def __init__(self) -> None:
        self.stream = io.StringIO()
        self._handler = logging.getLogger("vllm").handlers[0]

    def __enter__(self) -> _Log:
        self._saved = sys.stdout
        sys.stdout = self.stream
        self._handler.setStream(self.stream)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.stdout = self._saved
        self._handler.setStream(self._saved)


def api_server(words: list[str]) -> VllmConfig:
    """``python -m vllm.entrypoints.openai.api_server WORDS`` up to the engine's config."""
    cli_env_setup()
    parser = make_arg_parser(
        FlexibleArgumentParser(description="vLLM OpenAI-Compatible RESTful API server.")
    )
    args = parser.parse_args(words)
    validate_parsed_serve_args(args)
    decorate_logs(API_SERVER)  # run_server
    _record(
        "vllm.entrypoints.openai.api_server",
        "entrypoints/openai/api_server.py",
        1977,
        "vLLM API server version %s",
        vllm.__version__,
    )  # setup_server
    log_non_default_args(args)
    validate_api_server_args(args)
    engine_args = AsyncEngineArgs.from_cli_args(args)
    return engine_args.create_engine_config(usage_context=UsageContext.OPENAI_API_SERVER)


def _record(name: str, source: str, line: int, message: str, *args: object) -> None:
    """An INFO record that 0.11.2 writes from ``source`` at ``line`` of its package, with its
    own logger, format and arguments (the code around it needs a running server)."""
    logger = logging.getLogger(name)
    logger.handle(
        logger.makeRecord(
            name, logging.INFO, str(Path(vllm.__file__).parent / source), line, message, args, None
        )
    )


def kv_budget(config: VllmConfig) -> int:
    """Bytes each worker gives the KV cache (see the module's docstring)."""
    cache = config.cache_config
    if cache.kv_cache_memory_bytes:
        return cache.kv_cache_memory_bytes
    return int(T4_MEMORY_BYTES * cache.gpu_memory_utilization) - ASSUMED_NON_KV_BYTES


def engine_core(config: VllmConfig) -> None:
    """The engine core's config record and KV-cache sizing for every tensor-parallel worker."""
    decorate_logs(ENGINE_CORE)
    _record(
        "vllm.v1.engine.core",
        "v1/engine/core.py",
        93,
        "Initializing a V1 LLM engine (v%s) with config: %s",
        vllm.__version__,
        config,
    )
    model, tp = config.model_config, config.parallel_config.tensor_parallel_size
    spec = FullAttentionSpec(
        block_size=config.cache_config.block_size,
        num_kv_heads=model.get_num_kv_heads(config.parallel_config),
        head_size=model.get_head_size(),
        dtype=model.dtype,
    )
    layers = {
        f"model.layers.{i}.self_attn.attn": spec
        for i in range(model.get_num_layers(config.parallel_config))
    }
    try:
        get_kv_cache_configs(config, [layers] * tp, [kv_budget(config)] * tp)
    except Exception:
        logging.getLogger("vllm.v1.engine.core").exception("EngineCore failed to start.")
        raise


def start(words: list[str], run: Callable[[VllmConfig], None] = engine_core) -> Start:
    """The log of one server start with ``words`` as its arguments (``run``: the engine part)."""
    config, error = None, None
    # Two streams: each process prefixes its own output (decorate_logs) and writes to one file.
    api, core = _Log(), _Log()
    try:
        with api:
            config = api_server(words)
        with core:
            run(config)
    except Exception as failure:  # the start fails as the server would; the log says why
        error = f"{type(failure).__name__}: {failure}"
    return Start(config, api.stream.getvalue() + core.stream.getvalue(), error)
