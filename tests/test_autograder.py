"""The autograder grades a synthetic class, with every kind of broken submission, without a server.

The class is built from the student editions of the demo course in autograder.synthetic (the
real chapters are checked the same way by test_real_editions once book/<id>/<id>.ipynb exist).
Measurement cells in the demo chapters leave a marker file and raise if they run, so the test
proves they don't.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import json
import os
import sqlite3
import zipfile
from html import unescape
from pathlib import Path

import nbformat
import pytest

from autograder import synthetic
from autograder.course import ScratchCourse
from autograder.grade import COLUMNS, grade

# hand-copied cells (same id) and nbgrader's re-added cells (no id) are part of the synthetic class
pytestmark = pytest.mark.filterwarnings("ignore::nbformat.warnings.DuplicateCellId",
                                        "ignore::nbformat.warnings.MissingIDFieldWarning")

CH = "02-continuous-batching"  # the chapter the bad cases use; its right option is C
TIMEOUT = 5
REPO = Path(__file__).resolve().parent.parent


def _write(nb: nbformat.NotebookNode, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def _cell(nb, role: str):
    return next(c for c in nb.cells
                if c.metadata.get("nbgrader", {}).get("grade_id", "").endswith(f"-check-{role}"))


def _colab(nb, *, strip_metadata: bool) -> dict:
    """What a Colab re-save does: nbformat 4.0 without cell ids, Colab's own ids in cell metadata,
    Colab notebook metadata; optionally every other cell metadata (nbgrader, tags) dropped too."""
    raw = json.loads(json.dumps(nb))
    raw["nbformat_minor"] = 0
    raw["metadata"] = {"colab": {"provenance": [], "name": "Copy of the chapter"},
                       "kernelspec": {"name": "python3", "display_name": "Python 3"},
                       "language_info": {"name": "python"}}
    for n, cell in enumerate(raw["cells"]):
        cell.pop("id", None)
        kept = {} if strip_metadata else cell["metadata"]
        cell["metadata"] = {**kept, "id": f"colab{n:04d}xyz"}
        if cell["cell_type"] == "code":
            cell["metadata"]["colab"] = {"base_uri": "https://localhost:8080/"}
    return raw


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("grading")
    course = synthetic.write_course(root / "course")
    editions_course = ScratchCourse(course, root / "editions")
    editions_course.prepare()
    editions = {ch: nbformat.read(editions_course.release(ch), as_version=4)
                for ch in synthetic.CHAPTERS}
    expected: dict[tuple[str, str], tuple[str, str, str]] = {}  # → (score, status, reason part)
    inbox = root / "inbox"

    def submit(student, name, nb, score, status, reason="", chapter=CH, raw=None):
        path = inbox / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if raw is not None:
            path.write_bytes(raw)
        else:
            _write(nb, path)
        expected[(student, chapter)] = (score, status, reason)
        return path

    for ch in synthetic.CHAPTERS:
        right = synthetic.correct_letter(ch)
        wrong = "A" if right != "A" else "B"
        ed = editions[ch]
        submit("right", f"right_100_{ch}.ipynb", synthetic.answered(ed, f'answer = "{right}"'),
               "1", "ok", chapter=ch)
        submit("wrong", f"wrong_101_{ch} (1).ipynb", synthetic.answered(ed, f'answer = "{wrong}"'),
               "0", "ok", synthetic.explanation(ch, wrong), chapter=ch)
        submit("blank", f"blank_102_{ch}.ipynb", ed, "0", "no-answer", "still None", chapter=ch)

    ed = editions[CH]

    def answered(source):
        return synthetic.answered(ed, source)

    good = json.dumps(answered('answer = "C"'))
    submit("corrupt", f"corrupt_1_{CH}.ipynb", None, "0", "malformed", "not valid JSON",
           raw=good[: len(good) // 2].encode())
    submit("empty", f"empty_2_{CH}.ipynb", None, "0", "malformed", "empty", raw=b"")
    submit("binary", f"binary_3_{CH}.ipynb", None, "0", "malformed", "binary",
           raw=b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    submit("jsonish", f"jsonish_4_{CH}.ipynb", None, "0", "malformed", "not a Jupyter notebook",
           raw=b'{"hello": "world"}')

    nb = answered('answer = "C"')
    nb.cells.remove(_cell(nb, "answer"))
    submit("noanswercell", f"noanswercell_5_{CH}.ipynb", nb, "0", "no-answer",
           "answer cell was deleted")

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
    submit("editedtest", f"editedtest_9_{CH}.ipynb", nb, "0", "ok",
           synthetic.explanation(CH, "A"))

    for student, letter, score in (("deltestwrong", "A", "0"), ("deltestright", "C", "1")):
        nb = answered(f'answer = "{letter}"')
        nb.cells.remove(_cell(nb, "test"))
        submit(student, f"{student}_10_{CH}.ipynb", nb, score, "ok", "test cell was deleted")

    forms = {"lower": ('answer = "c"', "1", "ok", ""),
             "spaces": ('answer = "  C  "', "1", "ok", ""),
             "aorb": ('answer = "A or B"', "0", "bad-answer", "exactly one of"),
             "alist": ('answer = ["C"]', "0", "bad-answer", "not a list"),
             "anumber": ("answer = 3", "0", "bad-answer", "not a int"),
             "anone": ("answer = None", "0", "no-answer", "still None")}
    for student, (source, score, status, reason) in forms.items():
        submit(student, f"{student}_11_{CH}.ipynb", answered(source), score, status, reason)

    noise = ("import sys\n"  # stderr here, and in every later cell (the test cell too)
             "print('warming up', file=sys.stderr)\n"
             "get_ipython().events.register('pre_run_cell',\n"
             "    lambda *_: print('noise', file=sys.stderr, flush=True))\n"
             'answer = "C"')
    submit("stderr", f"stderr_12_{CH}.ipynb", answered(noise), "1", "ok")
    submit("loop", f"loop_13_{CH}.ipynb", answered('while True:\n    pass\nanswer = "C"'),
           "0", "timeout", f"longer than {TIMEOUT} s")
    stubborn = ("while True:\n    try:\n        while True:\n            pass\n"
                "    except KeyboardInterrupt:\n        pass")
    submit("stubborn", f"stubborn_13_{CH}.ipynb", answered(stubborn), "0", "timeout",
           f"longer than {TIMEOUT} s")
    submit("huge", f"huge_14_{CH}.ipynb",
           answered('for i in range(50_000):\n    print("line", i)\nanswer = "C"'), "1", "ok")
    submit("crash", f"crash_15_{CH}.ipynb", answered('import os\nos._exit(1)'), "0", "error",
           "nbgrader could not process it (nbclient.exceptions.DeadKernelError")

    submit("colab", f"colab_16_Copy of {CH}.ipynb", None, "1", "ok",
           raw=json.dumps(_colab(answered('answer = "c"'), strip_metadata=False)).encode())
    submit("colabstrip", "colabstrip_17_Untitled0.ipynb", None, "1", "ok", "metadata was missing",
           raw=json.dumps(_colab(answered('answer = "C"'), strip_metadata=True)).encode())

    nb = answered('answer = "A"')
    _cell(nb, "test").metadata["tags"] = ["check", "skip-execution"]
    submit("dodger", f"dodger_18_{CH}.ipynb", nb, "0", "ok", "tagged skip-execution")

    submit("renamed", "renamed_19_03-paged-attention.ipynb", answered('answer = "C"'), "1", "ok")
    stray = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    submit("mystery", "mystery_20_notes.ipynb", stray, "", "unmatched", "no chapter", chapter="")
    submit("", f"{CH}.ipynb", answered('answer = "C"'), "1", "unmatched", "cannot tell the student")
    expected[("", CH)] = ("0", "unmatched", "cannot tell the student")

    older = submit("twice", f"twice_21_{CH}.ipynb", answered('answer = "A"'), "", "")
    newer = submit("twice", f"twice_21_{CH} (1).ipynb", answered('answer = "C"'), "1", "ok")
    os.utime(older, (1_000_000, 1_000_000))
    os.utime(newer, (2_000_000, 2_000_000))

    with zipfile.ZipFile(inbox / "platform-export.zip", "w") as zf:
        zf.writestr(f"export/zipped_22_{CH} (1).ipynb", json.dumps(answered('answer = "C"')))
    expected[("zipped", CH)] = ("1", "ok", "")
    (inbox / "broken.zip").write_bytes(b"PK\x03\x04 not really a zip")
    expected[("", "")] = ("", "malformed", "zip")

    layout = root / "nbgrader-export"
    folder = layout / "submitted" / "alice" / CH
    _write(answered('answer = "C"'), folder / f"{CH}.ipynb")
    (folder / "timestamp.txt").write_text("2025-01-01 10:00:00\n")
    expected[("alice", CH)] = ("1", "ok", "")
    return {"root": root, "course": course, "inputs": [inbox, layout], "expected": expected,
            "editions": editions}


def _fingerprint(paths: list[Path]) -> dict[str, str]:
    return {str(f): hashlib.sha256(f.read_bytes()).hexdigest()
            for p in paths for f in sorted(p.rglob("*")) if f.is_file()}


@pytest.fixture(scope="module")
def graded(world):
    before = _fingerprint(world["inputs"])
    out = world["root"] / "out"
    rows = grade(world["inputs"], out, world["course"], timeout=TIMEOUT)
    assert _fingerprint(world["inputs"]) == before, "grading changed, moved or added input files"
    return {"rows": rows, "out": out, "gradebook": _gradebook_rows(out)}


def _gradebook_rows(out: Path) -> dict[str, int]:
    with sqlite3.connect(out / "nbgrader" / "gradebook.db") as db:
        tables = [r[0] for r in db.execute("select name from sqlite_master where type='table'")]
        return {t: db.execute(f"select count(*) from {t}").fetchone()[0] for t in tables}


def _by_key(rows):
    keyed: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        keyed.setdefault((row["student"], row["chapter"]), []).append(row)
    return keyed


def test_grades_csv_has_exactly_the_columns(graded):
    with (graded["out"] / "grades.csv").open() as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames) == COLUMNS
        assert list(reader) == graded["rows"]


def test_every_row_is_graded_as_expected(world, graded):
    keyed = _by_key(graded["rows"])
    assert set(keyed) == set(world["expected"])
    for key, (score, status, reason) in world["expected"].items():
        rows = keyed[key]
        if key == ("twice", CH):
            assert sorted(r["status"] for r in rows) == ["duplicate", "ok"]
            rows = [r for r in rows if r["status"] == "ok"]
        if key == ("", CH):
            rows = [r for r in rows if r["status"] == "unmatched"]
        (row,) = rows
        assert (row["score"], row["status"]) == (score, status), (key, row)
        assert reason in row["reason"], (key, row)
        if status == "ok" and score == "1" and key[0] in ("right", "lower", "spaces", "alice"):
            assert row["reason"] == "", (key, row)


def test_max_score_comes_from_the_gradebook(graded):
    for row in graded["rows"]:
        if row["chapter"]:
            assert row["max_score"] == "1", row


def test_measurement_cells_never_ran(graded):
    out = graded["out"]
    assert not list(out.rglob(synthetic.MEASUREMENT_MARKER))
    autograded = out / "nbgrader" / "autograded" / "right" / CH / f"{CH}.ipynb"
    nb = nbformat.read(autograded, as_version=4)
    ran = [c for c in nb.cells if c.cell_type == "code" and c.outputs]
    assert [c.metadata["nbgrader"]["grade_id"] for c in ran] == [f"{CH}-check-test"]


def test_feedback_carries_the_wrong_options_explanation(graded):
    for ch in synthetic.CHAPTERS:
        wrong = "A" if synthetic.correct_letter(ch) != "A" else "B"
        html = (graded["out"] / "feedback" / "wrong" / f"{ch}.html").read_text()
        assert "AssertionError" in html
        assert synthetic.explanation(ch, wrong) in html
        assert (graded["out"] / "feedback" / "right" / f"{ch}.html").is_file()


def test_huge_output_is_truncated(graded):
    nb = nbformat.read(graded["out"] / "nbgrader" / "autograded" / "huge" / CH / f"{CH}.ipynb",
                       as_version=4)
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "Output truncated" in text and len(text) < 100_000


def test_stderr_noise_reached_the_test_cell_and_was_ignored(graded):
    path = graded["out"] / "nbgrader" / "autograded" / "stderr" / CH / f"{CH}.ipynb"
    assert nbformat.read(path, as_version=4).metadata["autograder"]["stderr_dropped"]


def test_rerun_gives_the_same_grades_and_no_new_gradebook_rows(world, graded):
    rows = grade(world["inputs"], graded["out"], world["course"], timeout=TIMEOUT)
    assert rows == graded["rows"]
    assert _gradebook_rows(graded["out"]) == graded["gradebook"]


def test_refuses_an_output_folder_it_did_not_write(world, tmp_path):
    (tmp_path / "precious.txt").write_text("keep me")
    with pytest.raises(SystemExit, match="not written by the autograder"):
        grade(world["inputs"], tmp_path, world["course"])
    with pytest.raises(SystemExit, match="overlaps"):
        grade(world["inputs"], world["inputs"][0] / "out", world["course"])
    assert (tmp_path / "precious.txt").read_text() == "keep me"


@pytest.mark.skipif(not list((REPO / "assignments" / "source").glob("*/*.ipynb")),
                    reason="no chapter sources yet")
def test_real_chapters_grade_right_wrong_and_blank(tmp_path):
    """Every real chapter's check: exactly one letter scores, each wrong letter explains itself in
    the reason and the feedback, a blank edition is no-answer, and no measurement cell runs."""
    course = REPO / "assignments"
    editions = ScratchCourse(course, tmp_path / "editions")
    broken = editions.prepare()
    assert not broken, broken
    inbox = tmp_path / "inbox"
    for chapter in editions.chapters:
        nb = nbformat.read(editions.release(chapter), as_version=4)
        _write(nb, inbox / f"blank_1_{chapter}.ipynb")
        for letter in "ABCD":
            _write(synthetic.answered(nb, f'answer = "{letter}"'),
                   inbox / f"pick{letter.lower()}_1_{chapter}.ipynb")
    out = tmp_path / "out"
    keyed = _by_key(grade([inbox], out, course))
    assert len(keyed) == 5 * len(editions.chapters)
    for chapter in editions.chapters:
        assert [r["status"] for r in keyed[("blank", chapter)]] == ["no-answer"]
        rows = [keyed[(f"pick{x}", chapter)][0] for x in "abcd"]
        assert [r["status"] for r in rows] == ["ok"] * 4, rows
        assert sorted(r["score"] for r in rows) == ["0", "0", "0", "1"], rows
        for row in rows:
            html = unescape((out / "feedback" / row["student"] / f"{chapter}.html").read_text())
            assert (row["reason"] == "") == (row["score"] == "1"), row
            assert row["reason"] in html, row
        autograded = nbformat.read(out / "nbgrader" / "autograded" / "picka" / chapter
                                   / f"{chapter}.ipynb", as_version=4)
        ran = [c for c in autograded.cells if c.cell_type == "code" and c.outputs]
        assert all("nbgrader" in c.metadata for c in ran), chapter
