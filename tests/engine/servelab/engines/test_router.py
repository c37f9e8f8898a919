"""vLLM's router in front of two real vLLM replicas (the offline model, loopback only, bounded
requests): both serve under round robin, the cache-aware policy keeps a tenant on one replica
and finds more cached, a killed replica stops costing requests within a bounded time, and no
process outlives any way out."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from servelab.bench.prompts import ServerPrompts
from servelab.bench.workloads import Tenants
from servelab.engines.process import _group_alive
from servelab.engines.replicas import Replicas
from servelab.engines.router import CACHE_AWARE, ROUND_ROBIN, Router
from servelab.lessons.past_one_machine.measuring import measure_policies

pytestmark = [pytest.mark.engine, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def replicas() -> Iterator[Replicas]:
    group = Replicas(max_model_len=1024, kv_cache_gib=1.0, enable_prefix_caching=True).start()
    yield group
    pids = [server.pid for server in group]
    group.stop()
    assert not any(_group_alive(pid) for pid in pids), "a replica outlived stop()"


def _complete(url: str, model: str, prompt: str, timeout: float = 30.0) -> int:
    body = json.dumps({"model": model, "prompt": prompt, "max_tokens": 2}).encode()
    request = urllib.request.Request(
        url + "/v1/completions", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.status


def test_round_robin_uses_both_and_cache_aware_keeps_each_tenant_on_one(replicas):
    # Seed 3 puts every tenant's requests at odd and even places of the order, so a rotation
    # over two replicas cannot keep any tenant on one of them.
    tenants = Tenants(3, 4, prefix_tokens=256, max_tokens=2, rate=4.0, seed=3)
    prompts = ServerPrompts(replicas[0].url, replicas.model)
    runs, warm = measure_policies(replicas, (ROUND_ROBIN, CACHE_AWARE), tenants, prompts, repeats=1)
    spreading, following = runs[ROUND_ROBIN][0], runs[CACHE_AWARE][0]
    assert "--policy round_robin" in spreading.command_line
    assert spreading.summary["completed"] == 12
    assert (spreading.spread.sum(axis=0) > 0).all(), spreading.spread
    assert spreading.spread.to_numpy().sum() == 12  # every request found in a replica's log
    assert spreading.kept_together < 1.0, spreading.spread
    assert following.kept_together >= 0.75, following.spread
    assert following.kept_together > spreading.kept_together
    assert following.hit_rate > spreading.hit_rate, (following, spreading)
    # the warm pass: the cold pass's salt, its own ids, every prompt still cached under
    # cache_aware (one replica's cache holds a tenant's 256 tokens), so a higher hit rate
    again = warm[CACHE_AWARE][0]
    assert again.spread.to_numpy().sum() == 12 and again.hit_rate > following.hit_rate


def test_an_exception_inside_the_block_stops_the_router(replicas):
    with pytest.raises(RuntimeError, match="a reader's mistake"):
        with Router(replicas) as router:
            pid = router.pid
            raise RuntimeError("a reader's mistake")
    assert not router.running and not _group_alive(pid)


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_after_a_replica_is_killed_new_requests_succeed_within_a_bounded_time(replicas):
    victim = replicas[1]
    with Router(replicas, policy=ROUND_ROBIN) as router:
        assert _complete(router.url, replicas.model, "Hello") == 200
        victim.kill()
        assert not victim.running and not _group_alive(victim.pid)
        killed = time.monotonic()
        outcomes: list[tuple[float, bool]] = []
        while time.monotonic() - killed < 12.0:
            try:
                ok = _complete(router.url, replicas.model, "Hello again") == 200
            except OSError:
                ok = False
            outcomes.append((time.monotonic() - killed, ok))
            time.sleep(0.2)
        down = not router.metrics().healthy.get(victim.url, True)
        answers = (_status(router.url + router.alive_path), _status(router.url + "/health"))
    failed_after = [at for at, ok in outcomes if not ok]
    last_failure = max(failed_after, default=0.0)
    assert last_failure < 6.0, outcomes  # health check every 1 s, down after 2 failures
    assert sum(ok for _, ok in outcomes) >= len(outcomes) - 5
    assert down, "the router still counts the killed replica healthy"
    # A run through the router ends as "server died" when its alive path stops answering: that
    # must be /liveness, since the router's /health answers 503 while a replica is down.
    assert answers == (200, 503), answers


@pytest.mark.tooling
def test_a_router_dies_with_the_kernel_that_started_it(tmp_path):
    """A kernel killed with SIGKILL cannot run clean-up code: the router's process must end by
    itself (``PR_SET_PDEATHSIG``). Its worker here is a stand-in that answers /health; the
    router is the real binary."""
    script = tmp_path / "kernel.py"
    script.write_text(
        textwrap.dedent("""
        import http.server, sys, threading
        from servelab.engines.router import Router

        class Healthy(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200); self.end_headers(); self.wfile.write(b"{}")
            def log_message(self, *args):
                pass

        worker = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Healthy)
        threading.Thread(target=worker.serve_forever, daemon=True).start()

        class Worker:
            url, running, model = f"http://127.0.0.1:{worker.server_port}", True, "m"

        router = Router([Worker()]).start()
        print(router.pid, flush=True)
        threading.Event().wait()
    """)
    )
    kernel = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        router_pid = int(kernel.stdout.readline())
        assert _group_alive(router_pid)
        kernel.send_signal(signal.SIGKILL)
        kernel.wait(timeout=10)
        deadline = time.monotonic() + 15
        while _group_alive(router_pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _group_alive(router_pid), "the router outlived its kernel"
    finally:
        kernel.kill()
