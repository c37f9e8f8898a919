"""servelab.lessons.throughput_vs_latency.words: chapter 07's story opens with the prediction and
words all three parts."""

from __future__ import annotations

from servelab.lessons.throughput_vs_latency import words
from servelab.lessons.throughput_vs_latency.sweep_findings import RateSweepFindings
from tests.unit.servelab.lessons.test_rate_sweeps import SETTING, SMALL, _mixed


def test_the_story_opens_with_the_prediction_and_words_all_three_parts():
    text = words.story(RateSweepFindings.of(SMALL, SMALL, SETTING), _mixed(500, 7.0), "small first")
    assert text.startswith("You predicted: *small first*")
    assert "**Interactive chat.**" in text and "**Mixed traffic.**" in text
    assert "41 ms" in text and "max_num_seqs=4" in text and "(medians of 3 runs)" in text
