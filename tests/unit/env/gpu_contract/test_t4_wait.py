"""The arithmetic behind ``make gpu-contract``'s wait table (env/gpu_contract/t4_wait.py) and the
capture's count of a chapter's starts (env/gpu_contract/capture.py)."""

from __future__ import annotations

import sys

import pytest

from course.paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "env" / "gpu_contract"))

import t4_wait  # noqa: E402
from capture import (  # noqa: E402
    CellRun,
    ChapterRun,
    assigned_names,
    server_sites,
    turn_probes,
)
from t4_wait import ChapterCount, SharedCard, Start, shared_cards  # noqa: E402

TOTAL = t4_wait.T4_CUDA_TOTAL_GIB.value
CONTEXT = t4_wait.CUDA_CONTEXT_GIB.value
POOL = t4_wait.GRAPH_POOL_GIB.value


def test_each_start_on_a_shared_card_needs_its_share_free_after_the_servers_before_it() -> None:
    margins = SharedCard(shares=(0.45, 0.45), graphs=(9, 9)).margins_gib()
    assert margins[0] == pytest.approx(TOTAL - CONTEXT - 0.45 * TOTAL)
    assert margins[1] == pytest.approx(
        TOTAL - (CONTEXT + 0.45 * TOTAL + POOL) - CONTEXT - 0.45 * TOTAL
    )
    # After both captured their graphs: two contexts, two shares and two pools are held.
    assert margins[2] == pytest.approx(TOTAL * (1 - 0.9) - 2 * CONTEXT - 2 * POOL)
    assert len(margins) == 3


def test_an_eager_server_holds_no_graph_pool_and_a_card_that_overflows_does_not_fit() -> None:
    eager = SharedCard(shares=(0.45, 0.45), graphs=(0, 0)).margins_gib()
    assert eager[-1] == pytest.approx(TOTAL * 0.1 - 2 * CONTEXT)
    assert not SharedCard(shares=(0.5, 0.5), graphs=(9, 9)).fits
    assert SharedCard(shares=(0.3, 0.3), graphs=(9, 9)).fits


def test_only_servers_given_half_a_card_or_less_on_the_same_card_share_it() -> None:
    starts = [
        Start(0, "a", 51, 0.9),
        Start(1, "b", 9, 0.45),
        Start(2, "b", 9, 0.45),
        Start(1, "b", 9, 0.45),  # a restart of server 1: not a third server
        Start(3, "c", 0, 0.45, refused=True),
        Start(4, "b", 9, 0.45, card="1"),
    ]
    cards = shared_cards(starts)
    assert [card.shares for card in cards] == [(0.45, 0.45)]
    assert shared_cards([Start(0, "b", 9, 0.45, card="0"), Start(1, "b", 9, 0.45, card="1")]) == []


def test_a_key_compiles_cold_once_then_warm_and_an_eager_start_compiles_nothing() -> None:
    count = ChapterCount(
        "c",
        "Colab",
        (
            Start(0, "k", 9, 0.9),
            Start(0, "k", 9, 0.9),
            Start(1, None, 0, 0.9),
            Start(2, "j", 0, 0.9),
        ),
    )
    assert count.cold_compiles == 2
    assert count.graphs == [9, 9, 0, 0]
    fixed, graph = t4_wait.START_FIXED_S.value, t4_wait.SECONDS_PER_GRAPH.value
    cold, warm = t4_wait.COMPILE_COLD_S.value, t4_wait.COMPILE_WARM_S.value
    assert count.starts_seconds() == pytest.approx(4 * fixed + 2 * cold + warm + 18 * graph)


def test_the_line_says_the_counts_and_each_constant_says_its_source() -> None:
    count = ChapterCount(
        "07-x", "Colab", (Start(0, "k", 9, 0.45), Start(1, "k", 9, 0.45)), partial=True
    )
    line = count.line()
    assert "starts  2" in line and "cold compiles 1" in line and "graphs 9+9 = 18" in line
    assert "2 x 0.45 on one T4" in line and line.endswith("PARTIAL: not every server was reached")
    assert f"starts take {count.starts_seconds() / 60:.1f} min" in line
    assert all(e.source and e.unit for e in t4_wait.ESTIMATES.values())
    text = t4_wait.constants_text()
    assert len(text) == len(t4_wait.ESTIMATES)
    assert "UV_OVER_PIP = 0.59 x (measured)" in text[list(t4_wait.ESTIMATES).index("UV_OVER_PIP")]
    assert all("(measured)" in line or "(stated)" in line for line in text)


CHAPTER = """
server = Server(max_model_len=8192)
chunked_server = Server(max_model_len=8192, max_num_batched_tokens=budget).start()
runs = runs_in_turn({ONE: server, TWO: chunked_server}, measure=f, runs=sizes.runs,
                    keep_up=fit_together([server, chunked_server]),
                    done={ONE: [whole], TWO: [chunked]})
"""


def test_turn_probes_count_each_servers_fresh_starts_when_servers_take_turns() -> None:
    assert assigned_names(CHAPTER) == ["server", "chunked_server"]
    [probe] = turn_probes(CHAPTER)
    printed: list[str] = []
    namespace = {
        "sizes": type("S", (), {"runs": 3}),
        "print": lambda *a, **k: printed.append(a[0]),
        "fit_together": lambda servers: False,
        "server": 1,
        "chunked_server": 2,
        "_json": __import__("json"),
    }
    exec(probe, namespace)
    assert printed == ['GPU-CONTRACT-TURNS {"server": 2, "chunked_server": 2}']
    namespace["fit_together"] = lambda servers: True
    exec(probe, namespace)
    assert printed[-1].endswith('{"server": 0, "chunked_server": 0}')
    del namespace["chunked_server"]  # its cell failed before binding it: the cell reports that
    exec(probe, namespace)
    assert len(printed) == 2


def test_a_server_built_from_another_counts_as_a_server_site() -> None:
    source = "twin = server.with_flags(max_num_batched_tokens=512)\nserver.start()\n"
    assert server_sites(source) == 1 and assigned_names(source) == ["twin"]
    assert server_sites("LlamaCppServer(path)\nserver.flags.get('x')\n") == 0


def test_a_chapters_starts_are_each_server_then_its_restarts() -> None:
    cells = [
        CellRun(index=0, sites=1, looped=False, servers=[{"argv": ["a"]}], names=["server"]),
        CellRun(
            index=1, sites=1, looped=False, servers=[{"argv": ["b"]}], names=["chunked_server"]
        ),
    ]
    run = ChapterRun("c", 1, cells, restarts={"server": 2, "chunked_server": 1})
    assert run.starts() == [0, 1, 0, 0, 1]
    stopped = ChapterRun("c", 1, cells[:1], restarts={"server": 2, "chunked_server": 2})
    assert stopped.starts() == [0, 0, 0]  # a server never recorded cannot be counted
