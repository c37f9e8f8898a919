"""servelab.bench: measure a running vLLM server the way ``vllm bench serve`` does.

Every function takes a running server first (a ``servelab.engines.running.RunningServer``: a
``servelab.Server``, a ``LlamaCppServer`` or a ``Router``) and returns a :class:`Result`
(``result.requests``, ``result.tokens``, ``result.server`` DataFrames; ``result.summary()``
dict of numbers; ``print(result)`` one line). Keyword arguments not listed go to :func:`run`
(``RunOptions``: ``time_limit``, ``slo``, ``endpoint``, ``metrics_interval``, ``progress``,
``prompts``).

Workloads (all with fixed output lengths, ``ignore_eos`` + ``max_tokens``, and seeded prompts of
exact token lengths)::

    closed_loop(server, users=8, requests_per_user=2, input_tokens=64, max_tokens=64)
    open_loop(server, rate=4.0, num_requests=32, ...)               # Poisson arrivals, req/s
    static_batching(server, batch_size=16, num_requests=96, short_tokens=(4, 32),
                    long_tokens=(128, 192), long_share=0.125,
                    continuous=False)                               # waves vs continuous
    shared_prefix(server, prefix_tokens=2000, users=4, reuse_cache=True)
    interferer(server, users=8, document_tokens=2000, arrival=2.0,
               documents=1, spacing=0.0)                        # long prompts mid-decode
    parallel_sampling(server, n=4, max_tokens=64)

Throughput comes two ways (both defined in ``servelab.bench.metrics``): ``output_tok_s`` over
the whole run, and ``steady_output_tok_s`` inside the window in which every user is decoding.

Sweeps return one DataFrame row per level (the ``summary()`` columns)::

    sweep_concurrency(server, [1, 2, 4, 8, 16, 32], requests_per_user=2, max_tokens=64)
    sweep_rate(server, [1, 2, 4, 8], num_requests=32, max_tokens=64)

Before a measurement, ``warm_up(server)`` sends one short request that is not measured.

Also: ``run(server, workload)`` for any workload dataclass of ``servelab.bench.workloads``;
``prefill_fit(server, long_tokens)`` for the prefill rate apart from each request's fixed cost;
``device_limits(server)`` for the device's bandwidth and matrix-multiply rate (before the server
starts); ``ceiling(server, measured_tok_s)`` for the memory-bandwidth ceiling of one stream;
``ServerDiedError`` (partial result in ``.result``); ``spread.Spread`` for a figure measured
several times (median, range) and whether two differ beyond their ranges. Plots are in
``servelab.plots``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Unpack

import pandas as pd

from servelab.bench.bandwidth import (
    Ceiling,
    DeviceLimits,
    ceiling,
    device_limits,
    measure_bandwidth,
    parameter_count,
    weight_bytes,
)
from servelab.bench.frames import Result
from servelab.bench.metrics import (
    OUTPUT_TOK_S,
    STEADY_OUTPUT_TOK_S,
    STEADY_USER_TOK_S,
    USER_TOK_S,
)
from servelab.bench.options import RunOptions
from servelab.bench.prefill import PrefillFit, prefill_fit
from servelab.bench.runner import ServerDiedError, run
from servelab.bench.spread import spread_table
from servelab.bench.workloads import (
    ClosedLoop,
    Interferer,
    MixedLengths,
    MixedTraffic,
    OpenLoop,
    ParallelSampling,
    PrefillProbe,
    Role,
    SharedPrefix,
    StaticBatching,
)
from servelab.engines.running import RunningServer
from servelab.progress import bars_shown

# Prompts of no measured run come from this seed.
WARM_UP_SEED = 99


def closed_loop(
    server: RunningServer,
    users: int,
    requests_per_user: int = 1,
    input_tokens: int = 64,
    max_tokens: int = 64,
    seed: int = 0,
    **options: Unpack[RunOptions],
) -> Result:
    """``users`` users sending requests back to back: concurrency = users."""
    return run(
        server,
        ClosedLoop(
            users, requests_per_user, input_tokens=input_tokens, max_tokens=max_tokens, seed=seed
        ),
        **options,
    )


def open_loop(
    server: RunningServer,
    rate: float,
    num_requests: int = 32,
    input_tokens: int = 64,
    max_tokens: int = 64,
    max_concurrency: int | None = None,
    seed: int = 0,
    **options: Unpack[RunOptions],
) -> Result:
    """Poisson arrivals at ``rate`` requests/s, whether or not earlier requests are done."""
    workload = OpenLoop(
        rate,
        num_requests,
        max_concurrency,
        input_tokens=input_tokens,
        max_tokens=max_tokens,
        seed=seed,
    )
    return run(server, workload, **options)


def static_batching(
    server: RunningServer,
    batch_size: int,
    num_requests: int = 96,
    input_tokens: int = 32,
    short_tokens: tuple[int, int] = (4, 32),
    long_tokens: tuple[int, int] = (128, 192),
    long_share: float = 0.125,
    continuous: bool = False,
    seed: int = 0,
    **options: Unpack[RunOptions],
) -> Result:
    """Waves of ``batch_size``; ``continuous=True`` sends the same requests without waves.
    Answers are mostly short, a ``long_share`` of them long (lengths in tokens, inclusive)."""
    workload = StaticBatching(
        batch_size,
        num_requests,
        input_tokens,
        short_tokens,
        long_tokens,
        long_share,
        continuous,
        seed,
    )
    return run(server, workload, **options)


def shared_prefix(
    server: RunningServer,
    prefix_tokens: int,
    users: int = 4,
    requests_per_user: int = 2,
    question_tokens: int = 16,
    max_tokens: int = 16,
    reuse_cache: bool = True,
    seed: int = 0,
    **options: Unpack[RunOptions],
) -> Result:
    """A shared system prompt of exactly ``prefix_tokens`` tokens before distinct questions."""
    workload = SharedPrefix(
        prefix_tokens, users, requests_per_user, question_tokens, max_tokens, reuse_cache, seed
    )
    return run(server, workload, **options)


def interferer(
    server: RunningServer,
    users: int = 8,
    user_max_tokens: int = 256,
    document_tokens: int = 2000,
    arrival: float = 2.0,
    input_tokens: int = 32,
    seed: int = 0,
    documents: int = 1,
    spacing: float = 0.0,
    **options: Unpack[RunOptions],
) -> Result:
    """``users`` decode while a ``document_tokens``-token prompt arrives at ``arrival`` s (and
    ``documents - 1`` more, ``spacing`` s apart)."""
    background = ClosedLoop(users, input_tokens=input_tokens, max_tokens=user_max_tokens, seed=seed)
    workload = Interferer(
        background,
        document_tokens=document_tokens,
        arrival=arrival,
        documents=documents,
        spacing=spacing,
    )
    return run(server, workload, **options)


def parallel_sampling(
    server: RunningServer,
    n: int,
    requests: int = 1,
    input_tokens: int = 64,
    max_tokens: int = 64,
    seed: int = 0,
    **options: Unpack[RunOptions],
) -> Result:
    """``n`` samples of one prompt per request (vLLM's ``n``)."""
    workload = ParallelSampling(
        n, requests, input_tokens=input_tokens, max_tokens=max_tokens, seed=seed
    )
    return run(server, workload, **options)


def warm_up(server: RunningServer) -> None:
    """One short request, not measured: a fresh engine pays one-off costs (first batches,
    allocations, the client's first connection) that would otherwise land in the first run."""
    closed_loop(
        server, users=1, max_tokens=4, seed=WARM_UP_SEED, metrics_interval=None, progress=False
    )


# The figures of a concurrency sweep that pages compare, so each gets its range beside its median.
SWEEP_SPREADS = (OUTPUT_TOK_S, STEADY_OUTPUT_TOK_S, USER_TOK_S, STEADY_USER_TOK_S)


def sweep_runs(
    server: RunningServer,
    levels: list[int],
    requests_per_user: int = 2,
    input_tokens: int = 64,
    max_tokens: int = 64,
    seed: int = 0,
    repeats: int = 1,
    **options: Unpack[RunOptions],
) -> dict[int, list[Result]]:
    """A closed loop at each concurrency in ``levels``, the whole sweep ``repeats`` times: the
    runs by level, in pass order. Every pass takes the levels in turn (so a shared machine's
    drift spreads over all of them) with its own seed. Where progress bars are off (a built
    page, ``servelab.progress``) the sweep prints one line at its end, not one per run or pass:
    each level's output in every pass."""
    asked = options.get("progress", True)
    per_run: RunOptions = {**options, "progress": bars_shown(asked)}
    runs: dict[int, list[Result]] = {users: [] for users in levels}
    for number in range(repeats):
        for users in levels:
            runs[users].append(
                closed_loop(
                    server,
                    users,
                    requests_per_user,
                    input_tokens,
                    max_tokens,
                    seed + number,
                    **per_run,
                )
            )
    if asked and not bars_shown(asked):
        totals = ", ".join(
            f"{users} × " + " / ".join(f"{run.summary()[OUTPUT_TOK_S]:,.0f}" for run in runs[users])
            for users in levels
        )
        print(
            f"sweep of {repeats} pass{'es' if repeats != 1 else ''}, users × output tok/s by "
            f"pass: {totals}"
        )
    return runs


def sweep_table(runs: Mapping[int, Sequence[Result]]) -> pd.DataFrame:
    """One row per level: the median of every figure over its runs, and beside each of
    ``SWEEP_SPREADS`` its lowest, highest and count (``Spread`` columns)."""
    frame = pd.DataFrame(
        [
            {"concurrency": users, **result.row()}
            for users, results in runs.items()
            for result in results
        ]
    )
    return spread_table(frame, "concurrency", SWEEP_SPREADS)


def sweep_concurrency(
    server: RunningServer,
    levels: list[int],
    requests_per_user: int = 2,
    input_tokens: int = 64,
    max_tokens: int = 64,
    seed: int = 0,
    repeats: int = 1,
    **options: Unpack[RunOptions],
) -> pd.DataFrame:
    """:func:`sweep_table` of :func:`sweep_runs`: one row per level."""
    return sweep_table(
        sweep_runs(
            server, levels, requests_per_user, input_tokens, max_tokens, seed, repeats, **options
        )
    )


def sweep_rate(
    server: RunningServer,
    rates: list[float],
    num_requests: int = 32,
    input_tokens: int = 64,
    max_tokens: int = 64,
    seed: int = 0,
    **options: Unpack[RunOptions],
) -> pd.DataFrame:
    """An open loop at each arrival rate in ``rates`` (req/s): one row per rate."""
    rows = []
    for rate in rates:
        result = open_loop(
            server, rate, num_requests, input_tokens, max_tokens, seed=seed, **options
        )
        rows.append({"rate": rate, **result.row()})
    return pd.DataFrame(rows)


__all__ = [
    "Ceiling",
    "ClosedLoop",
    "DeviceLimits",
    "Interferer",
    "MixedLengths",
    "MixedTraffic",
    "OpenLoop",
    "ParallelSampling",
    "PrefillFit",
    "PrefillProbe",
    "Result",
    "Role",
    "RunOptions",
    "ServerDiedError",
    "SharedPrefix",
    "StaticBatching",
    "ceiling",
    "closed_loop",
    "device_limits",
    "interferer",
    "measure_bandwidth",
    "open_loop",
    "parallel_sampling",
    "parameter_count",
    "prefill_fit",
    "run",
    "shared_prefix",
    "static_batching",
    "sweep_concurrency",
    "sweep_rate",
    "sweep_runs",
    "sweep_table",
    "warm_up",
    "weight_bytes",
]
