"""servelab.lessons.when_not_to.drift: whether chapter 08's machine held its speed between
engines, each verdict and its words (the probe itself: tests/unit/servelab/bench/test_pace.py)."""

from __future__ import annotations

import pytest

from servelab.bench.pace import CpuPace
from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared
from servelab.lessons.when_not_to import words
from servelab.lessons.when_not_to.drift import DriftFindings
from servelab.lessons.when_not_to.findings import EngineFindings
from servelab.lessons.when_not_to.words import drift_text
from tests.unit.servelab.lessons.when_not_to.test_findings import SETUP, _facts, _table


def _pace(bandwidth: float, gflops: float, spread: float = 0.02) -> CpuPace:
    """Three probes, ``spread`` either side of each median."""

    def three(value: float) -> Spread:
        return Spread.of([value * (1 - spread), value, value * (1 + spread)])

    return CpuPace(three(bandwidth), three(gflops))


def _moments(*later: CpuPace) -> dict[str, CpuPace]:
    names = ["after llama.cpp", "after llama.cpp F16", "after vLLM"]
    return {"before llama.cpp": _pace(26.0, 180.0)} | dict(zip(names, later, strict=False))


DRIFTS = [
    ((_pace(25.0, 175.0), _pace(27.0, 184.0)), Compared.ALIKE, ("10%",)),
    (
        (_pace(26.0, 178.0), _pace(20.0, 181.0)),
        Compared.LOWER,
        ("26.0 to 20.0 GB/s (23%)", "after llama.cpp F16"),
    ),
    ((_pace(26.0, 230.0),), Compared.HIGHER, ("180 to 230 GFLOP/s (28%)",)),
    ((_pace(26.0, 140.0, spread=0.3),), Compared.UNTOLD, ("180 to 140 GFLOP/s (22%)",)),
]


def _closing(later) -> str:
    """What ``drift_text`` says after its table of medians: the verdict's words."""
    return drift_text(DriftFindings(_moments(*later))).split(" |\n\n")[-1]


@pytest.mark.parametrize(("later", "drift", "figures"), DRIFTS)
def test_each_verdict_is_worded_from_its_own_probes(later, drift, figures):
    found = DriftFindings(_moments(*later))
    assert found.drift is drift
    text = drift_text(found)
    assert all(figure in _closing(later) for figure in figures)
    assert "3 times" in text and f"{1 + len(later)} moments" in text
    assert "| before llama.cpp | 26.0 | 180 |" in text  # a row a probe, the first leading
    closings = {_closing(case[0]).split(" from ")[0].split(" by the")[0] for case in DRIFTS}
    assert len(closings) == len(DRIFTS)


def test_a_fall_outranks_a_rise_and_the_largest_fall_is_named():
    found = DriftFindings(_moments(_pace(31.0, 170.0), _pace(22.0, 178.0), _pace(24.0, 180.0)))
    assert found.drift is Compared.LOWER  # a rise elsewhere does not hide a fall
    largest = found.largest
    assert largest is not None
    assert (largest.moment, largest.figure) == ("after llama.cpp F16", "bandwidth_gb_s")


def test_one_moment_is_not_probed_and_keeps_the_old_caveat():
    for pace in ({}, {"before llama.cpp": _pace(26.0, 180.0)}):
        found = DriftFindings(pace)
        assert found.drift is None and found.largest is None
        assert "never together" in drift_text(found)


def test_chapter_08_says_what_the_probes_found():
    table = _table(150, 60, 58, 150, 600)
    probed = EngineFindings.of(
        table, SETUP, _facts(), pace=_moments(_pace(26.0, 180.0), _pace(18.0, 180.0))
    )
    text = words.story(probed, "")
    assert DriftFindings(probed.pace).drift is Compared.LOWER
    assert drift_text(DriftFindings(probed.pace)) in text
    assert "never together" not in text
    gpu_found = EngineFindings.of(table, SETUP, _facts(gpu=True), pace=_moments(_pace(26.0, 181.0)))
    on_gpu = words.story(gpu_found, "")
    assert drift_text(DriftFindings(gpu_found.pace)) in on_gpu
    assert on_gpu != words.story(
        EngineFindings.of(table, SETUP, _facts(), pace=_moments(_pace(26.0, 181.0))), ""
    )
