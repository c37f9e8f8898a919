"""No page names a size its profiles do not hold (issue #65 item 4): chapter 00 once asked the
reader to predict for "2,000 tokens on a CPU" while its cpu profile read 1,200. Every count of
tokens, users, requests and the like that a chapter's own prose (its markdown, the check aside)
writes as a number must be a value its ``cpu`` or ``gpu`` sizes hold, since those are the sizes
a reader runs, and a count said to be "on a CPU" (or on a GPU, a T4) one that size holds; an
engine's own constant is named below with where it comes from. Read as text."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from course.checks import role_of
from course.paths import SOURCE_DIR
from servelab.book import CHAPTERS

COUNT = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)[ -](tokens?|users?|requests?|sequences?"
    r"|prompts?|answers?|documents?|tenants?|slots?)\b"
)
READER_SIZES = ("cpu", "gpu")
# A count the same clause places on one kind of device: "2,000 tokens on a CPU".
ON_DEVICE = re.compile(r"[^.;:()]{0,24}?\bon (?:a |the )?(CPU|GPU|T4)\b")
# (chapter, the count as written): what the engine fixes, not a size of the chapter's own.
ENGINE_FACTS = {
    ("00-serving-many-users", "16 tokens"): "vLLM's default KV-cache block on a GPU",
    ("06-chunked-prefill", "16 tokens"): "vLLM's default KV-cache block on a GPU",
    ("05-the-dials", "1 token"): "FlashInfer's block granularity, as the page says",
}


def counts_in(text: str) -> list[tuple[str, int]]:
    """Each count a text writes as a number before its unit: the words as written, the number."""
    return [(match[0], int(match[1].replace(",", ""))) for match in COUNT.finditer(text)]


def placed_counts(text: str) -> list[tuple[str, int, tuple[str, ...]]]:
    """Each count with the sizes that must hold it: the device its clause names, else both."""
    found = []
    for match in COUNT.finditer(text):
        device = ON_DEVICE.match(text, match.end())
        sizes = READER_SIZES if device is None else (("cpu",) if device[1] == "CPU" else ("gpu",))
        found.append((match[0], int(match[1].replace(",", "")), sizes))
    return found


def size_values(sizes: Any) -> set[float]:
    """Every number a chapter's sizes hold, in lists and mappings too."""
    values: set[float] = set()
    for field in dataclasses.fields(sizes):
        value = getattr(sizes, field.name)
        items = (
            value.values()
            if isinstance(value, dict)
            else (value if isinstance(value, list | tuple) else [value])
        )
        values |= {
            item for item in items if isinstance(item, int | float) and not isinstance(item, bool)
        }
    return values


def _prose(chapter: str) -> str:
    notebook = json.loads((SOURCE_DIR / chapter / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    return "\n".join(
        "".join(cell["source"])
        for cell in notebook["cells"]
        if cell["cell_type"] == "markdown" and not role_of(cell)
    )


def test_every_count_a_page_writes_is_a_size_its_reader_runs() -> None:
    stray = []
    for chapter in CHAPTERS:
        held = {size: size_values(chapter.sizes.at(size)) for size in READER_SIZES}
        stray += [
            f"{chapter.id}: {written} ({' or '.join(sizes)})"
            for written, number, sizes in placed_counts(_prose(chapter.id))
            if not any(number in held[size] for size in sizes)
            and (chapter.id, written) not in ENGINE_FACTS
        ]
    assert stray == [], f"counts no cpu or gpu size holds (print the knob instead): {stray}"


def test_each_engine_fact_is_still_written_on_its_page() -> None:
    gone = [key for key in ENGINE_FACTS if key[1] not in dict(counts_in(_prose(key[0])))]
    assert gone == [], f"drop these ENGINE_FACTS: {gone}"


def test_the_reader_finds_counts_and_leaves_other_numbers() -> None:
    text = "With 32 users and a 2,000-token prompt, 1.5 s and 8,192 tokens; chapter 02; 3×."
    assert counts_in(text) == [("32 users", 32), ("2,000-token", 2000), ("8,192 tokens", 8192)]
    assert placed_counts("2,000 tokens on a CPU; 16 tokens on a GPU by default; 4 users") == [
        ("2,000 tokens", 2000, ("cpu",)),
        ("16 tokens", 16, ("gpu",)),
        ("4 users", 4, READER_SIZES),
    ]
