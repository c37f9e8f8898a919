"""servelab.lessons.the_dials.tp_words: splitting the model over two GPUs, worded for one user, for
the crowd, for the cache and in the closing, on made-up runs."""

from __future__ import annotations

import pytest

from servelab.lessons.compare import Compared
from servelab.lessons.the_dials.tp_words import (
    _alone_text,
    _cache_text,
    _crowd_text,
    _untold,
    tensor_parallel_text,
)
from tests.unit.servelab.lessons.the_dials.test_tp_findings import ALONE_SPLIT, CROWD_SPLIT, found

ALONE_FIGURES = {
    Compared.LOWER: ("**61.0 → 51.0 tok/s**", "60.0–62.0", "50.0–52.0 tok/s"),
    Compared.HIGHER: ("**61.0 → 71.0 tok/s**", "70.0–72.0 tok/s"),
    Compared.ALIKE: ("**61.0 → 65.0 tok/s**", "64.0–66.0 tok/s", "10%"),
    Compared.UNTOLD: ("**61.0 → 70.0 tok/s**", "55.0–75.0 tok/s"),
}


CROWD_FIGURES = {
    Compared.HIGHER: ("**610 → 810 tok/s**", "600–620", "800–820 tok/s"),
    Compared.LOWER: ("**610 → 505 tok/s**", "500–510 tok/s"),
    Compared.ALIKE: ("**610 → 615 tok/s**", "600–630 tok/s", "10%"),
    Compared.UNTOLD: ("**610 → 700 tok/s**", "590–720 tok/s"),
}


@pytest.mark.parametrize("moved", list(Compared))
def test_the_words_for_one_user(moved: Compared) -> None:
    split = found(alone_split=ALONE_SPLIT[moved])
    assert split.alone_moved is moved and split.runs == 3 and split.repeated
    text = tensor_parallel_text(split)
    assert all(figure in text for figure in ALONE_FIGURES[moved])
    assert "3 times" in text and "16 users" in text
    assert len({_alone_text(found(alone_split=ALONE_SPLIT[other])) for other in Compared}) == len(
        Compared
    )


@pytest.mark.parametrize("moved", list(Compared))
def test_the_words_for_many_users(moved: Compared) -> None:
    split = found(crowd_split=CROWD_SPLIT[moved])
    assert split.crowd_moved is moved
    text = tensor_parallel_text(split)
    assert all(figure in text for figure in CROWD_FIGURES[moved])
    assert len({_crowd_text(found(crowd_split=CROWD_SPLIT[other])) for other in Compared}) == len(
        Compared
    )


def test_one_run_a_side_says_it_has_no_range() -> None:
    once = found([75.0], [900.0], alone=[61.0], crowd=[610.0])
    text = tensor_parallel_text(once)
    assert once.runs == 1 and not once.repeated and once.alone_moved is Compared.UNTOLD
    assert "3 times" not in text and "(runs" not in text
    assert "**61.0 → 75.0 tok/s**" in text
    assert _untold(once) != _untold(found(alone_split=ALONE_SPLIT[Compared.UNTOLD]))


def test_the_words_for_the_cache() -> None:
    more = found()
    assert more.more_cache and "10,000 tokens" in tensor_parallel_text(more)
    assert "25,000 split" in tensor_parallel_text(more) and "(2.5×)" in tensor_parallel_text(more)
    flat = found(cache=(10_000, 10_500))
    assert not flat.more_cache and "10,500 split" in tensor_parallel_text(flat)
    assert "×" not in _cache_text(flat) and "**" not in _cache_text(flat)


PAID_OFF = (Compared.LOWER, Compared.HIGHER)  # the closing where the crowd gained


@pytest.mark.parametrize(
    ("alone", "crowd", "closing"),
    [
        (Compared.LOWER, Compared.HIGHER, PAID_OFF),
        (Compared.ALIKE, Compared.HIGHER, PAID_OFF),
        (Compared.LOWER, Compared.ALIKE, (Compared.LOWER, Compared.ALIKE)),
        (Compared.LOWER, Compared.UNTOLD, (Compared.LOWER, Compared.ALIKE)),
        (Compared.ALIKE, Compared.ALIKE, None),
        (Compared.HIGHER, Compared.LOWER, None),
    ],
)
def test_the_closing_follows_the_runs(
    alone: Compared, crowd: Compared, closing: tuple[Compared, Compared] | None
) -> None:
    """Each closing is the one of the pair named in ``closing``: the crowd's gain, or the
    single stream's cost with no gain to set against it."""
    text = tensor_parallel_text(found(ALONE_SPLIT[alone], CROWD_SPLIT[crowd]))
    paragraphs = text.split("\n\n")
    assert len(paragraphs) == (1 if closing is None else 2)
    if closing is not None:
        named = tensor_parallel_text(found(ALONE_SPLIT[closing[0]], CROWD_SPLIT[closing[1]]))
        assert paragraphs[1] == named.split("\n\n")[1]
        other = (Compared.LOWER, Compared.ALIKE) if closing == PAID_OFF else PAID_OFF
        rival = tensor_parallel_text(found(ALONE_SPLIT[other[0]], CROWD_SPLIT[other[1]]))
        assert paragraphs[1] != rival.split("\n\n")[1]
