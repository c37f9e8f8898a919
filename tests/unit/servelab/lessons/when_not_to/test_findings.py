"""servelab.lessons.when_not_to.findings: chapter 08's findings on made-up tables, by verdict (its
table: test_runs.py; every story branch: test_words.py), and the made-up tables the chapter's other
tests share."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared
from servelab.lessons.when_not_to import findings
from servelab.lessons.when_not_to.against import Against
from servelab.lessons.when_not_to.findings import (
    LLAMA_F16,
    LLAMA_Q4,
    LLAMA_SERVER,
    VLLM,
    EngineFindings,
    Facts,
)
from servelab.lessons.when_not_to.runs import SPREAD_COLUMNS
from tests.support import repeated


def _table(q4, f16, vllm, many_llama, many_vllm, many_server=None):
    """One user on every engine (llama-server as fast as the binding on the same file); the
    crowd on all but the F16 file, llama-server's 3× the binding's unless given."""
    rows = []
    for engine, one, crowd in (
        (LLAMA_Q4, q4, many_llama),
        (LLAMA_F16, f16, None),
        (LLAMA_SERVER, q4, many_server or 3 * many_llama),
        (VLLM, vllm, many_vllm),
    ):
        rows.append(
            {
                "engine": engine,
                "users": 1,
                "user_tok_s": one,
                "output_tok_s": one,
                "ttft_s_p50": 0.1,
                "ttft_s_p99": 0.1,
            }
        )
        if crowd is not None:
            rows.append(
                {
                    "engine": engine,
                    "users": 32,
                    "user_tok_s": one,
                    "output_tok_s": crowd,
                    "ttft_s_p50": 5.0,
                    "ttft_s_p99": 10.0,
                }
            )
    # three runs of each load, 2 % either side of the median
    return repeated(pd.DataFrame(rows).set_index(["engine", "users"]), SPREAD_COLUMNS, spread=0.02)


SETUP = pd.DataFrame(
    {
        "packages_mb": {"llama.cpp": 20.0, "vLLM": 900.0},
        "model_files_mb": {"llama.cpp": 98.0, "vLLM": 270.0},
    }
)


def _facts(gpu=False, compile_s=700.0):
    return Facts(
        many=32,
        llama_device="the CPU (2 cores)",
        vllm_device="GPU T4" if gpu else "the same CPU",
        vllm_on_gpu=gpu,
        q4_bits=5.86,
        f16_bits=16.1,
        start_s={LLAMA_Q4: 1.0, LLAMA_F16: 1.2, LLAMA_SERVER: 1.1, VLLM: 40.0},
        compile_s=compile_s,
    )


def _runs(median: float, low: float | None = None, high: float | None = None, n: int = 3) -> Spread:
    return Spread(
        median, median - 0.5 if low is None else low, median + 0.5 if high is None else high, n
    )


def test_story_08_credits_the_file_only_when_the_two_files_differ_beyond_the_spread():
    table = _table(150, 60, 58, 150, 600)
    table.loc[(LLAMA_F16, 1), "user_tok_s_high"] = 160.0  # one quick run of the F16 file
    found = EngineFindings.of(table, SETUP, _facts())
    assert found.q4_leads and found.q4_vs_f16.compared is Compared.UNTOLD


@pytest.mark.parametrize(
    ("a", "pace"),
    [
        (_runs(111.0), Compared.HIGHER),
        (_runs(110.0), Compared.ALIKE),
        (_runs(91.0), Compared.ALIKE),  # 100 within 1.1x of 91, either way
        (_runs(90.0), Compared.LOWER),  # 100 is 1.11x of 90: past the band
        (_runs(130.0, low=99.0), Compared.UNTOLD),  # past ALIKE, ranges overlapping
        (_runs(70.0, high=101.0), Compared.UNTOLD),
        (_runs(130.0, n=1), Compared.UNTOLD),  # one run: no range to weigh
    ],
)
def test_two_speeds_are_alike_within_the_named_band_and_apart_beyond_it(a, pace):
    assert Against(a, _runs(100.0)).compared is pace


def test_the_engine_findings_read_each_run_once():
    found = EngineFindings.of(_table(150, 60, 58, 150, 600), SETUP, _facts())
    assert found.over_binding.ratio == pytest.approx(4.0)
    assert found.slots_over_binding.ratio == pytest.approx(3.0)
    assert found.crowd_lead.ratio == pytest.approx(600 / 450)
    assert found.server_alone.compared is Compared.ALIKE
    assert found.q4_leads and found.alone_llama and found.crowd_vllm
    assert found.disk_mb == {"llama.cpp": 118.0, "vLLM": 1170.0}
    assert found.first_start_s == pytest.approx(701.0) and found.build_slower
    assert (
        EngineFindings.of(_table(150, 60, 58, 150, 600), SETUP, _facts(compile_s=None)).build_slower
        is None
    )


@pytest.mark.parametrize(
    ("speeds", "many_vllm", "alone_llama", "over_binding", "lead"),
    [
        ((150, 60, 58), 600, True, Compared.HIGHER, Compared.HIGHER),
        ((50, 20, 58), 600, False, Compared.HIGHER, Compared.HIGHER),
        ((150, 60, 58), 100, True, Compared.LOWER, Compared.LOWER),
    ],
)
def test_story_08_guidance_branches(speeds, many_vllm, alone_llama, over_binding, lead):
    found = EngineFindings.of(_table(*speeds, 150, many_vllm), SETUP, _facts())
    assert found.alone_llama is alone_llama
    assert (found.over_binding.compared, found.crowd_lead.compared) == (over_binding, lead)


def test_story_08_guidance_says_at_least_as_quickly_where_one_user_ran_alike():
    found = EngineFindings.of(_table(60, 40, 58, 150, 600), SETUP, _facts())
    assert found.alone_llama and not found.q4_leads


@pytest.mark.parametrize(
    ("runs", "fell"),
    [
        ((46.0, 32.0, 23.0), True),
        ((46.0, 45.0, 44.0), False),  # in order, but within ALIKE of the first
        ((46.0, 23.0, 32.0), False),  # not in order
        ((46.0, 23.0), False),  # two runs fall in order half the time
    ],
)
def test_a_speed_fell_run_after_run_only_in_order_and_beyond_the_band(runs, fell):
    assert findings.fell_run_after_run(runs) is fell


@pytest.mark.parametrize(
    ("vllm_s", "q4_s", "told"),
    [(0.05, 0.1, Compared.LOWER), (0.2, 0.1, Compared.HIGHER), (0.101, 0.1, Compared.UNTOLD)],
)
def test_whose_first_token_came_sooner_alone_is_told_only_with_the_ranges_apart(vllm_s, q4_s, told):
    found = EngineFindings.of(_table(150, 60, 58, 150, 600), SETUP, _facts())
    first = {
        **found.first_alone,
        VLLM: _runs(vllm_s, 0.98 * vllm_s, 1.02 * vllm_s),
        LLAMA_Q4: _runs(q4_s, 0.98 * q4_s, 1.02 * q4_s),
    }
    assert dataclasses.replace(found, first_alone=first).vllm_first_alone is told
