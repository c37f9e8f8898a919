"""servelab.lessons.batching.waves_findings: sending in waves against sending continuously, read off
made-up runs, and each verdict on the durations."""

from __future__ import annotations

import dataclasses

import pytest

from servelab.bench.client import PlannedRequest, RequestRecord
from servelab.bench.frames import Result
from servelab.bench.spread import Spread
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.batching.waves_findings import WavesFindings
from servelab.lessons.compare import Shown


def _waves(
    static_s: float,
    idle_continuous: float = 0.05,
    fit: StepFit | None = None,
    tail_share: float | None = None,
    spread: float = 0.02,
    runs: int = 3,
) -> WavesFindings:
    """96 requests in waves of 16 against 16 s continuously, 60% of the waves' slots idle; each
    time over ``runs`` runs, ``spread`` either side of its median."""

    def timed(median: float) -> Spread:
        return Spread(median, (1 - spread) * median, (1 + spread) * median, runs)

    return WavesFindings(
        requests=96,
        wave_size=16,
        static_s=timed(static_s),
        continuous_s=timed(16.0),
        idle_static=0.6,
        idle_continuous=idle_continuous,
        tail_share=tail_share,
        fit=fit,
    )


@pytest.mark.parametrize(
    ("static_s", "verdict"),
    [
        (24.0, Shown.STRONG),  # 1.5x: CONTINUOUS_CLEAR
        (20.0, Shown.WEAK),  # 1.25x
        (16.8, Shown.NONE),  # 1.05x: CONTINUOUS_WON is not beaten
    ],
)
def test_each_waves_verdict_follows_from_the_durations(static_s: float, verdict: Shown) -> None:
    assert _waves(static_s).verdict is verdict


@pytest.mark.parametrize(
    ("static_s", "waves_sooner", "continuous_sooner"),
    [(15.0, True, False), (16.0, False, False), (16.7, False, True)],
)
def test_which_mode_finished_sooner_in_every_run(
    static_s: float, waves_sooner: bool, continuous_sooner: bool
) -> None:
    found = _waves(static_s)
    assert (found.waves_sooner, found.continuous_sooner) == (waves_sooner, continuous_sooner)
    assert found.least_margin == pytest.approx(0.05)


def _static_run(ends: list[float]) -> Result:
    records = []
    for index, end in enumerate(ends):
        record = RequestRecord(PlannedRequest(index=index, user=index, prompt="p", max_tokens=2))
        record.sent, record.token_times, record.token_samples = 0.0, [end / 2, end], [0, 0]
        record.first_token, record.end, record.closed = end / 2, end, end
        record.prompt_tokens, record.output_tokens = 4, 2
        records.append(record)
    return Result(workload=None, records=records, duration_s=max(ends))


def test_the_waves_findings_are_read_off_the_two_runs() -> None:
    # Two slots, both sent at once: one request ends at 1 s and one at 4 s in the waves, so a
    # slot idles 3 of the 8 slot-seconds; continuously both end at 2 s.
    fit = StepFit(fixed_ms=60.0, per_sequence_ms=5.0, r_squared=0.99)
    found = WavesFindings.of(
        [_static_run([1.0, 4.0]), _static_run([1.0, 4.2])],
        [_static_run([2.0, 2.0]), _static_run([2.1, 2.1])],
        2,
        fit,
    )
    assert (found.requests, found.static_s.median, found.continuous_s.median) == (2, 4.1, 2.05)
    assert (found.static_s.low, found.static_s.high, found.static_s.n) == (4.0, 4.2, 2)
    assert found.idle_static == pytest.approx((3 / 8 + 3.2 / 8.4) / 2)  # the runs' median
    assert found.idle_continuous == 0.0
    assert found.tail_share is None  # no idle time continuously: nothing to place
    assert (found.step_one_ms, found.step_full_ms) == (65.0, 70.0)
    loose = dataclasses.replace(
        found, fit=StepFit(fixed_ms=60.0, per_sequence_ms=5.0, r_squared=0.24)
    )
    assert (loose.step_one_ms, loose.step_full_ms) == (None, None)  # too loose to price a step
    assert found.speedup == 2.0 and found.verdict is Shown.STRONG
    with pytest.raises(ValueError, match="at least one run of each mode"):
        WavesFindings.of([], [_static_run([2.0, 2.0])], 2, fit)
