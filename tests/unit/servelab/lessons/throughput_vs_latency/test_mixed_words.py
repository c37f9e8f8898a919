"""servelab.lessons.throughput_vs_latency.mixed_words: the mixed traffic's words where the ranges
overlap, where one serving leaves no spread, on two GPUs, and without a split."""

from __future__ import annotations

from servelab.engines.placement import side_by_side, whole_device
from servelab.hardware import Device
from servelab.lessons.compare import Compared
from servelab.lessons.throughput_vs_latency import mixed_words
from servelab.lessons.throughput_vs_latency.mixed_findings import MixedFindings
from tests.unit.servelab.lessons.test_rate_sweeps import _mixed, _mixed_table
from tests.unit.servelab.lessons.throughput_vs_latency.test_mixed_findings import (
    _after_figures,
    _verdict_words,
)


def test_overlapping_ranges_make_no_claim_however_far_apart_the_medians():
    # The pair's median chat is 44% below the best single's, but its range reaches into it.
    found = _mixed(500, 7.0, spread=0.8)
    assert found.chat is Compared.UNTOLD and found.job is Compared.UNTOLD
    text = mixed_words.mixed_text(found)
    assert "| 500 (100–900)" in text
    assert _after_figures(text) == _verdict_words(920, 8.2)  # the untold pair's words


def test_a_single_serving_has_no_spread_to_weigh():
    found = _mixed(500, 7.0, n=1)
    assert found.chat is Compared.UNTOLD and (found.chat_runs, found.job_runs) == (1, 1)
    once = _after_figures(mixed_words.mixed_text(found))
    assert once != _verdict_words(920, 8.2)  # not the overlapping ranges' words
    assert "| 500, 1 run |" in mixed_words.mixed_text(found)


def test_on_two_gpus_the_words_name_the_card_each_side_had():
    """Kaggle's pair has a T4 each while the one server has the first alone (issue #63)."""
    kaggle = Device(kind="cuda", name="Tesla T4", count=2, memory_gib=15.0)
    halves = side_by_side(kaggle, kv_cache_gib=1.0)
    assert halves is not None
    split = (halves[0].described, halves[1].described)
    found = MixedFindings.of(
        _mixed_table(500, 7.0, 0.02, 3, split), split, whole_device(kaggle).described
    )
    text = mixed_words.mixed_text(found)
    pair, single = text.split("<details>", 1)[1].split("The one server for everything", 1)
    assert "GPU 0 of 2" in pair and "GPU 1 of 2" in pair
    assert "GPU 0 of 2" in single and "GPU 1 of 2" not in single


def test_without_a_split_the_page_makes_no_claim():
    found = _mixed(500, 7.0, split=None)
    assert found.chat is None and found.job is None and found.chat_runs == 0
    text = mixed_words.mixed_text(found)
    assert not any(char.isdigit() for char in text) and "500" not in text
