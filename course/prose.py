"""What a chapter's generated prose asks of its reader (issue #65): the words in view, the mean
and longest sentence, and the longest paragraph, against the book's aims.

The prose in view is what a page shows before the reader opens anything: folded blocks
(``<details>``), tables, headings and plot titles are left out; what remains is cut into
paragraphs at blank lines and into sentences where ``servelab.lessons.fold`` cuts them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from statistics import mean

from servelab.lessons.fold import sentences

#: The aims: a sentence a student reads once, and one finding a paragraph (d2l's run about 100).
MEAN_SENTENCE_WORDS = 22
PARAGRAPH_WORDS = 120

_FOLDED = re.compile(r"<details>.*?</details>", re.DOTALL)
_WORD = re.compile(r"\w", re.UNICODE)
# Lines that are not prose: a table's rows, a heading, a plot's title as the snapshots write it.
_NOT_PROSE = ("|", "#", "*Plot title:*")


def in_view(markdown: str) -> list[str]:
    """The paragraphs of ``markdown`` a reader sees without opening a fold."""
    shown = _FOLDED.sub("\n\n", markdown)
    paragraphs = []
    for block in re.split(r"\n\s*\n", shown):
        lines = [line for line in block.splitlines() if not line.lstrip().startswith(_NOT_PROSE)]
        if text := " ".join(line.strip() for line in lines).strip():
            paragraphs.append(text)
    return paragraphs


def words(text: str) -> int:
    """Words: runs between spaces that hold a letter or a digit (a lone dash is not one)."""
    return sum(1 for token in text.split() if _WORD.search(token))


@dataclass(frozen=True)
class Prose:
    """One page's prose in view."""

    words: int
    paragraphs: int
    mean_sentence: float
    longest_sentence: int
    longest_paragraph: int

    @classmethod
    def of(cls, markdown: str) -> Prose:
        paragraphs = in_view(markdown)
        lengths = [words(sentence) for p in paragraphs for sentence in sentences(p)]
        lengths = [n for n in lengths if n] or [0]
        by_paragraph = [words(p) for p in paragraphs] or [0]
        return cls(
            words=sum(by_paragraph),
            paragraphs=len(paragraphs),
            mean_sentence=mean(lengths),
            longest_sentence=max(lengths),
            longest_paragraph=max(by_paragraph),
        )

    def misses(self) -> list[str]:
        """The aims this page misses, each with its figure; empty when it meets them all."""
        missed = []
        if self.mean_sentence > MEAN_SENTENCE_WORDS:
            missed.append(f"mean sentence {self.mean_sentence:.1f} > {MEAN_SENTENCE_WORDS} words")
        if self.longest_paragraph > PARAGRAPH_WORDS:
            missed.append(f"a paragraph of {self.longest_paragraph} > {PARAGRAPH_WORDS} words")
        return missed
