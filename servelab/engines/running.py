"""What code that measures or routes needs of a running server, whichever program it is.

``servelab.Server`` (vLLM), ``LlamaCppServer`` and ``Router`` all fit :class:`RunningServer`:
``servelab.bench`` sends its requests to ``url`` (or an OpenAI client to ``base_url``) naming
``model``, watches ``running`` and quotes ``log_tail()`` when the server dies mid-run.
"""

from __future__ import annotations

from typing import Protocol


class RunningServer(Protocol):
    """An OpenAI-compatible HTTP server this process started and can stop."""

    @property
    def url(self) -> str:
        """``http://host:port``, the root its health and ``/metrics`` paths hang from."""
        ...

    @property
    def base_url(self) -> str:
        """What an OpenAI client takes as ``base_url`` (``url`` + ``/v1``)."""
        ...

    @property
    def model(self) -> str:
        """The name requests give as ``model``."""
        ...

    @property
    def alive_path(self) -> str:
        """The path under ``url`` that answers while the server serves at all."""
        ...

    @property
    def running(self) -> bool: ...

    def log_tail(self, lines: int = ...) -> str: ...

    def stop(self) -> None: ...
