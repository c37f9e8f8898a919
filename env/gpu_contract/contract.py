"""``make gpu-contract``: every vLLM argument list the book builds on Colab (one T4) and Kaggle
(two T4s), parsed, configured and logged by vLLM 0.11.2's own code, and read back by servelab.

1. A virtual environment with the GPU pins (``servelab/constraints-gpu.txt``) is made once under
   ``~/.cache/servelab/gpu-contract-<hash of the pins>`` (about 11 GB; no GPU needed).
2. ``capture`` runs every instructor source and ``python -m servelab.smoke`` in the project's
   kernel with the GPU simulated, recording each server's argv and environment.
3. ``engine_side`` runs, in that environment, each recorded argument list through 0.11.2's start
   up with CUDA stubbed as those T4s, and servelab's log and metrics readers on what it wrote.

One line per chapter, then ``N passed, N failed``; the exit status is 1 if any chapter failed.
Then what a student waits for (``t4_wait``): per chapter and runtime, the servers started, the
cold compiles, the CUDA graphs each start captures, the memory left where servers share a T4,
and the starts' time, then its ``t4-wait`` line (``t4_count``: install, download, starts and
measurement), with each constant, its source and whether it was measured or stated. The starts
counted here must be those kept in ``t4-starts.json`` (``t4_starts``), from which the README's
table and ``autograder/t4-estimate.json`` add them; where they differ the exit status is 1, and
``--write-starts`` keeps the new count (then run ``t4_estimate.py --write`` and copy
``t4_count.readme_table()`` into the README).
A chapter passes when every ``Server(`` it names was recorded on both runtimes (or was skipped by
the chapter itself, e.g. tensor parallelism on one GPU) and every recorded start read back right.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

from capture import SITES_KEY, ChapterRun, run_chapter, server_sites  # noqa: E402
from model_cache import write_hub_cache  # noqa: E402
from t4_count import BY_ID, COUNT_ESTIMATES, wait_line  # noqa: E402
from t4_starts import STARTS_JSON, differences  # noqa: E402
from t4_starts import read as read_starts  # noqa: E402
from t4_starts import text as starts_text  # noqa: E402
from t4_wait import ChapterCount, Start, constants_text  # noqa: E402

from servelab import smoke  # noqa: E402

CONSTRAINTS = ROOT / "servelab" / "constraints-gpu.txt"
RUNTIMES = {"Colab 1xT4": ("Colab", 1), "Kaggle 2xT4": ("Kaggle", 2)}
PLATFORM_ENV = {
    "Colab": {"COLAB_RELEASE_TAG": "gpu-contract"},
    "Kaggle": {"KAGGLE_KERNEL_RUN_TYPE": "Interactive"},
}
SMOKE = "servelab.smoke"


def contract_venv() -> Path:
    """The cached environment with the GPU pins; made (minutes, once per set of pins) if absent.
    Its name is a hash of the pins alone, so a new comment in the file does not remake it."""
    pins = [line for line in CONSTRAINTS.read_text().splitlines() if not line.startswith("#")]
    key = hashlib.sha256("\n".join(pins).encode()).hexdigest()[:12]
    venv = Path.home() / ".cache" / "servelab" / f"gpu-contract-{key}"
    stamp = venv / ".installed"
    if stamp.is_file():
        return venv
    print(
        f"gpu-contract: installing the GPU pins into {venv} (about 4 minutes and 11 GB, once)",
        flush=True,
    )
    began = time.monotonic()
    subprocess.run(
        [os.environ.get("PYTHON", "python3.11"), "-m", "venv", "--clear", str(venv)], check=True
    )
    subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "-r",
            str(CONSTRAINTS),
        ],
        check=True,
    )
    stamp.write_text(f"installed in {time.monotonic() - began:.0f} s\n")
    print(f"gpu-contract: installed in {time.monotonic() - began:.0f} s", flush=True)
    return venv


def smoke_notebook() -> nbformat.NotebookNode:
    """``python -m servelab.smoke`` as one cell, named as building the servers its module builds."""
    cell = nbformat.v4.new_code_cell("from servelab import smoke\n\nsmoke.main()\n")
    cell.metadata[SITES_KEY] = server_sites(inspect.getsource(smoke))
    return nbformat.v4.new_notebook(cells=[cell])


def chapters() -> dict[str, Path | None]:
    """Chapter id -> instructor source; the smoke command last (no notebook of its own)."""
    sources = sorted((ROOT / "assignments" / "source").glob("*/*.ipynb"))
    return {path.parent.name: path for path in sources} | {SMOKE: None}


def capture_all(hf_home: Path) -> dict[tuple[str, str], ChapterRun]:
    runs = {}
    for runtime, (platform, gpus) in RUNTIMES.items():
        env = {
            "SERVELAB_SIZE": "gpu",
            "HF_HOME": str(hf_home),
            "HF_HUB_OFFLINE": "1",
            "TQDM_DISABLE": "1",
            **PLATFORM_ENV[platform],
        }
        for chapter, path in chapters().items():
            notebook = nbformat.read(path, as_version=4) if path else smoke_notebook()
            folder = path.parent if path else ROOT
            print(f"gpu-contract: running {chapter} on {runtime}", file=sys.stderr, flush=True)
            runs[chapter, runtime] = run_chapter(notebook, chapter, folder, gpus, env)
    return runs


def check_starts(
    venv: Path, runs: dict[tuple[str, str], ChapterRun], hf_home: Path
) -> dict[str, list[dict]]:
    """Each recorded server through vLLM 0.11.2 in the contract environment: results by key."""
    cases = [
        {"key": f"{chapter}|{runtime}|{n}", "gpus": RUNTIMES[runtime][1], **server}
        for (chapter, runtime), run in runs.items()
        for n, server in enumerate(run.servers)
    ]
    with tempfile.TemporaryDirectory() as folder:
        given, taken = Path(folder) / "cases.json", Path(folder) / "results.json"
        given.write_text(json.dumps(cases))
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "HF_HOME": str(hf_home),
            "HF_HUB_OFFLINE": "1",
            "VLLM_CACHE_ROOT": str(venv / "vllm-cache"),
        }
        log = venv / "last-run.log"
        with log.open("w") as out:
            done = subprocess.run(
                [
                    str(venv / "bin" / "python"),
                    str(HERE / "engine_side.py"),
                    str(given),
                    str(taken),
                ],
                env=env,
                stdout=out,
                stderr=out,
            )
        if done.returncode != 0:
            raise SystemExit(f"gpu-contract: the engine side failed; its output is in {log}")
        results = json.loads(taken.read_text())
    by_chapter: dict[str, list[dict]] = {}
    for result in results:
        by_chapter.setdefault(result["key"].split("|")[0], []).append(result)
    return by_chapter


def chapter_line(
    chapter: str, runs: dict[tuple[str, str], ChapterRun], results: list[dict]
) -> tuple[bool, list[str]]:
    """PASS/FAIL line for one chapter and the detail lines under it."""
    details, parts = [], []
    for runtime in RUNTIMES:
        run = runs[chapter, runtime]
        parts.append(f"{runtime} {len(run.servers)} server(s) recorded of {run.sites} named")
        details += [f"  {runtime}: not reached, {why}" for why in run.unreached()]
    bad = [result for result in results if not result["ok"]]
    details += [
        f"  {r['key'].split('|')[1]} server {r['key'].split('|')[2]}: {r['detail']}" for r in bad
    ]
    read = [
        f"{r['key'].split('|')[1]}#{r['key'].split('|')[2]}: {r['detail']}"
        for r in results
        if r["ok"]
    ]
    passed = not details
    status = "PASS" if passed else "FAIL"
    return passed, [
        f"{status} {chapter}: {'; '.join(parts)}",
        *(f"  {line}" for line in read),
        *details,
    ]


def chapter_count(chapter: str, runtime: str, run: ChapterRun, results: list[dict]) -> ChapterCount:
    """The chapter's starts in order (restarts included) with what 0.11.2 said each costs."""
    costs = {
        int(r["key"].split("|")[2]): r["cost"]
        for r in results
        if r["key"].split("|")[1] == runtime and "cost" in r
    }
    starts = []
    for index in run.starts():
        if index not in costs:  # a start vLLM did not configure: its chapter already failed
            continue
        cost = costs[index]
        card = run.servers[index]["env"].get("CUDA_VISIBLE_DEVICES", "0")
        if cost["tp"] > 1:
            card = ",".join(str(n) for n in range(cost["tp"]))
        starts.append(
            Start(
                server=index,
                compile_key=cost["compile_key"],
                graphs=cost["graphs"],
                share=cost["share"],
                card=card,
                refused=cost["refused"],
            )
        )
    return ChapterCount(
        chapter,
        RUNTIMES[runtime][0],
        tuple(starts),
        partial=bool(run.unreached()) or len(starts) < len(run.starts()),
    )


def main(argv: list[str]) -> int:
    """The contract; ``--write-starts`` in ``argv`` keeps this run's count of the starts."""
    began = time.monotonic()
    venv = contract_venv()
    with tempfile.TemporaryDirectory() as hf:
        hf_home = Path(hf)
        write_hub_cache(hf_home)
        runs = capture_all(hf_home)
        results = check_starts(venv, runs, hf_home)
    passed = failed = 0
    for chapter in chapters():
        ok, lines = chapter_line(chapter, runs, results.get(chapter, []))
        print("\n".join(lines), flush=True)
        passed, failed = passed + ok, failed + (not ok)
    print(f"gpu-contract: {time.monotonic() - began:.0f} s", file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    print(
        "\nWhat a student waits for in a fresh runtime (t4_wait): starts, cold compiles "
        "(distinct 0.11.2 compile-cache keys), CUDA graphs per start, GiB left where servers "
        "share a T4 (at each start, then after all graphs), the starts' time; then t4-wait: "
        "install, model download, starts and measurement (t4_count), low-high"
    )
    counts = []
    for chapter in chapters():
        for runtime in RUNTIMES:
            count = chapter_count(
                chapter, runtime, runs[chapter, runtime], results.get(chapter, [])
            )
            print(count.line())
            if chapter in BY_ID:  # what it sends, counted from its gpu sizes (t4_count)
                counts.append(count)
                print(wait_line(chapter, count.runtime.lower(), count.starts_seconds()))
    print(
        "Constants:",
        *constants_text(),
        *(
            f"  {name} = {s.value[0]:g}-{s.value[1]:g} "
            f"{s.unit} ({'measured' if s.measured else 'stated'}): {s.source}"
            for name, s in COUNT_ESTIMATES.items()
        ),
        sep="\n",
    )
    if "--write-starts" in argv:
        STARTS_JSON.write_text(starts_text(counts), encoding="utf-8")
        print(f"Kept these starts in {STARTS_JSON.relative_to(ROOT)}.")
        return 1 if failed else 0
    changed = differences(counts, read_starts())
    if changed:
        print(
            f"FAIL: the starts counted here are not those kept in "
            f"{STARTS_JSON.relative_to(ROOT)}, which the README's table and "
            "autograder/t4-estimate.json add:",
            *changed,
            "Rerun with --write-starts, then "
            "t4_estimate.py --write and the README's table (t4_count.readme_table()).",
            sep="\n  ",
        )
    return 1 if failed or changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
