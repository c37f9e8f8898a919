"""servelab.lessons.when_not_to.record: chapter 08's figures from made-up comparison rows and
one real run's recorded slot findings."""

from __future__ import annotations

import pandas as pd

from course.paths import REPO_ROOT
from servelab.lessons import recorded
from servelab.lessons.when_not_to.chapter import CHAPTER
from servelab.lessons.when_not_to.findings import LLAMA_F16, LLAMA_Q4, LLAMA_SERVER, VLLM
from servelab.lessons.when_not_to.record import SingleUserRecord
from servelab.lessons.when_not_to.story import STORY

RUN = REPO_ROOT / "tests" / "snapshots" / CHAPTER.id / "avx512-bf16.json"
ENGINES = [LLAMA_Q4, LLAMA_F16, LLAMA_SERVER, VLLM]


def test_the_record_gives_every_declared_figure_from_its_findings() -> None:
    found = recorded.load(RUN, STORY.kinds())["slot_found"]
    one = pd.DataFrame({"user_tok_s": [40.0, 20.0, 35.0, 10.0]}, index=ENGINES)
    many = pd.DataFrame(
        {"output_tok_s": [41.0, 21.0, 80.0, 150.0], "ttft_s_p99": [9.0, 18.0, 3.0, 1.5]},
        index=ENGINES,
    )
    files = pd.DataFrame(
        {"file_mb": [90.0, 270.0], "bits_per_weight": [5.0, 16.0]},
        index=["Q4_1 GGUF (llama.cpp)", "F16 GGUF (llama.cpp)"],
    )
    start_s = {LLAMA_Q4: 0.5, LLAMA_SERVER: 1.5, VLLM: 60.0}
    record = SingleUserRecord(
        one_rows=one, many_rows=many, slot_found=found, start_s=start_s, files=files
    )
    figures = record.figures().by_name()
    assert record.chapter == "08-when-not-to"
    assert set(figures) == set(CHAPTER.figures)
    assert (figures["user_tok_s_alone_llama_f16"], figures["user_tok_s_alone_vllm"]) == (20.0, 10.0)
    assert (figures["output_tok_s_many_llama_server"], figures["ttft_s_p99_many_vllm"]) == (
        80.0,
        1.5,
    )
    assert figures["step_gain_vllm"] == found.steps[VLLM].gain
    assert figures["step_gain_llama_server"] == found.steps[LLAMA_SERVER].gain
    assert (figures["start_s_llama_q4"], figures["start_s_vllm"]) == (0.5, 60.0)
    assert (figures["bits_per_weight_q4"], figures["bits_per_weight_f16"]) == (5.0, 16.0)
