"""servelab.engines.llama_parallel_server: llama.cpp's own server with parallel slots.

The engine test starts the real ``llama-server`` (and, for contrast, the binding's server) on the
offline model's GGUF; run it under the engine lock:
    flock /tmp/servelab-engine.lock .venv/bin/python -m pytest \
        tests/engine/servelab/engines/test_llama_parallel_server.py
"""

from __future__ import annotations

import pytest

from servelab.engines.llama_parallel_server import LlamaCppParallelServer
from servelab.engines.llama_server_build import LlamaServerUnavailable


def _model(tmp_path):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    return model


def test_parallel_server_command_line_reads_as_typed(tmp_path):
    server = LlamaCppParallelServer(
        _model(tmp_path),
        parallel=4,
        slot_context=1024,
        n_threads=2,
        binary=tmp_path / "bin" / "llama-server",
        port=8124,
    )
    line = server.command_line
    assert line.startswith("llama-server -m m.gguf --alias ")
    assert line.endswith(
        "--parallel 4 --cont-batching --ctx-size 4096 --threads 2 "
        "--threads-batch 2 --host 127.0.0.1 --port 8124"
    )
    assert str(tmp_path) not in line
    assert "--no-cache-prompt" not in line
    assert (
        "--no-cache-prompt"
        in LlamaCppParallelServer(
            _model(tmp_path), cache_prompt=False, binary=tmp_path / "b"
        ).command
    )
    assert server.command[:3] == [
        str(tmp_path / "bin" / "llama-server"),
        "-m",
        str(tmp_path / "m.gguf"),
    ]


@pytest.mark.parametrize(("parallel", "slot_context"), [(0, 1024), (4, 0), (4, 1000)])
def test_parallel_server_refuses_slots_it_cannot_have(tmp_path, parallel, slot_context):
    with pytest.raises(ValueError, match="parallel|multiple of 256"):
        LlamaCppParallelServer(_model(tmp_path), parallel=parallel, slot_context=slot_context)


def test_parallel_server_without_its_binary_says_how_to_build_it(tmp_path):
    server = LlamaCppParallelServer(_model(tmp_path), binary=tmp_path / "llama-server")
    with pytest.raises(LlamaServerUnavailable, match="build-llama-cpp.sh"):
        server.start()
    assert not server.running
