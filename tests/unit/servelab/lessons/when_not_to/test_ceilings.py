"""servelab.lessons.when_not_to.ceilings and its words: each file's bandwidth ceiling for one
user, and every branch of the check."""

from __future__ import annotations

import pytest

from servelab.lessons.when_not_to.ceilings import FileCeilings, ceilings_table
from servelab.lessons.when_not_to.words import ceiling_check_text, ceiling_prediction_text

MB = {"Q4": 100.0, "F16": 280.0, "vLLM": 270.0}


def _found(q4: float, f16: float, vllm: float) -> FileCeilings:
    return FileCeilings(MB, bandwidth_gb_s=28.0, measured={"Q4": q4, "F16": f16, "vLLM": vllm})


def test_the_ceiling_is_bandwidth_over_the_weights() -> None:
    found = FileCeilings(MB, bandwidth_gb_s=28.0)
    assert found.ceiling("Q4") == pytest.approx(280.0)
    assert found.ceiling("F16") == pytest.approx(100.0)
    assert found.size_ratio("Q4", "F16") == pytest.approx(2.8)
    assert found.share("Q4") is None and found.near == []
    text = ceiling_prediction_text(found, "Q4", "F16")
    assert "| Q4 | 100 | 280 |" in text and "| F16 | 280 | 100 |" in text  # a row an engine
    assert "**2.8×** as fast as F16" in text
    assert list(ceilings_table(found).columns) == ["weights (MB)", "ceiling (tok/s)"]
    with pytest.raises(ValueError, match="measured speed"):
        ceiling_check_text(found, "Q4", "F16")


SHARES = [
    ((100.0, 40.0, 40.0), []),
    ((200.0, 80.0, 90.0), ["Q4", "F16", "vLLM"]),
    ((200.0, 30.0, 40.0), ["Q4"]),
]


@pytest.mark.parametrize(("speeds", "near"), SHARES)
def test_each_share_of_the_ceiling_is_worded(
    speeds: tuple[float, float, float], near: list[str]
) -> None:
    found = _found(*speeds)
    assert found.near == near
    text = ceiling_check_text(found, "Q4", "F16")
    assert f"| {speeds[0]:.0f} | {speeds[0] / 280:.0%} |" in text  # measured beside its share
    assert f"| {speeds[1]:.0f} | {speeds[1] / 100:.0%} |" in text
    assert f"{speeds[0] / speeds[1]:.1f}×" in text and "2.8× fewer" in text
    closings = {
        ceiling_check_text(_found(*s), "Q4", "F16").split("<details>")[0] for s, _ in SHARES
    }
    assert len(closings) == len(SHARES)
    table = ceilings_table(found)
    assert table.loc["Q4", "share of ceiling"] == f"{speeds[0] / 280:.0%}"
