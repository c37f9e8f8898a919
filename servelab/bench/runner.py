"""Running a workload against a server: the synchronous entry point and its asyncio core.

``run`` works the same in a script and in Jupyter (whose kernel already runs an event loop): the
run always gets its own event loop in a worker thread, and the calling thread waits for it.

- Every run has a time limit; when it is reached the run stops and keeps what it measured.
- Ctrl-C (or the notebook's interrupt) stops the run and returns the partial result.
- A server that dies mid-run ends it with :class:`ServerDiedError`, which carries the partial
  result as ``error.result``.
- Runs longer than a couple of seconds show a progress bar (requests finished). Where bars are
  off (``TQDM_DISABLE=1``, as in the book build: ``servelab.progress``) the run prints the line
  its finished bar would show instead (requests finished, time, rate), so a built page still
  shows what each run did.
"""

from __future__ import annotations

import asyncio
import gc
import secrets
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import httpx
from openai import AsyncOpenAI, DefaultAsyncHttpxClient
from tqdm.auto import tqdm

from servelab.bench.client import PlannedRequest, RequestRecord, stream_request
from servelab.bench.frames import Result
from servelab.bench.metrics import check_slo
from servelab.bench.prompts import PromptSource, ServerPrompts
from servelab.bench.server_metrics import MetricsSampler
from servelab.bench.workloads import Workload, isolated
from servelab.engines.running import RunningServer
from servelab.progress import DELAY_S, bars_shown

DEFAULT_TIME_LIMIT_S = 300.0
# Each /metrics scrape costs vLLM's API server time it would spend streaming tokens; on a busy
# 2-core machine scraping every 0.5 s put 1-2 s stalls into ITL p99. Every 2 s it does not.
DEFAULT_METRICS_INTERVAL_S = 2.0
WATCH_INTERVAL_S = 0.5
HEALTH_TIMEOUT_S = 2.0
CONNECTION_ERRORS = ("APIConnectionError", "APITimeoutError", "RemoteProtocolError", "ReadError")


class ServerDiedError(RuntimeError):
    """The server stopped during a run. ``result`` holds what was measured until then."""

    def __init__(self, message: str, result: Result) -> None:
        super().__init__(message)
        self.result = result


@dataclass(frozen=True)
class Target:
    """Where requests go. Built from a ``servelab.Server`` (or anything with ``url`` and
    ``model``; ``alive_path``, ``running`` and ``log_tail()`` are used when present)."""

    url: str
    model: str
    alive_path: str
    is_running: Callable[[], bool]
    describe_death: Callable[[], str]
    label: str

    @property
    def base_url(self) -> str:
        return self.url.rstrip("/") + "/v1"

    @classmethod
    def of(cls, server: RunningServer) -> Target:
        for needed in ("url", "model"):
            if not hasattr(server, needed):
                raise TypeError(f"expected a servelab.Server, got {server!r} (no .{needed})")
        if getattr(server, "running", True) is False:
            raise RuntimeError(f"{server!r} is not running: start it (or use `with Server(...)`)")

        def is_running() -> bool:
            return bool(getattr(server, "running", True))

        def describe_death() -> str:
            tail = server.log_tail() if hasattr(server, "log_tail") else ""
            return f"The server's log ends with:\n{tail}" if tail else ""

        return cls(
            url=server.url,
            model=server.model,
            alive_path=getattr(server, "alive_path", "/health"),
            is_running=is_running,
            describe_death=describe_death,
            label=repr(server),
        )


class _Run:
    """One run's asyncio side: sends, records, samples /metrics, watches the server."""

    def __init__(
        self,
        target: Target,
        workload: Workload,
        plan: list[PlannedRequest],
        endpoint: str,
        time_limit: float,
        metrics_interval: float | None,
        progress: bool,
    ) -> None:
        self.target = target
        self.workload = workload
        self.plan = plan
        self.endpoint = endpoint
        self.time_limit = time_limit
        self.metrics_interval = metrics_interval
        self.progress = bars_shown(progress)
        self.records: list[RequestRecord] = []
        self.clock_zero = time.perf_counter()
        self.client: AsyncOpenAI | None = None
        self.bar: tqdm | None = None
        self.server_died = False
        self.sampler: MetricsSampler | None = None
        self.main_task: asyncio.Task | None = None

    def now(self) -> float:
        return time.perf_counter() - self.clock_zero

    async def send(self, planned: PlannedRequest) -> RequestRecord:
        record = RequestRecord(planned)
        self.records.append(record)
        assert self.client is not None, "send() runs inside main(), which makes the client"
        await stream_request(self.client, self.target.model, record, self.clock_zero, self.endpoint)
        if self.bar is not None:
            self.bar.update(1)
        if record.error and record.error.startswith(CONNECTION_ERRORS):
            await self._end_if_server_gone()
        return record

    async def _end_if_server_gone(self) -> None:
        """A refused or broken connection: if the server no longer answers its alive path, it
        is gone (perhaps still shutting down, so its process may yet look alive): end the run."""
        try:
            async with httpx.AsyncClient(timeout=HEALTH_TIMEOUT_S) as client:
                answer = await client.get(self.target.url + self.target.alive_path)
                healthy = answer.status_code == 200
        except httpx.HTTPError:
            healthy = False
        if not healthy and self.main_task is not None:
            self.server_died = True
            self.main_task.cancel()

    async def _watch_server(self, main: asyncio.Task) -> None:
        while self.target.is_running():
            await asyncio.sleep(WATCH_INTERVAL_S)
        self.server_died = True
        main.cancel()

    async def main(self) -> tuple[str, float]:
        """Drive the workload; returns (status, duration)."""
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
        # No retries: a retried request would be timed from its first attempt.
        self.client = AsyncOpenAI(
            base_url=self.target.base_url,
            api_key="servelab",
            max_retries=0,
            timeout=self.time_limit,
            # openai 3 types this as its httpx2 fork's Limits; the
            # client reads either package's Limits by attribute.
            http_client=DefaultAsyncHttpxClient(limits=limits),  # type: ignore[arg-type]
        )
        self.bar = tqdm(
            total=len(self.plan),
            desc=self.workload.name,
            unit="req",
            delay=DELAY_S,
            disable=not self.progress,
        )
        helpers = []
        if self.metrics_interval:
            self.sampler = MetricsSampler(self.target.url, self.clock_zero, self.metrics_interval)
            helpers.append(asyncio.create_task(self.sampler.run()))
        self.main_task = main_task = asyncio.current_task()
        assert main_task is not None, "main() runs as a task"
        helpers.append(asyncio.create_task(self._watch_server(main_task)))
        self.clock_zero = time.perf_counter()
        if self.sampler is not None:
            self.sampler.clock_zero = self.clock_zero
        status = "complete"
        try:
            async with asyncio.timeout(self.time_limit):
                await self.workload.drive(self, self.plan)
        except TimeoutError:
            status = "time limit"
        except asyncio.CancelledError:
            status = "server died" if self.server_died else "interrupted"
        duration = self.now()
        for helper in helpers:
            helper.cancel()
        await asyncio.gather(*helpers, return_exceptions=True)
        self.bar.close()
        await self.client.close()
        return status, duration


def _finish_pending(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what a run leaves behind (an HTTP stream's clean-up, say) and let it end, as
    ``asyncio.run`` does, so that closing the loop warns of no destroyed pending task."""
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.run_until_complete(loop.shutdown_asyncgens())


@dataclass
class _Outcome:
    """What the worker thread of ``_in_own_loop`` hands back to the calling thread."""

    run: _Run | None = None
    loop: asyncio.AbstractEventLoop | None = None
    task: asyncio.Task[tuple[str, float]] | None = None
    value: tuple[str, float] | None = None
    error: BaseException | None = None


def _in_own_loop(make: Callable[[], _Run]) -> tuple[_Run, str, float]:
    """Run ``_Run.main`` on a new event loop in a worker thread; Ctrl-C in the calling thread
    cancels it, and the partial result still comes back."""
    started, finished = threading.Event(), threading.Event()
    box = _Outcome()

    def worker() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            run = make()
            task = loop.create_task(run.main())
            box.run, box.loop, box.task = run, loop, task
            started.set()
            box.value = loop.run_until_complete(task)
        except BaseException as error:  # handed to the calling thread
            box.error = error
        finally:
            _finish_pending(loop)
            loop.close()
            started.set()
            finished.set()

    threading.Thread(target=worker, name="servelab-bench", daemon=True).start()
    started.wait()
    # Wait on an Event, not Thread.join: a KeyboardInterrupt inside join() can leave the
    # thread looking finished while it still runs (fixed only in later Pythons).
    while not finished.is_set():
        try:
            finished.wait(0.1)
        except KeyboardInterrupt:
            if box.loop is not None and box.task is not None and not box.loop.is_closed():
                box.loop.call_soon_threadsafe(box.task.cancel)
    if box.error is not None:
        raise box.error
    assert box.run is not None and box.value is not None, "the worker ended without a result"
    status, duration = box.value
    return box.run, status, duration


def final_line(name: str, records: list[RequestRecord], duration_s: float) -> str:
    """What a finished progress bar would say: requests finished, time, rate."""
    done = sum(record.ok for record in records)
    rate = done / duration_s if duration_s > 0 else float("nan")
    return f"{name}: {done}/{len(records)} req in {duration_s:.1f} s ({rate:.2f} req/s)"


def _plan(workload: Workload, target: Target, prompts: PromptSource | None) -> list[PlannedRequest]:
    """The workload's requests, each with a cache salt of the run's own unless the workload
    reuses the cache; a server that died while the prompts were made says so."""
    try:
        plan = workload.plan(prompts or ServerPrompts(target.url, target.model))
    except OSError as error:
        if target.is_running():
            raise
        raise ServerDiedError(
            f"The server stopped while the {workload.name} run was preparing its prompts; "
            f"nothing was sent.\n{target.describe_death()}",
            Result(workload=workload, records=[], duration_s=0.0, status="server died"),
        ) from error
    if not plan:
        raise ValueError(f"{workload!r} plans no requests")
    if not getattr(workload, "reuses_cache", False):
        plan = isolated(plan, secrets.token_hex(8))
    return plan


def run(
    server: RunningServer,
    workload: Workload,
    *,
    endpoint: str = "completions",
    time_limit: float = DEFAULT_TIME_LIMIT_S,
    slo: Mapping[str, float] | None = None,
    metrics_interval: float | None = DEFAULT_METRICS_INTERVAL_S,
    progress: bool = True,
    prompts: PromptSource | None = None,
) -> Result:
    """Run ``workload`` against ``server`` and return its :class:`Result`.

    ``slo`` gives goodput limits in ms, e.g. ``{"ttft": 500, "tpot": 100}`` (keys ttft, tpot,
    e2e). ``metrics_interval`` is the /metrics sampling period in s (None: no sampling).
    """
    if time_limit <= 0:
        raise ValueError(f"time_limit must be positive seconds, not {time_limit}")
    if endpoint not in ("completions", "chat"):
        raise ValueError(f"endpoint must be 'completions' or 'chat', not {endpoint!r}")
    slo = check_slo(slo)
    target = Target.of(server)
    plan = _plan(workload, target, prompts)

    def make() -> _Run:
        return _Run(target, workload, plan, endpoint, time_limit, metrics_interval, progress)

    # As vLLM's benchmark does: keep the collector from pausing the client mid-stream to scan
    # objects that existed before the run (such pauses show up as ITL outliers).
    gc.collect()
    gc.freeze()
    try:
        state, status, duration = _in_own_loop(make)
    finally:
        gc.unfreeze()
    result = Result(
        workload=workload,
        records=state.records,
        duration_s=duration,
        server_rows=state.sampler.rows if state.sampler else [],
        status=status,
        slo=slo,
        endpoint=endpoint,
        server_label=target.label,
    )
    if progress and not bars_shown(progress) and not all(r.ok for r in state.records):
        # Where bars are off (a built page), a run whose every request finished says nothing:
        # the page states its numbers. One that lost requests says so.
        print(final_line(workload.name, state.records, duration), flush=True)
    if status == "server died":
        result.note = "the server stopped during the run"
        raise ServerDiedError(
            f"The server stopped during the {workload.name} run after {duration:.1f} s; "
            f"{sum(r.ok for r in state.records)} requests had finished. The partial result "
            f"is in this error's .result.\n{target.describe_death()}",
            result,
        )
    if status == "time limit":
        result.note = f"stopped at the {time_limit:.0f} s time limit"
        warnings.warn(f"{workload.name}: {result.note}; the result is partial", stacklevel=2)
    elif status == "interrupted":
        result.note = "interrupted; the result is partial"
        warnings.warn(f"{workload.name}: {result.note}", stacklevel=2)
    return result
