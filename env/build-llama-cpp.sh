#!/usr/bin/env bash
# Chapter 08 only: build llama-cpp-python from its sdist once (minutes: llama_cpp.first_build),
# cache the wheel in ~/.cache/servelab/wheels (or $SERVELAB_CACHE/wheels), and install it with
# its server's dependencies into .venv. Safe to run again: it returns at once when all is
# installed. A build or install saturates the CPU, so it holds the lock that engine runs take.
# The instruction sets (AVX, AVX2, FMA, F16C, AVX-512, ...) are switched on only where
# /proc/cpuinfo lists them: servelab.engines.llama_build.cmake_args.
set -euo pipefail
cd "$(dirname "$0")/.."
if .venv/bin/python -c 'import sys; from servelab.engines.llama_build import ready; sys.exit(not ready())'; then
  echo "build-llama-cpp: llama-cpp-python is installed"
  exit 0
fi
exec flock /tmp/servelab-engine.lock .venv/bin/python -m servelab.engines.llama_build
