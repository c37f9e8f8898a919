"""Copies of one vLLM server, each on its own share of the device, and which one served what.

``Replicas`` builds two ``Server``s from ``servelab.engines.placement.side_by_side`` (on the CPU
one half of the cores and of the KV cache each; on two GPUs one GPU each; on one GPU a share of
its memory each), starts them together as the device allows, and stops them all. Each replica logs
the requests it receives (``--enable-log-requests``): ``served_by`` reads those lines to say
which replica served each request a workload named (``PlannedRequest.request_id``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack
from typing import TypedDict, Unpack

from servelab.engines.placement import Share, running_together, side_by_side
from servelab.engines.vllm_server import DEFAULT_CPU_KV_CACHE_GIB, Launch, Server
from servelab.hardware import Device, detect_device

LOG_REQUESTS = "--enable-log-requests"
# vLLM 0.32 and 0.11.2 both log "Received request <id>: params: ..." for every request; the id is
# "cmpl-" (or "chatcmpl-") + the X-Request-Id header, with "-<n>" for the n-th prompt of a
# completions request.
_RECEIVED = re.compile(r"Received request (?:chat)?cmpl-(\S+?)(?:-\d+)?: ")


class ReplicaOptions(TypedDict, total=False):
    """The ``Server`` keyword arguments every replica is given alike (``Replicas`` sets the
    device, the share of it and the port of each)."""

    model: str | None
    max_model_len: int | None
    max_num_seqs: int | None
    enable_prefix_caching: bool | None
    enable_chunked_prefill: bool | None
    max_num_batched_tokens: int | None
    tensor_parallel_size: int | None
    enforce_eager: bool | None
    dtype: str | None
    seed: int | None
    launch: Launch


def received_ids(log_text: str) -> list[str]:
    """The request ids (as the client named them) a vLLM log says were received, in order."""
    return _RECEIVED.findall(log_text)


class Replicas:
    """Two replicas of one vLLM server; ``env``, ``extra_args`` and the other keyword options go
    to every ``Server``.

    The device's split (``side_by_side``) decides each replica's cores or GPU; on one core there
    is nothing to split, and ``ValueError`` says so.
    """

    def __init__(
        self,
        device: Device | None = None,
        kv_cache_gib: float = DEFAULT_CPU_KV_CACHE_GIB,
        *,
        env: dict[str, str] | None = None,
        extra_args: Sequence[str] = (),
        **server_options: Unpack[ReplicaOptions],
    ) -> None:
        self.device = device or detect_device()
        shares = side_by_side(self.device, kv_cache_gib)
        if shares is None:
            raise ValueError(
                f"{self.device.label} cannot be split between two replicas: it has one core"
            )
        self.shares: tuple[Share, ...] = shares
        extra = [*extra_args, LOG_REQUESTS]
        self.servers = [
            Server(
                device=self.device,
                env={**(env or {}), **share.env},
                extra_args=extra,
                **server_options,
                **share.server_options,
            )
            for share in shares
        ]
        self._stack: ExitStack | None = None

    def start(self) -> Replicas:
        """Start every replica (``running_together``): on return all are healthy."""
        if self._stack is None:
            stack = ExitStack()
            stack.enter_context(running_together(self.servers))
            self._stack = stack
        return self

    def stop(self) -> None:
        if self._stack is not None:
            self._stack.close()
            self._stack = None

    def __enter__(self) -> Replicas:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __iter__(self) -> Iterator[Server]:
        return iter(self.servers)

    def __len__(self) -> int:
        return len(self.servers)

    def __getitem__(self, index: int) -> Server:
        return self.servers[index]

    @property
    def model(self) -> str:
        return self.servers[0].model

    def served_by(self, request_ids: Iterable[str | None]) -> dict[str, int]:
        """{request id: index of the replica whose log received it} for the ids given (a
        ``PlannedRequest.request_id``: None for a request its workload did not name); an id no
        replica logged (a request that never reached one) is left out."""
        wanted = {request_id for request_id in request_ids if request_id is not None}
        found: dict[str, int] = {}
        for index, server in enumerate(self.servers):
            for request_id in received_ids(server.log_text()):
                if request_id in wanted:
                    found.setdefault(request_id, index)
        return found

    def describe(self) -> list[str]:
        """One line per replica: where it runs and the command that started it."""
        return [
            f"replica {index} on {share.described}:\n  {server.command_line}"
            for index, (server, share) in enumerate(zip(self.servers, self.shares, strict=True))
        ]

    def __repr__(self) -> str:
        return f"<Replicas {[repr(server) for server in self.servers]}>"
