"""servelab.engines.llama_server_build: llama-server's build switches, the reuse of its binary."""

from __future__ import annotations

import json
import shlex
import sys

import pytest

from servelab.engines import llama_server_build as build
from servelab.engines.llama_build import VERSION


def test_the_server_compiles_only_what_the_binding_lacks_in_unity_builds():
    args = build.server_cmake_args()
    assert {
        "-DBUILD_SHARED_LIBS=OFF",
        "-DLLAMA_OPENSSL=OFF",
        "-DLLAMA_USE_PREBUILT_UI=OFF",
        "-DLLAMA_BUILD_SERVER=ON",
        "-DCMAKE_UNITY_BUILD=ON",
    } <= set(args)
    # ggml and llama are the wheel's: no instruction-set switch of its own
    assert not any(arg.startswith("-DGGML_") for arg in args)
    # the project around llama.cpp links the wheel's libraries and runs from their folder
    assert 'IMPORTED_LOCATION "${BINDING_LIB}/libllama.so"' in build.PROJECT_CMAKE
    assert 'set(CMAKE_BUILD_RPATH "${BINDING_LIB}")' in build.PROJECT_CMAKE


def _binding(tmp_path, monkeypatch, version=VERSION):
    """A stand-in for the installed binding: its version and a lib folder with libllama."""
    lib = tmp_path / "site" / "llama_cpp" / "lib"
    lib.mkdir(parents=True)
    (lib / "libllama.so").write_bytes(b"")
    (lib.parent / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.delitem(sys.modules, "llama_cpp", raising=False)  # find_spec looks there first
    monkeypatch.setattr(build, "installed_version", lambda: version)
    return lib


def test_the_build_reuses_only_its_own_binary(tmp_path, monkeypatch):
    lib = _binding(tmp_path, monkeypatch)
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path))
    build.bin_dir().mkdir()
    build.binary_path().write_bytes(b"")
    build.binary_path().chmod(0o755)
    assert build.cached_server() is None  # no record of how it was built
    record = {
        "version": VERSION,
        "cmake_args": shlex.join(build.server_cmake_args()),
        "binding_lib": str(lib),
        "seconds": 1.0,
        "cpus": 2,
        "built": "x",
    }
    build.build_record_path().write_text(json.dumps({**record, "version": "0.3.1"}))
    assert build.cached_server() is None  # another llama.cpp
    build.build_record_path().write_text(json.dumps({**record, "cmake_args": "-DGGML_AVX=OFF"}))
    assert build.cached_server() is None  # other switches
    build.build_record_path().write_text(json.dumps({**record, "binding_lib": "/elsewhere"}))
    assert build.cached_server() is None  # its run path names another binding's libraries
    build.build_record_path().write_text(json.dumps(record))
    assert build.cached_server() == build.binary_path()
    build.binary_path().chmod(0o644)
    assert build.cached_server() is None  # not a program
    build.binary_path().chmod(0o755)
    (lib / "libllama.so").unlink()
    assert build.cached_server() is None  # the binding's libraries are gone


def test_each_binding_folder_keeps_its_own_binary(tmp_path, monkeypatch):
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path / "cache"))
    _binding(tmp_path / "one", monkeypatch)
    first = build.binary_path()
    _binding(tmp_path / "two", monkeypatch)
    assert build.binary_path() != first  # a second checkout's build does not replace the first
    assert first.parent == build.binary_path().parent == build.bin_dir()
    assert build.build_record_path().name == f"{build.binary_path().name}.build.json"


def test_a_machine_without_cmake_or_compiler_is_told_so(tmp_path, monkeypatch):
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(build.LlamaServerUnavailable, match="needs cmake and a C\\+\\+ compiler"):
        build.build_server()
    assert not build.bin_dir().exists()


def test_a_machine_without_this_binding_is_told_to_build_it_first(tmp_path, monkeypatch):
    _binding(tmp_path, monkeypatch, version="0.3.1")
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path))
    with pytest.raises(build.LlamaServerUnavailable, match="found: 0.3.1.*llama_build"):
        build.build_server()
    assert not build.bin_dir().exists()


def test_ninja_beside_the_interpreter_drives_the_build_else_cmake_default(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path / "elsewhere"))
    assert build.generator_args() == []
    ninja = tmp_path / "ninja"
    ninja.write_text("#!/bin/sh\n")
    ninja.chmod(0o755)
    assert build.generator_args() == ["-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}"]
