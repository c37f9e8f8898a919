"""Finding submitted notebooks in folders and zip archives, and telling whose they are.

Nothing here writes: folders and archives are only read, so originals are never touched. Nothing
is read whole either: a file or zip entry larger than MAX_NOTEBOOK_BYTES, an archive that would
expand beyond MAX_ARCHIVE_BYTES, or an entry compressed more than MAX_RATIO times is refused from
its header before any byte is read, and reading stops at the limit whatever a header claims.
A student's id comes from names the learning platform gave (file and folder names, the name of
an uploaded zip), never from what a student put inside an upload.
"""

from __future__ import annotations

import os
import re
import stat
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

IGNORED_PARTS = ("__MACOSX", ".ipynb_checkpoints")
CANVAS_NAME = re.compile(r"^([^_]+)_(?:late_)?\d+_", re.IGNORECASE)
MOODLE_SUFFIX = re.compile(r"_assignsubmission_.*$")
UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NOTEBOOK_BYTES = 32 << 20
MAX_ARCHIVE_BYTES = 512 << 20
MAX_RATIO = 100  # uncompressed / compressed, for entries over RATIO_FLOOR
RATIO_FLOOR = 1 << 20


@dataclass
class InputFile:
    """One file found in the inputs. `parts` is its path relative to the PATH (or zip) it was found
    in; `label` names it for the grader (`archive.zip!inner/path` for zip entries). `owner` is the
    student the platform's name for the zip gives (every entry of a student's upload is theirs);
    `problem` with `status` says why it cannot be graded."""

    origin: str
    parts: tuple[str, ...]
    data: bytes
    mtime: float
    problem: str = ""
    status: str = "malformed"
    archive: str = ""
    owner: str = ""

    @property
    def label(self) -> str:
        inner = "/".join(self.parts)
        return f"{self.archive}!{inner}" if self.archive else inner


def _wanted(parts: tuple[str, ...]) -> bool:
    return not any(p.startswith(".") or p in IGNORED_PARTS for p in parts)


def _read_capped(handle: IO[bytes], limit: int = MAX_NOTEBOOK_BYTES) -> bytes | None:
    """At most `limit` bytes; None when there is more."""
    data = handle.read(limit + 1)
    return None if len(data) > limit else data


def _entry_problem(info: zipfile.ZipInfo, total: int) -> str:
    if stat.S_ISLNK(info.external_attr >> 16):
        return "a symbolic link inside the zip; not followed"
    if info.file_size > MAX_NOTEBOOK_BYTES:
        return f"expands to {info.file_size} bytes, over the {MAX_NOTEBOOK_BYTES} byte limit"
    if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        return (
            f"compressed {info.file_size // max(info.compress_size, 1)} times, over the "
            f"limit of {MAX_RATIO}: refused as a zip bomb"
        )
    if total > MAX_ARCHIVE_BYTES:
        return f"the archive expands to over {MAX_ARCHIVE_BYTES} bytes; the rest is not read"
    return ""


def _fill(found: InputFile, handle: IO[bytes]) -> None:
    """Read a notebook's bytes into ``found``, or mark it over the size limit."""
    data = _read_capped(handle)
    if data is None:
        found.problem = f"over the {MAX_NOTEBOOK_BYTES} byte limit"
    else:
        found.data = data


def _from_zip(archive: Path, label: str, owner: str) -> Iterator[InputFile]:
    mtime = archive.stat().st_mtime  # timestamps inside a zip are the uploader's; never used
    total = 0
    with zipfile.ZipFile(archive) as zf:
        for info in sorted(zf.infolist(), key=lambda i: i.filename):
            parts = PurePosixPath(info.filename).parts
            if info.is_dir() or not _wanted(parts) or not parts[-1].lower().endswith(".ipynb"):
                continue
            total += info.file_size
            found = InputFile(
                f"{archive}!{info.filename}", parts, b"", mtime, archive=label, owner=owner
            )
            found.problem = _entry_problem(info, total)
            if not found.problem:
                with zf.open(info) as handle:
                    _fill(found, handle)
            yield found


def _zip_entries(archive: Path, label: str, owner: str) -> Iterator[InputFile]:
    try:
        yield from list(_from_zip(archive, label, owner))
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        OSError,
        ValueError,
        EOFError,
        NotImplementedError,
    ) as error:
        yield InputFile(
            str(archive),
            (archive.name,),
            b"",
            archive.stat().st_mtime,
            problem=f"not a readable zip archive ({error})",
            archive=label,
        )


def _loose(file: Path, parts: tuple[str, ...]) -> InputFile:
    found = InputFile(str(file), parts, b"", file.stat().st_mtime)
    if file.stat().st_size > MAX_NOTEBOOK_BYTES:
        found.problem = f"over the {MAX_NOTEBOOK_BYTES} byte limit"
        return found
    with file.open("rb") as handle:
        _fill(found, handle)
    return found


def _symlink(link: Path, parts: tuple[str, ...]) -> InputFile:
    return InputFile(
        str(link),
        parts,
        b"",
        0.0,
        status="skipped",
        problem="a symbolic link; links are never followed",
    )


def collect(path: Path, chapters: list[str]) -> Iterator[InputFile]:
    """Every notebook under `path` (a folder, a .zip, or one .ipynb), including inside zips,
    and every symbolic link met on the way (skipped, with the reason)."""
    if path.is_file():
        if path.suffix.lower() == ".zip":
            yield from _zip_entries(path, path.name, student_of((path.name,), chapters) or "")
        else:
            yield _loose(path, (path.name,))
        return
    for folder, dirs, files in os.walk(path, followlinks=False):
        here = Path(folder)
        for name in sorted(dirs + files):
            item = here / name
            parts = item.relative_to(path).parts
            if not _wanted(parts):
                continue
            if item.is_symlink():
                if item.suffix.lower() in (".ipynb", ".zip") or name in dirs:
                    yield _symlink(item, parts)
            elif name in files and item.suffix.lower() == ".zip":
                owner = student_of(parts, chapters) or ""
                yield from _zip_entries(item, "/".join(parts), owner)
            elif name in files and item.suffix.lower() == ".ipynb":
                yield _loose(item, parts)
        dirs.sort()


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
