"""servelab.lessons.story: a chapter's sections shown by name, the findings they were shown with
kept, the same story rendered from those findings again, and the chapter's findings record made
from them."""

from __future__ import annotations

from dataclasses import dataclass

import IPython.display
import pytest

from servelab.lessons import recorded
from servelab.lessons.story import SHOWN, Section, Story, declared


@dataclass(frozen=True)
class Pace:
    ms: float


def pace_text(pace: Pace) -> str:
    return f"a token takes {pace.ms:.0f} ms"


def pace_title(pace: Pace) -> str:
    return f"tokens at {pace.ms:.0f} ms"


def verdict_text(pace: Pace, prediction: str = "") -> str:
    return f"you said {prediction or 'nothing'} of {pace.ms:.0f} ms"


@dataclass(frozen=True)
class PaceRecord:
    pace: Pace
    tokens: int


def story() -> Story:
    return Story(
        "99-made-up",
        (
            Section("pace", pace_text),
            Section("plot", pace_title, title=True),
            Section("verdict", verdict_text),
        ),
        findings_record=PaceRecord,
    )


def test_a_shown_section_keeps_its_findings_for_the_snapshot(tmp_path, monkeypatch) -> None:
    shown: list[str] = []
    monkeypatch.setattr(IPython.display, "display", lambda markdown: shown.append(markdown.data))
    made = story()
    made.show("pace", pace=Pace(41.6))
    assert shown == ["a token takes 42 ms"]
    assert made.title("plot", pace=Pace(41.6)) == "tokens at 42 ms"
    made.show("verdict", pace=Pace(41.6), prediction="40 ms")
    assert made.found == {"pace": Pace(41.6), "prediction": "40 ms"}
    assert SHOWN["99-made-up"] is made
    path = recorded.save(made.found, tmp_path / "found.json")
    again = recorded.load(path, made.kinds())
    assert again == made.found
    assert made.kinds() == {"pace": Pace, "prediction": str, "tokens": int}
    assert made.render(again).split("\n\n") == [
        "a token takes 42 ms",
        "*Plot title:* tokens at 42 ms",
        "you said 40 ms of 42 ms",
    ]


def test_a_finding_never_shown_takes_its_default_in_the_render() -> None:
    rendered = story().render({"pace": Pace(10.0)})
    assert rendered.endswith("you said nothing of 10 ms")


def test_a_section_the_recording_predates_says_so_in_its_place() -> None:
    made = story()
    assert made.missing({"prediction": "40 ms"}) == {
        "pace": ("pace",),
        "plot": ("pace",),
        "verdict": ("pace",),
    }
    assert made.missing({"pace": Pace(1.0)}) == {}
    pace, plot, verdict = made.render({}).split("\n\n")
    assert all("pace" in text and "ms" not in text for text in (pace, plot, verdict))
    assert plot.startswith("*Plot title:*") and "[plot:" in plot


def test_an_unknown_section_a_title_shown_as_prose_or_a_name_used_twice_is_refused() -> None:
    made = story()
    with pytest.raises(KeyError, match="no prose section named 'plot'"):
        made.show("plot", pace=Pace(1.0))
    with pytest.raises(KeyError, match="no title named 'pace'"):
        made.title("pace", pace=Pace(1.0))
    with pytest.raises(KeyError, match="'missing'"):
        made.show("missing")
    with pytest.raises(ValueError, match="used twice"):
        Story(
            "99-made-up",
            (Section("pace", pace_text), Section("pace", pace_title)),
            findings_record=PaceRecord,
        )


def test_two_sections_typing_one_finding_apart_is_the_authors_error() -> None:
    def other(pace: float) -> str:
        return f"{pace}"

    with pytest.raises(TypeError, match="'pace'"):
        Story(
            "99-made-up",
            (Section("pace", pace_text), Section("other", other)),
            findings_record=PaceRecord,
        ).kinds()


def test_the_declared_stories_are_each_chapters_own() -> None:
    stories = declared()
    assert "10-capacity-plan" in stories
    assert all(chapter == story.chapter for chapter, story in stories.items())


def long_text(pace: Pace) -> str:
    return " ".join(
        f"Step {n} took {pace.ms:.0f} ms, as the runs before it did." for n in range(12)
    )


def long_title(pace: Pace) -> str:
    return long_text(pace)


def test_a_long_passage_is_folded_where_shown_and_rendered_but_a_title_never_is(
    monkeypatch,
) -> None:
    shown: list[str] = []
    monkeypatch.setattr(IPython.display, "display", lambda markdown: shown.append(markdown.data))
    made = Story(
        "99-made-up",
        (Section("long", long_text), Section("long_title", long_title, title=True)),
        findings_record=PaceRecord,
    )
    made.show("long", pace=Pace(40.0))
    (page,) = shown
    assert "<details>" in page and page.startswith("Step 0 took 40 ms")
    assert made.render(made.found).startswith(page)  # the snapshot keeps the page's fold
    assert "<details>" not in made.title("long_title", pace=Pace(40.0))


def test_the_record_is_made_from_the_findings_shown_and_those_only_it_reads(monkeypatch) -> None:
    monkeypatch.setattr(IPython.display, "display", lambda markdown: None)
    made = story()
    made.show("pace", pace=Pace(41.6))
    with pytest.raises(KeyError, match="tokens"):
        made.record()
    record = made.record(tokens=128)
    assert record == PaceRecord(Pace(41.6), 128)
    assert made.found["tokens"] == 128  # kept: a recording holds the record's findings too
    assert made.record(tokens=128) == record  # the same value again is no second value
    with pytest.raises(ValueError, match="pace"):
        made.record(pace=Pace(50.0))


def test_a_record_field_typed_apart_from_a_section_is_the_authors_error() -> None:
    @dataclass(frozen=True)
    class Clashing:
        pace: float

    with pytest.raises(TypeError, match="pace"):
        Story("99-made-up", (Section("pace", pace_text),), findings_record=Clashing).kinds()
