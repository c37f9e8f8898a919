"""Properties of goodput as chapter 07 counts it (servelab.lessons.rate_sweeps
and sweep_findings) over any sweep, the runs made up (``open_loop`` replaced): a run's goodput is
its attainment x the offered rate, so never above it, and the goodput rate is the highest rate up
to which every run kept ``ATTAINMENT_TARGET`` of its requests within the SLO."""

from __future__ import annotations

from dataclasses import dataclass
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from servelab.lessons import rate_sweeps as tl
from servelab.lessons.throughput_vs_latency.sweep_findings import CapsSetting, RateSweepFindings
from servelab.lessons.throughput_vs_latency.thresholds import ATTAINMENT_TARGET

PROPERTY = settings(max_examples=40, deadline=None, database=None)
SETTING = CapsSetting(interactive_seqs=4, batch_seqs=64, ttft_slo_ms=1000, device_label="CPU")

# Shares within the SLO, the target itself and its neighbours among them.
share = st.one_of(st.sampled_from([0.0, ATTAINMENT_TARGET, 0.89, 0.91, 1.0]), st.floats(0.0, 1.0))


@dataclass
class _Run:
    attainment: float

    def row(self) -> dict[str, float]:
        return {
            "ttft_ms_p99": 500.0,
            "tpot_ms_p50": 40.0,
            "output_tok_s": 50.0,
            "slo_attainment": self.attainment,
            "max_in_flight": 4.0,
            "waiting_max": 0.0,
        }


@st.composite
def sweeps(draw: st.DrawFn) -> tuple[tuple[float, ...], list[list[float]]]:
    """Rising rates and, per repeat, each rate's attainment."""
    rates = tuple(sorted(draw(st.sets(st.floats(0.1, 100.0), min_size=1, max_size=4))))
    repeats = draw(st.integers(1, 3))
    return rates, [
        draw(st.lists(share, min_size=len(rates), max_size=len(rates))) for _ in range(repeats)
    ]


def _sweep(rates: tuple[float, ...], shares: list[list[float]]):
    def open_loop(server, rate, count, seed, **options):
        return _Run(shares[seed][rates.index(rate)])

    with mock.patch.object(tl, "open_loop", open_loop):
        return tl.sweep_repeated(
            None, rates, [8] * len(rates), len(shares), input_tokens=16, max_tokens=5
        )


@PROPERTY
@given(sweeps())
def test_a_runs_goodput_is_its_attainment_at_the_offered_rate_never_above_it(sweep):
    runs = _sweep(*sweep)
    assert (runs["goodput_req_s"] == runs["slo_attainment"] * runs["rate"]).all()
    assert ((0 <= runs["goodput_req_s"]) & (runs["goodput_req_s"] <= runs["rate"])).all()
    table = tl.rate_table(runs)
    assert (table["goodput_req_s"] <= table["rate"]).all()
    assert ((0 <= table["slo_attainment"]) & (table["slo_attainment"] <= 1)).all()


def _goodput_rate(rates, shares) -> float | None:
    table = tl.rate_table(_sweep(rates, shares))
    found = RateSweepFindings.of(table, table, SETTING)
    return found.goodput_rate(found.small)


@PROPERTY
@given(sweeps())
def test_the_goodput_rate_is_the_highest_rate_up_to_which_every_run_attained(sweep):
    rates, shares = sweep
    found = _goodput_rate(rates, shares)
    attained = [all(run[i] >= ATTAINMENT_TARGET for run in shares) for i in range(len(rates))]
    held = attained.index(False) if False in attained else len(rates)
    assert found == (rates[held - 1] if held else None)


@PROPERTY
@given(sweeps(), st.data())
def test_more_requests_within_the_slo_never_lower_the_goodput_rate(sweep, data):
    rates, shares = sweep
    better = [[max(a, data.draw(share)) for a in run] for run in shares]
    before, after = _goodput_rate(rates, shares), _goodput_rate(rates, better)
    assert before is None or (after is not None and after >= before)
