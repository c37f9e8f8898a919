"""servelab.lessons.plural: a counted noun takes its plural ending at every count but one."""

from __future__ import annotations

import pytest

from servelab.lessons.plural import plural_s


@pytest.mark.parametrize(("count", "ending"), [(0, "s"), (1, ""), (2, "s"), (21, "s")])
def test_only_one_of_a_thing_is_singular(count: int, ending: str) -> None:
    assert plural_s(count) == ending
