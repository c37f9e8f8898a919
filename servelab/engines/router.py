"""vLLM's router (the ``vllm-router`` package, a Rust binary) in front of replicas, as a managed
process, and what its Prometheus page says about them.

``Router`` runs ``python -m vllm_router.launch_router`` (the module behind the ``vllm-router``
command) with the replicas' URLs and a routing policy, on the life cycle of every server in the
book (``servelab.engines.process``). It starts only in front of running replicas, and says plainly
when the package is missing or a replica is down. Its own metrics (per replica: whether the router
counts it healthy, how many requests it sent there) are served on a port of their own,
``--prometheus-port``; ``RouterMetrics`` reads them.
"""

from __future__ import annotations

import importlib.util
import math
import shlex
import sys
import urllib.request
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

from servelab.engines.process import Launch, ServerProcess, ServerStartError, free_port
from servelab.engines.running import RunningServer

ROUTER_MODULE = "vllm_router.launch_router"
ROUTER_PACKAGE = "vllm_router"
# Policies the book compares; the router has more (random, power_of_two, consistent_hash, ...).
ROUND_ROBIN, CACHE_AWARE = "round_robin", "cache_aware"
# The router checks every replica's /health this often, and counts it down after this many
# failures in a row (the router's defaults are 60 s and 3: a dead replica would get requests for
# minutes).
HEALTH_INTERVAL_S = 1
HEALTH_FAILURES = 2

_HEALTH = "vllm_router_worker_health"
_PROCESSED = "vllm_router_processed_requests_total"
_RETRIES = "vllm_router_retries_total"


class RouterMissing(ServerStartError):
    """The ``vllm-router`` package is not installed."""


@dataclass(frozen=True)
class RouterMetrics:
    """One reading of the router's Prometheus page: per replica URL, whether the router counts
    it healthy and how many requests it has sent there; and its retries in all."""

    healthy: dict[str, bool]
    processed: dict[str, float]
    retries: float


def parse_router_metrics(text: str) -> RouterMetrics:
    """The router's ``/metrics`` text as :class:`RouterMetrics` (a series it lacks is empty)."""
    healthy: dict[str, bool] = {}
    processed: dict[str, float] = {}
    retries = 0.0
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            worker = sample.labels.get("worker")
            if sample.name == _HEALTH and worker:
                healthy[worker] = sample.value >= 1
            elif sample.name == _PROCESSED and worker:
                processed[worker] = processed.get(worker, 0.0) + sample.value
            elif sample.name == _RETRIES and not math.isnan(sample.value):
                retries += sample.value
    return RouterMetrics(healthy=healthy, processed=processed, retries=retries)


class Router(ServerProcess):
    """vLLM's router in front of ``replicas`` (running servers), routing by ``policy``.

    ``extra_args`` are appended to the router's command line verbatim.
    """

    engine = "vLLM router"
    health_path = "/health"

    @property
    def alive_path(self) -> str:
        """The router's /health answers 503 while any replica is counted down; /liveness
        answers as long as the router itself serves."""
        return "/liveness"

    def __init__(
        self,
        replicas: Iterable[RunningServer],
        policy: str = ROUND_ROBIN,
        *,
        health_interval_s: int = HEALTH_INTERVAL_S,
        health_failures: int = HEALTH_FAILURES,
        port: int | None = None,
        extra_args: Sequence[str] = (),
        launch: Launch | None = None,
    ) -> None:
        self.replicas = list(replicas)
        if not self.replicas:
            raise ValueError("a router needs at least one replica")
        super().__init__(port=port, launch=launch or Launch(start_timeout=120.0))
        self.model = self.replicas[0].model
        self.policy = policy
        self.health_interval_s = health_interval_s
        self.health_failures = health_failures
        self.extra_args = list(extra_args)
        self.metrics_port: int | None = None

    def router_args(self) -> list[str]:
        """The router's flags, as command-line words."""
        return [
            "--worker-urls",
            *(replica.url for replica in self.replicas),
            "--policy",
            self.policy,
            "--health-check-interval-secs",
            str(self.health_interval_s),
            "--health-failure-threshold",
            str(self.health_failures),
            # Replicas are healthy before the router starts: check them at once, not every 30 s.
            "--worker-startup-check-interval",
            "1",
            "--prometheus-host",
            self.host,
            "--prometheus-port",
            str(self.metrics_port or 29000),
            *self.extra_args,
        ]

    @property
    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            ROUTER_MODULE,
            "--host",
            self.host,
            "--port",
            str(self.shown_port),
            *self.router_args(),
        ]

    @property
    def command_line(self) -> str:
        """The command as a reader would type it: ``vllm-router --worker-urls ... --policy ...``."""
        return shlex.join(
            [
                "vllm-router",
                "--host",
                self.host,
                "--port",
                str(self.shown_port),
                *self.router_args(),
            ]
        )

    def before_start(self) -> None:
        if importlib.util.find_spec(ROUTER_PACKAGE) is None:
            raise RouterMissing(
                "vLLM's router is not installed (no module vllm_router). Install it with "
                "`python -m servelab.env router`, or `pip install` the pin in "
                "env/requirements-router.txt, and run this cell again."
            )
        down = [
            f"replica {index} ({replica!r})"
            for index, replica in enumerate(self.replicas)
            if not replica.running
        ]
        if down:
            raise ServerStartError(
                f"the router needs running replicas; not running: "
                f"{', '.join(down)}. Start them first."
            )
        self.metrics_port = free_port(None, self.host)

    @property
    def metrics_url(self) -> str:
        return f"http://{self.host}:{self.metrics_port}/metrics"

    def metrics(self, timeout: float = 5.0) -> RouterMetrics:
        """What the router's Prometheus page says now."""
        with urllib.request.urlopen(self.metrics_url, timeout=timeout) as response:
            return parse_router_metrics(response.read().decode())

    def __repr__(self) -> str:
        state = f"running on {self.url}" if self.running else "stopped"
        return f"<Router {self.policy} over {len(self.replicas)} replicas, {state}>"
