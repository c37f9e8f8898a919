"""The vLLM argument lists a chapter builds on a GPU, recorded by running its instructor source.

Each notebook runs top to bottom in the project's kernel at ``SERVELAB_SIZE=gpu`` with the GPU
simulated: ``servelab.hardware.query_gpus`` reports one or two Tesla T4s (compute capability 7.5,
15 GiB), chapter 02's device probe answers with a T4's datasheet figures, the bootstrap installs
nothing, each ``Server`` prints its argv and the environment it
adds for vLLM when it is built, and every server's ``start`` raises instead of starting (the
llama.cpp server of chapter 08 included). Cells may fail after that (there
is no server to measure); a ``Server(`` that only a later measurement can reach is then not
recorded, and the chapter is reported as partial with the error that stopped it.

Three measurements size later servers (chapters 00, 05 and 06), so they are answered as a T4 would
answer them: ``bench.warm_up`` does nothing, ``bench.prefill_fit`` reports ``T4_PREFILL`` and
``lessons.paging.kv.engine_block_size`` reports vLLM 0.11.2's CUDA block of 16 tokens (the engine
side then checks the block vLLM configured). The budget or document a chapter derives from them goes
through the chapter's own code, so the argv checked is the one a T4 would be given.
"""

from __future__ import annotations

import ast
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbclient import NotebookClient

MARKER = "GPU-CONTRACT-SERVER "
# A cell may say how many servers it builds where they are not in its own code (the smoke check,
# chapter 09's replicas), as a number or by GPU count ({"1": 1, "2": 2}) where it builds more on
# two GPUs.
SITES_KEY = "gpu_contract_sites"
CELL_TIMEOUT_S = 180
# The prefill a T4 is given in the contract: about a third of its 65 TFLOP/s of float16 spent on
# the 2 x 0.6 G FLOPs a token of Qwen3-0.6B (the model a T4 gets) costs, after a fixed cost of a
# few milliseconds. Any plausible rate will do: what is checked is that the budget or document
# the chapter derives from it starts on 0.11.2.
T4_PREFILL = {"fixed_ms": 10.0, "tok_s": 18_000.0}
T4_BLOCK_TOKENS = 16

# Runs in the chapter's kernel before its first cell; {count} is the number of T4s.
_PATCH = '''\
import json as _json
import os as _os

import servelab.bench as _bench
import servelab.bench.bandwidth as _bandwidth
import servelab.lessons.paging.kv as _kv
import servelab.hardware as _hardware
import servelab.env as _env
from servelab.bench.prefill import PrefillFit as _PrefillFit
from servelab.engines.process import ServerProcess as _ServerProcess
from servelab.engines.vllm_server import Server as _Server

_hardware.query_gpus = lambda: [("Tesla T4", (7, 5), 15.0)] * {count}
_env.ensure_engine = lambda device: None
# Chapter 02 probes the GPU in a child process before its server starts; there is no GPU here,
# so the probe answers with a T4's datasheet figures (320 GB/s, 65 TFLOP/s in float16).
_bandwidth._in_child = lambda name, args, kind: [320.0, 65e12]
_bench.warm_up = lambda server: None
_bench.prefill_fit = lambda server, long_tokens, short_tokens=None, **_: _PrefillFit(
    fixed_ms={fixed_ms}, tok_s={tok_s}, short_tokens=short_tokens or max(1, long_tokens // 8),
    long_tokens=long_tokens)
_kv.engine_block_size = lambda url: {block}
_built = _Server.__init__


class ContractRecorded(RuntimeError):
    """gpu-contract: the server's command was recorded; nothing was started."""


def _record(self, *args, **kwargs):
    _built(self, *args, **kwargs)
    added = {{k: v for k, v in self.child_env().items() if _os.environ.get(k) != v}}
    print({marker!r} + _json.dumps({{"argv": self.command, "env": added}}), flush=True)


def _refuse(self):
    raise ContractRecorded("gpu-contract: recorded, not started")


_Server.__init__ = _record
_ServerProcess.start = _refuse
'''


@dataclass
class CellRun:
    """One code cell that builds servers: how many it names, records and what stopped it."""

    index: int
    sites: int
    looped: bool
    servers: list[dict] = field(default_factory=list)
    error: str | None = None

    @property
    def complete(self) -> bool:
        """Every construction was reached: the cell ran through, or stopped at a start after
        recording at least as many servers as it names, none of them in a loop."""
        if self.error is None:
            return True
        return (self.error.startswith("ContractRecorded") and not self.looped
                and len(self.servers) >= self.sites)

    @property
    def why(self) -> str:
        if self.looped and self.error and self.error.startswith("ContractRecorded"):
            return (f"cell {self.index}: its loop stopped at the first server's start "
                    f"({len(self.servers)} recorded)")
        return f"cell {self.index}: {self.error}"


@dataclass
class ChapterRun:
    chapter: str
    gpus: int
    cells: list[CellRun]

    @property
    def servers(self) -> list[dict]:
        return [server for cell in self.cells for server in cell.servers]

    @property
    def sites(self) -> int:
        return sum(cell.sites for cell in self.cells)

    def unreached(self) -> list[str]:
        return [cell.why for cell in self.cells if not cell.complete]


def _is_server(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "Server")


def _tree(source: str) -> ast.AST:
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    return ast.parse("\n".join(lines))


def server_sites(source: str) -> int:
    """How many calls of servelab's vLLM ``Server(...)`` the code names (not LlamaCppServer)."""
    return sum(_is_server(node) for node in ast.walk(_tree(source)))


def builds_in_a_loop(source: str) -> bool:
    """Whether a ``Server(...)`` is inside a loop: once its first start stops the cell, the
    loop's later servers are not recorded."""
    return any(_is_server(inner) for loop in ast.walk(_tree(source))
               if isinstance(loop, ast.For | ast.While) for inner in ast.walk(loop))


def _error(outputs: list) -> str | None:
    for output in outputs:
        if output.get("output_type") == "error":
            return " ".join(f"{output['ename']}: {output['evalue']}".split())[:300]
    return None


def _recorded(outputs: list) -> list[dict]:
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    return [json.loads(line[len(MARKER):]) for line in text.splitlines()
            if line.startswith(MARKER)]


def run_chapter(notebook: nbformat.NotebookNode, chapter: str, folder: Path, gpus: int,
                env: dict[str, str]) -> ChapterRun:
    """Execute ``notebook`` in ``folder`` with ``gpus`` simulated T4s and ``env`` added; what
    each cell that names a ``Server(`` recorded."""
    patch = nbformat.v4.new_code_cell(_PATCH.format(count=gpus, marker=MARKER,
                                                     block=T4_BLOCK_TOKENS, **T4_PREFILL))
    notebook.cells.insert(0, patch)
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        NotebookClient(notebook, timeout=CELL_TIMEOUT_S, allow_errors=True, kernel_name="python3",
                       resources={"metadata": {"path": str(folder)}}).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    if _error(notebook.cells[0].outputs):
        raise RuntimeError(f"the contract's patch cell failed: {_error(notebook.cells[0].outputs)}")
    cells = []
    for index, cell in enumerate(notebook.cells[1:]):
        if cell.cell_type != "code":
            continue
        sites = cell.metadata.get(SITES_KEY, server_sites(cell.source))
        if isinstance(sites, dict):
            sites = sites[str(gpus)]
        if sites:
            cells.append(CellRun(index=index, sites=sites, looped=builds_in_a_loop(cell.source),
                                 servers=_recorded(cell.outputs), error=_error(cell.outputs)))
    return ChapterRun(chapter=chapter, gpus=gpus, cells=cells)
