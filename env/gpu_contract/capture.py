"""The vLLM argument lists a chapter builds on a GPU, recorded by running its instructor source.

Each notebook runs top to bottom in the project's kernel at ``SERVELAB_SIZE=gpu`` with the GPU
simulated: ``servelab.hardware.query_gpus`` reports one or two Tesla T4s (compute capability 7.5,
15 GiB), chapter 02's device probe answers with a T4's datasheet figures, the bootstrap installs
nothing, each ``Server`` prints its argv and the environment it
adds for vLLM when it is built, and every server's ``start`` raises instead of starting (the
llama.cpp server of chapter 08 included). Cells may fail after that (there
is no server to measure); a ``Server(`` that only a later measurement can reach is then not
recorded, and the chapter is reported as partial with the error that stopped it.

Measurements size later servers (chapters 00, 05 and 06), so they are answered as a T4 would
answer them: ``bench.warm_up`` does nothing, ``bench.prefill_fit`` reports ``T4_PREFILL`` and
``lessons.paging.kv.engine_block_size`` reports vLLM 0.11.2's CUDA block of 16 tokens (the engine
side then checks the block vLLM configured). The chunk budget of chapters 00 and 06 also reads
the users' usual step from a first run beside a document: ``bench.interferer`` returns nothing,
``usual_gap_ms`` reports ``T4_STEP_MS``, and a sweep (chapter 00's sizes its users) reports every
user at that step and a first token after the prefill's fixed part. A step line fitted in the
chapter (``kept.quick_step_line``, which ``kept.step_line`` falls back to) is that step plus
``T4_STEP_PER_SEQUENCE_MS`` a sequence, and chapter 06's read alone (``measuring.alone_fit``)
is ``T4_PREFILL``'s. A server's capacity reads ``T4_KV_TOKENS``, which chapter 10's plan takes.
The budget or document a chapter derives from them goes through the chapter's own code, so the
argv checked is the one a T4 would be given.

A server is recorded when it is built; ``runs_in_turn`` starts it again for each later run on a
GPU. A last cell, added after the chapter's own, evaluates each ``runs_in_turn`` call's ``runs``
and ``keep_up`` in the kernel (:func:`turn_probes`), so ``ChapterRun.starts`` counts those too.
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
TURNS_MARKER = "GPU-CONTRACT-TURNS "
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
# A decoding step of a few users on a T4 (Qwen3-0.6B, CUDA graphs): the weights' 1.2 GB read at
# about half of its 320 GB/s take 7.5 ms, and the engine's own work per step about as much. As
# with T4_PREFILL, what is checked is that the budget derived from it starts on 0.11.2.
T4_STEP_MS = 15.0
# What each sequence adds to a step where a chapter fits its own step line (kept.quick_step_line):
# within issue #63's 0.14-0.30 ms for a T4.
T4_STEP_PER_SEQUENCE_MS = 0.25
# The KV cache a server reports at start, for a chapter that plans from it (chapter 10): what
# 0.11.2's own sizing gave Qwen3-0.6B at 0.9 of a T4 in this contract's earlier runs.
T4_KV_TOKENS = 102_976

# Runs in the chapter's kernel before its first cell; {count} is the number of T4s.
_PATCH = '''\
import json as _json
import os as _os

import pandas as _pd

import servelab.bench as _bench
import servelab.bench.bandwidth as _bandwidth
import servelab.lessons.chunking.measuring as _chunked
import servelab.lessons.paging.kv as _kv
import servelab.lessons.device_model.kept as _kept
import servelab.hardware as _hardware
import servelab.env.runtime as _runtime
import servelab.engines.placement as _placement
from servelab.bench.prefill import PrefillFit as _PrefillFit
from servelab.bench.spread import Spread as _Spread
from servelab.lessons.batching.steps import fit_step_time as _fit_step_time
from servelab.engines.process import ServerProcess as _ServerProcess
from servelab.engines.vllm_server import Capacity as _Capacity
from servelab.engines.vllm_server import Server as _Server

_hardware.query_gpus = lambda: [("Tesla T4", (7, 5), 15.0)] * {count}
_runtime.ensure_engine = lambda device: None  # what bootstrap calls
# Chapter 02 probes the GPU in a child process before its server starts; there is no GPU here,
# so the probe answers with a T4's datasheet figures (320 GB/s, 65 TFLOP/s in float16).
_bandwidth._in_child = lambda name, args, kind: [320.0, 65e12]
_bench.warm_up = lambda server: None
_bench.prefill_fit = lambda server, long_tokens, short_tokens=None, **_: _PrefillFit(
    fixed_ms={fixed_ms}, tok_s={tok_s}, short_tokens=short_tokens or max(1, long_tokens // 8),
    long_tokens=long_tokens)
_kv.engine_block_size = lambda url: {block}
_chunked.alone_fit = lambda server, long_tokens, repeats=3, seed=97: (
    _bench.prefill_fit(server, long_tokens),
    _Spread.of([{fixed_ms} + long_tokens * 1000.0 / {tok_s}]))
_kept.quick_step_line = lambda runtime, server, max_num_seqs: _kept.StepLine(
    _fit_step_time([1, max_num_seqs],
                   [{step_ms} + {per_seq_ms}, {step_ms} + {per_seq_ms} * max_num_seqs]),
    _kept.FITTED_HERE, (1, max_num_seqs))
_bench.interferer = lambda server, **options: None
_chunked.usual_gap_ms = lambda result: {step_ms}
_bench.sweep_concurrency = lambda server, levels, **options: _pd.DataFrame(
    {{"concurrency": levels, "user_tok_s": [1000.0 / {step_ms}] * len(levels),
      "steady_output_tok_s": [level * 1000.0 / {step_ms} for level in levels],
      "ttft_ms_p50": [{fixed_ms}] * len(levels)}})
_Server.capacity = property(lambda self: _Capacity(
    {kv_tokens}, int(self.flags["max_model_len"] or 4096),
    {kv_tokens} / int(self.flags["max_model_len"] or 4096)))
_built = _Server.__init__


class ContractRecorded(RuntimeError):
    """gpu-contract: the server's command was recorded; nothing was started."""


_servers_built = []


def _record(self, *args, **kwargs):
    _built(self, *args, **kwargs)
    _servers_built.append(self)
    added = {{k: v for k, v in self.child_env().items() if _os.environ.get(k) != v}}
    print({marker!r} + _json.dumps({{"argv": self.command, "env": added}}), flush=True)


def _refuse(self):
    raise ContractRecorded("gpu-contract: recorded, not started")


_with_room = _placement.with_room_for_another


def _room_made(server):
    """with_room_for_another as the chapter calls it; where it restarts the server at a smaller
    share, the start is recorded, not made, and the server it built is what the chapter gets."""
    try:
        return _with_room(server)
    except ContractRecorded:
        return _servers_built[-1]


_Server.__init__ = _record
_ServerProcess.start = _refuse
_placement.with_room_for_another = _room_made
'''


@dataclass
class CellRun:
    """One code cell that builds servers: how many it names, records and what stopped it."""

    index: int
    sites: int
    looped: bool
    servers: list[dict] = field(default_factory=list)
    error: str | None = None
    # The name each of the cell's ``Server(...)`` is assigned to, in order (assigned_names).
    names: list[str | None] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Every construction was reached: the cell ran through, or stopped at a start after
        recording at least as many servers as it names, none of them in a loop."""
        if self.error is None:
            return True
        return (
            self.error.startswith("ContractRecorded")
            and not self.looped
            and len(self.servers) >= self.sites
        )

    @property
    def why(self) -> str:
        if self.looped and self.error and self.error.startswith("ContractRecorded"):
            return (
                f"cell {self.index}: its loop stopped at the first server's start "
                f"({len(self.servers)} recorded)"
            )
        return f"cell {self.index}: {self.error}"


@dataclass
class ChapterRun:
    chapter: str
    gpus: int
    cells: list[CellRun]
    # Server name -> its starts after the first, made by ``runs_in_turn`` (turn_probes).
    restarts: dict[str, int] = field(default_factory=dict)

    @property
    def servers(self) -> list[dict]:
        return [server for cell in self.cells for server in cell.servers]

    @property
    def sites(self) -> int:
        return sum(cell.sites for cell in self.cells)

    def unreached(self) -> list[str]:
        return [cell.why for cell in self.cells if not cell.complete]

    def starts(self) -> list[int]:
        """Each start in the chapter, as the index of the recorded server it starts: every
        server once, then the fresh starts ``runs_in_turn`` gives it on a GPU. A restarted
        server that was not recorded (its chapter stopped before it) is left out."""
        recorded: dict[str, int] = {}  # a name's last recorded server, as the kernel binds it
        offset = 0
        for cell in self.cells:
            for index, name in enumerate(cell.names[: len(cell.servers)]):
                if name is not None:
                    recorded[name] = offset + index
            offset += len(cell.servers)
        order = list(range(len(self.servers)))
        for name, count in self.restarts.items():
            if name in recorded:
                order += [recorded[name]] * count
        return order


def _is_server(node: ast.AST) -> bool:
    """A call that builds a vLLM server: ``Server(...)``, or ``server.with_flags(...)``."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id == "Server") or (
        isinstance(func, ast.Attribute) and func.attr == "with_flags"
    )


def _tree(source: str) -> ast.AST:
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    return ast.parse("\n".join(lines))


def server_sites(source: str) -> int:
    """How many vLLM servers the code builds by name: ``Server(...)`` and ``.with_flags(...)``
    calls (not LlamaCppServer)."""
    return sum(_is_server(node) for node in ast.walk(_tree(source)))


def builds_in_a_loop(source: str) -> bool:
    """Whether a ``Server(...)`` is inside a loop: once its first start stops the cell, the
    loop's later servers are not recorded."""
    return any(
        _is_server(inner)
        for loop in ast.walk(_tree(source))
        if isinstance(loop, ast.For | ast.While)
        for inner in ast.walk(loop)
    )


def assigned_names(source: str) -> list[str | None]:
    """For each ``Server(...)`` in ``source`` (in order), the name it is assigned to (``x =
    Server(...)`` or ``x = Server(...).start()``), else None."""
    tree = _tree(source)
    names: dict[int, str] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            value = node.value
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Attribute)
                and value.func.attr == "start"
            ):
                value = value.func.value
            if _is_server(value):
                names[id(value)] = node.targets[0].id
    calls = sorted(
        (node for node in ast.walk(tree) if _is_server(node)),
        key=lambda node: (node.lineno, node.col_offset),
    )
    return [names.get(id(call)) for call in calls]


def turn_probes(source: str) -> list[str]:
    """For each ``runs_in_turn({...}, runs=..., keep_up=..., done={...})`` in ``source``, code
    that prints, in the chapter's kernel after it ran, each server's starts beyond the
    first: ``runs`` less its runs in ``done`` when ``keep_up`` is false (each run a fresh start,
    as ``servelab.bench.in_turn`` does on a GPU), else none. Where the chapter stopped before
    it bound a name the call uses, the probe prints nothing: that cell's error reports it."""
    probes = []
    for node in ast.walk(_tree(source)):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "runs_in_turn"
            and node.args
            and isinstance(node.args[0], ast.Dict)
        ):
            continue
        words = {word.arg: word.value for word in node.keywords}
        done = words.get("done")
        done_runs = (
            {
                ast.unparse(k): len(v.elts)
                for k, v in zip(done.keys, done.values, strict=True)
                if k is not None and isinstance(v, ast.List | ast.Tuple)
            }
            if isinstance(done, ast.Dict)
            else {}
        )
        servers = {
            ast.unparse(v): done_runs.get(ast.unparse(k), 0)
            for k, v in zip(node.args[0].keys, node.args[0].values, strict=True)
            if k is not None and isinstance(v, ast.Name)
        }
        runs = ast.unparse(words.get("runs", node.args[2] if len(node.args) > 2 else None))
        keep_up = ast.unparse(words["keep_up"]) if "keep_up" in words else "False"
        probes.append(
            f"try:\n    print({TURNS_MARKER!r} + _json.dumps({{name: 0 if ({keep_up}) "
            f"else max(0, ({runs}) - done) for name, done in {servers!r}.items()}}), "
            f"flush=True)\nexcept NameError:\n    pass"
        )
    return probes


def _error(outputs: list) -> str | None:
    for output in outputs:
        if output.get("output_type") == "error":
            return " ".join(f"{output['ename']}: {output['evalue']}".split())[:300]
    return None


def _recorded(outputs: list) -> list[dict]:
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    return [
        json.loads(line[len(MARKER) :]) for line in text.splitlines() if line.startswith(MARKER)
    ]


def run_chapter(
    notebook: nbformat.NotebookNode, chapter: str, folder: Path, gpus: int, env: dict[str, str]
) -> ChapterRun:
    """Execute ``notebook`` in ``folder`` with ``gpus`` simulated T4s and ``env`` added; what
    each cell that names a ``Server(`` recorded."""
    patch = nbformat.v4.new_code_cell(
        _PATCH.format(
            count=gpus,
            marker=MARKER,
            block=T4_BLOCK_TOKENS,
            step_ms=T4_STEP_MS,
            per_seq_ms=T4_STEP_PER_SEQUENCE_MS,
            kv_tokens=T4_KV_TOKENS,
            **T4_PREFILL,
        )
    )
    probes = [
        probe
        for cell in notebook.cells
        if cell.cell_type == "code"
        for probe in turn_probes(cell.source)
    ]
    notebook.cells.insert(0, patch)
    notebook.cells.append(nbformat.v4.new_code_cell("\n".join(probes)))
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        NotebookClient(
            notebook,
            timeout=CELL_TIMEOUT_S,
            allow_errors=True,
            kernel_name="python3",
            resources={"metadata": {"path": str(folder)}},
        ).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    if _error(notebook.cells[0].outputs):
        raise RuntimeError(f"the contract's patch cell failed: {_error(notebook.cells[0].outputs)}")
    cells = []
    restarts: dict[str, int] = {}
    for line in "".join(
        o.get("text", "") for o in notebook.cells[-1].outputs if o.get("output_type") == "stream"
    ).splitlines():
        if line.startswith(TURNS_MARKER):
            for name, count in json.loads(line[len(TURNS_MARKER) :]).items():
                restarts[name] = restarts.get(name, 0) + count
    if _error(notebook.cells[-1].outputs):
        raise RuntimeError(f"the runs_in_turn probe failed: {_error(notebook.cells[-1].outputs)}")
    for index, cell in enumerate(notebook.cells[1:-1]):
        if cell.cell_type != "code":
            continue
        sites = cell.metadata.get(SITES_KEY, server_sites(cell.source))
        if isinstance(sites, dict):
            sites = sites[str(gpus)]
        if sites:
            cells.append(
                CellRun(
                    index=index,
                    sites=sites,
                    looped=builds_in_a_loop(cell.source),
                    servers=_recorded(cell.outputs),
                    error=_error(cell.outputs),
                    names=assigned_names(cell.source),
                )
            )
    return ChapterRun(chapter=chapter, gpus=gpus, cells=cells, restarts=restarts)
