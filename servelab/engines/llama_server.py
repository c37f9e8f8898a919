"""llama-cpp-python's OpenAI-compatible server as a managed child process (chapter 08's second
engine).

It is a ``servelab.engines.process.ServerProcess`` like ``servelab.Server``: its own process group,
a log file, healthy once ``/v1/models`` answers (it has no ``/health``), and taken down as a group
on ``stop()``, at exit (``servelab.stop_all()``), or when the parent dies. By default it serves the
GGUF file itself (``servelab.models.gguf_path()``), the file vLLM's offline model is converted from;
any other GGUF file can be given.

llama-cpp-python's server runs one request at a time (a lock around its single ``Llama``
object). By default it also cuts a streaming answer short as soon as another request waits
(``interrupt_requests``); here that is switched off so that waiting requests queue instead.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from servelab.engines.process import Launch, ServerProcess
from servelab.hardware import available_cores
from servelab.models import OFFLINE_MODEL_NAME, gguf_path

SERVER_MODULE = "llama_cpp.server"


class LlamaCppServer(ServerProcess):
    """One ``python -m llama_cpp.server``. Keyword flags mirror its command line (``--n_ctx``…)."""

    engine = "llama-cpp-python's server"
    health_path = "/v1/models"

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        model_alias: str = OFFLINE_MODEL_NAME,
        n_ctx: int = 2048,
        n_threads: int | None = None,
        interrupt_requests: bool = False,
        port: int | None = None,
        launch: Launch | None = None,
    ) -> None:
        super().__init__(port=port, launch=launch or Launch(start_timeout=120.0))
        self.model_path = str(model or gguf_path())
        self.model = model_alias
        # one thread per core this process may run on: llama.cpp's default uses half of them
        threads = n_threads or len(available_cores())
        self.flags: dict[str, int | bool] = {
            "n_ctx": n_ctx,
            "n_threads": threads,
            "n_threads_batch": threads,
            "interrupt_requests": interrupt_requests,
        }

    @property
    def command(self) -> list[str]:
        args = [
            sys.executable,
            "-m",
            SERVER_MODULE,
            "--model",
            self.model_path,
            "--model_alias",
            self.model,
            "--host",
            self.host,
            "--port",
            str(self.shown_port),
        ]
        for name, value in self.flags.items():
            args += [f"--{name}", str(value)]
        return args

    @property
    def command_line(self) -> str:
        """The command as a reader would type it: no interpreter path, the model file by name."""
        return shlex.join(
            [
                "python",
                "-m",
                SERVER_MODULE,
                "--model",
                Path(self.model_path).name,
                *self.command[5:],
            ]
        )
