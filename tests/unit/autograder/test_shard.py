"""Issue 27, parts C and D: a shard is named as ``index/count`` or taken from Slurm's or a
Kubernetes job's index, and anything else is refused. Grading one class in shards and merging
them is tests/tooling/autograder/test_shard.py."""

from __future__ import annotations

import pytest

from autograder.shard import ShardError, parse_shard

pytestmark = pytest.mark.filterwarnings("ignore::nbformat.warnings.MissingIDFieldWarning")


def test_shard_specs(monkeypatch):
    assert parse_shard("3/4") == parse_shard("auto/4", {"SLURM_ARRAY_TASK_ID": "3"})
    assert parse_shard("auto/4", {"JOB_COMPLETION_INDEX": "2"}).index == 2
    for bad, environ in (
        ("4/4", {}),
        ("1/0", {}),
        ("x/2", {}),
        ("auto/2", {}),
        ("auto/2", {"SLURM_ARRAY_TASK_ID": "2"}),
        ("auto/2", {"JOB_COMPLETION_INDEX": "one"}),
    ):
        with pytest.raises(ShardError):
            parse_shard(bad, environ)
