"""servelab.lessons.when_not_to.words: chapter 08's story on made-up runs, branch by branch: one
user, vLLM against llama.cpp at its best and on a GPU, no lead claimed inside the runs' spread, the
compile counted, one user's first token weighed, and the loads that fell run after run (the drift's
and the ceilings' words: test_drift.py, test_ceilings.py)."""

from __future__ import annotations

import dataclasses

import pytest

from servelab.lessons.compare import Compared
from servelab.lessons.when_not_to import words
from servelab.lessons.when_not_to.findings import LLAMA_F16, LLAMA_Q4, VLLM, EngineFindings
from tests.unit.servelab.lessons.when_not_to.test_findings import SETUP, _facts, _table


def _story(table, facts, prediction):
    return words.story(EngineFindings.of(table, SETUP, facts), prediction)


@pytest.mark.parametrize(
    ("speeds", "q4_leads", "q4_vs_f16", "f16_vs_vllm"),
    [
        ((150, 60, 58), True, Compared.HIGHER, Compared.ALIKE),  # the smaller file's lead
        ((150, 90, 58), True, Compared.HIGHER, Compared.HIGHER),  # ahead at equal precision too
        ((150, 40, 58), True, Compared.HIGHER, Compared.LOWER),  # the format alone put it ahead
        ((50, 20, 58), False, Compared.HIGHER, Compared.LOWER),  # not ahead even packed
    ],
)
def test_story_08_one_user_branches(speeds, q4_leads, q4_vs_f16, f16_vs_vllm):
    found = EngineFindings.of(_table(*speeds, 150, 600), SETUP, _facts())
    assert found.q4_leads is q4_leads
    assert (found.q4_vs_f16.compared, found.f16_vs_vllm.compared) == (q4_vs_f16, f16_vs_vllm)
    text = words.story(found, "llama 2x")
    assert "llama 2x" in text  # the reader's prediction, beside the measurement
    assert "5.9 bits" in text and "2.7×" in text  # bits per weight; F16's bytes over Q4_1's


def test_story_08_does_not_split_engine_from_format_when_vllm_computes_in_float32():
    facts = dataclasses.replace(_facts(), vllm_dtype="float32")
    assert facts.vllm_bits == 32
    assert "| 32.0 |" in _story(_table(150, 60, 58, 150, 600), facts, "")


@pytest.mark.parametrize(
    ("many_server", "pace", "ratio"),
    [
        (450, "HIGHER", "1.3×"),
        (600, "ALIKE", None),
        (1200, "LOWER", "2.0×"),
    ],
)
def test_story_08_sets_vllm_against_llama_cpp_at_its_best(many_server, pace, ratio):
    found = EngineFindings.of(_table(150, 60, 58, 150, 600, many_server), SETUP, _facts())
    assert found.crowd_lead.compared is Compared[pace]
    assert found.slots_over_binding.compared is Compared.HIGHER
    text = words.story(found, "")
    assert ratio is None or ratio in text  # the lead is stated where the runs show one
    assert "| 600 (588–612) |" in text  # each figure beside its range


def test_story_08_claims_no_lead_inside_the_runs_spread():
    table = _table(150, 60, 58, 150, 900)
    table.loc[(VLLM, 32), "output_tok_s_low"] = 400.0  # one slow run of vLLM's crowd
    found = EngineFindings.of(table, SETUP, _facts())
    assert found.crowd_lead.compared is Compared.UNTOLD and not found.crowd_vllm
    assert "| 900 (400–918) |" in words.story(found, "")


def test_story_08_counts_the_compile_and_says_where_each_engine_ran():
    slow = EngineFindings.of(_table(150, 60, 58, 150, 600), SETUP, _facts())
    assert slow.build_slower and "11.7 minutes" in words.story(slow, "")
    quick = EngineFindings.of(_table(150, 60, 58, 150, 600), SETUP, _facts(compile_s=30.0))
    assert quick.build_slower is False
    unknown = _story(_table(150, 60, 58, 150, 600), _facts(compile_s=None), "")
    assert "minutes" not in unknown  # no build time is stated where none was recorded
    both = _story(
        _table(150, 60, 58, 150, 600), dataclasses.replace(_facts(), server_compile_s=180.0), ""
    )
    assert "3.0 minutes" in both and "1.1 s" in both  # llama-server's build and start


@pytest.mark.parametrize(
    ("vllm_first", "sooner"),
    [
        (0.05, VLLM),
        (0.3, LLAMA_Q4),
        (0.1, None),
    ],
)
def test_story_08_guidance_weighs_one_users_first_token(vllm_first, sooner):
    table = _table(150, 60, 58, 150, 600)
    for suffix, factor in (("", 1.0), ("_low", 0.98), ("_high", 1.02)):
        table.loc[(VLLM, 1), f"ttft_s_p50{suffix}"] = vllm_first * factor
    found = EngineFindings.of(table, SETUP, _facts())
    q4, vllm = found.first_alone[LLAMA_Q4], found.first_alone[VLLM]
    assert (vllm.below(q4), q4.below(vllm)) == (sooner == VLLM, sooner == LLAMA_Q4)
    text = words.story(found, "")
    assert "2.6×" in text and "4.0×" in text  # one user's lead and the crowd's
    # the sooner first token is named first (a review read "X against Y on vLLM")
    if sooner is not None:
        times = [spread.with_range(2, " s") for spread in (q4, vllm)]
        first, second = times if sooner == LLAMA_Q4 else times[::-1]
        assert text.index(first) < text.index(second)


def test_story_08_sets_vllm_on_a_gpu_against_llama_cpps_f16_run_on_the_cpu():
    found = EngineFindings.of(_table(150, 60, 600, 150, 600), SETUP, _facts(gpu=True))
    assert found.vllm_vs_f16.compared is Compared.HIGHER
    assert "10.0×" in words.story(found, "")  # vLLM on the GPU against F16 on the CPU


def test_story_08_says_which_loads_fell_run_after_run():
    table = _table(150, 60, 58, 150, 600)
    assert not EngineFindings.of(table, SETUP, _facts()).falling
    table["user_tok_s_runs"] = [
        (46.0, 32.0, 23.0) if load == (LLAMA_F16, 1) else (1.0, 1.0, 1.0) for load in table.index
    ]
    text = _story(table, _facts(), "x")
    assert "46, 32, 23 tokens/s" in text
