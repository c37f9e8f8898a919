"""autograder/t4-estimate.json is what env/gpu_contract/t4_estimate.py makes of the contract."""

from __future__ import annotations

import json
import sys

import pytest

from course.paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "env" / "gpu_contract"))

import t4_count  # noqa: E402
import t4_estimate  # noqa: E402
import t4_starts  # noqa: E402
from t4_wait import INSTALL_S  # noqa: E402

from autograder.wall_time import read_estimate, span  # noqa: E402


def test_the_autograders_copy_is_the_contracts() -> None:
    assert t4_estimate.ESTIMATE_JSON.read_text() == t4_estimate.text(), (
        "run: cd env/gpu_contract && ../../.venv/bin/python t4_estimate.py --write"
    )


def test_the_estimate_holds_each_chapters_measurement_and_install() -> None:
    found = read_estimate()
    chapter = found["chapters"]["07-throughput-vs-latency"]["colab"]
    low, high = t4_count.measure_seconds("07-throughput-vs-latency", "colab")
    assert chapter["measure"] == [round(low, 1), round(high, 1)]
    assert chapter["install"] == [INSTALL_S.value] * 2
    assert json.loads(t4_estimate.text())["per_start"]["graphs"]["unit"] == "s a graph"


def test_each_chapters_parts_add_up_to_its_t4_wait_line_starts_included() -> None:
    """The estimate, the README's table and the contract's t4-wait lines add the same parts."""
    for chapter, platforms in read_estimate()["chapters"].items():
        for platform, parts in platforms.items():
            starts = t4_starts.kept_count(chapter, platform)
            assert parts["server_starts"] == [len(starts.starts)] * 2
            assert parts["starts"] == [round(starts.starts_seconds(), 1)] * 2 and starts.starts
            for end in (0, 1):
                total = sum(parts[key][end] for key in ("install", "download", "starts", "measure"))
                assert parts["wait"][end] == pytest.approx(total, abs=0.15)
            low, high = (f"{value / 60:.1f}" for value in parts["wait"])
            assert t4_count.wait_line(chapter, platform).endswith(f" {low}-{high} min")


def test_the_report_reads_the_start_count_as_starts() -> None:
    chapter = "07-throughput-vs-latency"
    count = len(t4_starts.kept_count(chapter, "colab").starts)
    assert span(read_estimate(), chapter, "colab", "server_starts") == f"{count} starts"
