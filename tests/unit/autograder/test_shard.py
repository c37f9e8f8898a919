"""Issue 27, parts C and D on one small class: the result cache changes no byte of the output,
shards merged give the unsharded grades.csv and feedback byte for byte, and merge refuses what
is not exactly the N shards of one grading."""

from __future__ import annotations

import pytest

from autograder import synthetic
from autograder.__main__ import main as autograder_main
from autograder.grade import grade
from autograder.shard import ShardError, parse_shard

pytestmark = pytest.mark.filterwarnings("ignore::nbformat.warnings.MissingIDFieldWarning")

CHAPTERS = ("00-serving-many-users", "02-continuous-batching")
TIMEOUT = 10


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    root = tmp_path_factory.mktemp("shards")
    course = synthetic.write_course(root / "course", CHAPTERS)
    inbox = root / "inbox"
    synthetic.write_mixed_class(inbox, synthetic.editions(course, root / "editions"))
    whole = root / "whole"
    rows = grade([inbox], whole, course, timeout=TIMEOUT)
    return {"root": root, "course": course, "inbox": inbox, "whole": whole, "rows": rows}


def _grade(klass, *args: str) -> int:
    return autograder_main(["grade", str(klass["inbox"]), "--course", str(klass["course"]),
                            "--timeout", str(TIMEOUT), *args])


@pytest.fixture(scope="module")
def shards(klass):
    out = klass["root"] / "sharded"
    assert _grade(klass, "--out", str(out), "--shard", "0/2") == 0
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JOB_COMPLETION_INDEX", "1")
        assert _grade(klass, "--out", str(out), "--shard", "auto/2") == 0
    return out


def test_shard_specs(monkeypatch):
    assert parse_shard("3/4") == parse_shard("auto/4", {"SLURM_ARRAY_TASK_ID": "3"})
    assert parse_shard("auto/4", {"JOB_COMPLETION_INDEX": "2"}).index == 2
    for bad, environ in (("4/4", {}), ("1/0", {}), ("x/2", {}), ("auto/2", {}),
                         ("auto/2", {"SLURM_ARRAY_TASK_ID": "2"}),
                         ("auto/2", {"JOB_COMPLETION_INDEX": "one"})):
        with pytest.raises(ShardError):
            parse_shard(bad, environ)
