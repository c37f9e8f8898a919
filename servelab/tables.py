"""Readable column names for the tables a page prints: one home for what each metric key means.

Runs report metrics under short keys (``ttft_ms_p99``, ``steady_output_tok_s``) that code reads
well and a page does not. :func:`label` turns a key into words with its unit, either from
:data:`LABELS` or, for the latency families, from its parts (``ttft`` + ``ms`` + ``p99`` reads
"first token p99 (ms)"); :func:`readable` renames a frame's columns and index with it. A key it
does not know is kept as it is, so a new metric shows up raw rather than mislabelled.
:func:`spread_view` prints a table of spreads (a median under its key, then ``_low``, ``_high``
and ``_n``, as :class:`~servelab.bench.spread.Spread` writes them) one cell per figure, and
:func:`printed` writes plain numbers the way a reader expects them (``2,016``, not ``2016.0``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import pandas as pd

from servelab.bench.metrics import (
    OUTPUT_TOK_S,
    STEADY_OUTPUT_TOK_S,
    STEADY_USER_TOK_S,
    USER_TOK_S,
)
from servelab.bench.spread import Spread

LABELS: dict[str, str] = {
    "concurrency": "users",
    "completed": "completed requests",
    "failed": "failed requests",
    "duration_s": "duration (s)",
    "request_per_s": "requests/s",
    "rate": "arrival rate (req/s)",
    OUTPUT_TOK_S: "output (tok/s)",
    "total_tok_s": "prompt + output (tok/s)",
    USER_TOK_S: "each user's speed (tok/s)",
    STEADY_OUTPUT_TOK_S: "steady output (tok/s)",
    STEADY_USER_TOK_S: "steady speed per user (tok/s)",
    "goodput_req_s": "goodput (req/s)",
    "served_req_s": "finished, middle (req/s)",
    "offered_tok_s": "offered (tok/s)",
    "beyond_peak": "offered above the peak output",
    "slo_attainment": "share meeting the SLO",
    "waiting_max": "most waiting",
    "running_max": "most running",
    # chapter 07: the mixed traffic, each part read where it ran
    "chat_ttft_ms_p99": "chat: first token p99 (ms)",
    "chat_tpot_ms_p50": "chat: time per output token p50 (ms)",
    "chat_within_slo": "chat: share meeting the SLO",
    "batch_job_s": "job: finished after (s)",
    "batch_output_tok_s": "job: output (tok/s)",
    "setup": "set-up",
    "kv_cache_usage_max": "peak KV cache use",
    # chapters 00 and 04: one request at a time, its prompt split by where the tokens came from
    "ttft_ms": "first token (ms)",
    "computed": "prompt tokens computed",
    "from cache": "prompt tokens from cache",
    # chapter 00 (and 06): decoding users beside a long document, medians over the runs
    "users_itl_ms_p50": "users' gap between tokens p50 (ms)",
    "users_itl_ms_p99": "users' gap between tokens p99 (ms)",
    "users_longest_gap_ms": "users' longest pause (ms)",
    "itl_ms_p99_after_arrival": "gap p99 after a document arrived (ms)",
    "document_ttft_s": "document's first token (s)",
    "users_output_tok_s": "users' output (tok/s)",
    "users_done_s": "a user's own run (s)",
    "documents_queued": "documents sent before the previous one's first token",
    "hitches_per_document": "a user's hitches while a document was read",
    # chapters 03 and 05: the cache's size and what it holds
    "kv_cache_gib": "KV cache (GiB)",
    "kv_tokens": "KV cache (tokens)",
    "kv_cache_tokens": "KV cache (tokens)",
    "engine_reported_tokens": "engine's count (tokens)",
    # chapter 05: latency counted from the request's arrival, which includes its time queued
    "served_s_p99": "sent → last token p99 (s)",
    "latency_s_p50": "arrival → last token p50 (s)",
    "latency_s_p99": "arrival → last token p99 (s)",
    "server_running_max": "most running",
    "queued": "waited for a slot",
    "one_user_tok_s": "one user's speed (tok/s)",
    "many_users_output_tok_s": "output, many users (tok/s)",
    # chapter 08: what each engine takes on disk, and its runs side by side
    "file_mb": "file (MB)",
    "bits_per_weight": "bits per weight",
    "packages_mb": "packages (MB)",
    "model_files_mb": "model files (MB)",
    "tokens_per_request": "output tokens per request",
    "max_in_flight": "most requests in flight",
    "start_s": "server start (s)",
    "max_num_seqs": "max_num_seqs",
    "max_num_batched_tokens": "max_num_batched_tokens",
    "max_model_len": "max_model_len",
    "tensor_parallel_size": "tensor_parallel_size",
}

_FAMILIES = {
    "ttft": "first token",
    "tpot": "time per output token",
    "itl": "gap between tokens",
    "e2e": "whole request",
}
_LATENCY = re.compile(r"^(?P<family>[a-z0-9]+)_(?P<unit>ms|s)_(?P<stat>p\d+|mean|median|max|min)$")


def label(key: str) -> str:
    """Words and unit for a metric key; the key itself when it is not a known one."""
    if key in LABELS:
        return LABELS[key]
    match = _LATENCY.match(key)
    if match and match["family"] in _FAMILIES:
        return f"{_FAMILIES[match['family']]} {match['stat']} ({match['unit']})"
    return key


def readable(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its column names and index name(s) put into words (a copy)."""
    renamed = frame.rename(columns=lambda key: label(key) if isinstance(key, str) else key)
    return renamed.rename_axis(index=lambda name: label(name) if isinstance(name, str) else name)


def spread_view(
    table: pd.DataFrame, spreads: Mapping[str, int], medians: Mapping[str, int] | None = None
) -> pd.DataFrame:
    """What the page prints of a table of spreads: each key of ``spreads`` as its median with
    the range in brackets, each of ``medians`` as a number alone, both written to the digits
    given (``30,000``, not ``30000.0``)."""
    view = pd.DataFrame(index=table.index)
    for key, digits in spreads.items():
        view[key] = [Spread.in_row(row, key).with_range(digits) for _, row in table.iterrows()]
    for key, digits in (medians or {}).items():
        view[key] = [f"{value:,.{digits}f}" for value in table[key]]
    return view


MISSING = "—"  # what a table prints where a run did not measure a figure


def printed(frame: pd.DataFrame, digits: Mapping[str, int] | None = None) -> pd.DataFrame:
    """``frame`` as the page prints it: every numeric column written to its ``digits`` (none
    where not named), thousands marked, and a value the run did not measure as ``MISSING``."""
    view = frame.copy()
    for key in frame.select_dtypes("number").columns:
        places = (digits or {}).get(key, 0)
        view[key] = [MISSING if pd.isna(value) else f"{value:,.{places}f}" for value in frame[key]]
    return view
