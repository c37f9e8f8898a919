#!/usr/bin/env bash
# Chapter 08 only: build llama-cpp-python from its sdist once (minutes: llama_build.first_build),
# cache the wheel in ~/.cache/servelab/wheels (or $SERVELAB_CACHE/wheels), and install it with
# its server's dependencies into .venv; then build llama.cpp's own llama-server from the same
# vendored source once (llama_server_build.first_build) into ~/.cache/servelab/bin, one binary per
# environment. Safe to run again: each returns at once when it is there. A build saturates the
# CPU, so each holds the lock that engine runs take. The instruction sets (AVX, AVX2, FMA, F16C, AVX-512, ...) are switched
# on only where /proc/cpuinfo lists them: servelab.engines.llama_build.instruction_set_args.
set -euo pipefail
cd "$(dirname "$0")/.."
if .venv/bin/python -c 'import sys; from servelab.engines.llama_build import ready; sys.exit(not ready())'; then
  echo "build-llama-cpp: llama-cpp-python is installed"
else
  flock /tmp/servelab-engine.lock .venv/bin/python -m servelab.engines.llama_build
fi
if .venv/bin/python -c 'import sys; from servelab.engines.llama_server_build import cached_server; sys.exit(cached_server() is None)'; then
  echo "build-llama-cpp: llama-server is built"
else
  flock /tmp/servelab-engine.lock .venv/bin/python -m servelab.engines.llama_server_build
fi
