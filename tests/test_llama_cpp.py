"""Chapter 08's pieces without an engine: counting a stream that carries no usage, the build flags,
the llama.cpp server's command line, and the comparison table."""

from __future__ import annotations

import asyncio
import json
import shlex
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest
from openai import AsyncOpenAI

from servelab.bench.client import PlannedRequest, RequestRecord, stream_request
from servelab.bench.frames import Result
from servelab.engines import llama_build
from servelab.engines.llama_build import cmake_args
from servelab.engines.llama_server import LlamaCppServer
from servelab.lessons.single_user.when_not_to import comparison, folder_mb


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
    words = shlex.split(cmake_args(cpuinfo))
    assert words[0] == "-DGGML_NATIVE=OFF"
    switches = dict(word[2:].split("=") for word in words[1:] if word.startswith("-DGGML_"))
    assert set(switches) == {option for option, _ in llama_build.GGML_INSTRUCTION_SETS}
    assert {name for name, state in switches.items() if state == "ON"} == on
    assert set(switches.values()) <= {"ON", "OFF"}


def test_the_build_leaves_out_what_the_binding_does_not_load(tmp_path, monkeypatch):
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path / "cache dir"))
    words = shlex.split(cmake_args("flags : fpu sse2"))
    assert "-DLLAVA_BUILD=OFF" in words  # the multimodal library
    # llama.cpp's common library: the file CMake reads in llama.cpp's project() shadows the
    # FORCE'd cache entry with a normal variable (a path with a space stays one word).
    include = Path(next(word for word in words if word.startswith(
        "-DCMAKE_PROJECT_llama.cpp_INCLUDE=")).split("=", 1)[1])
    assert include == llama_build.no_common_path()


# llama-cpp-python 0.3.36's CMake in miniature: it forces llama.cpp's common library on.
_BINDING = """cmake_minimum_required(VERSION 3.21)
project(llama_cpp NONE)
set(LLAMA_BUILD_COMMON ON CACHE BOOL "Build llama.cpp common library" FORCE)
add_subdirectory(vendor/llama.cpp)
"""
_LLAMA = """cmake_minimum_required(VERSION 3.14...3.28)
project("llama.cpp" NONE)
option(LLAMA_BUILD_COMMON "llama: build common utils library" OFF)
file(WRITE ${CMAKE_BINARY_DIR}/common.txt "${LLAMA_BUILD_COMMON}")
"""


@pytest.mark.tooling  # runs cmake
@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
def test_cmake_reads_the_common_library_as_off_though_the_binding_forces_it_on(tmp_path,
                                                                               monkeypatch):
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "src"
    (source / "vendor" / "llama.cpp").mkdir(parents=True)
    (source / "CMakeLists.txt").write_text(_BINDING)
    (source / "vendor" / "llama.cpp" / "CMakeLists.txt").write_text(_LLAMA)
    llama_build.wheel_dir().mkdir(parents=True)
    llama_build.no_common_path().write_text(llama_build.NO_COMMON)

    def common(*args: str) -> str:
        build = tmp_path / f"build{len(list(tmp_path.glob('build*')))}"
        subprocess.run(["cmake", "-S", str(source), "-B", str(build), *args], check=True,
                       capture_output=True)
        return (build / "common.txt").read_text()

    assert common("-DLLAMA_BUILD_COMMON=OFF") == "ON"  # why a -D is not enough
    assert common(*shlex.split(cmake_args("flags : fpu sse2"))) == "OFF"


def test_the_build_reuses_only_its_own_wheel(tmp_path, monkeypatch):
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path))
    wheels = llama_build.wheel_dir()
    wheels.mkdir()
    (wheels / f"llama_cpp_python-{llama_build.VERSION}-py3-none-linux_x86_64.whl").write_bytes(b"")
    assert llama_build.cached_wheel() is None  # no record of how it was built
    record = {"seconds": 1.0, "cmake_args": "-DGGML_NATIVE=OFF", "cpus": 2, "built": "x"}
    llama_build.build_record_path().write_text(json.dumps(record))
    assert llama_build.cached_wheel() is None  # built with other flags
    llama_build.build_record_path().write_text(json.dumps({**record, "cmake_args": cmake_args()}))
    assert llama_build.cached_wheel() is not None


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
