"""servelab.engines.llama_server: the llama.cpp server's command line as a reader types it."""

from __future__ import annotations

from servelab.engines.llama_server import LlamaCppServer


def test_llama_command_line_reads_as_typed(tmp_path):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    line = LlamaCppServer(model, n_threads=2, port=8123).command_line
    assert line.startswith("python -m llama_cpp.server --model m.gguf --model_alias ")
    assert str(tmp_path) not in line


def test_llama_server_command_queues_instead_of_interrupting(tmp_path):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    server = LlamaCppServer(model, n_threads=2, port=8123)
    words = server.command
    assert words[1:3] == ["-m", "llama_cpp.server"]
    flags = dict(zip(words[3::2], words[4::2], strict=True))
    assert flags["--model"] == str(model)
    assert flags["--interrupt_requests"] == "False"
    assert flags["--n_threads"] == flags["--n_threads_batch"] == "2"
    assert flags["--port"] == "8123"
    assert not server.running
    server.stop()  # never started: a no-op
