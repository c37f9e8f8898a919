"""llama.cpp's own ``llama-server`` with parallel slots, as a managed child process (chapter 08's
third engine).

Unlike llama-cpp-python's server, which answers one request at a time, ``llama-server`` keeps
``parallel`` slots and, with continuous batching, decodes every busy slot in the same step; a
request that finds no free slot waits for one. The slots split one context: ``--ctx-size`` is
``parallel`` × ``slot_context``, and each slot holds at most ``slot_context`` tokens of prompt
and answer (with the slot count given, llama.cpp keeps each slot's part of the KV cache apart).

It is a ``servelab.engines.process.ServerProcess`` like ``LlamaCppServer``: healthy once
``/health`` answers (503 while the model loads), taken down as a group on ``stop()``, and it
speaks the OpenAI-compatible API, so ``servelab.bench`` drives it as it drives the binding. The
binary is the one ``servelab.engines.llama_server_build`` compiled from the binding's own
llama.cpp; by default it serves the same GGUF file (``servelab.models.gguf_path()``).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from servelab.engines.llama_server_build import TARGET, LlamaServerUnavailable, binary_path
from servelab.engines.process import Launch, ServerProcess
from servelab.hardware import available_cores
from servelab.models import OFFLINE_MODEL_NAME, gguf_path

# llama.cpp rounds each slot's context up to a multiple of this (GGML_PAD in llama-context.cpp).
SLOT_CONTEXT_STEP = 256


class LlamaCppParallelServer(ServerProcess):
    """One ``llama-server --parallel N --cont-batching``: ``parallel`` slots of ``slot_context``
    tokens each; ``n_threads`` for decoding and prompts alike (default: one per core).
    ``cache_prompt=False`` makes every request compute its whole prompt, where by default a
    slot keeps the last prompt it computed and a request that starts the same way reuses it."""

    engine = "llama.cpp's llama-server"
    health_path = "/health"

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        parallel: int = 4,
        slot_context: int = 2048,
        n_threads: int | None = None,
        cache_prompt: bool = True,
        model_alias: str = OFFLINE_MODEL_NAME,
        binary: str | Path | None = None,
        port: int | None = None,
        launch: Launch | None = None,
    ) -> None:
        if parallel < 1:
            raise ValueError(f"parallel must be at least 1 slot, not {parallel}")
        if slot_context < SLOT_CONTEXT_STEP or slot_context % SLOT_CONTEXT_STEP:
            raise ValueError(
                f"slot_context must be a positive multiple of {SLOT_CONTEXT_STEP}, "
                f"not {slot_context}: llama.cpp rounds each slot's context up to one"
            )
        super().__init__(port=port, launch=launch or Launch(start_timeout=120.0))
        self.model_path = str(model or gguf_path())
        self.model = model_alias
        self.binary = Path(binary or binary_path())
        self.parallel = parallel
        self.slot_context = slot_context
        # as the binding gets them: one thread per core this process may run on
        self.threads = n_threads or len(available_cores())
        self.cache_prompt = cache_prompt

    @property
    def ctx_size(self) -> int:
        """The context all slots share: ``parallel`` × ``slot_context`` tokens."""
        return self.parallel * self.slot_context

    @property
    def command(self) -> list[str]:
        return [
            str(self.binary),
            "-m",
            self.model_path,
            "--alias",
            self.model,
            "--parallel",
            str(self.parallel),
            "--cont-batching",
            "--ctx-size",
            str(self.ctx_size),
            "--threads",
            str(self.threads),
            "--threads-batch",
            str(self.threads),
            *([] if self.cache_prompt else ["--no-cache-prompt"]),
            "--host",
            self.host,
            "--port",
            str(self.shown_port),
        ]

    @property
    def command_line(self) -> str:
        """The command as a reader would type it: the binary and the model file by name."""
        return shlex.join([TARGET, "-m", Path(self.model_path).name, *self.command[3:]])

    def before_start(self) -> None:
        if not os.access(self.binary, os.X_OK):
            raise LlamaServerUnavailable(
                f"no {TARGET} at {self.binary}: build it once with `bash env/build-llama-cpp.sh` "
                "(or python -m servelab.engines.llama_server_build)"
            )
