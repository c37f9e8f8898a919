"""servelab.engines.llama_build: the llama-cpp-python wheel's build flags and its reuse."""

from __future__ import annotations

import shlex
import shutil
import subprocess

import pytest

from servelab.engines import llama_build
from servelab.engines.llama_build import cmake_args

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
def test_cmake_reads_the_common_library_as_off_though_the_binding_forces_it_on(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "src"
    (source / "vendor" / "llama.cpp").mkdir(parents=True)
    (source / "CMakeLists.txt").write_text(_BINDING)
    (source / "vendor" / "llama.cpp" / "CMakeLists.txt").write_text(_LLAMA)
    llama_build.wheel_dir().mkdir(parents=True)
    llama_build.no_common_path().write_text(llama_build.NO_COMMON)

    def common(*args: str) -> str:
        build = tmp_path / f"build{len(list(tmp_path.glob('build*')))}"
        subprocess.run(
            ["cmake", "-S", str(source), "-B", str(build), *args], check=True, capture_output=True
        )
        return (build / "common.txt").read_text()

    assert common("-DLLAMA_BUILD_COMMON=OFF") == "ON"  # why a -D is not enough
    assert common(*shlex.split(cmake_args("flags : fpu sse2"))) == "OFF"
