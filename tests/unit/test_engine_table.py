"""Chapter 05's table of the same dials across engines: its vLLM column is the book's own flags.

The table's other columns were checked by hand against each project's documentation (the cell
says which versions); what can be checked here is that the vLLM names are the ones
``servelab.Server`` writes, and that each also exists in vLLM 0.11.2's recorded ``--help``.
"""

from __future__ import annotations

import re

import nbformat

from course.paths import SOURCE_DIR
from servelab.engines.vllm_server import Server
from servelab.hardware import Device
from tests.support import FIXTURES

CHAPTER = SOURCE_DIR / "05-the-dials" / "05-the-dials.ipynb"
HEADING = "### The same dials in other engines"
ENGINES = ("vLLM", "SGLang", "TGI", "TensorRT-LLM", "llama.cpp")
VLLM_0_11_2_FLAGS = FIXTURES / "vllm-0.11.2" / "cli-flags.txt"
T4 = Device(kind="cuda", name="Tesla T4", memory_gib=15.0, compute_capability=(7, 5))
CPU = Device(kind="cpu", name="test CPU")
_FLAG = re.compile(r"`(--[a-z][a-z0-9-]*)`")


def _cells() -> list[nbformat.NotebookNode]:
    return nbformat.read(CHAPTER, as_version=4).cells


def _table_rows() -> list[list[str]]:
    cell = next(c for c in _cells() if c.cell_type == "markdown" and c.source.startswith(HEADING))
    lines = [line for line in cell.source.splitlines() if line.startswith("|")]
    rows = [[part.strip() for part in line.strip("|").split("|")] for line in lines]
    return [row for row in rows if not set("".join(row)) <= set("-: ")]


def test_the_table_has_a_column_per_engine_and_sits_before_the_check() -> None:
    header, *body = _table_rows()
    assert [name.split(" ")[0] for name in header[1:]] == list(ENGINES)
    assert body and all(len(row) == len(header) for row in body)
    tags = [c.metadata.get("tags", []) for c in _cells()]
    table = next(i for i, c in enumerate(_cells()) if c.source.startswith(HEADING))
    assert table < next(i for i, t in enumerate(tags) if "check" in t)


def test_the_vllm_column_names_the_flags_the_book_emits() -> None:
    _, *body = _table_rows()
    named = {flag for row in body for flag in _FLAG.findall(row[1])}
    gpu = Server(
        "/models/m",
        device=T4,
        max_num_seqs=8,
        max_num_batched_tokens=512,
        gpu_memory_utilization=0.5,
        max_model_len=1024,
        enable_prefix_caching=False,
        tensor_parallel_size=2,
    )
    cpu = Server("/models/m", device=CPU, kv_cache_gib=1.0)
    emitted = {word for word in gpu.flag_args() + cpu.flag_args() if word.startswith("--")}
    dials = emitted - {"--dtype", "--seed", "--enforce-eager"}
    assert dials <= named, f"the book sets {sorted(dials - named)} but the table omits them"
    recorded = set(VLLM_0_11_2_FLAGS.read_text(encoding="utf-8").split())
    assert named <= recorded, f"not vLLM 0.11.2 flags: {sorted(named - recorded)}"
