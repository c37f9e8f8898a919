"""The sizes: every chapter at every profile, and how the profile is chosen."""

from __future__ import annotations

import pytest

from servelab.lessons.chunked_prefill.chapter import SIZES
from servelab.settings import SIZE
from servelab.sizes import SizeError, profile_for, sizes_for


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
    sizes = sizes_for("06-chunked-prefill", "smoke")
    assert sizes is SIZES.smoke and sizes.profile == "smoke"
    assert sizes.describe().startswith("Size profile 'smoke': users=2, user_tokens=64, ")
    assert "profile=" not in sizes.describe()
    with pytest.raises(AttributeError):
        sizes.no_such_knob  # noqa: B018
    with pytest.raises(SizeError):
        sizes_for("99-missing", "cpu")
    with pytest.raises(SizeError):
        sizes_for("06-chunked-prefill", "tiny")


def test_a_profile_in_the_wrong_slot_is_refused() -> None:
    with pytest.raises(SizeError, match="cpu slot"):
        type(SIZES)(smoke=SIZES.smoke, cpu=SIZES.gpu, gpu=SIZES.gpu)
