"""autograder/t4-estimate.json is what env/gpu_contract/t4_estimate.py makes of the contract."""

from __future__ import annotations

import json
import sys

from course.paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "env" / "gpu_contract"))

import t4_count  # noqa: E402
import t4_estimate  # noqa: E402
from t4_wait import INSTALL_S  # noqa: E402

from autograder.wall_time import read_estimate  # noqa: E402


def test_the_autograders_copy_is_the_contracts() -> None:
    assert t4_estimate.ESTIMATE_JSON.read_text() == t4_estimate.text(), (
        "run: cd env/gpu_contract && ../../.venv/bin/python t4_estimate.py --write")


def test_the_estimate_holds_each_chapters_measurement_and_install() -> None:
    found = read_estimate()
    chapter = found["chapters"]["07-throughput-vs-latency"]["colab"]
    low, high = t4_count.measure_seconds("07-throughput-vs-latency", "colab")
    assert chapter["measure"] == [round(low, 1), round(high, 1)]
    assert chapter["install"] == [INSTALL_S.value] * 2
    assert json.loads(t4_estimate.text())["per_start"]["graphs"]["unit"] == "s a graph"
