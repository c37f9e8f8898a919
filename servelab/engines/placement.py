"""Where servers run: a share of the device for each server, and starting several together.

The policy lives here, not in the chapters: ``whole_device`` gives one server everything (on the
CPU its engine on every core), ``side_by_side`` splits the device between two servers that run
at once (chapter 07's two deployments, chapter 09's replicas), and ``running_together`` starts a
group of servers in the order the device allows and stops them all.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypedDict

from servelab.engines.vllm_server import Server, ServerStartError
from servelab.hardware import BIND_VARIABLE, Device, available_cores, bind_env

# Share of the card each of two servers on one GPU may claim (vLLM reserves it at start-up). At
# 0.45 each, ``make gpu-contract``'s arithmetic left about 0.06 GiB of a T4 once both had a CUDA
# context and a graph pool; at 0.4 it leaves about 1.5 GiB.
GPU_SHARE = 0.4
# Which GPUs a CUDA process may see, by index.
GPU_VARIABLE = "CUDA_VISIBLE_DEVICES"


class ShareOptions(TypedDict, total=False):
    """The ``Server`` keyword arguments that size a server's share of the device."""

    kv_cache_gib: float
    gpu_memory_utilization: float


@dataclass(frozen=True)
class Share:
    """A server's share of the device: its extra Server keyword arguments and environment, and
    a phrase for the page."""

    server_options: ShareOptions = field(default_factory=ShareOptions)
    env: dict[str, str] = field(default_factory=dict)
    described: str = ""


def whole_device(device: Device, cores: Sequence[int] | None = None) -> Share:
    """A server that has the device to itself: on the CPU, its engine on every core (vLLM's own
    default would keep one core back, see ``servelab.hardware``); on a GPU machine, the
    first GPU (vLLM serves a model that fits on one card from one card)."""
    if device.kind == "cuda":
        return Share(described=one_gpu(device, 0))
    cores = available_cores() if cores is None else sorted(cores)
    return Share(env=bind_env(cores), described=f"all {len(cores)} cores")


def one_gpu(device: Device, index: int) -> str:
    """The phrase for a server on GPU ``index`` of ``device``, e.g. "GPU 1 of 2 (Tesla T4)"."""
    whole = "the whole GPU" if device.count == 1 else f"GPU {index} of {device.count}"
    return f"{whole} ({device.name})"


def side_by_side(
    device: Device, kv_cache_gib: float, cores: Sequence[int] | None = None
) -> tuple[Share, Share] | None:
    """How to run two servers on this device at once, or None when it cannot be split.

    On the CPU each server's engine threads are bound to its own half of the cores and each gets
    half of ``kv_cache_gib``; one core cannot be split. With two GPUs or more each server gets a
    GPU of its own (``CUDA_VISIBLE_DEVICES``); on one GPU each reserves ``GPU_SHARE`` of the card
    and both share its compute.
    """
    if device.kind == "cuda":
        if device.count >= 2:
            first, second = (
                Share(env={GPU_VARIABLE: str(index)}, described=one_gpu(device, index))
                for index in (0, 1)
            )
            return first, second
        share = Share(
            server_options={"gpu_memory_utilization": GPU_SHARE},
            described=f"{GPU_SHARE:.0%} of the {device.name}'s memory, its compute shared",
        )
        return share, share
    cores = available_cores() if cores is None else sorted(cores)
    if len(cores) < 2:
        return None
    middle = len(cores) // 2
    halves = []
    for part in (cores[:middle], cores[middle:]):
        env = bind_env(part)
        noun = "core" if len(part) == 1 else "cores"
        halves.append(
            Share(
                server_options={"kv_cache_gib": kv_cache_gib / 2},
                env=env,
                described=f"{len(part)} {noun} ({env[BIND_VARIABLE]}) and "
                f"{_memory(kv_cache_gib / 2)} of KV cache",
            )
        )
    return halves[0], halves[1]


# The most of one GPU's memory the servers on it may claim together: vLLM's own default share
# for a server alone (``gpu_memory_utilization`` 0.9).
CARD_SHARE_LIMIT = 0.9


def card_share(device: Device) -> ShareOptions:
    """What a server takes so that two fit on one GPU of ``device`` (``GPU_SHARE`` of it), and
    nothing on a CPU, where two servers fit anyway (``fit_together``)."""
    if device.kind == "cuda":
        return {"gpu_memory_utilization": GPU_SHARE}
    return {}


def fit_together(servers: Sequence[Server]) -> bool:
    """Whether ``servers`` can all be up at once. CPU servers can: each keeps its KV cache in
    RAM, and an idle one takes no cores (its workers park a second after their last step: 0.06
    CPU-seconds in 3 s measured idle). Servers on one GPU can while the shares of its memory they
    claim at start (``gpu_memory_utilization``, 0.9 where unset, as in vLLM) add up to at most
    ``CARD_SHARE_LIMIT``."""
    claimed: dict[str, float] = {}
    for server in servers:
        if server.device.kind == "cpu":
            continue
        card = server.extra_env.get(GPU_VARIABLE, "0")
        share = server.flags.get("gpu_memory_utilization") or CARD_SHARE_LIMIT
        claimed[card] = claimed.get(card, 0.0) + float(share)
    return all(total <= CARD_SHARE_LIMIT + 1e-9 for total in claimed.values())


def start_beside(server: Server, running: Sequence[Server]) -> Server:
    """Start ``server``, first stopping whatever of ``running`` it cannot be up beside
    (``fit_together``): on a CPU nothing, on a GPU all of them where the card cannot hold them
    with it."""
    if not fit_together([server, *running]):
        for other in running:
            other.stop()
    server.start()
    return server


def with_room_for_another(server: Server) -> Server:
    """``server``, running, where a second server like it fits beside it (``fit_together``: a
    CPU, or half a card or less each); otherwise ``server`` stopped and a server like it started
    at ``card_share``, so that runs in turn can keep both up instead of starting one afresh for
    each run."""
    if fit_together([server, server]):
        return server
    server.stop()
    again = server.with_flags(**card_share(server.device))
    again.start()
    return again


def _memory(gib: float) -> str:
    """``"1 GiB"``, ``"1.5 GiB"``; under a GiB in whole MiB (``"51 MiB"``)."""
    return f"{gib:.3g} GiB" if gib >= 1 else f"{gib * 1024:.0f} MiB"


@contextmanager
def running_together(servers: Sequence[Server]) -> Iterator[list[Server]]:
    """Start every server and stop them all on leaving.

    CPU servers start at once (their start-ups overlap). A GPU server starts only after the one
    before it is healthy: vLLM 0.11.2 sizes its KV cache from how much the GPU's used memory
    changed while it profiled, counting another process's allocations as its own (its worker
    assumes nothing else on the GPU changes meanwhile), so two overlapping starts on one card
    end in "No available memory for the cache blocks" or two caches of random sizes.

    A server that fails to start is named by its place in ``servers`` in the error. Each server
    is started from a thread of its own, and those threads stay alive until the
    servers are stopped: a server's process is told to end when the thread that launched it
    ends (``PR_SET_PDEATHSIG`` in ``servelab.engines.process``).
    """
    pool = ThreadPoolExecutor(max_workers=len(servers))

    def start(index: int) -> None:
        try:
            servers[index].start()
        except ServerStartError as error:
            raise ServerStartError(
                f"server {index} of the {len(servers)} started together did not start: {error}"
            ) from None

    try:
        if all(server.device.kind == "cpu" for server in servers):
            for future in [pool.submit(start, index) for index in range(len(servers))]:
                future.result()
        else:
            for index in range(len(servers)):
                pool.submit(start, index).result()
        yield list(servers)
    finally:
        for server in servers:
            server.stop()
        pool.shutdown()
