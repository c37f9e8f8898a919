# The two commands a newcomer needs (see README): `make book` and `make test`.
# Each runs env/setup.sh first, which installs everything into .venv and skips what is done.
VENV := .venv
BIN := $(VENV)/bin
# Held by whatever runs engines (the book, the tests, the benchmarks): one at a time on the cores.
ENGINE_LOCK := /tmp/servelab-engine.lock

.PHONY: setup book test unit edition self-study release lint gpu-contract

setup:
	bash env/setup.sh

# The main job: the executed book, built offline on the CPU engine, warnings as errors.
# TQDM_DISABLE: a built page would keep each progress bar frozen as it was first drawn; with bars
# off, each server start and measurement run prints its final line instead (servelab.progress).
# It holds the engine lock (ENGINE_LOCK) while it runs, so no other engine shares the cores.
book: setup
	TQDM_DISABLE=1 flock $(ENGINE_LOCK) $(BIN)/jupyter-book build --all -W .

# Every test and nbval over the instructor sources, at the smoke size, against the real engine.
test: setup
	bash env/run-tests.sh

# For developers: lint (ruff's check and format, mypy over the files pyproject.toml names,
# lint-imports), then the unit tier alone (tests/unit; CONTRIBUTING.md "Test tiers"): no engine,
# no child process, under a minute. Test files still directly in tests/ are unit tests until they
# move (tests/unit/test_layout.py names them). `make test` still runs every tier.
unit: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest tests/unit -q -p no:cacheprovider

# Instructor tools: regenerate the student edition in book/ from assignments/source/.
edition: setup
	$(BIN)/python -m course.edition

# Instructor tools: the self-study site, each check followed by its answers explained, built from
# a git-ignored copy of book/ into _build/self-study/_build/html (course/self_study.py). It shares
# `make book`'s execution cache: after `make book` no chapter runs again. Off unless asked for.
self-study: setup
	$(BIN)/python -m course.self_study

# Tag the commit with _config.yml's install_ref after checking the tree and the editions, and
# print the pushes (course/release.py; instructors.md "Publishing your own copy").
release: setup
	$(BIN)/python -m course.release

# ruff, the type checker ([tool.mypy] in pyproject.toml says which files), then servelab's
# import layers ([tool.importlinter]).
lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

# The GPU path checked by vLLM 0.11.2's own code, without a GPU (env/gpu_contract/contract.py):
# every chapter's server starts on a simulated Colab T4 and Kaggle 2xT4, then per chapter the
# starts, cold compiles, CUDA graphs, shared-T4 memory and an estimated wall time
# (env/gpu_contract/t4_wait.py). Its environment (the GPU
# pins, about 11 GB) is made once under ~/.cache/servelab. Needs .venv (`make setup`); not part of
# `make test`.
gpu-contract:
	$(BIN)/python env/gpu_contract/contract.py
