"""Issue 27, parts C and D on one small class: the result cache changes no byte of the output,
shards merged give the unsharded grades.csv and feedback byte for byte, and merge refuses what
is not exactly the N shards of one grading."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder import synthetic
from autograder.__main__ import main as autograder_main
from autograder.grade import grade
from autograder.shard import MANIFEST, ROWS, shard_of

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
    return autograder_main(
        [
            "grade",
            str(klass["inbox"]),
            "--course",
            str(klass["course"]),
            "--timeout",
            str(TIMEOUT),
            *args,
        ]
    )


@pytest.fixture(scope="module")
def shards(klass):
    out = klass["root"] / "sharded"
    assert _grade(klass, "--out", str(out), "--shard", "0/2") == 0
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JOB_COMPLETION_INDEX", "1")
        assert _grade(klass, "--out", str(out), "--shard", "auto/2") == 0
    return out


@pytest.mark.tooling  # grades a class with nbgrader and bubblewrap
def test_the_class_has_every_kind_of_row(klass):
    statuses = {row["status"] for row in klass["rows"]}
    assert statuses == {"ok", "no-answer", "duplicate", "malformed", "unmatched"}
    assert any("was not run" in row["reason"] for row in klass["rows"])


@pytest.mark.tooling  # grades a class with nbgrader and bubblewrap
def test_without_the_cache_every_byte_is_the_same(klass):
    out = klass["root"] / "uncached"
    assert _grade(klass, "--out", str(out), "--no-result-cache") == 0
    assert synthetic.graded_files(out) == synthetic.graded_files(klass["whole"])
    assert not (out / "nbgrader" / "result-cache").exists()
    cached = [
        nbformat.read(p, as_version=4).metadata["autograder"]["cached"]
        for p in (klass["whole"] / "nbgrader").glob("autograded-*/*/*/*.ipynb")
    ]
    entries = list((klass["whole"] / "nbgrader" / "result-cache").glob("*.json"))
    assert len(entries) <= len(CHAPTERS) * 5 < len(cached)  # one run per chapter and answer
    assert len(cached) - sum(cached) >= len(entries) and sum(cached) > 0


@pytest.mark.tooling  # grades a class with nbgrader and bubblewrap
def test_each_student_is_graded_in_exactly_one_shard(klass, shards):
    rows = {i: json.loads((shards / f"shard-{i}" / ROWS).read_text()) for i in (0, 1)}
    assert all(rows.values()), "both shards must hold students, or the test proves nothing"
    for i, items in rows.items():
        assert {shard_of(item["row"]["student"], 2) for item in items} == {i}
    twice = [
        item["row"]["status"]
        for items in rows.values()
        for item in items
        if item["row"]["student"] == "twice"
    ]
    assert sorted(twice) == ["duplicate", "ok"]
    manifest = json.loads((shards / "shard-0" / MANIFEST).read_text())
    assert (manifest["shard"], manifest["shards"], manifest["rows"]) == (0, 2, len(rows[0]))


@pytest.mark.tooling  # grades a class with nbgrader and bubblewrap
def test_merged_shards_equal_the_unsharded_run_byte_for_byte(klass, shards, capsys):
    final = klass["root"] / "final"
    assert (
        autograder_main(["merge", *map(str, sorted(shards.glob("shard-*"))), "--out", str(final)])
        == 0
    )
    assert synthetic.graded_files(final) == synthetic.graded_files(klass["whole"])
    assert "merged 2 shards" in capsys.readouterr().err


def _refused(folders: list[Path], out: Path, capsys) -> str:
    code = autograder_main(["merge", *map(str, folders), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "merge refused" in err, err
    assert not (out / "grades.csv").exists()
    return err


def _copy(folder: Path, to: Path, **changes) -> Path:
    """A copy of a shard's folder with its manifest changed."""
    shutil.copytree(folder, to)
    manifest = json.loads((to / MANIFEST).read_text())
    (to / MANIFEST).write_text(json.dumps({**manifest, **changes}))
    return to


@pytest.mark.tooling  # grades a class with nbgrader and bubblewrap
def test_merge_refuses_a_missing_or_unfinished_shard(klass, shards, tmp_path, capsys):
    assert "shard 1 of 2 is missing" in _refused([shards / "shard-0"], tmp_path / "a", capsys)
    killed = shutil.copytree(shards / "shard-1", tmp_path / "killed")
    (killed / MANIFEST).unlink()
    err = _refused([shards / "shard-0", killed], tmp_path / "b", capsys)
    assert "did not finish" in err


@pytest.mark.tooling  # grades a class with nbgrader and bubblewrap
def test_merge_refuses_another_n_or_a_shard_given_twice(klass, shards, tmp_path, capsys):
    other_n = _copy(shards / "shard-1", tmp_path / "n3", shards=3)
    err = _refused([shards / "shard-0", other_n], tmp_path / "a", capsys)
    assert "graded as another N" in err
    again = _copy(shards / "shard-0", tmp_path / "again")
    err = _refused([shards / "shard-0", again, shards / "shard-1"], tmp_path / "b", capsys)
    assert "shard 0 is given twice" in err


@pytest.mark.tooling  # grades a class with nbgrader and bubblewrap
def test_merge_refuses_a_row_that_appears_twice(klass, shards, tmp_path, capsys):
    posing = _copy(shards / "shard-0", tmp_path / "posing", shard=1)
    err = _refused([shards / "shard-0", posing], tmp_path / "a", capsys)
    assert "appears twice" in err


@pytest.mark.tooling  # grades a class with nbgrader and bubblewrap
def test_merge_refuses_a_shard_graded_against_other_inputs(klass, shards, tmp_path, capsys):
    inbox = shutil.copytree(klass["inbox"], tmp_path / "inbox", copy_function=shutil.copy2)
    (inbox / f"late_9_{CHAPTERS[0]}.ipynb").write_text("{}")
    assert (
        autograder_main(
            [
                "grade",
                str(inbox),
                "--course",
                str(klass["course"]),
                "--out",
                str(tmp_path / "other"),
                "--shard",
                "1/2",
            ]
        )
        == 0
    )
    err = _refused([shards / "shard-0", tmp_path / "other" / "shard-1"], tmp_path / "a", capsys)
    assert "against other inputs" in err


@pytest.mark.tooling  # child processes
def test_the_shard_hash_is_stable_across_processes():
    """Python's own hash() of a str changes with every process (PYTHONHASHSEED); ours may not."""
    code = (
        "from autograder.shard import shard_of; "
        "print([shard_of(f'student{n:03d}', 7) for n in range(50)])"
    )
    seen = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "random")
    }
    assert len(seen) == 1 and len(set(json.loads(seen.pop()))) == 7
