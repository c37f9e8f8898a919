"""servelab.engines.llama_server: the llama.cpp server's command line as a reader types it."""

from __future__ import annotations

from servelab.engines.llama_server import LlamaCppServer


def test_llama_command_line_reads_as_typed(tmp_path):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    line = LlamaCppServer(model, n_threads=2, port=8123).command_line
    assert line.startswith("python -m llama_cpp.server --model m.gguf --model_alias ")
    assert str(tmp_path) not in line
