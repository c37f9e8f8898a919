"""The batching words on made-up sweeps: the ranges beside the medians, and the predictions set
beside the gain and each user's share."""

from __future__ import annotations

from servelab.lessons.batching.words import crowd_prediction, scaling_prediction, sweep_ranges
from tests.unit.servelab.lessons.batching.test_findings import repeated


def test_one_sweep_has_no_range_to_weigh_and_says_none() -> None:
    found = repeated([25.0], [400.0])
    assert not found.repeated and found.shown
    assert found.sweeps is None
    assert sweep_ranges(found) == ""


def test_the_predictions_are_set_beside_the_gain_and_each_users_share() -> None:
    found = repeated([24.0, 25.0, 27.0], [380.0, 400.0, 420.0])  # 16x at the medians
    crowd, scaling = crowd_prediction("", found), scaling_prediction("ten times", found)
    assert "16.0×" in crowd and "32 users" in crowd and "16.0×" in scaling
    assert f"{found.kept:.0%}" in scaling and f"{found.kept:.0%}" not in crowd
    assert "*ten times*" in scaling
