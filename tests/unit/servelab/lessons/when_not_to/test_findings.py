"""servelab.lessons.when_not_to runs, findings and words: chapter 08's table, its findings and
every story branch, by verdict and figure."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from servelab.bench.client import PlannedRequest, RequestRecord
from servelab.bench.frames import Result
from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared
from servelab.lessons.when_not_to import findings, runs, words
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
    for engine, one, crowd in ((LLAMA_Q4, q4, many_llama), (LLAMA_F16, f16, None),
                               (LLAMA_SERVER, q4, many_server or 3 * many_llama),
                               (VLLM, vllm, many_vllm)):
        rows.append({"engine": engine, "users": 1, "user_tok_s": one, "output_tok_s": one,
                     "ttft_s_p50": 0.1, "ttft_s_p99": 0.1})
        if crowd is not None:
            rows.append({"engine": engine, "users": 32, "user_tok_s": one, "output_tok_s": crowd,
                         "ttft_s_p50": 5.0, "ttft_s_p99": 10.0})
    # three runs of each load, 2 % either side of the median
    return repeated(pd.DataFrame(rows).set_index(["engine", "users"]), SPREAD_COLUMNS,
                    spread=0.02)


SETUP = pd.DataFrame({"packages_mb": {"llama.cpp": 20.0, "vLLM": 900.0},
                      "model_files_mb": {"llama.cpp": 98.0, "vLLM": 270.0}})


def _story(table, facts, prediction):
    return words.story(EngineFindings.of(table, SETUP, facts), prediction)


def _facts(gpu=False, compile_s=700.0):
    return Facts(many=32, llama_device="the CPU (2 cores)",
                 vllm_device="GPU T4" if gpu else "the same CPU", vllm_on_gpu=gpu,
                 q4_bits=5.86, f16_bits=16.1,
                 start_s={LLAMA_Q4: 1.0, LLAMA_F16: 1.2, LLAMA_SERVER: 1.1, VLLM: 40.0},
                 compile_s=compile_s)


@pytest.mark.parametrize(("speeds", "q4_leads", "q4_vs_f16", "f16_vs_vllm"), [
    ((150, 60, 58), True, Compared.HIGHER, Compared.ALIKE),    # the smaller file's lead
    ((150, 90, 58), True, Compared.HIGHER, Compared.HIGHER),   # ahead at equal precision too
    ((150, 40, 58), True, Compared.HIGHER, Compared.LOWER),    # the format alone put it ahead
    ((50, 20, 58), False, Compared.HIGHER, Compared.LOWER),    # not ahead even packed
])
def test_story_08_one_user_branches(speeds, q4_leads, q4_vs_f16, f16_vs_vllm):
    found = EngineFindings.of(_table(*speeds, 150, 600), SETUP, _facts())
    assert found.q4_leads is q4_leads
    assert (found.q4_vs_f16.compared, found.f16_vs_vllm.compared) == (q4_vs_f16, f16_vs_vllm)
    text = words.story(found, "llama 2x")
    assert "llama 2x" in text  # the reader's prediction, beside the measurement
    assert "5.9 bits" in text and "2.7×" in text  # bits per weight; F16's bytes over Q4_1's


def _runs(median: float, low: float | None = None, high: float | None = None,
          n: int = 3) -> Spread:
    return Spread(median, median - 0.5 if low is None else low,
                  median + 0.5 if high is None else high, n)


def test_story_08_credits_the_file_only_when_the_two_files_differ_beyond_the_spread():
    table = _table(150, 60, 58, 150, 600)
    table.loc[(LLAMA_F16, 1), "user_tok_s_high"] = 160.0  # one quick run of the F16 file
    found = EngineFindings.of(table, SETUP, _facts())
    assert found.q4_leads and found.q4_vs_f16.compared is Compared.UNTOLD


@pytest.mark.parametrize(("a", "pace"), [
    (_runs(111.0), Compared.HIGHER),
    (_runs(110.0), Compared.ALIKE),
    (_runs(91.0), Compared.ALIKE),              # 100 within 1.1x of 91, either way
    (_runs(90.0), Compared.LOWER),              # 100 is 1.11x of 90: past the band
    (_runs(130.0, low=99.0), Compared.UNTOLD),   # past ALIKE, ranges overlapping
    (_runs(70.0, high=101.0), Compared.UNTOLD),
    (_runs(130.0, n=1), Compared.UNTOLD),        # one run: no range to weigh
])
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
    assert EngineFindings.of(_table(150, 60, 58, 150, 600), SETUP,
                             _facts(compile_s=None)).build_slower is None


def test_story_08_does_not_split_engine_from_format_when_vllm_computes_in_float32():
    facts = dataclasses.replace(_facts(), vllm_dtype="float32")
    assert facts.vllm_bits == 32
    assert "| 32.0 |" in _story(_table(150, 60, 58, 150, 600), facts, "")


@pytest.mark.parametrize(("many_server", "pace", "ratio"), [
    (450, "HIGHER", "1.3×"), (600, "ALIKE", None), (1200, "LOWER", "2.0×"),
])
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


@pytest.mark.parametrize(("speeds", "many_vllm", "alone_llama", "over_binding", "lead"), [
    ((150, 60, 58), 600, True, Compared.HIGHER, Compared.HIGHER),
    ((50, 20, 58), 600, False, Compared.HIGHER, Compared.HIGHER),
    ((150, 60, 58), 100, True, Compared.LOWER, Compared.LOWER),
])
def test_story_08_guidance_branches(speeds, many_vllm, alone_llama, over_binding, lead):
    found = EngineFindings.of(_table(*speeds, 150, many_vllm), SETUP, _facts())
    assert found.alone_llama is alone_llama
    assert (found.over_binding.compared, found.crowd_lead.compared) == (over_binding, lead)


def test_story_08_counts_the_compile_and_says_where_each_engine_ran():
    slow = EngineFindings.of(_table(150, 60, 58, 150, 600), SETUP, _facts())
    assert slow.build_slower and "11.7 minutes" in words.story(slow, "")
    quick = EngineFindings.of(_table(150, 60, 58, 150, 600), SETUP, _facts(compile_s=30.0))
    assert quick.build_slower is False
    unknown = _story(_table(150, 60, 58, 150, 600), _facts(compile_s=None), "")
    assert "minutes" not in unknown  # no build time is stated where none was recorded
    both = _story(_table(150, 60, 58, 150, 600),
                  dataclasses.replace(_facts(), server_compile_s=180.0), "")
    assert "3.0 minutes" in both and "1.1 s" in both  # llama-server's build and start


@pytest.mark.parametrize(("vllm_first", "sooner"), [
    (0.05, VLLM), (0.3, LLAMA_Q4), (0.1, None),
])
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


def test_story_08_guidance_says_at_least_as_quickly_where_one_user_ran_alike():
    found = EngineFindings.of(_table(60, 40, 58, 150, 600), SETUP, _facts())
    assert found.alone_llama and not found.q4_leads


def test_story_08_sets_vllm_on_a_gpu_against_llama_cpps_f16_run_on_the_cpu():
    found = EngineFindings.of(_table(150, 60, 600, 150, 600), SETUP, _facts(gpu=True))
    assert found.vllm_vs_f16.compared is Compared.HIGHER
    assert "10.0×" in words.story(found, "")  # vLLM on the GPU against F16 on the CPU


def _record(index: int, sent: float, first: float, end: float, tokens: int) -> RequestRecord:
    record = RequestRecord(PlannedRequest(index=index, user=index, prompt="p", max_tokens=tokens))
    record.sent, record.first_token, record.end, record.closed = sent, first, end, end
    record.token_times = [first + (end - first) * i / (tokens - 1) for i in range(tokens)]
    record.token_samples = [0] * tokens
    record.output_tokens = tokens
    return record


def test_comparison_has_one_row_per_engine_and_users():
    one = Result(workload=None, records=[_record(0, 0.0, 0.1, 1.1, 11)], duration_s=1.1)
    many = Result(workload=None, records=[_record(i, 0.0, 0.5 * i + 0.1, 0.5 * i + 0.5, 5)
                                          for i in range(4)], duration_s=2.0)
    table = runs.comparison({("vLLM", 1): [one], ("llama.cpp", 4): [many]})
    assert list(table.index) == [("vLLM", 1), ("llama.cpp", 4)]
    assert table.loc[("vLLM", 1), "user_tok_s"] == pytest.approx(10.0)
    assert table.loc[("llama.cpp", 4), "output_tok_s"] == pytest.approx(10.0)
    assert table.loc[("llama.cpp", 4), "tokens_per_request"] == 5
    with pytest.raises(ValueError, match="no runs"):
        runs.comparison({})


def test_comparison_of_repeated_runs_gives_medians_and_ranges():
    def alone(seconds: float) -> Result:  # 11 tokens, the first at 0.1 s
        return Result(workload=None, records=[_record(0, 0.0, 0.1, 0.1 + seconds, 11)],
                      duration_s=0.1 + seconds)

    table = runs.comparison({("vLLM", 1): [alone(1.0), alone(0.5), alone(2.0)]})
    row = table.loc[("vLLM", 1)]
    assert Spread.in_row(row, "user_tok_s") == Spread(10.0, 5.0, 20.0, 3)
    view = runs.comparison_view(table)
    assert view.loc[("vLLM", 1), "user_tok_s"] == "10.0 (5.0–20.0)"
    # Counts print without decimals (a review read "completed requests 2.00").
    assert (view.loc[("vLLM", 1), "completed"], view.loc[("vLLM", 1), "tokens_per_request"]) == (
        "1", "11.0")


def test_comparison_keeps_the_speeds_in_the_order_they_ran():
    def alone(seconds: float) -> Result:  # 11 tokens, the first at 0.1 s
        return Result(workload=None, records=[_record(0, 0.0, 0.1, 0.1 + seconds, 11)],
                      duration_s=0.1 + seconds)

    table = runs.comparison({("vLLM", 1): [alone(1.0), alone(2.0), alone(4.0)]})
    assert table.loc[("vLLM", 1), "user_tok_s_runs"] == pytest.approx((10.0, 5.0, 2.5))


@pytest.mark.parametrize(("runs", "fell"), [
    ((46.0, 32.0, 23.0), True),
    ((46.0, 45.0, 44.0), False),  # in order, but within ALIKE of the first
    ((46.0, 23.0, 32.0), False),  # not in order
    ((46.0, 23.0), False),  # two runs fall in order half the time
])
def test_a_speed_fell_run_after_run_only_in_order_and_beyond_the_band(runs, fell):
    assert findings.fell_run_after_run(runs) is fell


def test_story_08_says_which_loads_fell_run_after_run():
    table = _table(150, 60, 58, 150, 600)
    assert not EngineFindings.of(table, SETUP, _facts()).falling
    table["user_tok_s_runs"] = [(46.0, 32.0, 23.0) if load == (LLAMA_F16, 1) else (1.0, 1.0, 1.0)
                                for load in table.index]
    text = _story(table, _facts(), "x")
    assert "46, 32, 23 tokens/s" in text


def test_folder_mb_measures_files_and_rejects_missing_paths(tmp_path):
    (tmp_path / "a").write_bytes(b"x" * 1000)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").write_bytes(b"x" * 2000)
    assert runs.folder_mb(tmp_path) == pytest.approx(0.003)
    assert runs.folder_mb(tmp_path / "a") == pytest.approx(0.001)
    with pytest.raises(FileNotFoundError):
        runs.folder_mb(tmp_path / "nope")
