"""servelab.bench.workloads: the prefill probe and mixed chat-and-batch traffic."""

from __future__ import annotations

import pytest

from servelab.bench.prompts import WordPrompts
from servelab.bench.workloads import MixedTraffic, PrefillProbe


def test_the_prefill_probe_alternates_two_lengths_after_a_warm_up():
    plan = PrefillProbe(8, 64, repeats=2).plan(WordPrompts())
    assert [p.role for p in plan] == ["warm-up", "short", "long", "short", "long"]
    assert [len(p.prompt.split()) for p in plan] == [8, 8, 64, 8, 64]
    assert all(p.max_tokens == 1 for p in plan)
    with pytest.raises(ValueError):
        PrefillProbe(64, 64)


def test_mixed_traffic_splits_the_same_requests():
    workload = MixedTraffic(
        chat_requests=3, batch_requests=2, chat_input_tokens=4, batch_input_tokens=4
    )
    both = workload.plan(WordPrompts())
    chat = MixedTraffic(
        chat_requests=3, batch_requests=2, chat_input_tokens=4, batch_input_tokens=4, parts="chat"
    ).plan(WordPrompts())
    batch = MixedTraffic(
        chat_requests=3, batch_requests=2, chat_input_tokens=4, batch_input_tokens=4, parts="batch"
    ).plan(WordPrompts())
    assert [p.role for p in both] == ["user"] * 3 + ["batch"] * 2
    assert chat + batch == both
    assert all(p.arrival == 0.0 for p in batch)
    with pytest.raises(ValueError, match="parts must be one of"):
        MixedTraffic(parts="everything")
    with pytest.raises(ValueError, match="chat_rate must be positive"):
        MixedTraffic(chat_rate=0)
