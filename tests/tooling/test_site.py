"""The built site in a real browser: Debian's headless Chromium, no Playwright, no network.

A chapter page must show its plots (img elements loaded, with a nonzero size, each with alt text
that says what it shows), its "Measured on" line, a Colab link to the student edition and a
Kaggle link, and keep the install cell's code folded away.

The page is opened from a copy of the site with one script added before ``</body>``. The script
waits for the plots to decode, then writes what it found into the DOM as JSON, which
``chromium --dump-dom`` prints. Without a built site the chapter tests skip; to run them:

    jupyter-book build --all -W .   # or: SERVELAB_BUILD_SITE=1 pytest tests/tooling/test_site.py
    SERVELAB_SITE_DIR=path/to/html  # to test a site built elsewhere

``test_throwaway_chapter_builds_and_renders`` needs no built site: it builds a one-chapter book
in a temporary copy of the repository's book configuration, without starting vLLM.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from course.edition import (
    build_book,
    colab_url,
    generate_editions,
    kaggle_url,
    launch_badges,
    site_under_test,
    write_toc,
)
from course.nbgrader_cli import CONFIG_NAME
from course.paths import (
    BOOK_DIR,
    CHAPTERS,
    CHECKS_DIR,
    COURSE_ROOT,
    REPO_ROOT,
    source_notebook,
)
from servelab import settings

pytestmark = pytest.mark.tooling  # jupyter-book builds, nbgrader and chromium

CHROMIUM = shutil.which("chromium")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--run-all-compositor-stages-before-draw",
    "--virtual-time-budget=20000",
)
PROBE_ID = "servelab-probe"
INSTALL_MARK = "runtime = bootstrap("  # the install cell's last line (course.launch)
PROBE_SCRIPT = """<script>
window.addEventListener("load", () => {  // every image loaded: decode() raced the time budget
  const plots = [...document.querySelectorAll(".cell_output img")];
  const images = plots.map((img) => {
    const box = img.getBoundingClientRect();
    return {src: (img.getAttribute("src") || "").slice(0, 80), alt: img.getAttribute("alt"),
            complete: img.complete,
            naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight,
            width: box.width, height: box.height};
  });
  const links = [...document.querySelectorAll("a[href]")].map((a) => a.href);
  const outputs = [...document.querySelectorAll(".cell_output")].map((o) => o.innerText);
  const lines = outputs.join("\\n").split("\\n").map((line) => line.trim());
  // The install cell's code: on the page, and drawn only once a reader unfolds it.
  const install = [...document.querySelectorAll(".cell_input pre")]
    .filter((code) => code.textContent.includes(INSTALL_MARK))
    .map((code) => code.checkVisibility());
  const report = document.createElement("pre");
  report.id = "PROBE_ID";
  report.textContent = JSON.stringify({images, links, lines, install});
  document.body.appendChild(report);
});
</script>""".replace("PROBE_ID", PROBE_ID).replace("INSTALL_MARK", json.dumps(INSTALL_MARK))

# Alt text that names no finding: empty, a bare word like "image" or "plot 2", a file path (what
# Sphinx writes when an output gives no alt) or IPython's text for a figure ("<Figure size ...>").
GENERIC_ALT = re.compile(
    r"(?i)^\s*((image|img|figure|fig|plot|chart|graph|output|png)\s*\d*"
    r"|[\w./-]+\.(png|jpe?g|gif|svg)|<Figure size .*>)?\s*$"
)
MIN_ALT_WORDS = 6  # a finding, the axes: more than a caption's few words

# The test job (env/run-tests.sh) builds the site first and sets SERVELAB_REQUIRE_SITE=1: there a
# missing site, page or browser is a failure, not a skip.
REQUIRED = settings.REQUIRE_SITE.on()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None and not REQUIRED,
    reason="chromium is not installed (env/setup-system.sh installs it)",
)
PUBLISHED = [chapter for chapter in CHAPTERS if (BOOK_DIR / chapter / f"{chapter}.ipynb").exists()]


def skip_unless_required(reason: str) -> None:
    if REQUIRED:
        pytest.fail(reason)
    pytest.skip(reason)


def probe_page(site: Path, page: Path, workdir: Path) -> dict:
    """Open ``page`` (inside ``site``) in headless Chromium and return what the probe saw."""
    copy = workdir / "site"
    shutil.copytree(site, copy)
    probed = copy / page.relative_to(site)
    text = probed.read_text(encoding="utf-8")
    assert "</body>" in text, f"{page} has no </body>"
    probed.write_text(text.replace("</body>", PROBE_SCRIPT + "</body>"), encoding="utf-8")
    command = [
        CHROMIUM,
        *CHROMIUM_FLAGS,
        f"--user-data-dir={workdir / 'chromium-profile'}",
        "--dump-dom",
        probed.as_uri(),
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    found = re.search(rf'<pre id="{PROBE_ID}"[^>]*>(.*?)</pre>', result.stdout, re.DOTALL)
    assert found, f"the probe did not report (rc {result.returncode}):\n{result.stderr[-2000:]}"
    return json.loads(html.unescape(found.group(1)))


def assert_chapter_page(report: dict, chapter: str) -> None:
    images = report["images"]
    assert images, "no plot: the page has no img in a cell output"
    for image in images:
        assert image["complete"] and image["naturalWidth"] > 0 and image["naturalHeight"] > 0, (
            f"plot did not load: {image}"
        )
        assert image["width"] > 0 and image["height"] > 0, f"plot not shown: {image}"
        alt = image["alt"] or ""
        assert not GENERIC_ALT.match(alt) and len(alt.split()) >= MIN_ALT_WORDS, (
            f"plot without alt text that says what it shows: {image}"
        )
    assert any(line.startswith("Measured on") for line in report["lines"]), (
        "no output line starting 'Measured on'"
    )
    assert report["install"] == [False], (
        f"the install cell's code should be on the page once, folded away: {report['install']}"
    )
    assert colab_url(chapter) in report["links"], "no Colab link to the student edition"
    assert kaggle_url(chapter) in report["links"], (
        f"no Kaggle link: add launch_badges({chapter!r}) to the chapter's first markdown cell"
    )


@pytest.fixture(scope="module")
def site() -> Path:
    built = site_under_test()
    if built is None:
        skip_unless_required(
            "no built site: run jupyter-book build --all -W . or SERVELAB_BUILD_SITE=1"
        )
    return built


@needs_chromium
@pytest.mark.parametrize("chapter", PUBLISHED)
def test_chapter_page_shows_plots_measured_on_and_launch_links(
    site: Path, chapter: str, tmp_path: Path
) -> None:
    page = site / "book" / chapter / f"{chapter}.html"
    assert page.exists(), f"{chapter} has a student edition but no page in the built site"
    assert_chapter_page(probe_page(site, page, tmp_path), chapter)


THROWAWAY_CELLS = (
    "import platform\nprint('Measured on: ' + platform.platform())",
    # A figure of the chapter's own, drawn inline: importing servelab.plots gives it its alt text.
    "import matplotlib.pyplot as plt\n\nfrom servelab import plots\n\nwith plots.style():\n"
    "    fig, ax = plt.subplots()\n    ax.plot([1, 2, 3], [3, 1, 2], label='made up')\n"
    "    ax.set(xlabel='time (s)', ylabel='rate (tokens/s)', title='The rate falls, then rises')\n"
    "    plots.legend_below(fig)\nplt.show()",
)


@needs_chromium
def test_throwaway_chapter_builds_and_renders(tmp_path: Path) -> None:
    """The whole pipeline on a tiny chapter: check cells, nbgrader, a -W build, the browser."""
    chapter = CHAPTERS[0]
    repo = tmp_path / "repo"
    course = repo / "assignments"
    repo.mkdir()
    for name in ("_config.yml", "intro.md"):
        shutil.copy2(REPO_ROOT / name, repo / name)
    shutil.copytree(CHECKS_DIR, course / "checks")
    shutil.copy2(COURSE_ROOT / CONFIG_NAME, course / CONFIG_NAME)
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    notebook.metadata["servelab"] = {"chapter": chapter}
    title = f"# A throw-away chapter\n\n{launch_badges(chapter)}"
    notebook.cells = [nbformat.v4.new_markdown_cell(title)]
    notebook.cells += [nbformat.v4.new_code_cell(source) for source in THROWAWAY_CELLS]
    path = source_notebook(chapter, course / "source")
    path.parent.mkdir(parents=True)
    nbformat.write(notebook, path)

    generate_editions(course, repo / "book")
    write_toc(repo / "book", repo)
    site = build_book(repo)

    page = site / "book" / chapter / f"{chapter}.html"
    report = probe_page(site, page, tmp_path)
    assert_chapter_page(report, chapter)
    assert any(line.startswith("no answer yet") for line in report["lines"])
