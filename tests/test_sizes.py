"""The size table: every chapter at every profile, and how the profile is chosen."""

from __future__ import annotations

import pytest

from course.paths import CHAPTERS
from servelab.settings import SIZE
from servelab.sizes import PROFILES, TABLE, SizeError, profile_for, sizes_for


def test_every_chapter_has_every_profile_with_the_same_knobs() -> None:
    assert set(TABLE) == set(CHAPTERS)
    for chapter, profiles in TABLE.items():
        assert set(profiles) == set(PROFILES), chapter
        keys = {profile: set(values) for profile, values in profiles.items()}
        assert len({frozenset(k) for k in keys.values()}) == 1, (chapter, keys)


def test_the_device_picks_the_profile_unless_the_environment_says(monkeypatch) -> None:
    monkeypatch.delenv(SIZE.name, raising=False)
    assert profile_for("cuda") == "gpu"
    assert profile_for("cpu") == "cpu"
    monkeypatch.setenv(SIZE.name, "smoke")
    assert profile_for("cuda") == "smoke"
    monkeypatch.setenv(SIZE.name, "tiny")
    with pytest.raises(SizeError, match="tiny"):
        profile_for("cpu")


def test_sizes_read_as_attributes_and_describe_their_profile() -> None:
    chapter = next(iter(TABLE))
    sizes = sizes_for(chapter, "smoke")
    name, value = next(iter(TABLE[chapter]["smoke"].items()))
    assert getattr(sizes, name) == value == sizes[name]
    assert "'smoke'" in sizes.describe()
    with pytest.raises(AttributeError):
        sizes.no_such_knob  # noqa: B018
    with pytest.raises(SizeError):
        sizes_for("99-missing", "cpu")
