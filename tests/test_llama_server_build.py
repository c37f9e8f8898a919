"""servelab.engines.llama_server_build: llama-server's build switches, the reuse of its binary."""

from __future__ import annotations

import json
import shlex

import pytest

from servelab.engines import llama_server_build as build
from servelab.engines.llama_build import VERSION, instruction_set_args


def test_the_server_is_built_with_the_binding_instruction_sets_and_stands_alone():
    cpuinfo = "flags : fpu sse2 sse4_2 avx avx2 fma f16c"
    args = build.server_cmake_args(cpuinfo)
    assert args[:len(instruction_set_args(cpuinfo))] == instruction_set_args(cpuinfo)
    assert "-DGGML_AVX2=ON" in args and "-DGGML_AVX512=OFF" in args
    assert {"-DBUILD_SHARED_LIBS=OFF", "-DLLAMA_OPENSSL=OFF",
            "-DLLAMA_USE_PREBUILT_UI=OFF"} <= set(args)
    # the binding's own switch that leaves llama.cpp's common library out: the server needs it
    assert not any(arg.startswith("-DCMAKE_PROJECT_") for arg in args)


def test_the_build_reuses_only_its_own_binary(tmp_path, monkeypatch):
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path))
    build.bin_dir().mkdir()
    build.binary_path().write_bytes(b"")
    build.binary_path().chmod(0o755)
    assert build.cached_server() is None  # no record of how it was built
    record = {"version": VERSION, "cmake_args": shlex.join(build.server_cmake_args()),
              "seconds": 1.0, "cpus": 2, "built": "x"}
    build.build_record_path().write_text(json.dumps({**record, "version": "0.3.1"}))
    assert build.cached_server() is None  # another llama.cpp
    build.build_record_path().write_text(json.dumps({**record, "cmake_args": "-DGGML_AVX=OFF"}))
    assert build.cached_server() is None  # other instruction sets
    build.build_record_path().write_text(json.dumps(record))
    assert build.cached_server() == build.binary_path()
    build.binary_path().chmod(0o644)
    assert build.cached_server() is None  # not a program


def test_a_machine_without_cmake_or_compiler_is_told_so(tmp_path, monkeypatch):
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(build.LlamaServerUnavailable, match="needs cmake and a C\\+\\+ compiler"):
        build.build_server()
    assert not build.bin_dir().exists()
