"""A passage's finding first, what backs it folded: the one way a page folds its caveats."""

from __future__ import annotations

import re

#: What a folded block's one line says, where a words function names nothing more telling.
FOLD_SUMMARY = "The ranges, the caveats and the arithmetic"


def fold(details: str, summary: str = FOLD_SUMMARY) -> str:
    """``details`` folded under a one-line ``summary`` the reader opens: a passage states its
    finding first, and what backs it (the ranges, the overlap test, the caveats, the arithmetic)
    follows folded, so nothing honest is dropped. Raw HTML, which Jupyter, Colab and the built
    book all render, with Markdown inside."""
    return f"\n\n<details><summary>{summary}</summary>\n\n{details.strip()}\n\n</details>"


#: A paragraph longer than this (words) shows its opening and folds the rest (issue #65: d2l's
#: paragraphs run about 100 words and state one finding each).
LONG_PARAGRAPH = 90
#: What a long paragraph keeps in view: whole sentences until at least this many words, its
#: finding and the number that carries it.
LEAD_WORDS = 30
# A sentence ends at . ! or ? before a space and a letter (the engines' names start small), a
# digit, a bracket or Markdown, unless the word before it is an abbreviation.
SENTENCE_END = re.compile(
    r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\betc\.)(?<=[.!?])\s+"
    r"(?=[A-Za-z0-9*`(\"])"
)


def sentences(paragraph: str) -> list[str]:
    """``paragraph`` cut where its sentences end."""
    return [part for part in SENTENCE_END.split(paragraph) if part.strip()]


def _opening(paragraph: str) -> str:
    """``paragraph`` with its opening sentences in view and the rest folded, where it is long
    and plain prose (not a table, a list or a block already folded)."""
    if (
        len(paragraph.split()) <= LONG_PARAGRAPH
        or paragraph.lstrip().startswith(("|", "-", "<"))
        or "<details>" in paragraph
    ):
        return paragraph
    for end in SENTENCE_END.finditer(paragraph):
        before = paragraph[: end.start()]
        quoted = before.count("“") > before.count("”") or before.count('"') % 2
        if len(before.split()) >= LEAD_WORDS and not quoted:
            rest = paragraph[end.end() :]
            return paragraph[: end.start()] + fold(rest) if rest.strip() else paragraph
    return paragraph


def folded_long(text: str) -> str:
    """``text`` with every long paragraph outside a folded block folded after its opening: the
    page's one rule for walls of words, applied where a story shows its sections."""
    paragraphs, inside = text.split("\n\n"), False
    for index, paragraph in enumerate(paragraphs):
        opens, closes = paragraph.startswith("<details>"), paragraph.rstrip().endswith("</details>")
        led = index + 1 < len(paragraphs) and paragraphs[index + 1].startswith("<details>")
        if not (inside or opens or led):  # a lead its words function wrote stays whole
            paragraphs[index] = _opening(paragraph)
        inside = (inside or opens) and not closes
    return "\n\n".join(paragraphs)
