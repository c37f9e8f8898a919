"""Chapters 06–08 without an engine: budget sizing, the side-by-side split, the 16-bit GGUF
file, the shared plots with several runs, and every branch of each page's prose, on made-up
numbers."""

from __future__ import annotations

import dataclasses

import matplotlib
import matplotlib.pyplot
import numpy as np
import pandas as pd
import pytest

from servelab import placement, plots
from servelab.bench.client import PlannedRequest, RequestRecord
from servelab.bench.frames import Result
from servelab.bench.prefill import fit_prefill
from servelab.bench.prompts import WordPrompts
from servelab.bench.spread import Spread
from servelab.bench.workloads import PrefillProbe
from servelab.engines.llama_server import LlamaCppServer
from servelab.engines.process import ServerStartError
from servelab.hardware import Device
from servelab.lessons.chunking import chunked_prefill
from servelab.lessons.chunking.chunked_prefill import (
    BudgetPlan,
    PauseVerdict,
    PooledTail,
    Reading,
    ReadingTail,
    Sizing,
    TargetVerdict,
    TradeFindings,
    WaitVerdict,
    budget_for,
)
from servelab.lessons.single_user import when_not_to
from servelab.lessons.single_user.when_not_to import (
    LLAMA_F16,
    LLAMA_Q4,
    VLLM,
    EngineFindings,
    Facts,
)
from servelab.placement import side_by_side
from servelab.tables import readable

matplotlib.use("Agg")


def _record(index: int, sent: float, gaps: list[float], ttft: float, role: str = "user",
            prompt: int = 10) -> RequestRecord:
    times = list(np.cumsum([sent + ttft, *gaps]))
    r = RequestRecord(PlannedRequest(index=index, user=index, prompt="p",
                                     max_tokens=len(times), role=role))
    r.sent, r.token_times, r.token_samples = sent, times, [0] * len(times)
    r.first_token, r.end, r.closed = times[0], times[-1], times[-1] + 0.001
    r.prompt_tokens, r.output_tokens = prompt, len(times)
    return r


def _interferer_result(stall: float) -> Result:
    users = [_record(i, 0.0, [0.03, 0.03, stall, 0.03], ttft=0.1) for i in range(2)]
    document = _record(2, 0.15, [0.03], ttft=stall, role="interferer", prompt=1000)
    return Result(workload=None, records=[*users, document], duration_s=1.0)


# -- chapter 06 ---------------------------------------------------------------------------------
def test_budget_is_the_pause_at_the_measured_rate_in_whole_blocks():
    assert budget_for(1000.0, 150, smallest=8, largest=2000, block=16) == 144
    assert budget_for(1000.0, 150, smallest=8, largest=2000, block=128) == 128  # CPU blocks
    assert budget_for(1000.0, 1, smallest=8, largest=2000, block=16) == 8
    assert budget_for(30.0, 400, smallest=8, largest=2000, block=16) == 12
    assert budget_for(100_000.0, 150, smallest=8, largest=2000, block=16) == 2000
    with pytest.raises(ValueError):
        budget_for(0.0, 150, smallest=8, largest=2000, block=16)


def test_the_prefill_rate_leaves_the_fixed_cost_per_request_out():
    # 30 ms per request whatever its length, then 1,000 tokens/s: 100 tokens at 130 ms, 800 at
    # 830 ms. Tokens over the whole time would say 964 tokens/s for the long one.
    fit = fit_prefill(100, 0.130, 800, 0.830)
    assert fit.tok_s == pytest.approx(1000.0) and fit.fixed_ms == pytest.approx(30.0)
    assert fit.separated and fit.prefill_ms(400) == pytest.approx(400.0)
    # A line through the two points that starts below zero: no fixed part shows.
    flat = fit_prefill(100, 0.095, 800, 0.8)
    assert flat.fixed_ms == 0 and flat.tok_s == pytest.approx(1000.0)
    assert "no fixed cost per request measurable" in str(flat)
    noisy = fit_prefill(100, 0.5, 800, 0.4)
    assert not noisy.separated and noisy.tok_s == pytest.approx(2000.0)
    assert "could not fit" in str(noisy)


def test_the_prefill_probe_alternates_two_lengths_after_a_warm_up():
    plan = PrefillProbe(8, 64, repeats=2).plan(WordPrompts())
    assert [p.role for p in plan] == ["warm-up", "short", "long", "short", "long"]
    assert [len(p.prompt.split()) for p in plan] == [8, 8, 64, 8, 64]
    assert all(p.max_tokens == 1 for p in plan)
    with pytest.raises(ValueError):
        PrefillProbe(64, 64)


def test_compare_and_the_shared_gap_plot_take_several_runs():
    runs = {"whole": _interferer_result(0.8), "chunked": _interferer_result(0.2)}
    table = chunked_prefill.compare(runs)
    assert table.loc["whole", "users_longest_gap_ms"] == pytest.approx(800)
    assert table.loc["chunked", "document_ttft_s"] == pytest.approx(0.2)
    figure = plots.itl_over_time(runs, title="t")
    assert len(figure.axes) == 2 and all(ax.get_ylabel() for ax in figure.axes)
    trade = chunked_prefill.plot_trade(table, title="trade")
    assert trade.axes[0].get_xlabel() == "document's time to first token (s)"
    matplotlib.pyplot.close("all")


def _row(longest, p99, after, p50, ttft, n=3):
    """A run's row of ``compare``: each per-document figure 10 % either side of its median."""
    row = {"users_itl_ms_p99": p99, "users_itl_ms_p50": p50}
    for key, median in (("users_longest_gap_ms", longest), ("itl_ms_p99_after_arrival", after),
                        ("document_ttft_s", ttft)):
        row |= Spread(median, 0.9 * median, 1.1 * median, n).columns(key)
    return row


def test_compare_gives_each_documents_pause_its_own_window_and_the_spread():
    users = [_record(i, 0.0, [0.03] * 3 + [0.5] + [0.03] * 20 + [0.7] + [0.03] * 20, ttft=0.1)
             for i in range(2)]
    documents = [_record(2, 0.15, [0.03], ttft=0.5, role="interferer"),
                 _record(3, 0.8, [0.03], ttft=0.7, role="interferer"),
                 _record(4, 9.0, [0.03], ttft=0.2, role="interferer")]  # the users are done
    row = chunked_prefill.compare({"run": Result(None, [*users, *documents], 10.0)}).iloc[0]
    pause = Spread.in_row(row, "users_longest_gap_ms")
    assert (pause.low, pause.high, pause.n) == pytest.approx((500, 700, 2))
    assert Spread.in_row(row, "document_ttft_s").median == pytest.approx(0.6)
    shown = readable(chunked_prefill.compare_view(row.to_frame().T)).T["run"]
    assert shown["users' longest pause (ms)"] == "600 (500–700)"
    assert shown["document's first token (s)"] == "0.60 (0.50–0.70)"
    assert not any("_n" in name or "lowest" in name for name in shown.index)  # no counts shown
    late = [_record(2, 9.0, [0.03], ttft=0.2, role="interferer")]
    with pytest.raises(RuntimeError, match="no user was still decoding"):
        chunked_prefill.compare({"late": Result(None, [*users, *late], 10.0)})


PLAN = BudgetPlan(first_budget=4096, prefill_tok_s=2500, pause_ms=150, budget=368,
                  document_tokens=2000, block=16)
WHOLE = _row(800, 150, 700, 31, 5.0)


def findings(chunked: dict[str, float], whole: dict[str, float] = WHOLE,
             plan: BudgetPlan = PLAN) -> TradeFindings:
    return TradeFindings.from_runs(chunked=chunked, whole=whole, plan=plan)


def test_the_findings_read_the_two_rows_and_their_ratios():
    found = findings(_row(300, 200, 1000, 31, 6.0))
    pause = found.pause_whole
    assert (pause.median, pause.low, pause.high, pause.n) == pytest.approx((800, 720, 880, 3))
    assert (found.usual_gap_ms, found.pooled_whole_ms, found.pooled_chunked_ms) == (31, 150, 200)
    assert found.pause_over_usual == pytest.approx(300 / 31)
    assert found.wait_ratio == pytest.approx(1.2)
    assert (PLAN.chunks, PLAN.first_chunks, PLAN.wanted_tokens) == (6, 1, 375)


@pytest.mark.parametrize(("chunked", "plan", "verdict"), [
    (_row(300, 200, 1000, 31, 6.0), PLAN, PauseVerdict.SHORTER),
    (_row(700, 200, 1000, 31, 6.0), PLAN, PauseVerdict.NOT_SHOWN),  # ranges overlap
    (_row(540, 200, 1000, 31, 6.0), PLAN, PauseVerdict.NOT_SHOWN),  # apart, not by the bar
    (_row(300, 200, 1000, 31, 6.0, n=1), PLAN, PauseVerdict.NO_SPREAD),
    (_row(300, 200, 1000, 31, 6.0), dataclasses.replace(PLAN, budget=2000),
     PauseVerdict.NOT_SPLIT),
])
def test_pause_verdicts(chunked, plan, verdict):
    assert findings(chunked, plan=plan).pause_verdict is verdict


@pytest.mark.parametrize(("after", "verdict"), [
    (1000, ReadingTail.WORSE), (250, ReadingTail.BETTER), (500, ReadingTail.LOWER),
    (650, ReadingTail.OVERLAP),
])
def test_tail_verdicts_while_a_document_is_read(after, verdict):
    assert findings(_row(300, 100, after, 31, 6.0)).tail_verdict is verdict


@pytest.mark.parametrize(("chunked", "verdict", "says"), [
    (_row(200, 100, 250, 31, 6.0), TargetVerdict.NEAR, "came within 1.5× of the target"),
    (_row(300, 100, 250, 31, 6.0), TargetVerdict.OVER, "over 1.5× the 150 ms"),  # 270 > 225
    (_row(80, 100, 250, 31, 6.0), TargetVerdict.UNDER, "a larger budget would still"),  # 88
])
def test_the_chunked_pauses_are_held_against_their_target(chunked, verdict, says):
    found = findings(chunked)
    assert found.target_verdict is verdict
    assert says in chunked_prefill.effect_text(found)


@pytest.mark.parametrize(("pooled", "verdict", "says"), [
    (300, PooledTail.WORSE, "traded one long freeze for many smaller ones"),  # 300 > 1.5 × 150
    (200, PooledTail.ALIKE, "whole run stayed within 1.5×"),
    (90, PooledTail.BETTER, "fell by more than the bar as well"),
])
def test_a_better_tail_while_reading_is_weighed_against_the_whole_runs(pooled, verdict, says):
    found = findings(_row(300, pooled, 250, 31, 6.0))
    assert found.tail_verdict is ReadingTail.BETTER and found.pooled_verdict is verdict
    text = chunked_prefill.effect_text(found)
    assert says in text and ("better deal" in text) == (verdict is not PooledTail.WORSE)


def test_the_effect_text_is_the_storys_middle_in_two_paragraphs():
    found = findings(_row(300, 200, 1000, 31, 6.5))
    users, document = chunked_prefill.effect_text(found).split("\n\n")
    story = chunked_prefill.story(found, "")
    assert users in story and document in story and "up to 6 shorter ones" in users
    assert "1.3× as long" in document


@pytest.mark.parametrize(("ttft", "plan", "verdict"), [
    (6.5, PLAN, WaitVerdict.LATER), (4.0, PLAN, WaitVerdict.SOONER),
    (5.1, PLAN, WaitVerdict.OVERLAP),
    (6.5, dataclasses.replace(PLAN, budget=2000), WaitVerdict.NOT_SPLIT),
])
def test_wait_verdicts(ttft, plan, verdict):
    assert findings(_row(300, 100, 250, 31, ttft), plan=plan).wait_verdict is verdict


@pytest.mark.parametrize(("plan", "first", "sizing"), [
    (PLAN, Reading.ONE_STEP, Sizing.TARGET),
    (BudgetPlan(512, 2500, 150, 368, 2000, 16), Reading.CHUNKS, Sizing.TARGET),
    (BudgetPlan(4096, 20, 150, 8, 2000, 16), Reading.ONE_STEP, Sizing.FLOOR),
    (BudgetPlan(4096, 50_000, 150, 2000, 2000, 16), Reading.ONE_STEP, Sizing.WHOLE),
])
def test_plan_verdicts(plan, first, sizing):
    assert (plan.first_read, plan.sizing) == (first, sizing)


def test_story_06_words_a_capped_pause_with_a_worse_tail():
    text = chunked_prefill.story(findings(_row(300, 200, 1000, 31, 6.5)), "a long pause")
    assert "a long pause" in text and "368-token chunks" in text
    assert "up to 6 shorter ones" in text and "did not make the stream even" in text
    assert "1.3× as long" in text and "read the document in a single step" in text
    assert "better deal" not in text


def test_story_06_says_when_the_run_cannot_tell():
    text = chunked_prefill.story(findings(_row(300, 100, 650, 31, 5.1, n=1)), "")
    assert "cannot say whether chunking shortened" in text
    assert "cannot tell the two waits apart" in text and "capped" not in text
    assert "You left the prediction empty" in text


def test_story_06_words_the_plan_it_was_given():
    chunks_first = BudgetPlan(512, 2500, 150, 368, 2000, 16)
    text = chunked_prefill.story(findings(_row(300, 100, 250, 31, 6.0), plan=chunks_first), "")
    assert "even the first run read it in 4 chunks" in text
    assert "the better deal for the users" in text
    unsplit = BudgetPlan(4096, 50_000, 150, 2000, 2000, 16)
    text = chunked_prefill.story(findings(_row(300, 100, 250, 31, 6.0), plan=unsplit), "")
    assert "cannot split it" in text and "not chunking" in text and "capped" not in text
    floor = BudgetPlan(4096, 20, 150, 8, 2000, 16)
    assert "longer than aimed for" in chunked_prefill.story(
        findings(_row(300, 100, 250, 31, 6.0), plan=floor), "")

# -- chapter 07 ---------------------------------------------------------------------------------
CPU = Device(kind="cpu", name="test cpu")
T4 = Device(kind="cuda", name="Tesla T4", memory_gib=15.0, compute_capability=(7, 5))
TWO_T4 = Device(kind="cuda", name="Tesla T4", count=2, memory_gib=15.0,
                compute_capability=(7, 5))


def test_side_by_side_splits_cores_and_cache_or_refuses_one_core():
    chat, job = side_by_side(CPU, 2.0, cores=[0, 1])
    assert chat.env == {"VLLM_CPU_OMP_THREADS_BIND": "0"}
    assert job.env == {"VLLM_CPU_OMP_THREADS_BIND": "1"}
    assert chat.server_options == {"kv_cache_gib": 1.0}
    four = side_by_side(CPU, 2.0, cores=[3, 0, 2, 1])
    assert [h.env["VLLM_CPU_OMP_THREADS_BIND"] for h in four] == ["0,1", "2,3"]
    assert side_by_side(CPU, 2.0, cores=[0]) is None
    gpu, _ = side_by_side(T4, 2.0)
    assert gpu.server_options == {"gpu_memory_utilization": placement.GPU_SHARE}
    assert gpu.env == {}


def test_two_gpus_give_each_half_its_own_gpu_and_label_it():
    first, second = side_by_side(TWO_T4, 2.0)
    assert (first.env, second.env) == ({"CUDA_VISIBLE_DEVICES": "0"},
                                       {"CUDA_VISIBLE_DEVICES": "1"})
    assert first.server_options == second.server_options == {}
    assert "GPU 1 of 2" in second.described
    assert placement.whole_device(TWO_T4).described == "GPU 0 of 2 (Tesla T4)"
    assert placement.whole_device(T4).described == "the whole GPU (Tesla T4)"


# -- chapter 08 ---------------------------------------------------------------------------------
def test_f16_gguf_dequantizes_packed_tensors_and_keeps_metadata(tmp_path, monkeypatch):
    import gguf

    from servelab.lessons.single_user import gguf_f16

    source = tmp_path / "tiny.Q8_0.gguf"
    weights = np.linspace(-1, 1, 4 * 64, dtype=np.float32).reshape(4, 64)
    norm = np.ones(64, dtype=np.float32)
    writer = gguf.GGUFWriter(source, arch="llama")
    writer.add_block_count(1)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0)
    packed = gguf.quants.quantize(weights, gguf.GGMLQuantizationType.Q8_0)
    writer.add_tensor("w", packed, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    writer.add_tensor("norm", norm)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()

    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path / "cache"))
    target = gguf_f16.f16_gguf_path(source)
    written = target.stat().st_mtime_ns
    assert gguf_f16.f16_gguf_path(source) == target  # reused, not written again
    assert target.stat().st_mtime_ns == written
    assert target.parent == tmp_path / "cache"
    reader = gguf.GGUFReader(target)
    types = {t.name: t.tensor_type for t in reader.tensors}
    assert types == {"w": gguf.GGMLQuantizationType.F16, "norm": gguf.GGMLQuantizationType.F32}
    (w,) = [t for t in reader.tensors if t.name == "w"]
    assert np.allclose(np.asarray(w.data, dtype=np.float32), weights, atol=0.01)
    assert reader.fields["llama.block_count"].contents() == 1
    assert reader.fields["general.file_type"].contents() == gguf.LlamaFileType.MOSTLY_F16

    assert gguf_f16.parameter_count(target) == 4 * 64 + 64
    assert gguf_f16.bits_per_weight(target) == pytest.approx(target.stat().st_size * 8 / 320)
    assert gguf_f16.tensor_types(source) == {"Q8_0": 1, "F32": 1}


def test_llama_command_line_reads_as_typed(tmp_path):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    line = LlamaCppServer(model, n_threads=2, port=8123).command_line
    assert line.startswith("python -m llama_cpp.server --model m.gguf --model_alias ")
    assert str(tmp_path) not in line


def _table(q4, f16, vllm, many_llama, many_vllm):
    rows = []
    for engine, one, crowd in ((LLAMA_Q4, q4, many_llama), (LLAMA_F16, f16, many_llama / 2),
                               (VLLM, vllm, many_vllm)):
        rows.append({"engine": engine, "users": 1, "user_tok_s": one, "output_tok_s": one,
                     "ttft_s_p50": 0.1, "ttft_s_p99": 0.1})
        rows.append({"engine": engine, "users": 32, "user_tok_s": one, "output_tok_s": crowd,
                     "ttft_s_p50": 5.0, "ttft_s_p99": 10.0})
    return pd.DataFrame(rows).set_index(["engine", "users"])


SETUP = pd.DataFrame({"packages_mb": {"llama.cpp": 20.0, "vLLM": 900.0},
                      "model_files_mb": {"llama.cpp": 98.0, "vLLM": 270.0}})


def _story(table, facts, prediction):
    return when_not_to.story(EngineFindings.of(table, SETUP, facts), prediction)


def _facts(gpu=False, compile_s=700.0):
    return Facts(many=32, llama_device="the CPU (2 cores)",
                 vllm_device="GPU T4" if gpu else "the same CPU", vllm_on_gpu=gpu,
                 q4_bits=5.86, f16_bits=16.1,
                 start_s={LLAMA_Q4: 1.0, LLAMA_F16: 1.2, VLLM: 40.0}, compile_s=compile_s)


@pytest.mark.parametrize(("speeds", "says"), [
    ((150, 60, 58), "came from the smaller file, not from the engine"),
    ((150, 90, 58), "led for one user at equal precision too"),
    ((150, 40, 58), "the 4-bit format alone put llama.cpp ahead"),
    ((50, 20, 58), "Even the 4-bit file did not put llama.cpp ahead"),
])
def test_story_08_one_user_branches(speeds, says):
    text = _story(_table(*speeds, 150, 600), _facts(), "llama 2x")
    assert says in text and "llama 2x" in text
    assert "5.9 bits" in text and "2.7× the bytes" in text


@pytest.mark.parametrize(("a", "pace"), [(111.0, when_not_to.Pace.FASTER),
                                         (110.0, when_not_to.Pace.ALIKE),
                                         (90.0, when_not_to.Pace.ALIKE),
                                         (89.0, when_not_to.Pace.SLOWER)])
def test_two_speeds_are_alike_within_the_named_band(a, pace):
    assert when_not_to.Against(a, 100.0).pace is pace


def test_the_engine_findings_read_each_run_once():
    found = EngineFindings.of(_table(150, 60, 58, 150, 600), SETUP, _facts())
    assert found.crowd_llama == LLAMA_Q4 and found.crowd_lead.ratio == pytest.approx(4.0)
    assert found.q4_leads and found.alone_llama and found.crowd_vllm
    assert found.disk_mb == {"llama.cpp": 118.0, "vLLM": 1170.0}
    assert found.first_start_s == pytest.approx(701.0) and found.build_slower
    assert EngineFindings.of(_table(150, 60, 58, 150, 600), SETUP,
                             _facts(compile_s=None)).build_slower is None


def test_story_08_does_not_split_engine_from_format_when_vllm_computes_in_float32():
    facts = dataclasses.replace(_facts(), vllm_dtype="float32")
    text = _story(_table(150, 60, 58, 150, 600), facts, "")
    assert "computing in float32" in text and "32 bits per weight" in text
    assert "does not say how much of the lead is the engine" in text
    assert "came from the smaller file" not in text and "At 16 bits each" not in text


@pytest.mark.parametrize(("many_vllm", "says"), [
    (600, "4.0× the tokens"), (150, "vLLM did not serve more in total"),
])
def test_story_08_many_user_branches(many_vllm, says):
    text = _story(_table(150, 60, 58, 150, many_vllm), _facts(), "")
    assert says in text


@pytest.mark.parametrize(("speeds", "many_vllm", "says"), [
    ((150, 60, 58), 600, "Ask how many requests will be in flight"),
    ((50, 20, 58), 600, "the choice would be vLLM either way"),
    ((150, 60, 58), 100, "gives no reason to pick vLLM"),
])
def test_story_08_guidance_branches(speeds, many_vllm, says):
    text = _story(_table(*speeds, 150, many_vllm), _facts(), "")
    assert says in text
    assert "talked about" not in text


def test_story_08_counts_the_compile_and_says_where_each_engine_ran():
    slow_build = _story(_table(150, 60, 58, 150, 600), _facts(), "")
    assert "11.7 minutes" in slow_build and "longer than vLLM's start" in slow_build
    assert "cannot load the 4-bit GGUF" in slow_build and "on a GPU" in slow_build
    quick = _story(_table(150, 60, 58, 150, 600), _facts(compile_s=30.0), "")
    assert "still less than vLLM's start" in quick
    unknown = _story(_table(150, 60, 58, 150, 600), _facts(compile_s=None), "")
    assert "was not recorded" in unknown
    gpu = _story(_table(150, 60, 600, 150, 6000), _facts(gpu=True), "")
    assert "also a comparison between a CPU and a GPU" in gpu
    assert "mostly the device, not the engine" in gpu
    assert "came from the smaller file" not in gpu
    assert "(on different devices, as said above)" in gpu


def test_request_timeline_draws_one_panel_per_engine():
    one = Result(workload=None, records=[_record(0, 0.0, [0.1, 0.1], ttft=0.2)], duration_s=1)
    two = Result(workload=None, records=[_record(i, 0.0, [0.1], ttft=0.2 * i + 0.1)
                                         for i in range(3)], duration_s=1)
    figure = plots.request_timeline({"a": one, "b": two}, title="both")
    assert [ax.get_title(loc="left") for ax in figure.axes] == ["a", "b"]
    assert figure.axes[0].get_shared_x_axes().joined(figure.axes[0], figure.axes[1])
    matplotlib.pyplot.close(figure)


def test_a_whole_device_server_is_bound_to_every_core():
    from servelab.hardware import bind_env

    assert placement.whole_device(CPU, cores=[1, 0]).env == {
        "VLLM_CPU_OMP_THREADS_BIND": "0,1"}
    assert placement.whole_device(T4).env == {}
    with pytest.raises(ValueError):
        bind_env([])


def test_comparison_plot_has_a_bar_per_engine_in_each_panel():
    figure = when_not_to.plot_comparison(_table(150, 60, 58, 150, 600), 32, title="t")
    assert [len(ax.patches) for ax in figure.axes] == [3, 3, 3]
    assert all(ax.get_ylabel() for ax in figure.axes)
    matplotlib.pyplot.close(figure)


class _Launch:
    """Records which thread started it, when its start began and ended, and whether that thread
    was alive when it stopped."""

    def __init__(self, fail: bool = False, device: Device = CPU) -> None:
        self.fail, self.device, self.thread, self.alive_at_stop = fail, device, None, None
        self.began = self.ended = None

    def start(self):
        import threading
        import time

        self.thread = threading.current_thread()
        self.began = time.monotonic()
        time.sleep(0.2)
        self.ended = time.monotonic()
        if self.fail:
            raise ServerStartError("vLLM exited with code 1 while starting.")
        return self

    def stop(self) -> None:
        self.alive_at_stop = self.thread is not None and self.thread.is_alive()


def test_gpu_servers_start_one_after_another_cpu_servers_at_once():
    gpu = [_Launch(device=T4), _Launch(device=T4)]
    with placement.running_together(gpu):
        assert gpu[1].began >= gpu[0].ended
    cpu = [_Launch(), _Launch()]
    with placement.running_together(cpu):
        assert cpu[1].began < cpu[0].ended


def test_servers_run_together_stay_tied_to_live_threads_until_stopped():
    import threading

    first, second = _Launch(), _Launch()
    with placement.running_together([first, second]) as running:
        assert running == [first, second]
        assert first.thread is not threading.current_thread()
    assert first.alive_at_stop and second.alive_at_stop
    broken, fine = _Launch(fail=True), _Launch()
    with pytest.raises(ServerStartError, match="server 0 of the 2 .* did not start: vLLM exited"):
        with placement.running_together([broken, fine]):
            pass
    assert fine.alive_at_stop is not None  # stopped although its partner failed


def test_the_document_is_sized_to_a_few_pauses_at_the_measured_rate():
    # 4,000 tok/s (bf16 on AMX) and a 400 ms target: 4,800 tokens, 1.2 s in one step.
    assert chunked_prefill.document_for(4000.0, 400.0, smallest=600, largest=8128) == 4800
    # A slow CPU keeps the size table's floor; a fast one stops at the context.
    assert chunked_prefill.document_for(100.0, 400.0, smallest=600, largest=8128) == 600
    assert chunked_prefill.document_for(40_000.0, 400.0, smallest=600, largest=8128) == 8128
    with pytest.raises(ValueError, match="must be positive"):
        chunked_prefill.document_for(0.0, 400.0, smallest=600, largest=8128)
