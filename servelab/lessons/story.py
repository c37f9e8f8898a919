"""A chapter's story: every passage its page writes from its numbers, in page order, each by name.

A chapter declares its story once, in its package's ``story`` module: ``STORY = Story(chapter
id, (Section("plan", plan_text), ...))``, each section a words function. A prose cell shows one
section with the findings its function takes (``STORY.show("plan", plan=plan)`` displays it as
Markdown), a plot takes
its title from one (``STORY.title("queue", check=check)``), and the story keeps every finding it
was given (:attr:`Story.found`). A recording saves those findings; the chapter's snapshot is the
same story rendered from them again (:meth:`Story.render`), read back as the types the words
functions' hints name (:meth:`Story.kinds`). So the page and its snapshot are one assembly, and
nothing else lists a chapter's findings.

The result record the grader reads is made from the same story: ``STORY.record(...)`` builds the
chapter's findings record (declared with the story) from the findings its sections were shown
with, plus those only the record reads (a frame the page plots but writes no sentence from),
which the story then keeps too. So the figures the grader reads are the objects the page
wrote from, and a recording holds the record's findings as well as the page's.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import inspect
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, get_type_hints

import IPython.display

from servelab.lessons.fold import folded_long

#: The story each chapter showed last in this process, by chapter id: what a recording saves.
SHOWN: dict[str, Story] = {}


@dataclass(frozen=True)
class Section:
    """One passage of a page: its ``name`` and the words function that writes it. A ``title``
    section is a plot's title, not a paragraph."""

    name: str
    write: Callable[..., str]
    title: bool = False

    @property
    def needs(self) -> tuple[str, ...]:
        """The findings the words function takes, by parameter name."""
        return tuple(inspect.signature(self.write).parameters)

    @property
    def required(self) -> tuple[str, ...]:
        """The findings the words function cannot write without (those with no default)."""
        return tuple(
            name
            for name, parameter in inspect.signature(self.write).parameters.items()
            if parameter.default is inspect.Parameter.empty
        )

    def kinds(self) -> dict[str, Any]:
        """Each finding's type, from the words function's hints."""
        hints = get_type_hints(self.write)
        return {name: hints[name] for name in self.needs}


class Story:
    """A chapter's sections in page order, the findings they were shown with, and the findings
    record (a frozen dataclass, one field per finding) the chapter's result record is made from."""

    def __init__(
        self, chapter: str, sections: Sequence[Section], findings_record: type[Any]
    ) -> None:
        names = [section.name for section in sections]
        if len(set(names)) != len(names):
            raise ValueError(f"{chapter}: a section name is used twice in {names}")
        self.chapter = chapter
        self.sections = tuple(sections)
        self.findings_record = findings_record
        self.found: dict[str, Any] = {}

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(section.name for section in self.sections)

    def _write(self, name: str, title: bool, findings: Mapping[str, Any]) -> str:
        section = next((s for s in self.sections if s.name == name), None)
        if section is None or section.title is not title:
            kind = "title" if title else "prose section"
            raise KeyError(f"{self.chapter} has no {kind} named {name!r}")
        text = section.write(**findings) if title else folded_long(section.write(**findings))
        self.found.update(findings)
        SHOWN[self.chapter] = self
        return text

    def show(self, name: str, **findings: Any) -> None:
        """Display the prose section ``name``, written from ``findings``, as Markdown."""
        IPython.display.display(IPython.display.Markdown(self._write(name, False, findings)))

    def title(self, name: str, **findings: Any) -> str:
        """The plot title ``name``, written from ``findings``."""
        return self._write(name, True, findings)

    def _keep(self, findings: Mapping[str, Any]) -> None:
        for name, value in findings.items():
            if name in self.found and self.found[name] is not value:
                raise ValueError(
                    f"{self.chapter}: {name!r} was shown as one value and is now "
                    "given as another; a finding has one value a run"
                )
        self.found.update(findings)
        SHOWN[self.chapter] = self

    def record(self, **only_recorded: Any) -> Any:
        """The chapter's findings record, each field the finding of that name the sections
        were shown with, or one in ``only_recorded`` (those no section writes from, which the
        story keeps from now on)."""
        self._keep(only_recorded)
        fields = [field.name for field in dataclasses.fields(self.findings_record)]
        lacking = [name for name in fields if name not in self.found]
        if lacking:
            raise KeyError(
                f"{self.chapter}'s record needs {', '.join(lacking)}: no section was "
                "shown with them and they were not given"
            )
        return self.findings_record(**{name: self.found[name] for name in fields})

    def kinds(self) -> dict[str, Any]:
        """Every finding the sections and the findings record take, with its type; a name
        two of them type differently is the author's error."""
        kinds: dict[str, Any] = {}
        typed = [(section.name, section.kinds()) for section in self.sections]
        record_hints = get_type_hints(self.findings_record)
        typed.append(
            (
                "the findings record",
                {
                    field.name: record_hints[field.name]
                    for field in dataclasses.fields(self.findings_record)
                },
            )
        )
        for owner, named in typed:
            for name, kind in named.items():
                if kinds.setdefault(name, kind) != kind:
                    raise TypeError(
                        f"{self.chapter}: {name!r} is {kinds[name]} in one section "
                        f"and {kind} in {owner!r}"
                    )
        return kinds

    def missing(self, found: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
        """The sections ``found`` cannot write, each with the findings it lacks (a finding with a
        default in its words function is never lacking): a recording made before the
        section took them."""
        lacking = {
            section.name: tuple(name for name in section.required if name not in found)
            for section in self.sections
        }
        return {name: needs for name, needs in lacking.items() if needs}

    def render(self, found: Mapping[str, Any]) -> str:
        """The whole story, every section written from ``found`` in page order: what the
        chapter's snapshot holds. A finding ``found`` lacks takes its function's default; a
        section whose findings the recording predates says so in its place."""
        missing = self.missing(found)
        passages = []
        for section in self.sections:
            if section.name in missing:
                text = (
                    f"[{section.name}: not in this recording, which lacks "
                    f"{', '.join(missing[section.name])}]"
                )
            else:
                text = section.write(
                    **{name: found[name] for name in section.needs if name in found}
                )
                text = text if section.title else folded_long(text)
            passages.append(f"*Plot title:* {text}" if section.title else text)
        return "\n\n".join(passages)


def declared() -> dict[str, Story]:
    """Every chapter's story, by chapter id: the :class:`Story` each chapter's package holds in
    its ``story`` module."""
    import servelab.lessons

    stories: dict[str, Story] = {}
    for package in pkgutil.iter_modules(servelab.lessons.__path__):
        name = f"servelab.lessons.{package.name}.story"
        if package.ispkg and importlib.util.find_spec(name) is not None:
            for value in vars(importlib.import_module(name)).values():
                if isinstance(value, Story):
                    stories[value.chapter] = value
    return stories
