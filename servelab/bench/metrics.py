"""Serving metrics with the definitions of vLLM's own benchmark (``vllm bench serve``).

As in ``vllm.benchmarks.serve.calculate_metrics``:

- only successful requests count; ``failed`` counts the others;
- TTFT = first token − send; E2E = last token − send;
- TPOT = (E2E − TTFT) / (output tokens − 1), for requests with more than one output token;
- ITL = every gap between two successive tokens of a request, pooled over all requests;
- throughputs divide by the run's duration; percentiles are numpy's (linear interpolation);
- goodput counts requests that meet every given SLO (in ms; TPOT of a one-token request is 0),
  per second of the run.

Added here:

- ``slo_attainment``, the share of completed requests that met every SLO: goodput divided by the
  achieved request rate. With few requests a run's duration follows when they happened to arrive,
  so goodput can sit above or below the nominal arrival rate; the share compares across rates;
- ``user_tok_s``, the decode speed a user sees: the tokens that arrived after each request's
  first arrival, over the time they took, summed over the requests (``decoded``). TPOT
  counts every token but the first, yet a first chunk can carry several tokens: a short
  answer whose tokens came in one or two chunks then read as hundreds of tokens a second,
  and a mean of 1 / TPOT put one user above the whole run (issue #66). Summed, a request
  adds its tokens with the time they took, and none is faster than the run was meanwhile;
- the steady state: ``output_tok_s`` divides by the whole run, which includes the ramp-up (every
  prompt prefilled at once) and the tail (the last answers decoding alone). The *steady window*
  runs from the moment the last user receives its first token to the moment the first user
  receives its last one: inside it every user is decoding. ``steady_output_tok_s`` counts the
  output tokens that arrive inside the window and divides by its length;
  ``steady_user_tok_s`` is that shared by the users. With one user the window is its decode
  and the figure is its decode speed. Users whose answers never overlap have no window (NaN).
  A figure such as "32 streams make 2,000 tok/s" describes this steady state;
- slots: with at most ``k`` requests in flight, each request is given the slot (0..k-1) that
  freed first; ``idle_slot_share`` is the share of slot time, from the first send to the last
  token, in which a slot held no request, and ``idle_after_last_send`` the share of that idle
  time that came after the last request was sent (the tail).

For a request with ``n`` > 1 samples the server reports output tokens summed over its samples,
so its TPOT and ``user_tok_s`` describe the request as a whole, not one sample; its ITLs are
still per sample.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from servelab.bench.client import RequestRecord
from servelab.bench.workloads import Role

PERCENTILES = (50, 90, 99)
SLO_METRICS = ("ttft", "tpot", "e2e")

# The names of the summary's columns that other modules read, defined once here.
OUTPUT_TOK_S = "output_tok_s"  # output per second over the whole run
USER_TOK_S = "user_tok_s"  # the decode speed a user sees
STEADY_OUTPUT_TOK_S = "steady_output_tok_s"  # output per second while every user is decoding
STEADY_USER_TOK_S = "steady_user_tok_s"  # that shared by the users
TTFT_MS_P50 = "ttft_ms_p50"  # from describe(..., "ttft")
TTFT_MS_P99 = "ttft_ms_p99"


def describe(values_s: Iterable[float], name: str) -> dict[str, float]:
    """``{name}_ms_mean``, ``_p50``, ``_p90``, ``_p99`` of values given in seconds (NaN if none)."""
    values = np.asarray(list(values_s), dtype=float) * 1000.0
    row = {f"{name}_ms_mean": float(values.mean()) if values.size else float("nan")}
    for p in PERCENTILES:
        row[f"{name}_ms_p{p}"] = float(np.percentile(values, p)) if values.size else float("nan")
    return row


def tpot(record: RequestRecord) -> float | None:
    """Time per output token after the first, in seconds; None for one-token requests."""
    tokens = record.output_tokens or 0
    if tokens <= 1:
        return None
    return (record.e2e - record.ttft) / (tokens - 1)


def decoded(record: RequestRecord) -> tuple[int, float] | None:
    """The tokens that arrived after a request's first arrival and the seconds they took: what
    its user watched decode. None where no token came later than the first chunk."""
    later = sum(1 for at in record.token_times if at > record.first_token)
    span = record.end - record.first_token
    return (later, span) if later and span > 0 else None


def check_slo(slo: Mapping[str, float] | None) -> dict[str, float]:
    slo = dict(slo or {})
    unknown = set(slo) - set(SLO_METRICS)
    if unknown:
        raise ValueError(f"SLOs are given for {SLO_METRICS} in ms; unknown: {sorted(unknown)}")
    return slo


def meets_slo(record: RequestRecord, slo: Mapping[str, float]) -> bool:
    measured_ms = {
        "ttft": record.ttft * 1000,
        "tpot": (tpot(record) or 0.0) * 1000,
        "e2e": record.e2e * 1000,
    }
    return all(measured_ms[name] <= limit for name, limit in slo.items())


def calculate(
    records: list[RequestRecord], duration_s: float, slo: Mapping[str, float] | None = None
) -> dict[str, float]:
    """The run's metrics as a flat dict (ms for latencies, per second for throughputs)."""
    if duration_s <= 0:
        raise ValueError(f"duration must be positive, not {duration_s}")
    slo = check_slo(slo)
    done = [r for r in records if r.ok]
    output = sum(r.output_tokens or 0 for r in done)
    prompt = sum(r.prompt_tokens or 0 for r in done)
    tpots = [t for t in map(tpot, done) if t is not None]
    decodes = [d for d in map(decoded, done) if d is not None]
    row: dict[str, float] = {
        "completed": len(done),
        "failed": len(records) - len(done),
        "duration_s": duration_s,
        "input_tokens": prompt,
        "output_tokens": output,
        "request_per_s": len(done) / duration_s,
        OUTPUT_TOK_S: output / duration_s,
        "total_tok_s": (prompt + output) / duration_s,
        # A request whose tokens all came in one chunk (a proxy can buffer a short stream) has
        # no decode a user saw: it adds nothing.
        USER_TOK_S: (
            sum(n for n, _ in decodes) / sum(s for _, s in decodes) if decodes else float("nan")
        ),
    }
    row |= describe((r.ttft for r in done), "ttft")
    row |= describe(tpots, "tpot")
    row |= describe((gap for r in done for gap in r.itls()), "itl")
    row |= describe((r.e2e for r in done), "e2e")
    if slo:
        met = sum(meets_slo(r, slo) for r in done)
        row["goodput_req_s"] = met / duration_s
        row["slo_attainment"] = met / len(done) if done else float("nan")
    row |= steady(done)
    return row


def steady_window(records: list[RequestRecord]) -> tuple[float, float] | None:
    """(start, end) in run seconds of the window in which every user is decoding: from the
    last user's first token to the first user's last token. None if no user answered or the
    users' answers never overlap."""
    spans: dict[int, tuple[float, float]] = {}
    for record in records:
        if not record.ok:
            continue
        first, last = spans.get(record.planned.user, (record.first_token, record.end))
        spans[record.planned.user] = (min(first, record.first_token), max(last, record.end))
    if not spans:
        return None
    start = max(first for first, _ in spans.values())
    end = min(last for _, last in spans.values())
    return (start, end) if end > start else None


def steady(records: list[RequestRecord]) -> dict[str, float]:
    """Output tokens per second inside the steady window (see the module's docstring)."""
    row = dict.fromkeys(
        ("steady_start_s", "steady_end_s", STEADY_OUTPUT_TOK_S, STEADY_USER_TOK_S), float("nan")
    )
    window = steady_window(records)
    if window is None:
        return row
    start, end = window
    done = [r for r in records if r.ok]
    tokens = sum(start < t <= end for r in done for t in r.token_times)
    users = len({r.planned.user for r in done})
    rate = tokens / (end - start)
    row.update(
        {
            "steady_start_s": start,
            "steady_end_s": end,
            STEADY_OUTPUT_TOK_S: rate,
            STEADY_USER_TOK_S: rate / users,
        }
    )
    return row


def assign_slots(records: list[RequestRecord], slots: int) -> list[int]:
    """The slot (0..slots-1) each request occupied, in ``records`` order: a request sent takes
    the slot whose previous request closed first. Unsent requests get -1."""
    order = sorted((r.sent, i) for i, r in enumerate(records) if not np.isnan(r.sent))
    free_at = [0.0] * slots
    assigned = [-1] * len(records)
    for _, i in order:
        slot = int(np.argmin(free_at))
        assigned[i] = slot
        closed = records[i].closed
        free_at[slot] = np.inf if np.isnan(closed) else closed
    return assigned


def _slot_holds(records: list[RequestRecord]) -> list[tuple[float, float]] | None:
    """(send, stop) of each sent request, its stop cut at the run's last token; None when no
    request finished."""
    sent = [r for r in records if not np.isnan(r.sent)]
    ends = [r.end for r in sent if r.ok]
    if not sent or not ends:
        return None
    end = max(ends)
    return [(r.sent, min(r.end if r.ok else r.closed, end)) for r in sent]


def _idle_slot_seconds(holds: list[tuple[float, float]], slots: int) -> float:
    """Slot-seconds, first send to last token, in which a slot held no request."""
    start, end = min(send for send, _ in holds), max(stop for _, stop in holds)
    return slots * (end - start) - sum(stop - send for send, stop in holds)


def idle_slot_share(records: list[RequestRecord], slots: int) -> float:
    """Share of ``slots`` × (first send to last token) in which a slot held no request."""
    holds = _slot_holds(records)
    if holds is None:
        return float("nan")
    start, end = min(send for send, _ in holds), max(stop for _, stop in holds)
    return _idle_slot_seconds(holds, slots) / (slots * (end - start))


def idle_after_last_send(records: list[RequestRecord], slots: int) -> float:
    """Share of the idle slot time (as ``idle_slot_share`` counts it) that falls after the last
    request was sent: the tail, when nothing waits for a slot and the last answers finish alone.
    The rest fell while requests still waited, between one request's end and the next's send."""
    holds = _slot_holds(records)
    if holds is None:
        return float("nan")
    last_send, end = max(send for send, _ in holds), max(stop for _, stop in holds)
    tail_busy = sum(max(0.0, stop - max(send, last_send)) for send, stop in holds)
    idle = _idle_slot_seconds(holds, slots)
    return (slots * (end - last_send) - tail_busy) / idle if idle > 0 else float("nan")


def itls_during(
    records: list[RequestRecord], start: float, end: float, role: Role = Role.USER
) -> list[float]:
    """ITLs of ``role`` requests whose gap overlaps the window [start, end] (run seconds):
    what decoding users felt while, e.g., a long prompt was being prefilled."""
    gaps = []
    for record in records:
        if record.planned.role != role:
            continue
        last: dict[int, float] = {}
        for sample, t in zip(record.token_samples, record.token_times, strict=True):
            if sample in last and t >= start and last[sample] <= end:
                gaps.append(t - last[sample])
            last[sample] = t
    return gaps
