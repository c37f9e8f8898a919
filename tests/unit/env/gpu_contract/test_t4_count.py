"""What each chapter sends on a T4, counted from its gpu sizes (env/gpu_contract/t4_count.py)."""

from __future__ import annotations

import sys

import pytest

from course.paths import REPO_ROOT
from servelab.book import CHAPTERS

sys.path.insert(0, str(REPO_ROOT / "env" / "gpu_contract"))

import t4_count  # noqa: E402
from t4_count import T4  # noqa: E402


def test_the_step_is_the_rooflines_slow_end_times_the_engine_factor() -> None:
    low, high = T4.at(0), T4.at(1)
    assert 8.0 <= low.a_ms < high.a_ms <= 12.0
    assert 0.14 <= low.b_ms < high.b_ms <= 0.30
    assert low.step_s(10) == pytest.approx((low.a_ms + 10 * low.b_ms) / 1000)
    assert low.prefill_tok_s > high.prefill_tok_s


def test_primitives_count_rounds_waves_and_arrivals() -> None:
    m = T4(10.0, 0.0, 1000.0, 0)
    assert m.closed(4, 2, 0, 100, 4) == pytest.approx(2.0)  # 2 rounds x 100 steps of 10 ms
    assert m.closed(8, 1, 0, 100, 4) == pytest.approx(2.0)  # 8 users at cap 4: two waves
    assert m.closed(1, 1, 500, 0, 4) == pytest.approx(0.5)  # the prompt read at 1,000 tok/s
    assert m.open(10, 1.0, 0, 10, 64) == pytest.approx(10.1)  # the arrivals, then one answer
    assert m.open(1000, 1000.0, 0, 100, 1) == pytest.approx(1000.0)  # the work at cap 1


def test_every_chapter_on_both_platforms_gets_a_line_low_below_high() -> None:
    for chapter in CHAPTERS:
        for platform in t4_count.PLATFORMS:
            low, high = t4_count.measure_seconds(chapter.id, platform)
            assert 0 < low < high
            line = t4_count.wait_line(chapter.id, platform, starts_s=60.0)
            assert line.startswith(f"t4-wait {platform} {chapter.id} ") and line.endswith(" min")


def test_chapter_08_counts_its_builds_and_no_model_download() -> None:
    names = [name for name, _, _ in t4_count.phase_seconds("08-when-not-to", "colab")]
    assert names[:3] == [
        "llama.cpp builds",
        "llama-cpp-python on the CPU",
        "llama-server on the CPU",
    ]
    low08 = t4_count.wait_seconds("08-when-not-to", "colab")[0]
    assert low08 == pytest.approx(
        t4_count.INSTALL_S.value
        + t4_count.starts_seconds("08-when-not-to", "colab")
        + t4_count.measure_seconds("08-when-not-to", "colab")[0]
    )
    assert t4_count.wait_seconds("08-when-not-to", "colab", starts_s=0.0)[0] == pytest.approx(
        low08 - t4_count.starts_seconds("08-when-not-to", "colab")
    )


def test_kaggle_adds_the_split_models_runs_and_every_constant_has_a_source() -> None:
    for chapter in ("05-the-dials", "09-past-one-machine"):
        assert (
            t4_count.measure_seconds(chapter, "kaggle")[1]
            > t4_count.measure_seconds(chapter, "colab")[1]
        )
    assert all(
        s.source and s.unit and s.value[0] != s.value[1] for s in t4_count.COUNT_ESTIMATES.values()
    )
