"""servelab.lessons.rate_sweeps: chapter 07's runs and tables on made-up numbers, the spread over
repeated runs and servings and the tables the page prints; and the made-up sweeps and servings the
tests of its findings and words share (tests/unit/servelab/lessons/throughput_vs_latency:
test_sweep_findings.py, test_sweep_words.py, test_mixed_findings.py, test_mixed_words.py and
test_words.py)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from servelab.bench.client import PlannedRequest, RequestRecord
from servelab.bench.frames import Result
from servelab.bench.spread import Spread
from servelab.bench.workloads import BATCH, CHAT, Role
from servelab.lessons import rate_sweeps as tl
from servelab.lessons.rate_sweeps import PAIR
from servelab.lessons.throughput_vs_latency.mixed_findings import MixedFindings
from servelab.lessons.throughput_vs_latency.sweep_findings import CapsSetting
from servelab.tables import LABELS, readable

SETTING = CapsSetting(
    interactive_seqs=4, batch_seqs=64, ttft_slo_ms=1000, device_label="CPU X (2 cores)"
)
SPLIT = ("1 core (0) and 1 GiB of KV cache", "1 core (1) and 1 GiB of KV cache")
RATES = (2.0, 8.0, 16.0)
REQUESTS = (4, 12, 12)


def _rates(
    ttft,
    tpot=((40, 41, 42),) * 3,
    out=((20, 21, 22), (60, 62, 64), (80, 82, 84)),
    in_flight=((2, 3, 4), (6, 7, 8), (9, 10, 12)),
    requests=REQUESTS,
    attainment=(1.0, 1.0, 1.0),
):
    """A sweep's rate table from made-up runs: each argument one tuple of run values a rate
    (``requests``: one value a rate; ``attainment``: one value, or a tuple of run values)."""
    rows = [
        {
            "repeat": repeat,
            "rate": rate,
            "requests": requests[i],
            "ttft_ms_p99": ttft[i][repeat],
            "tpot_ms_p50": tpot[i][repeat],
            "output_tok_s": out[i][repeat],
            "slo_attainment": np.broadcast_to(attainment[i], 3)[repeat],
            "max_in_flight": in_flight[i][repeat],
            "goodput_req_s": rate,
            "waiting_max": 0.0,
            "offered_tok_s": rate * 5,
        }
        for i, rate in enumerate(RATES)
        for repeat in range(3)
    ]
    return tl.rate_table(pd.DataFrame(rows))


MET, MISSED, ACROSS = (300, 400, 500), (1200, 1500, 1800), (800, 1000, 1200)
SMALL = _rates((MET, MISSED, MISSED))


def test_a_rate_table_keeps_each_figures_median_and_range():
    table = _rates((MET, MISSED, (900, 2000, 1100)))
    assert list(table["rate"]) == list(RATES)
    top = table.iloc[-1]
    assert Spread.in_row(top, "ttft_ms_p99") == Spread(1100.0, 900.0, 2000.0, 3)
    assert Spread.in_row(top, "max_in_flight") == Spread(10.0, 9.0, 12.0, 3)
    assert top["goodput_req_s"] == 16.0


def test_the_sweep_takes_the_rates_in_turn_and_each_pass_its_own_seed(monkeypatch):
    calls = []

    def fake_open_loop(server, rate, count, **options):
        calls.append((rate, count, options["seed"]))
        return Result(workload=None, records=[_request(0, CHAT, 0.0, 0.1)], duration_s=1.0)

    monkeypatch.setattr(tl, "open_loop", fake_open_loop)
    runs = tl.sweep_repeated(object(), [2, 16], [4, 12], 3, input_tokens=8, max_tokens=4)
    assert calls == [(2, 4, 0), (16, 12, 0), (2, 4, 1), (16, 12, 1), (2, 4, 2), (16, 12, 2)]
    assert list(runs["repeat"]) == [0, 0, 1, 1, 2, 2] and list(runs["rate"]) == [2, 16] * 3


def test_the_printed_tables_show_the_range_beside_the_median_under_readable_names():
    shown = readable(tl.rate_view(_rates((MET, MISSED, (900, 2000, 1100)))))
    assert shown.index.name == "arrival rate (req/s)"
    assert shown.loc[16.0, "first token p99 (ms)"] == "1,100 (900–2,000)"
    assert shown.loc[2.0, LABELS["max_in_flight"]] == "3 (2–4)"
    assert shown.columns[0] == "requests" and shown.loc[8.0, "requests"] == "12"
    assert shown.loc[16.0, "goodput (req/s)"] == "16.0" and shown.loc[2.0, "most waiting"] == "0"
    mixed = readable(tl.setups_view(_mixed_table(500, 7.0, spread=0.02)))
    assert mixed.index.name == "set-up"
    assert mixed.loc[PAIR, LABELS["chat_ttft_ms_p99"]] == "500 (490–510)"
    assert mixed.loc["one small", LABELS["batch_job_s"]] == "12.0 (11.5–12.5)"


def _mixed_table(pair_chat, pair_job, spread=0.0, n=3, split=SPLIT):
    """The pair (when ``split``) and two single servers: the small cap's chat p99 900 ms
    (850-950) and job 12 s (11.5-12.5), the large cap's 1,500 ms and 8 s (7.5-8.5); the pair's
    ranges are ``spread`` either side of its medians."""

    def row(chat, job, width_chat, width_job):
        return {
            **Spread(chat, chat - width_chat, chat + width_chat, n).columns("chat_ttft_ms_p99"),
            **Spread(job, job - width_job, job + width_job, n).columns("batch_job_s"),
            "chat_tpot_ms_p50": 60.0,
            "chat_within_slo": 1.0,
            "batch_output_tok_s": 50.0,
        }

    rows = {PAIR: row(pair_chat, pair_job, spread * pair_chat, spread * pair_job)} if split else {}
    rows["one small"] = row(900.0, 12.0, 50.0, 0.5)
    rows["one large"] = row(1500.0, 8.0, 50.0, 0.5)
    return tl.setups_table(rows)


def _mixed(pair_chat, pair_job, spread=0.0, n=3, split=SPLIT):
    return MixedFindings.of(
        _mixed_table(pair_chat, pair_job, spread, n, split), split, "all 4 cores"
    )


def _request(index: int, role: str, sent: float, ttft: float, tokens: int = 4) -> RequestRecord:
    record = RequestRecord(
        PlannedRequest(index=index, user=index, prompt="p", max_tokens=tokens, role=role)
    )
    times = list(sent + ttft + 0.05 * np.arange(tokens))
    record.sent, record.token_times, record.token_samples = sent, times, [0] * tokens
    record.first_token, record.end, record.closed = times[0], times[-1], times[-1] + 0.001
    record.prompt_tokens, record.output_tokens = 10, tokens
    return record


def _serving(chat_ttft: float, job_end: float, parts=(CHAT, BATCH)) -> Result:
    records = []
    if CHAT in parts:
        records += [_request(i, CHAT, 0.5 * i, chat_ttft) for i in range(3)]
    if BATCH in parts:
        records.append(_request(9, BATCH, 0.0, job_end - 0.15))
    return Result(workload=None, records=records, duration_s=job_end)


def test_a_setup_row_spreads_the_servings_and_reads_each_part_where_it_ran():
    one = [_serving(0.2, 6.0), _serving(0.4, 9.0), _serving(0.3, 7.0)]
    row = tl.setup_row(one, one, {"ttft": 1000.0})
    chat = Spread.in_row(row, "chat_ttft_ms_p99")
    assert (chat.median, chat.low, chat.high, chat.n) == pytest.approx((300.0, 200.0, 400.0, 3))
    assert Spread.in_row(row, "batch_job_s") == Spread(7.0, 6.0, 9.0, 3)
    assert row["chat_within_slo"] == 1.0 and row["chat_tpot_ms_p50"] == pytest.approx(50.0)
    # Side by side each server saw one part: the chat from one, the job from the other.
    chats = [_serving(0.2, 1.0, parts=(CHAT,)), _serving(0.25, 1.0, parts=(CHAT,))]
    jobs = [_serving(0.0, 5.0, parts=(BATCH,)), _serving(0.0, 5.5, parts=(BATCH,))]
    pair = tl.setup_row(chats, jobs, {})
    assert Spread.in_row(pair, "chat_ttft_ms_p99").median == pytest.approx(225.0)
    assert Spread.in_row(pair, "batch_job_s") == Spread(5.25, 5.0, 5.5, 2)
    assert not math.isnan(pair["batch_output_tok_s"])


def test_a_rate_whose_offered_tokens_exceed_the_peak_is_marked() -> None:
    """At 5 tokens an answer 16 req/s offers 80 tok/s, above the 62 tok/s the server made at
    its best rate (the median at 8 req/s); 8 req/s offers 40, below it."""
    table = _rates(ttft=((100,) * 3,) * 3, out=((20, 21, 22), (60, 62, 64), (40, 42, 44)))
    assert list(table["beyond_peak"]) == [False, False, True]
    view = tl.rate_view(table)
    assert list(view["beyond_peak"]) == ["no", "no", "yes"]
    assert list(view.columns[:3]) == ["requests", "offered_tok_s", "beyond_peak"]


# The sweep read in each run's steady middle (steady_figures, steady_table), the limits both caps
# reached, and the served-rate check of Little's law.
STEADY_SETTING = CapsSetting(
    interactive_seqs=4, batch_seqs=16, ttft_slo_ms=1000, device_label="CPU X (2 cores)"
)


def _steady_record(index: int, sent: float, ttft: float, tokens: int = 4) -> RequestRecord:
    record = RequestRecord(
        PlannedRequest(index=index, user=index, prompt="p", max_tokens=tokens, role=Role.USER)
    )
    times = list(sent + ttft + 0.1 * np.arange(tokens))
    record.sent, record.token_times, record.token_samples = sent, times, [0] * tokens
    record.first_token, record.end, record.closed = times[0], times[-1], times[-1] + 0.001
    record.prompt_tokens, record.output_tokens = 10, tokens
    return record


def _steady_run(rate: float, slow_ends: bool) -> tl.RateRun:
    """50 requests a second apart; with ``slow_ends`` the first and last five wait 5 s for
    their first token (a warm-up and a drain), the rest 0.2 s."""
    records = [
        _steady_record(i, float(i), 5.0 if slow_ends and (i < 5 or i >= 45) else 0.2)
        for i in range(50)
    ]
    return tl.RateRun(
        0,
        rate,
        50,
        4,
        Result(workload=None, records=records, duration_s=56.0, slo={"ttft": 1000.0}),
    )


def test_a_runs_figures_leave_out_its_warm_up_and_drain() -> None:
    whole = tl.runs_frame([_steady_run(1.0, True)]).iloc[0]
    steady = tl.steady_figures(_steady_run(1.0, True))
    assert whole["ttft_ms_p99"] > 4000 and steady["ttft_ms_p99"] == pytest.approx(200.0)
    assert steady["tpot_ms_p50"] == pytest.approx(100.0)
    assert steady["slo_attainment"] == 1.0 and steady["goodput_req_s"] == 1.0
    even = tl.steady_figures(_steady_run(1.0, False))
    assert even[tl.SERVED] == pytest.approx(1.0)  # one a second in the completions' middle
    assert even["output_tok_s"] == pytest.approx(4.0)


def test_the_steady_table_spreads_the_finished_rate_and_prints_it() -> None:
    frame = tl.steady_frame([_steady_run(1.0, False), _steady_run(2.0, False)])
    frame["waiting_max"] = 0.0  # what the server counted: no /metrics in made-up runs
    table = tl.steady_table(frame)
    assert list(table["rate"]) == [1.0, 2.0]
    assert Spread.in_row(table.iloc[0], tl.SERVED).median == pytest.approx(1.0)
    view = tl.steady_view(table)
    assert tl.SERVED in view.columns and view.loc[1.0, tl.SERVED] == "1.00"


def _steady(served: tuple[float, float], in_flight: tuple[int, int]) -> pd.DataFrame:
    """A steady table of two rates, 2 and 8 req/s, three runs each."""
    rows = [
        {
            "repeat": repeat,
            "rate": rate,
            "requests": 50,
            "ttft_ms_p99": 300.0,
            "tpot_ms_p50": 40.0 + 10 * i,
            "output_tok_s": 4 * served[i] + repeat,
            "slo_attainment": 1.0,
            "max_in_flight": in_flight[i] + repeat,
            tl.SERVED: served[i] + 0.1 * repeat,
            "goodput_req_s": rate,
            "waiting_max": 0.0,
            "offered_tok_s": rate * 4,
        }
        for i, rate in enumerate((2.0, 8.0))
        for repeat in range(3)
    ]
    return tl.steady_table(pd.DataFrame(rows))
