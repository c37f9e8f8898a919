"""A run's results: the raw records, and pandas DataFrames with documented columns.

``Result.requests`` — one row per request (times in seconds after the run started):
    request, user, role, n, max_tokens      what was asked (``role``: a ``Role``'s string)
    prompt_tokens, output_tokens            counted by the server (usage); output over all n samples
    queued_s      when the request arrived (its planned arrival; closed loop: when sent)
    sent_s, first_token_s, end_s            send, first token, last token
    closed_s      when the stream was fully read (after the usage chunk)
    waiting_s     sent − queued: time held on the client (waves, concurrency caps)
    ttft_s, e2e_s, tpot_s, decode_s         first-token latency, end-to-end, per output token
                                            after the first, end − first token
    itl_count     number of inter-token gaps; ok; error (text, or None)

``Result.tokens`` — one row per streamed token:
    request, sample (0..n-1), position (0-based within its sample), t_s, itl_s (NaN for the first)

``Result.summary()`` — the metrics of ``servelab.bench.metrics`` (whole-run and steady-state
throughput, latency percentiles) plus ``max_in_flight``, ``idle_slot_share`` (and the share of
that idle time after the last send, ``idle_after_last_send``), an open-loop run's middle
(``servelab.bench.middle``) and what the server counted: every
value a number. ``Result.row()`` is that summary after the run's ``workload`` and ``status``, one
row of a sweep's frame.

``Result.server`` — one row per ``/metrics`` sample: ``t_s``, ``scrape_s`` (the server's answer
time) and the columns of ``server_metrics.SERIES``: running, waiting (requests), kv_cache_usage
(fraction 0..1), and the counters prefix_cache_queries, prefix_cache_hits (tokens), preemptions,
prompt_tokens, generation_tokens (cumulative since the server started).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from servelab.bench import metrics
from servelab.bench.client import RequestRecord
from servelab.bench.middle import middle
from servelab.bench.server_metrics import COUNTERS, SERIES
from servelab.bench.workloads import Role, Workload

REQUEST_COLUMNS = [
    "request",
    "user",
    "role",
    "n",
    "max_tokens",
    "prompt_tokens",
    "output_tokens",
    "queued_s",
    "sent_s",
    "first_token_s",
    "end_s",
    "closed_s",
    "waiting_s",
    "ttft_s",
    "e2e_s",
    "tpot_s",
    "decode_s",
    "itl_count",
    "ok",
    "error",
]
TOKEN_COLUMNS = ["request", "sample", "position", "t_s", "itl_s"]
SERVER_COLUMNS = ["t_s", "scrape_s", *SERIES]


@dataclass
class Result:
    """Everything one run measured. ``status`` is "complete", "time limit", "interrupted" or
    "server died"; ``note`` says more when a run ended early. ``workload`` is None for records
    gathered without one (a test's made-up requests)."""

    workload: Workload | None
    records: list[RequestRecord]
    duration_s: float
    server_rows: list[dict[str, float]] = field(default_factory=list)
    status: str = "complete"
    note: str = ""
    slo: dict[str, float] = field(default_factory=dict)
    endpoint: str = "completions"
    server_label: str = ""

    @property
    def name(self) -> str:
        return "records" if self.workload is None else self.workload.name

    # -- frames ----------------------------------------------------------------------------
    @property
    def requests(self) -> pd.DataFrame:
        rows = []
        for r in self.records:
            p = r.planned
            per_token = metrics.tpot(r)
            rows.append(
                {
                    "request": p.index,
                    "user": p.user,
                    "role": str(p.role),
                    "n": p.n,
                    "max_tokens": p.max_tokens,
                    "prompt_tokens": r.prompt_tokens,
                    "output_tokens": r.output_tokens,
                    "queued_s": r.queued,
                    "sent_s": r.sent,
                    "first_token_s": r.first_token,
                    "end_s": r.end,
                    "closed_s": r.closed,
                    "waiting_s": r.sent - r.queued,
                    "ttft_s": r.ttft,
                    "e2e_s": r.e2e,
                    "tpot_s": math.nan if per_token is None else per_token,
                    "decode_s": r.end - r.first_token,
                    "itl_count": len(r.itls()),
                    "ok": r.ok,
                    "error": r.error,
                }
            )
        frame = pd.DataFrame(rows, columns=REQUEST_COLUMNS)
        return frame.sort_values("request", ignore_index=True)

    @property
    def tokens(self) -> pd.DataFrame:
        rows = []
        for r in self.records:
            last: dict[int, float] = {}
            for sample, t in zip(r.token_samples, r.token_times, strict=True):
                rows.append((r.planned.index, sample, t, t - last.get(sample, math.nan)))
                last[sample] = t
        frame = pd.DataFrame(rows, columns=["request", "sample", "t_s", "itl_s"])
        frame.insert(2, "position", frame.groupby(["request", "sample"]).cumcount())
        return frame[TOKEN_COLUMNS]

    @property
    def server(self) -> pd.DataFrame:
        return pd.DataFrame(self.server_rows, columns=SERVER_COLUMNS)

    # -- numbers ---------------------------------------------------------------------------
    def window(self, role: Role = Role.INTERFERER) -> tuple[float, float] | None:
        """(sent, first token) of the first ``role`` request: e.g. the interferer's prefill."""
        windows = self.windows(role)
        return windows[0] if windows else None

    def windows(self, role: Role = Role.INTERFERER) -> list[tuple[float, float]]:
        """(sent, first token) of every completed ``role`` request, in the order sent."""
        return sorted(
            (r.sent, r.first_token) for r in self.records if r.planned.role == role and r.ok
        )

    def itls_during(self, role: Role = Role.INTERFERER) -> list[float]:
        """Users' inter-token gaps that overlap the prefill window of the ``role`` request."""
        window = self.window(role)
        if window is None:
            return []
        return metrics.itls_during(self.records, *window, role=Role.USER)

    def steady_window(self) -> tuple[float, float] | None:
        """(start, end) of the window in which every user is decoding (``metrics.steady``)."""
        return metrics.steady_window(self.user_records())

    def summary(self) -> dict[str, float]:
        """The run's numbers in one flat dict: vLLM-style metrics (of the users' requests) plus
        what the server counted during the run."""
        row = metrics.calculate(self.user_records(), self.duration_s, self.slo)
        row["max_in_flight"] = in_flight = max_in_flight(self.records)
        slots = max(1, in_flight)
        row["idle_slot_share"] = metrics.idle_slot_share(self.user_records(), slots)
        row["idle_after_last_send"] = metrics.idle_after_last_send(self.user_records(), slots)
        row |= middle(self.user_records(), self.slo)
        row |= self._server_summary()
        return row

    def row(self) -> dict[str, float | str]:
        """``summary()`` after the run's ``workload`` name and ``status``: a sweep's row."""
        return {"workload": self.name, "status": self.status, **self.summary()}

    def user_records(self) -> list[RequestRecord]:
        """The requests the metrics describe: the users', not e.g. an interferer's."""
        return [r for r in self.records if r.planned.role == Role.USER]

    def _server_summary(self) -> dict[str, float]:
        frame = self.server
        if frame.empty:
            return {}
        delta = {c: float(frame[c].iloc[-1] - frame[c].iloc[0]) for c in COUNTERS}
        queries = delta["prefix_cache_queries"]
        return {
            "prefix_cache_queries": queries,
            "prefix_cache_hits": delta["prefix_cache_hits"],
            "prefix_cache_hit_rate": delta["prefix_cache_hits"] / queries if queries else math.nan,
            "preemptions": delta["preemptions"],
            "kv_cache_usage_max": float(frame["kv_cache_usage"].max()),
            "running_max": float(frame["running"].max()),
            "waiting_max": float(frame["waiting"].max()),
        }

    def __str__(self) -> str:
        s = self.summary()
        total = len(self.user_records())
        text = (
            f"{self.name}: {s['completed']}/{total} ok in {s['duration_s']:.1f} s · "
            f"{s[metrics.OUTPUT_TOK_S]:.0f} output tok/s{self._steady_text(s)} · "
            f"{s[metrics.USER_TOK_S]:.1f} tok/s per user · "
            f"TTFT p50 {s[metrics.TTFT_MS_P50]:.0f} ms · ITL p50 {s['itl_ms_p50']:.0f} ms, "
            f"p99 {s['itl_ms_p99']:.0f} ms"
        )
        if "goodput_req_s" in s:
            text += f" · goodput {s['goodput_req_s']:.2f} req/s"
        if self.status != "complete":
            text += f" [{self.status}: {self.note}]" if self.note else f" [{self.status}]"
        return text

    @staticmethod
    def _steady_text(summary: dict[str, float]) -> str:
        steady = summary[metrics.STEADY_OUTPUT_TOK_S]
        return "" if math.isnan(steady) else f" ({steady:.0f} at steady state)"

    def __repr__(self) -> str:
        return f"<Result {self}>"


def max_in_flight(records: list[RequestRecord]) -> int:
    """Most requests open at once on the client, from their send and stream-closed times."""
    events = []
    for r in records:
        if math.isnan(r.sent):
            continue
        events.append((r.sent, 1))
        events.append((r.closed if not math.isnan(r.closed) else np.inf, -1))
    # At equal times a close comes before a send: the user sends its next request after.
    events.sort(key=lambda e: (e[0], e[1]))
    open_now = peak = 0
    for _, step in events:
        open_now += step
        peak = max(peak, open_now)
    return peak
