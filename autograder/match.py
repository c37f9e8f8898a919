"""Reading a submitted file as a notebook and telling which chapter it answers."""

from __future__ import annotations

import json
import re
import uuid
import warnings
from pathlib import PurePosixPath

import nbformat
from nbformat import NotebookNode

from course.checks import chapter_of_cell

COPY_SUFFIX = re.compile(r"\s*\(\d+\)$")


class Unreadable(Exception):
    """The file is not a usable notebook; the message is the reason given to the grader."""


def parse(data: bytes) -> NotebookNode:
    """The notebook in `data`, upgraded to nbformat 4, or Unreadable with a human reason."""
    if not data.strip():
        raise Unreadable("the file is empty")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Unreadable("not a notebook: the file is binary, not JSON text") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise Unreadable(
            f"not valid JSON ({error.msg}, line {error.lineno}): the file is corrupt or truncated"
        ) from None
    if not isinstance(raw, dict) or not isinstance(raw.get("cells", raw.get("worksheets")), list):
        raise Unreadable("valid JSON but not a Jupyter notebook (it has no cells)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # id problems are repaired just below
            nb = nbformat.reads(text, as_version=4)
        nb.nbformat_minor = max(nb.nbformat_minor, nbformat.v4.nbformat_minor)
        _unique_cell_ids(nb)
        nbformat.validate(nb)
    except Exception as error:  # nbformat raises many types for malformed documents
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise Unreadable(f"not a valid notebook: {first[:160]}") from None
    return nb


def _unique_cell_ids(nb: NotebookNode) -> None:
    """Give cells lacking an id (older nbformat, Colab) or sharing one (a hand copy) a new id."""
    seen: set[str] = set()
    for cell in nb.cells:
        if not isinstance(cell.get("id"), str) or cell["id"] in seen:
            cell["id"] = uuid.uuid4().hex[:8]
        seen.add(cell["id"])


def chapter_of(
    nb: NotebookNode, parts: tuple[str, ...], chapters: list[str], questions: dict[str, str]
) -> str | None:
    """The chapter of a notebook, by content first and by name last (see autograder/README.md)."""
    claimed = nb.metadata.get("servelab", {})
    if isinstance(claimed, dict) and claimed.get("chapter") in chapters:
        return claimed["chapter"]
    by_ids = {chapter_of_cell(c) for c in nb.cells} & set(chapters)
    if len(by_ids) == 1:
        return by_ids.pop()
    sources = {c.source.strip() for c in nb.cells if c.cell_type == "markdown"}
    by_question = {ch for ch, text in questions.items() if text.strip() in sources}
    if len(by_question) == 1:
        return by_question.pop()
    return chapter_from_name(parts, chapters)


def chapter_from_name(parts: tuple[str, ...], chapters: list[str]) -> str | None:
    """A chapter id found in the file name (copy suffixes like ' (1)' ignored) or its folder."""
    stem = COPY_SUFFIX.sub("", PurePosixPath(parts[-1]).stem).lower()
    for text in (stem, *(p.lower() for p in reversed(parts[:-1]))):
        found = [ch for ch in chapters if ch in text]
        if len(found) == 1:
            return found[0]
    return None
