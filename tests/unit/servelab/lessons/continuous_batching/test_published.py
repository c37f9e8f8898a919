"""servelab.lessons.continuous_batching.published: the book predicts a T4 and the lesson's kind of
card, at the chapter's gpu size."""

from __future__ import annotations

import pytest

from servelab.lessons.batching import roofline
from servelab.lessons.batching.roofline import A100, decode_context
from servelab.lessons.batching.step_words import roofline_table
from servelab.lessons.continuous_batching.published import published_rooflines


def test_the_book_predicts_a_t4_and_the_lessons_kind_of_card() -> None:
    t4, a100 = published_rooflines(32)
    assert (t4.device, t4.model) == ("Tesla T4", "Qwen3-0.6B")
    assert (a100.device, a100.model) == (A100.name, "Qwen3-8B")
    assert decode_context(128, 256) == 256
    table = roofline_table([t4, a100])
    assert list(table["device"]) == ["Tesla T4", A100.name]
    assert table["gain"].iloc[0] == f"{t4.gain_low:.1f}–{t4.gain_high:.1f}×"
    assert "datasheet" in table["figures from"].iloc[0]
    assert roofline.lesson_bandwidth_tb_s() == pytest.approx(1.64)
