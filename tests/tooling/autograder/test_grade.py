"""The autograder grades a class of honest and hostile submissions safely, without a server.

The class is built from the student editions of the demo course in autograder.synthetic, whose
check cells come from the real builders in course.checks (the real chapters are graded the
same way by test_real_chapters_grade_right_wrong_and_blank). Measurement cells in the demo
chapters leave a marker file and raise if they run, so the test proves they don't. Every attack
of issue 11 is a submission of the same class: honest students must keep their grades, every
attacker scores zero, inputs and the course stay byte-for-byte the same, no process outlives the
run, memory stays under 1 GiB with a zip bomb in the inbox, and no feedback page carries a
hidden test, another option's explanation or a script from a submission.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import json
import os
import resource
import sqlite3
import zipfile
from html import unescape
from pathlib import Path

import nbformat
import psutil
import pytest

from autograder import sandbox, synthetic
from autograder.course import ScratchCourse
from autograder.grade import COLUMNS, GradingError, grade
from course.checks import LETTERS, cells_with_role, grade_id, load_check
from course.paths import CHECKS_DIR, COURSE_ROOT

# Tooling: grades whole classes with nbgrader, each kernel in the bubblewrap sandbox.
# hand-copied cells (same id) and nbgrader's re-added cells (no id) are part of the class
pytestmark = [
    pytest.mark.tooling,
    pytest.mark.filterwarnings(
        "ignore::nbformat.warnings.DuplicateCellId",
        "ignore::nbformat.warnings.MissingIDFieldWarning",
    ),
]

CHAPTERS = ("00-serving-many-users", "02-continuous-batching", "05-the-dials")
CH = "02-continuous-batching"  # the chapter the bad cases use; its right option is C
MUTANT = "06-chunked-prefill"  # its source's key is changed from C to D: the mutation check
TIMEOUT = 10
SCRIPT = "pwned-by-a-script"

ATTACKS = {  # answer-cell code of issue 11's attacks; none of it may ever run
    "strsub": (
        "class Sly(str):\n    def strip(self):\n        return self\n"
        "    def upper(self):\n        return self\n    def __eq__(self, other):\n"
        '        return True\n    __hash__ = str.__hash__\nanswer = Sly("A")'
    ),
    "transformer": (
        'get_ipython().input_transformers_post.append(lambda lines: ["pass\\n"])\nanswer = "A"'
    ),
    "keyreader": (
        "import glob\nanswer = [open(p).read() for p in "
        'glob.glob("../../../source/*/*.ipynb")][0][:1]'
    ),
    "rewriter": (
        'import glob, pathlib\nfor p in glob.glob("../../../submitted*/*/*/*.ipynb"):\n'
        '    pathlib.Path(p).write_text("{}")\nanswer = "A"'
    ),
    "detached": (
        'import subprocess, sys\nsubprocess.Popen([sys.executable, "-c", '
        '"import time; time.sleep(300)"], start_new_session=True)\nanswer = "A"'
    ),
    "startup": (
        'import pathlib\np = pathlib.Path.home() / ".ipython/profile_default/startup"\n'
        'p.mkdir(parents=True, exist_ok=True)\n(p / "00.py").write_text("answer = \'C\'")\n'
        'answer = "A"'
    ),
    "killer": 'import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nanswer = "A"',
    "bigline": 'print("x" * 50_000_000)\nanswer = "A"',
    "scripter": (
        "from IPython.display import HTML, display\n"
        f'display(HTML("<script>alert(\'{SCRIPT}\')</script>"))\nanswer = "A"'
    ),
    "loop": 'while True:\n    pass\nanswer = "A"',
    "crash": "import os\nos._exit(1)",
    "stderr": 'import sys\nprint("noise", file=sys.stderr)\nanswer = "A"',
    "rebinder": 'answer = "A"\nglobals().update(answer="C")\nfor answer in ["C"]:\n    pass',
    "exporter": 'answer = "A"\nimport builtins as answer',
}
# The attacks that set `answer` once to a plain (wrong) letter are graded as that letter, their
# other lines never run; the rest are bad-answer. No attacker can score.
COMPUTED_ATTACKS = ("strsub", "keyreader", "crash", "rebinder", "exporter")


def _write(nb: nbformat.NotebookNode, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def _cell(nb, role: str):
    return cells_with_role(nb, role)[-1]


def _colab(nb, *, strip_metadata: bool) -> dict:
    """What a Colab re-save does: nbformat 4.0 without cell ids, Colab's own ids in cell metadata,
    Colab notebook metadata; optionally every other cell metadata (nbgrader, tags) dropped too."""
    raw = json.loads(json.dumps(nb))
    raw["nbformat_minor"] = 0
    raw["metadata"] = {
        "colab": {"provenance": [], "name": "Copy of the chapter"},
        "kernelspec": {"name": "python3", "display_name": "Python 3"},
        "language_info": {"name": "python"},
    }
    for n, cell in enumerate(raw["cells"]):
        cell.pop("id", None)
        kept = {} if strip_metadata else cell["metadata"]
        cell["metadata"] = {**kept, "id": f"colab{n:04d}xyz"}
        if cell["cell_type"] == "code":
            cell["metadata"]["colab"] = {"base_uri": "https://localhost:8080/"}
    return raw


def _zip_bomb(path: Path, inner: str, size: int = 1 << 30) -> None:
    """A small zip whose one entry expands to `size` bytes of zeros."""
    chunk = b"\0" * (16 << 20)
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf,
        zf.open(zipfile.ZipInfo(inner), "w", force_zip64=True) as handle,
    ):
        for _ in range(size // len(chunk)):
            handle.write(chunk)


def _mutate_key(source: Path, key: str, other: str) -> None:
    nb = nbformat.read(source, as_version=4)
    test = _cell(nb, "test")
    assert f"assert _choice == {key!r}" in test.source
    test.source = test.source.replace(f"assert _choice == {key!r}", f"assert _choice == {other!r}")
    nbformat.write(nb, source)


def editions_of(course: Path, work: Path) -> dict[str, nbformat.NotebookNode]:
    scratch = ScratchCourse(course, work)
    assert not scratch.prepare()
    return {ch: nbformat.read(scratch.release(ch), as_version=4) for ch in scratch.chapters}


class _Inbox:
    """The class's submissions, written into ``folder`` with the row each must grade to."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.expected: dict[tuple[str, str], tuple[str, str, str]] = {}  # → (score, status, reason)

    def expect(self, student, chapter, score, status, reason):
        """Write one row's expectation; writing a row twice would hide the first expectation."""
        expected = self.expected
        assert (student, chapter) not in expected, f"{(student, chapter)} expected twice"
        expected[(student, chapter)] = (score, status, reason)

    def submit(self, student, name, nb, score, status, reason, chapter=CH, raw=None):
        """`reason` is "" when the row's reason must be empty, else a part it must contain."""
        path = self.folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if raw is not None:
            path.write_bytes(raw)
        else:
            _write(nb, path)
        if student is not None:
            self.expect(student, chapter, score, status, reason)
        return path


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("grading")
    course = synthetic.write_course(root / "course", (*CHAPTERS, MUTANT))
    _mutate_key(course / "source" / MUTANT / f"{MUTANT}.ipynb", "C", "D")
    editions = editions_of(course, root / "editions")
    box = _Inbox(root / "inbox")
    _submit_each_chapter(box, editions)
    mutant_rows = _submit_mutants(box.folder, editions)
    ed = editions[CH]

    def answered(source):
        return synthetic.answered(ed, source)

    _submit_malformed(box, answered)
    _submit_tampered_cells(box, answered)
    _submit_answer_forms(box, answered)
    _submit_files(box, answered, course)
    layout = root / "nbgrader-export"
    folder = layout / "submitted" / "alice" / CH
    _write(answered('answer = "C"'), folder / f"{CH}.ipynb")
    (folder / "timestamp.txt").write_text("2025-01-01 10:00:00\n")
    box.expect("alice", CH, "1", "ok", "")
    return {
        "root": root,
        "course": course,
        "inputs": [box.folder, layout],
        "expected": box.expected,
        "editions": editions,
        "mutant_rows": mutant_rows,
    }


def _submit_each_chapter(box, editions):
    """A right, a wrong and a blank answer to every chapter."""
    submit = box.submit
    for ch in CHAPTERS:
        right = synthetic.correct_letter(ch)
        wrong = "A" if right != "A" else "B"
        ed = editions[ch]
        submit(
            "right",
            f"right_100_{ch}.ipynb",
            synthetic.answered(ed, f'answer = "{right}"'),
            "1",
            "ok",
            "",
            chapter=ch,
        )
        submit(
            "wrong",
            f"wrong_101_{ch} (1).ipynb",
            synthetic.answered(ed, f'answer = "{wrong}"'),
            "0",
            "ok",
            synthetic.explanation(ch, wrong),
            chapter=ch,
        )
        submit("blank", f"blank_102_{ch}.ipynb", ed, "0", "no-answer", "still None", chapter=ch)


def _submit_mutants(inbox, editions):
    """Two answers to the chapter whose key was changed; the rows the real key would give."""
    mutant_rows = {}  # what the real key (C) would give: must NOT match the mutated course
    for student, letter in (("mutantright", "C"), ("mutantwrong", "A")):
        _write(
            synthetic.answered(editions[MUTANT], f'answer = "{letter}"'),
            inbox / f"{student}_1_{MUTANT}.ipynb",
        )
        right = letter == synthetic.correct_letter(MUTANT)
        mutant_rows[(student, MUTANT)] = (
            ("1", "ok", "") if right else ("0", "ok", synthetic.explanation(MUTANT, letter))
        )

    return mutant_rows


def _submit_malformed(box, answered):
    """Files that are not notebooks."""
    submit = box.submit
    good = json.dumps(answered('answer = "C"'))
    submit(
        "corrupt",
        f"corrupt_1_{CH}.ipynb",
        None,
        "0",
        "malformed",
        "not valid JSON",
        raw=good[: len(good) // 2].encode(),
    )
    submit("empty", f"empty_2_{CH}.ipynb", None, "0", "malformed", "empty", raw=b"")
    submit(
        "binary",
        f"binary_3_{CH}.ipynb",
        None,
        "0",
        "malformed",
        "binary",
        raw=b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe",
    )
    submit(
        "jsonish",
        f"jsonish_4_{CH}.ipynb",
        None,
        "0",
        "malformed",
        "not a Jupyter notebook",
        raw=b'{"hello": "world"}',
    )


def _submit_tampered_cells(box, answered):
    """Notebooks whose check cells were deleted, copied, retyped or edited."""
    submit = box.submit
    nb = answered('answer = "C"')
    nb.cells.remove(_cell(nb, "answer"))
    submit(
        "noanswercell",
        f"noanswercell_5_{CH}.ipynb",
        nb,
        "0",
        "no-answer",
        "answer cell was deleted",
    )

    nb = answered('answer = "A"')
    twin = copy.deepcopy(_cell(nb, "answer"))  # a hand-copied cell: same nbgrader id, same cell id
    twin.source = 'answer = "C"'
    nb.cells.insert(nb.cells.index(_cell(nb, "answer")) + 1, twin)
    submit("twoanswers", f"twoanswers_6_{CH}.ipynb", nb, "1", "ok", "appears 2 times")

    nb = answered('answer = "C"')
    markdown = nbformat.v4.new_markdown_cell('answer = "C"', metadata=_cell(nb, "answer").metadata)
    nb.cells[nb.cells.index(_cell(nb, "answer"))] = markdown
    submit("markdownanswer", f"markdownanswer_7_{CH}.ipynb", nb, "1", "ok", "changed to markdown")

    nb = answered('answer = "A"')
    test = _cell(nb, "test")
    nb.cells[nb.cells.index(test)] = nbformat.v4.new_raw_cell("pass", metadata=test.metadata)
    submit("rawtest", f"rawtest_8_{CH}.ipynb", nb, "0", "ok", "test cell was edited")

    nb = answered('answer = "A"')
    _cell(nb, "test").source = "print('all good')"
    submit("editedtest", f"editedtest_9_{CH}.ipynb", nb, "0", "ok", synthetic.explanation(CH, "A"))

    for student, letter, score in (("deltestwrong", "A", "0"), ("deltestright", "C", "1")):
        nb = answered(f'answer = "{letter}"')
        nb.cells.remove(_cell(nb, "test"))
        submit(student, f"{student}_10_{CH}.ipynb", nb, score, "ok", "test cell was deleted")


def _submit_answer_forms(box, answered):
    """Answers written in other forms, attacks and leftover lines."""
    submit = box.submit
    forms = {
        "lower": ('answer = "c"', "1", "ok", ""),
        "spaces": ('answer = "  C  "', "1", "ok", ""),
        "aorb": ('answer = "A or B"', "0", "bad-answer", "'A or B' is not one of them"),
        "alist": ('answer = ["C"]', "0", "bad-answer", "of type list"),
        "anumber": ("answer = 3", "0", "bad-answer", "of type int"),
        "anone": ("answer = None", "0", "no-answer", "still None"),
    }
    for student, (source, score, status, reason) in forms.items():
        submit(student, f"{student}_11_{CH}.ipynb", answered(source), score, status, reason)

    for student, source in ATTACKS.items():
        if student in COMPUTED_ATTACKS:
            submit(
                student,
                f"{student}_12_{CH}.ipynb",
                answered(source),
                "0",
                "bad-answer",
                'answer = "B"',
            )
        else:
            submit(
                student,
                f"{student}_12_{CH}.ipynb",
                answered(source),
                "0",
                "ok",
                f'{synthetic.explanation(CH, "A")}; only answer = "A" was graded; line',
            )

    leftovers = {  # issue 27: one plain letter plus leftover lines is graded, the rest not run
        "leftprint": (
            'answer = "C"\nprint("done")',
            "1",
            "ok",
            'only answer = "C" was graded; line 2 of the answer cell was not run: `print("done")`',
        ),
        "leftimport": (
            'import os\nanswer = " c "\nimport sys; sys.stderr.write("x")',
            "1",
            "ok",
            "lines 1, 3 of the answer cell were not run: `import os`, `import sys; "
            'sys.stderr.write("x")`',
        ),
        "leftnone": ('answer = None\nprint("later")', "0", "no-answer", "line 2"),
        "twoassign": ('answer = "A"\nanswer = "C"', "0", "bad-answer", "sets `answer` 2 times"),
        "augassign": ('answer = "C"\nanswer += ""', "0", "bad-answer", "sets `answer` 2 times"),
        "computed": (
            'answer = "C".lower()\nprint(answer)',
            "0",
            "bad-answer",
            "computed, not written as a literal",
        ),
    }
    for student, (source, score, status, reason) in leftovers.items():
        submit(student, f"{student}_27_{CH}.ipynb", answered(source), score, status, reason)


def _submit_files(box, answered, course):
    """Markup, other kernels, renamed and unmatched files, duplicates, zips and links."""
    submit, expect, inbox = box.submit, box.expect, box.folder
    nb = answered('answer = "C"')  # a right answer with script in the student's own markdown
    nb.cells.insert(
        0,
        nbformat.v4.new_markdown_cell(
            f"<script>alert('{SCRIPT}')</script><img src=x onerror=\"alert('{SCRIPT}')\">"
        ),
    )
    submit("markup", f"markup_13_{CH}.ipynb", nb, "1", "ok", "")

    nb = answered('answer = "A"')
    nb.metadata["kernelspec"] = {"name": "evil", "display_name": "evil", "language": "python"}
    submit("kernelspec", f"kernelspec_14_{CH}.ipynb", nb, "0", "ok", synthetic.explanation(CH, "A"))

    submit(
        "colab",
        f"colab_16_Copy of {CH}.ipynb",
        None,
        "1",
        "ok",
        "",
        raw=json.dumps(_colab(answered('answer = "c"'), strip_metadata=False)).encode(),
    )
    submit(
        "colabstrip",
        "colabstrip_17_Untitled0.ipynb",
        None,
        "1",
        "ok",
        "metadata was missing",
        raw=json.dumps(_colab(answered('answer = "C"'), strip_metadata=True)).encode(),
    )

    nb = answered('answer = "A"')
    _cell(nb, "test").metadata["tags"] = ["check", "skip-execution"]
    submit("dodger", f"dodger_18_{CH}.ipynb", nb, "0", "ok", "tagged skip-execution")

    submit(
        "renamed", "renamed_19_03-paged-attention.ipynb", answered('answer = "C"'), "1", "ok", ""
    )
    stray = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    submit("mystery", "mystery_20_notes.ipynb", stray, "", "unmatched", "no chapter", chapter="")
    submit("", f"{CH}.ipynb", answered('answer = "C"'), "0", "unmatched", "cannot tell the student")

    older = submit(None, f"twice_21_{CH}.ipynb", answered('answer = "A"'), "", "", "")
    newer = submit("twice", f"twice_21_{CH} (1).ipynb", answered('answer = "C"'), "1", "ok", "")
    os.utime(older, (1_000_000, 1_000_000))
    os.utime(newer, (2_000_000, 2_000_000))

    with zipfile.ZipFile(inbox / "platform-export.zip", "w") as zf:
        zf.writestr(f"export/zipped_22_{CH} (1).ipynb", json.dumps(answered('answer = "C"')))
    expect("zipped", CH, "1", "ok", "")
    (inbox / "broken.zip").write_bytes(b"PK\x03\x04 not really a zip")
    expect("", "", "", "malformed", "zip")

    # a student's upload claiming another student's notebook, dated far in the future
    submit("victim", f"victim_23_{CH}.ipynb", answered('answer = "C"'), "1", "ok", "")
    with zipfile.ZipFile(inbox / f"mallory_24_{CH}.zip", "w") as zf:
        info = zipfile.ZipInfo(f"victim/{CH}/{CH}.ipynb", date_time=(2099, 1, 1, 0, 0, 0))
        zf.writestr(info, json.dumps(answered('answer = "A"')))
    expect("mallory", CH, "0", "ok", "name the student 'victim', which is ignored")
    _zip_bomb(inbox / f"bomber_25_{CH}.zip", f"{CH}.ipynb")
    expect("bomber", CH, "0", "malformed", "over the 33554432 byte limit")
    (inbox / f"linker_26_{CH}.ipynb").symlink_to(course / "source" / CH / f"{CH}.ipynb")
    expect("linker", CH, "0", "skipped", "symbolic link")


def _fingerprint(paths: list[Path]) -> dict[str, str]:
    return {
        str(f): hashlib.sha256(f.read_bytes()).hexdigest()
        for p in paths
        for f in sorted(p.rglob("*"))
        if f.is_file() and not f.is_symlink() and f.stat().st_size < (64 << 20)
    }


def _in_sandbox(process: psutil.Process) -> bool:
    try:
        line = " ".join(process.cmdline())
    except psutil.Error:
        return False
    return "time.sleep(300)" in line or "sandbox_runner" in line or "autograder/runner" in line


def _sandbox_processes() -> list[psutil.Process]:
    """Sandbox processes whose grader is gone: the first ancestor outside a sandbox is init.
    (A live grader's sandboxes belong to someone else's run on this machine: not ours, since
    ours has returned.)"""
    found = []
    for process in psutil.process_iter():
        if not _in_sandbox(process):
            continue
        owner = process.parent()
        while owner is not None and _in_sandbox(owner):
            owner = owner.parent()
        if owner is None or owner.pid == 1:
            found.append(process)
    return found


@pytest.fixture(scope="module")
def graded(world):
    before = _fingerprint([*world["inputs"], world["course"]])
    home_startup = Path.home() / ".ipython" / "profile_default" / "startup"
    startup_before = sorted(home_startup.glob("*")) if home_startup.exists() else []
    out = world["root"] / "out"
    rows = grade(world["inputs"], out, world["course"], timeout=TIMEOUT)
    after = _fingerprint([*world["inputs"], world["course"]])
    assert after == before, "grading changed, moved or added input or course files"
    assert (sorted(home_startup.glob("*")) if home_startup.exists() else []) == startup_before
    return {
        "rows": rows,
        "out": out,
        "gradebook": _gradebook_rows(out),
        "left": _sandbox_processes(),
        "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }


def _gradebook_rows(out: Path) -> dict[str, int]:
    with sqlite3.connect(out / "nbgrader" / "gradebook.db") as db:
        tables = [r[0] for r in db.execute("select name from sqlite_master where type='table'")]
        return {t: db.execute(f"select count(*) from {t}").fetchone()[0] for t in tables}


def _by_key(rows):
    keyed: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        keyed.setdefault((row["student"], row["chapter"]), []).append(row)
    return keyed


def check_rows(rows: list[dict], expected: dict) -> None:
    """Every expected row is there with its score, status and reason; nothing else is."""
    keyed = _by_key(rows)
    assert set(keyed) == set(expected)
    for key, (score, status, reason) in expected.items():
        rows = keyed[key]
        if key == ("twice", CH):
            assert sorted(r["status"] for r in rows) == ["duplicate", "ok"]
            rows = [r for r in rows if r["status"] == "ok"]
        (row,) = rows
        assert (row["score"], row["status"]) == (score, status), (key, row)
        if reason:
            assert reason in row["reason"], (key, row)
        else:
            assert row["reason"] == "", (key, row)


def test_grades_csv_has_exactly_the_columns(graded):
    with (graded["out"] / "grades.csv").open() as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames) == COLUMNS
        assert list(reader) == graded["rows"]


def test_every_row_is_graded_as_expected(world, graded):
    mutants = set(world["mutant_rows"])
    check_rows(
        [r for r in graded["rows"] if (r["student"], r["chapter"]) not in mutants],
        world["expected"],
    )


def test_every_attacker_scores_zero_and_honest_students_keep_their_grades(world, graded):
    keyed = _by_key(graded["rows"])
    for student in ATTACKS:
        assert [r["score"] for r in keyed[(student, CH)]] == ["0"], student
    for ch in CHAPTERS:
        assert keyed[("right", ch)][0]["score"] == "1"
    assert keyed[("victim", CH)][0]["status"] == "ok"
    assert not any("duplicate" == r["status"] for r in keyed[("victim", CH)])


def test_no_process_outlives_the_grading_and_memory_stays_bounded(graded):
    assert graded["left"] == []
    assert graded["peak_rss"] < 1 << 30, graded["peak_rss"]


def test_max_score_comes_from_the_gradebook(graded):
    for row in graded["rows"]:
        if row["chapter"]:
            assert row["max_score"] == "1", row


def test_only_the_check_cells_ran_and_the_answer_is_a_literal(graded):
    out = graded["out"]
    assert not list(out.rglob(synthetic.MEASUREMENT_MARKER))
    (autograded,) = (out / "nbgrader").glob(f"autograded-*/right/{CH}/{CH}.ipynb")
    nb = nbformat.read(autograded, as_version=4)
    ran = [c for c in nb.cells if c.cell_type == "code" and c.outputs]
    assert [c.metadata["nbgrader"]["grade_id"] for c in ran] == [grade_id(CH, "test")]
    assert _cell(nb, "answer").source == 'answer = "C"'
    (attacked,) = (out / "nbgrader").glob(f"autograded-*/keyreader/{CH}/{CH}.ipynb")
    assert _cell(nbformat.read(attacked, as_version=4), "answer").source == "answer = None"
    (attacked,) = (out / "nbgrader").glob(f"autograded-*/transformer/{CH}/{CH}.ipynb")
    kept = _cell(nbformat.read(attacked, as_version=4), "answer").source.splitlines()
    assert kept[0] == 'answer = "A"' and all(line.startswith("#") for line in kept[1:]), kept


def test_feedback_names_the_answer_lines_that_were_not_run(graded):
    html = unescape((graded["out"] / "feedback" / "leftprint" / f"{CH}.html").read_text())
    assert "graded only the line above; line 2 of the answer cell was not run" in html
    assert "print(" not in html  # the page names the line; it never shows a student's code


def test_each_cached_outcome_equals_a_fresh_run(graded):
    """The class needed a handful of kernel runs per chapter (one per letter, blank and
    malformed), and each stored outcome is what a fresh sandbox gives for the same sources."""
    entries = [
        json.loads(p.read_text())
        for p in (graded["out"] / "nbgrader" / "result-cache").glob("*.json")
    ]
    ran = [
        nbformat.read(p, as_version=4).metadata["autograder"]
        for p in (graded["out"] / "nbgrader").glob("autograded-*/*/*/*.ipynb")
    ]
    assert len(entries) <= (len(CHAPTERS) + 1) * (len(LETTERS) + 1) < len(ran)
    assert sum(not r["cached"] for r in ran) >= len(entries)
    assert sum(r["cached"] for r in ran) >= len(ran) - 2 * len(entries)
    for entry in entries:
        fresh = sandbox.execute(entry["sources"], TIMEOUT)
        assert sandbox.result_to_data(fresh) == entry["result"], entry["sources"]


def test_feedback_shows_only_the_students_own_result(graded):
    pages = sorted((graded["out"] / "feedback").rglob("*.html"))
    assert len(pages) > 30
    for page in pages:
        text = unescape(page.read_text())
        assert SCRIPT not in text and "onerror" not in text, page
        assert "HIDDEN TESTS" not in text and "_feedback" not in text, page
        assert "assert _choice" not in text, page
    for ch in CHAPTERS:
        right = synthetic.correct_letter(ch)
        wrong = "A" if right != "A" else "B"
        html = unescape((graded["out"] / "feedback" / "wrong" / f"{ch}.html").read_text())
        assert synthetic.explanation(ch, wrong) in html
        others = [x for x in LETTERS if x not in (right, wrong)]
        assert not any(synthetic.explanation(ch, x) in html for x in others), ch
        assert (graded["out"] / "feedback" / "right" / f"{ch}.html").is_file()


def test_rerun_gives_the_same_grades_and_no_new_gradebook_rows(world, graded):
    """Grading a student again into the same OUT (here the nbgrader export alone, to keep the
    test short) gives the same row and adds no gradebook row."""
    rows = grade(world["inputs"][1:], graded["out"], world["course"], timeout=TIMEOUT)
    assert rows == [r for r in graded["rows"] if r["student"] == "alice"]
    assert _gradebook_rows(graded["out"]) == graded["gradebook"]


def test_refuses_an_output_folder_it_did_not_write(world, tmp_path):
    (tmp_path / "precious.txt").write_text("keep me")
    with pytest.raises(GradingError, match="not written by the autograder"):
        grade(world["inputs"], tmp_path, world["course"])
    with pytest.raises(GradingError, match="overlaps"):
        grade(world["inputs"], world["inputs"][0] / "out", world["course"])
    assert (tmp_path / "precious.txt").read_text() == "keep me"


def test_changing_one_letter_of_a_key_fails_the_expectations(world, graded):
    """The mutation check: the demo chapter whose source expects D instead of its key C is
    graded in the same class; the expectations of the real key must fail on its rows, while
    the rest of the class passes (test_every_row_is_graded_as_expected)."""
    keyed = _by_key(graded["rows"])
    rows = [row for key in world["mutant_rows"] for row in keyed[key]]
    assert len(rows) == 2
    with pytest.raises(AssertionError):
        check_rows(rows, world["mutant_rows"])
    # ...and for the one reason that matters: the student who gave the real key C scores 0.
    [old_key] = keyed[("mutantright", MUTANT)]
    assert (old_key["score"], old_key["status"]) == ("0", "ok"), old_key


@pytest.mark.skipif(
    not list((COURSE_ROOT / "source").glob("*/*.ipynb")), reason="no chapter sources yet"
)
def test_real_chapters_grade_right_wrong_and_blank(tmp_path):
    """Every real chapter's check: its key (from assignments/checks) scores, a wrong letter
    scores zero and explains itself in the reason and the feedback, a blank edition is no-answer
    (one chapter, to keep the test short), and no measurement cell runs."""
    course = COURSE_ROOT
    editions = editions_of(course, tmp_path / "editions")
    inbox = tmp_path / "inbox"
    keys = {ch: load_check(CHECKS_DIR / f"{ch}.yml", ch).correct for ch in editions}
    for chapter, nb in editions.items():
        wrong = "A" if keys[chapter] != "A" else "B"
        for student, letter in (("key", keys[chapter]), ("wrong", wrong)):
            _write(
                synthetic.answered(nb, f'answer = "{letter}"'),
                inbox / f"{student}_1_{chapter}.ipynb",
            )
    out = tmp_path / "out"
    first = next(iter(editions))
    _write(editions[first], inbox / f"blank_1_{first}.ipynb")
    keyed = _by_key(grade([inbox], out, course))
    assert len(keyed) == 2 * len(editions) + 1
    assert [r["status"] for r in keyed[("blank", first)]] == ["no-answer"]
    for chapter in editions:
        rows = [keyed[(student, chapter)][0] for student in ("key", "wrong")]
        assert [(r["status"], r["score"]) for r in rows] == [("ok", "1"), ("ok", "0")], (
            chapter,
            keys[chapter],
            rows,
        )
        for row in rows:
            html = unescape((out / "feedback" / row["student"] / f"{chapter}.html").read_text())
            assert (row["reason"] == "") == (row["score"] == "1"), row
            assert row["reason"] in html, row
        (autograded,) = (out / "nbgrader").glob(f"autograded-*/key/{chapter}/{chapter}.ipynb")
        ran = [
            c
            for c in nbformat.read(autograded, as_version=4).cells
            if c.cell_type == "code" and c.outputs
        ]
        assert all("nbgrader" in c.metadata for c in ran), chapter
