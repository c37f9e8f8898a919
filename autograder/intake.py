"""Finding submitted notebooks in folders and zip archives, and telling whose they are.

Nothing here writes: folders and archives are only read, so originals are never touched.
"""

from __future__ import annotations

import re
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

IGNORED_PARTS = ("__MACOSX", ".ipynb_checkpoints")
CANVAS_NAME = re.compile(r"^([^_]+)_(?:late_)?\d+_", re.IGNORECASE)
MOODLE_SUFFIX = re.compile(r"_assignsubmission_.*$")
UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class InputFile:
    """One file found in the inputs. `parts` is its path relative to the PATH (or zip) it was found
    in; `label` names it for the grader (`archive.zip!inner/path` for zip entries)."""

    origin: str
    parts: tuple[str, ...]
    data: bytes
    mtime: float
    problem: str = ""
    archive: str = ""

    @property
    def label(self) -> str:
        inner = "/".join(self.parts)
        return f"{self.archive}!{inner}" if self.archive else inner


def _wanted(parts: tuple[str, ...]) -> bool:
    return not any(p.startswith(".") or p in IGNORED_PARTS for p in parts)


def _from_zip(archive: Path) -> Iterator[InputFile]:
    with zipfile.ZipFile(archive) as zf:
        for info in sorted(zf.infolist(), key=lambda i: i.filename):
            parts = PurePosixPath(info.filename).parts
            if info.is_dir() or not _wanted(parts) or not parts[-1].lower().endswith(".ipynb"):
                continue
            yield InputFile(f"{archive}!{info.filename}", parts, zf.read(info),
                            time.mktime((*info.date_time, 0, 0, -1)), archive=archive.name)


def collect(path: Path) -> Iterator[InputFile]:
    """Every notebook under `path` (a folder, a .zip, or one .ipynb), including inside zips."""
    if path.is_file() and path.suffix.lower() == ".zip":
        yield from _zip_entries(path)
        return
    if path.is_file():
        yield InputFile(str(path), (path.name,), path.read_bytes(), path.stat().st_mtime)
        return
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        parts = file.relative_to(path).parts
        if not _wanted(parts):
            continue
        if file.suffix.lower() == ".zip":
            yield from _zip_entries(file)
        elif file.suffix.lower() == ".ipynb":
            yield InputFile(str(file), parts, file.read_bytes(), file.stat().st_mtime)


def _zip_entries(archive: Path) -> Iterator[InputFile]:
    try:
        yield from list(_from_zip(archive))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
        yield InputFile(str(archive), (archive.name,), b"", archive.stat().st_mtime,
                        problem=f"not a readable zip archive ({error})")


def safe_id(text: str) -> str:
    return UNSAFE.sub("-", text).strip(".-")


def student_of(parts: tuple[str, ...], chapters: list[str]) -> str | None:
    """The student a file belongs to, by the rules in autograder/README.md."""
    name = PurePosixPath(parts[-1]).stem
    folders = parts[:-1]
    if len(folders) >= 2 and folders[-1] in chapters:
        return safe_id(folders[-2]) or None
    canvas = CANVAS_NAME.match(name)
    if canvas:
        return safe_id(canvas.group(1)) or None
    if not folders:
        prefix, sep, _ = name.partition("_")
        return (safe_id(prefix) or None) if sep else None
    return safe_id(MOODLE_SUFFIX.sub("", folders[-1])) or None
