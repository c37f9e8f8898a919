"""Made-up records, devices, a start-up log, a check and result records that several test
modules share (no tests)."""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import IPython.display
import nbformat
import numpy as np
import pandas as pd
import pytest
import yaml

from course.paths import REPO_ROOT
from servelab.bench.client import PlannedRequest, RequestRecord
from servelab.env import Runtime, describe
from servelab.hardware import Device
from servelab.results import MIME_TYPE, expected_names, record_results
from servelab.wall_time import Clock, read_start

# Recorded engine output the tests read (tests/fixtures/README.md), wherever a test file sits.
FIXTURES = Path(__file__).parent / "fixtures"

# Two T4s as the GPU runtime reports them, and a CPU.
T4X2 = Device(
    kind="cuda",
    name="Tesla T4",
    count=2,
    memory_gib=15.0,
    compute_capability=(7, 5),
    reserved_gib=0.26,
)
CPU = Device(kind="cpu", name="x")


# vLLM refusing to start, its message wrapped over lines as in a log.
REFUSAL_LOG = """ERROR ... ValueError: To serve at least one request with the model's max seq
len (4096), (0.09 GiB KV cache is needed, which is larger than the available KV cache memory
(0.05 GiB). Based on the available memory, the estimated maximum model length is 2560. Try
increasing `gpu_memory_utilization` ..."""


def record(
    index: int, sent: float, gaps: list[float], ttft: float, role: str = "user", prompt: int = 10
) -> RequestRecord:
    """A finished request sent at ``sent``: its first token ``ttft`` later, then one per gap."""
    times = list(np.cumsum([sent + ttft, *gaps]))
    r = RequestRecord(
        PlannedRequest(index=index, user=index, prompt="p", max_tokens=len(times), role=role)
    )
    r.sent, r.token_times, r.token_samples = sent, times, [0] * len(times)
    r.first_token, r.end, r.closed = times[0], times[-1], times[-1] + 0.001
    r.prompt_tokens, r.output_tokens = prompt, len(times)
    return r


def repeated(
    frame: pd.DataFrame, keys: Iterable[str], runs: int = 3, spread: float = 0.03
) -> pd.DataFrame:
    """``frame`` as a table of ``runs`` repeats: beside each of ``keys`` it holds, the lowest
    and highest run ``spread`` either side of the value (``Spread`` columns)."""
    frame = frame.copy()
    for key in keys:
        if key in frame:
            frame[f"{key}_low"] = frame[key] * (1 - spread)
            frame[f"{key}_high"] = frame[key] * (1 + spread)
            frame[f"{key}_n"] = runs
    return frame


# A check's YAML with every field, as assignments/checks/*.yml hold them.
VALID_YAML = {
    "question": "Which letter is right?",
    "correct": "B",
    "options": {
        "A": {"text": "First", "tempts": "It comes first.", "wrong": "Order proves nothing."},
        "B": {"text": "Second"},
        "C": {"text": "Third", "tempts": "Three is a nice number.", "wrong": "Niceness is not it."},
        "D": {"text": "Fourth", "tempts": "Last is often right.", "wrong": "Not this time."},
    },
}


def write_yaml(tmp_path: Path, data: dict, name: str = "99-test.yml") -> Path:
    """``data`` written as a check's YAML file in ``tmp_path``."""
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def kaggle_runtime(device_name: str = "Tesla T4", profile: str = "gpu") -> Runtime:
    """The runtime a result record names: Kaggle's two T4s (or ``device_name``)."""
    device = Device(
        kind="cuda", name=device_name, count=2, memory_gib=15.0, compute_capability=(7, 5)
    )
    return Runtime(
        platform="Kaggle",
        device=device,
        engine="vLLM 0.11.2 (vllm)",
        model="Qwen/Qwen3-0.6B",
        size_profile=profile,
    )


def declared_figures(
    chapter: str = "02-continuous-batching", profile: str = "gpu"
) -> dict[str, float]:
    """A value for every figure ``chapter`` declares at ``profile``, each a different one."""
    return {
        name: 1.5 + number for number, name in enumerate(sorted(expected_names(chapter, profile)))
    }


def notebook_with(*payloads: Any) -> nbformat.NotebookNode:
    """A notebook whose one code cell displayed each payload as a result output, written and
    read back through nbformat as a submission would be."""
    outputs = [
        nbformat.v4.new_output("display_data", data={MIME_TYPE: payload, "text/plain": "a record"})
        for payload in payloads
    ]
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# A chapter"),
        nbformat.v4.new_code_cell("record_results(...)", outputs=outputs),
    ]
    return nbformat.reads(nbformat.writes(notebook), as_version=4)


# The device a result record names for one Colab T4.
T4_DEVICE = {"kind": "cuda", "name": "Tesla T4", "count": 1, "memory_gib": 15.0}


def measured_clock(install_s: float = 30.0, measure_s: float = 200.0) -> Clock:
    """A clock as this machine's CPU chapters leave it: two eager starts, each with the engine
    init its real log line gives (tests/fixtures/vllm-0.32/startup-times.log)."""
    log = (REPO_ROOT / "tests" / "fixtures" / "vllm-0.32" / "startup-times.log").read_text()
    starts = [read_start(log, 9.5), read_start(log, 8.5)]
    return Clock(
        install_s=install_s, installed_at=time.monotonic() - measure_s - 18.0, starts=starts
    )


def honest_payload(gain: float = 3.0, chapter: str = "00-serving-many-users") -> dict:
    """The record ``record_results`` displays for this machine's runtime at the smoke size."""
    shown = []
    runtime = dataclasses.replace(describe(), size_profile="smoke")
    figures = {name: 10.0 for name in expected_names(chapter, "smoke")}
    figures |= {"batching_gain": gain, "share_kept": 0.8}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(IPython.display, "display", lambda data, raw: shown.append(data))
        patch.setattr("servelab.results.CLOCK", measured_clock())
        record_results(
            runtime,
            SimpleNamespace(
                chapter=chapter, figures=lambda: SimpleNamespace(by_name=lambda: figures)
            ),
        )
    (data,) = shown
    return data[MIME_TYPE]


def on_t4(payload: dict, gain: float, **changes) -> dict:
    """``payload`` as the same record from a Colab T4 at the gpu size, with ``gain``."""
    edited = copy.deepcopy(payload) | {
        "device": dict(T4_DEVICE),
        "engine": "vLLM 0.11.2 (vllm)",
        "engine_distribution": "vllm",
        "engine_version": "0.11.2",
        "size_profile": "gpu",
    }
    edited["figures"]["batching_gain"] = gain
    return edited | changes


def evenly_timed(
    index: int, sent: float, first: float, end: float, tokens: int = 11
) -> RequestRecord:
    """A finished request of ``tokens`` tokens, sent at ``sent``, its first token at ``first``
    and the rest evenly spaced to ``end`` (seconds into the run)."""
    request = RequestRecord(PlannedRequest(index=index, user=index, prompt="p", max_tokens=tokens))
    request.sent, request.first_token, request.end, request.closed = sent, first, end, end
    request.token_times = [first + (end - first) * i / (tokens - 1) for i in range(tokens)]
    request.token_samples = [0] * tokens
    request.output_tokens = tokens
    return request
