"""The result cache's key and entries (issue 27, part C), without a kernel: the key changes with
everything that decides an outcome, and an entry is only ever data that passes the result's
shape check (a class-level test shows cached outcomes equal fresh runs:
tests/tooling/autograder/test_grade.py::test_each_cached_outcome_equals_a_fresh_run)."""

from __future__ import annotations

import dataclasses
import json

import nbformat

from autograder import sandbox
from autograder.result_cache import ResultCache

SOURCES = ['answer = "C"', "print(answer)"]
LIMITS = sandbox.Limits()


def _ok() -> sandbox.SandboxRun:
    out = nbformat.v4.new_output("stream", name="stdout", text="C\n")
    return sandbox.SandboxRun("ok", "", [[], [out]])


def test_the_key_changes_with_everything_that_decides_the_outcome():
    key = ResultCache.key(SOURCES, 10, LIMITS, True)
    assert key == ResultCache.key(list(SOURCES), 10, sandbox.Limits(), True)
    others = [
        ResultCache.key(['answer = "D"', SOURCES[1]], 10, LIMITS, True),
        ResultCache.key([SOURCES[0], SOURCES[1] + " "], 10, LIMITS, True),
        ResultCache.key(SOURCES[::-1], 10, LIMITS, True),
        ResultCache.key(SOURCES, 11, LIMITS, True),
        ResultCache.key(SOURCES, 10, dataclasses.replace(LIMITS, cpu_seconds=61), True),
        ResultCache.key(SOURCES, 10, LIMITS, False),
    ]
    assert len({key, *others}) == len(others) + 1


def test_an_entry_round_trips_and_anything_odd_is_a_miss(tmp_path):
    cache = ResultCache(tmp_path)
    key = ResultCache.key(SOURCES, 10, LIMITS, True)
    assert cache.get(key, 2) is None
    cache.put(key, SOURCES, _ok())
    assert cache.get(key, 2) == _ok()
    assert cache.get(key, 3) is None  # for another notebook shape
    entry = json.loads((tmp_path / f"{key}.json").read_text())
    assert entry["sources"] == SOURCES
    other = ResultCache.key(SOURCES, 11, LIMITS, True)
    (tmp_path / f"{other}.json").write_text(json.dumps(entry))  # a copy under another key
    assert cache.get(other, 2) is None
    entry["result"]["cells"][1][0] = {"output_type": "display_data", "data": {}}
    (tmp_path / f"{key}.json").write_text(json.dumps(entry))
    assert cache.get(key, 2) is None
    (tmp_path / f"{key}.json").write_text("{not json")
    assert cache.get(key, 2) is None


def test_only_ok_outcomes_are_stored(tmp_path):
    cache = ResultCache(tmp_path)
    key = ResultCache.key(SOURCES, 10, LIMITS, True)
    cache.put(key, SOURCES, sandbox.SandboxRun("timeout", "busy machine", [[], []]))
    assert cache.get(key, 2) is None and list(tmp_path.iterdir()) == []
