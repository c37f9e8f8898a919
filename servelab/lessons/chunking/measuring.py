"""Chapter 06's measuring (and chapter 00's): ``budget_plan``, the chunked server's budget sized
from the first server's run beside the documents; each run's figures from its records; and
``compare``, which turns each budget's runs (its servers started in turn with the other's,
``servelab.bench.in_turn``) into a row of the page's table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from servelab import tables
from servelab.bench.frames import Result
from servelab.bench.metrics import OUTPUT_TOK_S, itls_during
from servelab.bench.prefill import PrefillFit, fit_prefill
from servelab.bench.runner import run
from servelab.bench.spread import Spread
from servelab.bench.workloads import PrefillProbe, Role
from servelab.engines.running import RunningServer
from servelab.lessons.chunking.sizing import BudgetPlan, budget_for
from servelab.lessons.paging import kv


def user_gaps(result: Result) -> pd.DataFrame:
    """Every inter-token gap of the decoding users: ``request``, ``t_s`` (when the token came)
    and ``itl_ms``."""
    requests = result.requests
    users = set(requests.loc[requests["role"] == Role.USER, "request"])
    tokens = result.tokens
    gaps = tokens[tokens["request"].isin(users) & tokens["itl_s"].notna()]
    return pd.DataFrame(
        {"request": gaps["request"], "t_s": gaps["t_s"], "itl_ms": gaps["itl_s"] * 1000.0}
    ).reset_index(drop=True)


def usual_gap_ms(result: Result) -> float:
    """The users' median gap between tokens over a run (ms): the step they usually share."""
    return float(np.percentile(user_gaps(result)["itl_ms"], 50))


def alone_fit(
    server: RunningServer, long_tokens: int, repeats: int = 3, seed: int = 97
) -> tuple[PrefillFit, Spread]:
    """``bench.prefill_fit`` (prompts of an eighth of ``long_tokens`` and of ``long_tokens``,
    ``repeats`` each, sent alone after a warm-up) and the long prompts' own first tokens (ms),
    which the device model's prediction is checked against."""
    short_tokens = max(1, long_tokens // 8)
    result = run(
        server,
        PrefillProbe(short_tokens, long_tokens, repeats, seed),
        progress=False,
        metrics_interval=None,
    )
    done = result.requests[result.requests["ok"]]
    waits = {role: done.loc[done["role"] == role, "ttft_s"] for role in (Role.SHORT, Role.LONG)}
    if any(wait.empty for wait in waits.values()):
        raise RuntimeError(f"the prefill probe did not complete a prompt of each length: {result}")
    fit = fit_prefill(
        short_tokens,
        float(np.median(waits[Role.SHORT])),
        long_tokens,
        float(np.median(waits[Role.LONG])),
    )
    return fit, Spread.of(waits[Role.LONG] * 1000.0)


def budget_plan(
    server: RunningServer,
    whole: Result,
    fit: PrefillFit,
    document_tokens: int,
    *,
    pause_ms: float,
    first_budget: int,
    smallest: int,
    largest: int,
) -> BudgetPlan:
    """The chunked server's budget (:func:`~servelab.lessons.chunking.sizing.budget_for`): a step
    that carries a chunk lasts the users' usual step in ``whole``, the first server's run beside
    the documents, plus the chunk's reading at ``fit``'s rate, about ``pause_ms`` in all; in whole
    KV-cache blocks of ``server``'s engine, between ``smallest`` and ``largest``."""
    block = kv.engine_block_size(server.url)  # by the module, so the GPU contract answers it
    step_ms = usual_gap_ms(whole)
    budget = budget_for(
        fit.tok_s, pause_ms, step_ms=step_ms, smallest=smallest, largest=largest, block=block
    )
    return BudgetPlan(
        first_budget=first_budget,
        prefill_tok_s=fit.tok_s,
        pause_ms=pause_ms,
        step_ms=step_ms,
        budget=budget,
        document_tokens=document_tokens,
        block=block,
    )


def document_rows(result: Result) -> pd.DataFrame:
    """The long documents' own request rows (``Role.INTERFERER``), in the order sent."""
    requests = result.requests
    rows = requests[requests["role"] == Role.INTERFERER].sort_values("sent_s")
    if rows.empty or not bool(rows["ok"].all()):
        raise RuntimeError(f"a document's request did not complete in {result}")
    return rows


def documents_queued(rows: pd.DataFrame) -> int:
    """How many of the documents (``document_rows``) were sent before the one ahead of them had
    its first token, so that part of their wait was the queue, not their own read."""
    ready = (rows["sent_s"] + rows["ttft_s"]).to_numpy()
    sent = rows["sent_s"].to_numpy()
    return int(np.sum(sent[1:] < ready[:-1]))


def user_runs_s(result: Result) -> list[float]:
    """Each decoding user's own run, from sending its request to its last token (s)."""
    requests = result.requests
    return [float(e2e) for e2e in requests.loc[requests["role"] == Role.USER, "e2e_s"]]


def _hitches(gaps: pd.DataFrame, start: float, end: float, hitch_ms: float) -> pd.DataFrame:
    """The gaps of ``user_gaps`` at least ``hitch_ms`` long that overlap [start, end] (s)."""
    began = gaps["t_s"] - gaps["itl_ms"] / 1000.0
    return gaps[(gaps["t_s"] >= start) & (began <= end) & (gaps["itl_ms"] >= hitch_ms)]


def _per_user(hitches: pd.DataFrame) -> dict[str, float]:
    """Per user, how many hitches, and the first and the last in time (ms), as medians over
    the users who had any (NaN when none had)."""
    if hitches.empty:
        return {"count": 0.0, "first": math.nan, "last": math.nan}
    by_user = hitches.sort_values("t_s").groupby("request")["itl_ms"]
    return {
        "count": float(by_user.size().median()),
        "first": float(by_user.first().median()),
        "last": float(by_user.last().median()),
    }


def run_figures(result: Result, window_s: float, hitch_ms: float) -> dict[str, float]:
    """One run's figures. Pooled over the run, as ``vllm bench serve`` pools them: the users'
    p50 and p99 gap, and the share of all their gaps that were hitches while a document was read
    (``hitch_ms`` or longer, ``BudgetPlan.hitch_ms``). Per document, then the median over the
    run's documents: the users' longest gap and p99 gap in the same stretch after its arrival
    in every run (``window_s``, or until the next document came), its own wait for a first
    token, and while it was read the hitches each user had, the first and the last. A document
    beside which no user was decoding any more is left out. Then the users' own runs (the
    median over the users) and the documents sent before the previous one's first token."""
    gaps = user_gaps(result)
    rows = document_rows(result)
    arrivals = [float(sent) for sent in rows["sent_s"]]
    p50 = usual_gap_ms(result)
    per_document, document_hitches = [], 0
    for number, (arrival, wait) in enumerate(zip(arrivals, rows["ttft_s"], strict=True)):
        end = min([arrival + window_s, *arrivals[number + 1 : number + 2]])
        during = np.asarray(itls_during(result.records, arrival, end, role=Role.USER)) * 1000.0
        if during.size:
            reading = _hitches(gaps, arrival, arrival + float(wait), hitch_ms)
            document_hitches += len(reading)
            hitches = _per_user(reading)
            per_document.append(
                {
                    "users_longest_gap_ms": float(during.max()),
                    "itl_ms_p99_after_arrival": float(np.percentile(during, 99)),
                    "document_ttft_s": float(wait),
                    "hitches_per_document": hitches["count"],
                    "first_hitch_ms": hitches["first"],
                    "last_hitch_ms": hitches["last"],
                }
            )
    if not per_document:
        raise RuntimeError(
            f"no user was still decoding when a document arrived in {result}: "
            "give the users more tokens or send the documents sooner"
        )
    documents = pd.DataFrame(per_document)
    return {
        "users_itl_ms_p50": p50,
        "users_itl_ms_p99": float(np.percentile(gaps["itl_ms"], 99)),
        "hitch_share": document_hitches / len(gaps),
        **{key: float(documents[key].median()) for key in documents.columns.astype(str)},
        "users_output_tok_s": float(result.summary()[OUTPUT_TOK_S]),
        "users_done_s": float(np.median(user_runs_s(result))),
        "documents_queued": float(documents_queued(rows)),
    }


# The figures of a run that ``compare`` gives a range over the runs; ``documents_queued`` it adds.
RUN_SPREADS = (
    "users_itl_ms_p50",
    "users_itl_ms_p99",
    "hitch_share",
    "users_longest_gap_ms",
    "itl_ms_p99_after_arrival",
    "document_ttft_s",
    "hitches_per_document",
    "first_hitch_ms",
    "last_hitch_ms",
    "users_output_tok_s",
    "users_done_s",
)


def compare(runs: Mapping[str, Sequence[Result]], hitch_ms: float) -> pd.DataFrame:
    """One row per setting (a server's budget), from its runs (:func:`run_figures`): each figure of
    ``RUN_SPREADS`` (hitches: gaps of ``hitch_ms`` or longer) as the median over the runs with
    ``_low``, ``_high`` and ``_n`` (:class:`~servelab.bench.spread.Spread`), and
    ``documents_queued`` summed over them. The stretch after a document's arrival is the same in
    every run of every setting: until the slowest document of all got its first token."""
    documents = [document_rows(result) for results in runs.values() for result in results]
    window_s = max(float(rows["ttft_s"].max()) for rows in documents)
    table = []
    for label, results in runs.items():
        figures = pd.DataFrame([run_figures(result, window_s, hitch_ms) for result in results])
        row: dict[str, object] = {"run": label}
        for key in RUN_SPREADS:
            row |= (
                Spread.of(figures[key]).columns(key)
                if figures[key].notna().any()
                else {key: math.nan, f"{key}_low": math.nan, f"{key}_high": math.nan, f"{key}_n": 0}
            )
        row["documents_queued"] = int(figures["documents_queued"].sum())
        table.append(row)
    return pd.DataFrame(table).set_index("run")


def compare_view(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`compare`'s table as the page prints it, one row per setting: each figure as its
    median over the runs with the lowest and highest in brackets, the queued documents as a
    count."""
    return tables.spread_view(
        table,
        {
            "users_longest_gap_ms": 0,
            "itl_ms_p99_after_arrival": 0,
            "document_ttft_s": 2,
            "hitches_per_document": 0,
            "users_itl_ms_p50": 0,
            "users_itl_ms_p99": 0,
            "users_output_tok_s": 0,
            "users_done_s": 1,
        },
        {"documents_queued": 0},
    )
