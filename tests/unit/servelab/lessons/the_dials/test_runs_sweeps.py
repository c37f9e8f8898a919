"""servelab.lessons.the_dials.runs: the loops that only collect the chapter's runs."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from servelab.lessons.the_dials import runs


def _result(**summary: float) -> SimpleNamespace:
    return SimpleNamespace(summary=lambda: summary)


def test_the_burst_sweep_runs_every_level_in_turn_each_pass(monkeypatch):
    sent = []

    def open_loop(server, rate, **options):
        sent.append((options["max_concurrency"], options["seed"]))
        return _result(output_tok_s=10.0, tpot_ms_p99=5.0, e2e_ms_p99=2000.0)

    monkeypatch.setattr(runs.bench, "open_loop", open_loop)
    monkeypatch.setattr(runs, "latency_from_arrival", lambda result: {"queued": 0.0})
    rows = runs.burst_sweep(
        None, [1, 4], passes=2, rate=100.0, burst=8, input_tokens=16, output_tokens=8
    )
    assert sent == [(1, 1), (4, 4), (1, 101), (4, 104)]
    assert list(rows["max_num_seqs"]) == [1, 4, 1, 4]
    assert rows.loc[0, "served_s_p99"] == pytest.approx(2.0)


def test_one_and_many_alternates_one_user_and_the_crowd(monkeypatch):
    seeds = []

    def closed_loop(server, users, **options):
        seeds.append((users, options["seed"]))
        return _result(user_tok_s=20.0, output_tok_s=60.0)

    monkeypatch.setattr(runs.bench, "closed_loop", closed_loop)
    server = SimpleNamespace(capacity=SimpleNamespace(kv_cache_tokens=4096))
    found = runs.one_and_many(server, 3, max_tokens=8, passes=2)
    assert seeds == [(1, 0), (3, 1), (1, 2), (3, 3)]
    assert found[0] == {
        "one_user_tok_s": 20.0,
        "many_users_output_tok_s": 60.0,
        "kv_cache_tokens": 4096,
    }
