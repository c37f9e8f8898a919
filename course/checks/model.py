"""A chapter's multiple-choice check: one question, four lettered options, one right."""

from __future__ import annotations

from dataclasses import dataclass

LETTERS: tuple[str, ...] = ("A", "B", "C", "D")


class CheckError(ValueError):
    """A check's data is malformed; the message says which file and what to fix."""


@dataclass(frozen=True)
class Option:
    """One lettered option.

    A wrong option carries ``wrong`` (why it is wrong), which becomes the feedback a student
    who picked it reads, and usually ``tempts`` (why it looks right). The lesson-JSON format has
    one combined explanation, so imported options may have ``tempts`` of None.
    """

    letter: str
    text: str
    tempts: str | None = None
    wrong: str | None = None


@dataclass(frozen=True)
class Check:
    chapter: str
    question: str
    options: tuple[Option, ...]
    correct: str

    def __post_init__(self) -> None:
        where = f"check for {self.chapter}"
        if not self.question.strip():
            raise CheckError(f"{where}: the question is empty")
        letters = tuple(option.letter for option in self.options)
        if letters != LETTERS:
            raise CheckError(
                f"{where}: needs exactly four options lettered A, B, C, D in that order; "
                f"got {list(letters)}"
            )
        if self.correct not in LETTERS:
            raise CheckError(f"{where}: correct must be one of A, B, C, D; got {self.correct!r}")
        for option in self.options:
            if not option.text.strip():
                raise CheckError(f"{where}: option {option.letter} has no text")
            if option.letter != self.correct and not (option.wrong or "").strip():
                raise CheckError(
                    f"{where}: wrong option {option.letter} needs an explanation of why it is "
                    "wrong (the feedback a student who picks it reads)"
                )

    def option(self, letter: str) -> Option:
        return self.options[LETTERS.index(letter)]

    @property
    def wrong_options(self) -> tuple[Option, ...]:
        return tuple(option for option in self.options if option.letter != self.correct)

    def feedback(self, letter: str) -> str:
        """What a student who chose the wrong ``letter`` is told."""
        option = self.option(letter)
        parts = [f"{letter} is not the best answer."]
        if option.tempts:
            parts.append(option.tempts.strip())
        parts.append((option.wrong or "").strip())
        return " ".join(parts)
