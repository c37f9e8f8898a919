"""Chapter 08's pieces without an engine: counting a stream that carries no usage, the build flags,
the llama.cpp server's command line, and the comparison table."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from openai import AsyncOpenAI

from servelab.bench.client import PlannedRequest, RequestRecord, stream_request
from servelab.bench.frames import Result
from servelab.chapters import llama_cpp
from servelab.chapters.llama_cpp import cmake_args
from servelab.chapters.when_not_to import comparison, folder_mb
from servelab.llama_server import LlamaCppServer


def _chunk(text: str, finish: str | None = None) -> dict:
    return {"id": "c", "object": "text_completion", "created": 0, "model": "m",
            "choices": [{"text": text, "index": 0, "logprobs": None, "finish_reason": finish}]}


def _usage_chunk(prompt: int, completion: int) -> dict:
    return {"id": "c", "object": "text_completion", "created": 0, "model": "m", "choices": [],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion}}


def _stream(chunks: list[dict]) -> RequestRecord:
    """Run stream_request against a fake server that streams ``chunks`` as server-sent events."""
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})

    async def go() -> RequestRecord:
        client = AsyncOpenAI(base_url="http://fake/v1", api_key="x", max_retries=0,
                             http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)))
        record = RequestRecord(PlannedRequest(index=0, user=0, prompt="p", max_tokens=3))
        await stream_request(client, "m", record, clock_zero=0.0)
        await client.close()
        return record

    return asyncio.run(go())


def test_stream_without_usage_counts_chunks_and_drops_the_closing_one():
    # llama-cpp-python: one chunk per token, then an empty chunk with the finish reason, no usage.
    record = _stream([_chunk(" a"), _chunk(" b"), _chunk(" c"), _chunk("", "length")])
    assert record.ok
    assert record.output_tokens == 3
    assert len(record.token_times) == 3
    assert record.prompt_tokens is None


def test_stream_with_usage_keeps_the_servers_counts():
    # vLLM: the last token carries the finish reason, then a usage chunk.
    record = _stream([_chunk(" a"), _chunk(" b"), _chunk(" c", "length"), _usage_chunk(5, 3)])
    assert (record.prompt_tokens, record.output_tokens) == (5, 3)
    assert len(record.token_times) == 3


def test_stream_of_only_a_closing_chunk_is_an_error():
    record = _stream([_chunk("", "stop")])
    assert not record.ok
    assert record.output_tokens == 0
    assert "without a single token" in record.error


@pytest.mark.parametrize(("cpuinfo", "on"), [
    ("flags : fpu sse2 sse4_2 avx avx2 fma f16c avx512f avx512cd avx512vl avx512dq avx512bw",
     {"GGML_SSE42", "GGML_AVX", "GGML_AVX2", "GGML_FMA", "GGML_F16C", "GGML_AVX512"}),
    ("flags : fpu sse2 avx avx2 fma avx512f", {"GGML_AVX", "GGML_AVX2", "GGML_FMA"}),
    ("flags : fpu sse2", set()),
])
def test_cmake_args_switch_each_instruction_set_from_the_cpu_flags(cpuinfo, on):
    words = cmake_args(cpuinfo).split()
    assert words[0] == "-DGGML_NATIVE=OFF"
    switches = dict(word[2:].split("=") for word in words[1:])
    assert {name for name, state in switches.items() if state == "ON"} == on
    assert set(switches.values()) <= {"ON", "OFF"}


def test_the_build_leaves_out_the_multimodal_library_and_reuses_only_its_own_wheel(
        tmp_path, monkeypatch):
    assert "-DLLAVA_BUILD=OFF" in cmake_args("flags : fpu sse2").split()
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path))
    wheels = llama_cpp.wheel_dir()
    wheels.mkdir()
    (wheels / f"llama_cpp_python-{llama_cpp.VERSION}-py3-none-linux_x86_64.whl").write_bytes(b"")
    assert llama_cpp.cached_wheel() is None  # no record of how it was built
    record = {"seconds": 1.0, "cmake_args": "-DGGML_NATIVE=OFF", "cpus": 2, "built": "x"}
    llama_cpp.build_record_path().write_text(json.dumps(record))
    assert llama_cpp.cached_wheel() is None  # built with other flags
    llama_cpp.build_record_path().write_text(json.dumps({**record, "cmake_args": cmake_args()}))
    assert llama_cpp.cached_wheel() is not None


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
    table = comparison({("vLLM", 1): one, ("llama.cpp", 4): many})
    assert list(table.index) == [("vLLM", 1), ("llama.cpp", 4)]
    assert table.loc[("vLLM", 1), "user_tok_s"] == pytest.approx(10.0)
    assert table.loc[("llama.cpp", 4), "output_tok_s"] == pytest.approx(10.0)
    assert table.loc[("llama.cpp", 4), "tokens_per_request"] == 5
    with pytest.raises(ValueError, match="no runs"):
        comparison({})


def test_folder_mb_measures_files_and_rejects_missing_paths(tmp_path):
    (tmp_path / "a").write_bytes(b"x" * 1000)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").write_bytes(b"x" * 2000)
    assert folder_mb(tmp_path) == pytest.approx(0.003)
    assert folder_mb(tmp_path / "a") == pytest.approx(0.001)
    with pytest.raises(FileNotFoundError):
        folder_mb(tmp_path / "nope")
