"""Intake reads nothing whole and trusts no content for identity (pure logic, on fixtures)."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from autograder.grade import _student
from autograder.intake import MAX_RATIO, collect

CH = "02-continuous-batching"
CHAPTERS = [CH]


def test_a_highly_compressed_entry_is_refused_before_it_is_read(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / f"dense_1_{CH}.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"{CH}.ipynb", b" " * (4 << 20))
    (found,) = collect(tmp_path, CHAPTERS)
    assert found.data == b"" and "zip bomb" in found.problem
    assert f"limit of {MAX_RATIO}" in found.problem


def test_symlinks_are_reported_and_never_followed(tmp_path: Path) -> None:
    secret = tmp_path / "key" / f"{CH}.ipynb"
    secret.parent.mkdir()
    secret.write_text("{}")
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / f"link_1_{CH}.ipynb").symlink_to(secret)
    (inbox / "folder").symlink_to(secret.parent)
    found = sorted(collect(inbox, CHAPTERS), key=lambda f: f.label)
    assert [(f.label, f.status, f.data) for f in found] == [
        ("folder", "skipped", b""),
        (f"link_1_{CH}.ipynb", "skipped", b""),
    ]
    assert all("symbolic link" in f.problem for f in found)


def test_zip_timestamps_never_decide_and_paths_inside_never_name_the_student(tmp_path):
    upload = tmp_path / f"mallory_7_{CH}.zip"
    with zipfile.ZipFile(upload, "w") as zf:
        zf.writestr(zipfile.ZipInfo(f"victim/{CH}/{CH}.ipynb", (2099, 1, 1, 0, 0, 0)), "{}")
    os.utime(upload, (1_000_000, 1_000_000))
    (found,) = collect(tmp_path, CHAPTERS)
    assert found.mtime == 1_000_000
    student, notes = _student(found, CHAPTERS)
    assert student == "mallory" and "'victim', which is ignored" in notes[0]


def test_a_class_export_zip_gives_its_entries_own_names(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "export.zip", "w") as zf:
        zf.writestr(f"all/jdoe_12_{CH}.ipynb", "{}")
    (found,) = collect(tmp_path, CHAPTERS)
    assert _student(found, CHAPTERS) == ("jdoe", [])
