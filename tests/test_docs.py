"""The documentation: the site builds with every link and anchor checked, a broken link fails the build, every
runnable block of a page runs, and the README and CONTRIBUTING.md say what the code does.

A fenced block marked ``pycon`` is runnable: its ``>>>`` lines and their output are a doctest, and a page's blocks
run in order in one namespace, from the repository root. Mark a block ``python`` when it is not meant to run.
"""

import configparser
import json
import os
import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest
from markdown_blocks import RUNNABLE_BLOCK, run_blocks
from test_layering import ALLOWED, ROOMS

from corefbias.hub import publish

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
RELATIVE_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|#)([^)\s#]+)", re.IGNORECASE)
README_LINES = 200
# The sections of the README before the documentation site existed, each now a page or a section of one; the
# titles that changed say what they are called now.
OLD_README_SECTIONS = {
    "Install": "Install",
    "Set-up: two commands": "Set-up: two commands",
    "Metrics (`evaluate` modules)": "Measures (evaluate modules)",
    "Reproducing published tables": "Reproducing published tables",
    "Test sets (`datasets`)": "Test sets (datasets)",
    "Running a model on every benchmark": "Running a model on every benchmark",
    "HTTP protocol: texts in, clusters out": "HTTP protocol: texts in, clusters out",
    "Model adapters": "Model adapters",
    "LLMs: cloze scoring, the field's method": "LLMs: cloze scoring, the field's method",
    "NeuralCoref: a real trained model, offline": "NeuralCoref: a real trained model, offline",
    "Real models on every benchmark": "Real models on every benchmark",
    "Scoring a predictions file (`corefbias score`)": "Scoring a predictions file (corefbias score)",
    "Comparing models: `corefbias compare`": "Comparing models: corefbias compare",
    "Adding a benchmark or a model": "Adding a benchmark, a model or a file format",
    "The Space": "The Space",
    "Deploying the Space": "Deploying the Space",
    "Publishing": "Publishing",
    "Releasing": "Releasing",
    "Benchmarks": "Performance",
    "Scoring rules": "Scoring rules",
    "DaWinoBias as GenDa Lens scores it": "DaWinoBias as GenDa Lens scores it",
    "Layout": "Layout",
}


def build(config: Path, site: Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` of ``config`` into ``site``: any warning fails it."""
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "OMP_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "-d", str(site)]
    return subprocess.run(command, cwd=config.parent, env=environment, capture_output=True, text=True)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    built = build(REPO / "mkdocs.yml", folder)
    assert built.returncode == 0, built.stderr
    return folder


def titles(site: Path) -> set[str]:
    """Every page and section title of the built site, as its search index holds them (markup removed)."""
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    return {" ".join(re.sub(r"<[^>]+>", "", unescape(entry["title"])).split()) for entry in index["docs"]}


def page_text(site: Path, page: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", (site / f"{page}.html").read_text(encoding="utf-8")))


# What a page loads by itself: scripts, style sheets, icons, images, frames, and the URLs its CSS names.
LOADED_BY_ELEMENTS = re.compile(
    r"<(?:script|link|img|source|iframe|embed|video|audio)\b[^>]*?\s(?:src|href|srcset)=[\"']([^\"']+)", re.IGNORECASE
)
LOADED_BY_CSS = re.compile(r"(?:url\(\s*[\"']?|@import\s+[\"'])([^\"')]+)", re.IGNORECASE)
ANOTHER_HOST = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)


def test_no_page_of_the_site_loads_anything_from_another_host(site):
    """No CDN script, no web font, no remote image: every URL a page or a style sheet loads is the site's own."""
    found = {}
    for path in sorted(site.rglob("*.html")) + sorted(site.rglob("*.css")):
        text = path.read_text(encoding="utf-8")
        pattern = LOADED_BY_ELEMENTS if path.suffix == ".html" else LOADED_BY_CSS
        remote = sorted({url for url in pattern.findall(text) if ANOTHER_HOST.match(url.strip())})
        if remote:
            found[str(path.relative_to(site))] = remote
    assert found == {}
    pages = list(site.rglob("*.html"))
    assert len(pages) > 30 and all(LOADED_BY_ELEMENTS.search(page.read_text(encoding="utf-8")) for page in pages)
    # MathJax is part of the site, with its license.
    assert (site / "javascripts" / "mathjax" / "tex-mml-chtml.js").is_file()
    assert "Apache License" in (site / "javascripts" / "mathjax" / "LICENSE").read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_measure_page_read_from_disk_renders_its_formulas_with_no_other_host(site, browser_page, screenshot):
    """A measure page opened over file:// in headless Chromium with every other URL refused: MathJax, served by
    the site, typesets every formula, and the page asks nothing of any other host (fonts, API, CDN)."""
    asked = []

    def local_only(route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            asked.append(route.request.url)
            route.abort()

    page = browser_page
    page.route("**/*", local_only)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto((site / "measures" / "counter_gap_delta_i.html").as_uri())
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30_000)
    page.evaluate("() => MathJax.startup.promise")
    formulas = page.locator(".arithmatex")
    assert formulas.count() >= 5
    untypeset = page.evaluate(
        "() => [...document.querySelectorAll('.arithmatex')].filter(e => !e.querySelector('mjx-container')).length"
    )
    assert untypeset == 0
    # Typeset, not raw TeX: no \frac or \sum left in the text a reader sees.
    shown = page.locator("article").inner_text()
    assert "\\frac" not in shown and "\\sum" not in shown
    screenshot(page, "counter_gap_delta_i")
    # The navigation opens pages, not folders, over file://.
    page.get_by_role("link", name="Getting started").first.click()
    assert page.url.endswith("/getting_started.html")
    assert asked == []


def test_the_site_builds_with_every_link_and_anchor_checked(site):
    assert (site / "index.html").is_file()
    assert (site / "results.schema.json").read_bytes() == (DOCS / "results.schema.json").read_bytes()


@pytest.mark.slow
def test_a_broken_link_an_anchor_or_a_repository_file_fails_the_build(tmp_path):
    """A copy of docs/ and mkdocs.yml beside links to the rest of the repository, with three broken links."""
    for entry in REPO.iterdir():
        if entry.name not in {"docs", "mkdocs.yml", ".git", ".venv", "site"}:
            (tmp_path / entry.name).symlink_to(entry)
    shutil.copytree(DOCS, tmp_path / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    index = tmp_path / "docs" / "index.md"
    broken = "[a](no_such_page.md) [b](getting_started.md#no-such-section) [c](../no_such_file.py)"
    index.write_text(index.read_text(encoding="utf-8") + f"\n{broken}\n", encoding="utf-8")
    built = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert built.returncode != 0
    for target in ("no_such_page.md", "no-such-section", "no_such_file.py"):
        assert target in built.stderr, built.stderr


def test_every_section_of_the_old_readme_is_in_the_site(site):
    found = titles(site)
    assert [new for new in OLD_README_SECTIONS.values() if new not in found] == []


def test_the_test_set_pages_are_generated_from_the_set_folders(site):
    folders = sorted(path.parent.name for path in (REPO / "src/corefbias/benchmarks").glob("*/card.md"))
    assert folders
    index = page_text(site, "test_sets/index")
    for name in folders:
        text = page_text(site, f"test_sets/{name}")
        assert "Known issues" in text and "Citation" in text and "Configurations" in text, name
        assert f"{name}" in index, name  # its row of the generated table


def test_each_metric_folder_has_a_page_with_its_worked_example_and_its_metric_card(site):
    """The measure pages are generated from the metric folders (``metrics/<name>/measure.md``), none written in docs."""
    measures = sorted(path.parent.name for path in (REPO / "metrics").glob("*/measure.md"))
    assert measures == publish.metric_names(REPO / "metrics")
    assert sorted(path.stem for path in (DOCS / "measures").glob("*.md")) == ["index"]
    for name in measures:
        text = page_text(site, f"measures/{name}")
        assert "Worked example" in text and "Values from Popular Papers" in text, name
        assert name in page_text(site, "measures/index"), name  # its row of the index table


def test_the_performance_page_shows_every_speed_script(site):
    text = page_text(site, "performance")
    missing = [path.name for path in sorted((REPO / "perf").glob("*.py")) if f"perf/{path.name}" not in text]
    assert missing == []


def runnable_pages() -> list[Path]:
    pages = sorted(DOCS.rglob("*.md")) + [REPO / "README.md", REPO / "CONTRIBUTING.md"]
    return [page for page in pages if RUNNABLE_BLOCK.search(page.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("page", runnable_pages(), ids=lambda page: str(page.relative_to(REPO)))
def test_the_runnable_blocks_of_a_page_run(page):
    results, report = run_blocks(page, REPO, str(page.relative_to(REPO)))
    assert results.attempted and results.failed == 0, report


def test_the_readme_is_a_five_minute_read_whose_links_work():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_LINES
    for document in ("README.md", "CONTRIBUTING.md"):
        text = (REPO / document).read_text(encoding="utf-8")
        missing = [target for target in RELATIVE_LINK.findall(text) if not (REPO / target).exists()]
        assert missing == [], document


def test_getting_started_lists_every_extra_of_setup_cfg():
    config = configparser.ConfigParser()
    config.read(REPO / "setup.cfg", encoding="utf-8")
    table = [
        line for line in (DOCS / "getting_started.md").read_text(encoding="utf-8").splitlines() if line[:3] == "| `"
    ]
    listed = {name for line in table for name in re.findall(r"`([\w-]+)`", line.split(" | ")[0])}
    assert set(config["options.extras_require"]) <= listed


def test_contributing_states_the_room_imports_test_layering_allows():
    """The rooms table of CONTRIBUTING.md says, per room, what tests/test_layering.py lets it import."""
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    stated = {}
    for room, allowed in re.findall(r"^\| `(\w+)/` \| .* \| (.*) \|$", text, re.MULTILINE):
        names = set(re.findall(r"`(\w+)`", allowed))
        stated[room] = set(ROOMS) if allowed == "every room" else names
    assert stated == ALLOWED


def test_the_quick_runs_table_is_generated_from_every_declaration(site):
    # Before, five benchmarks added since the hand-written table were missing from it, and its rows copied the
    # declarations' limit_meaning.
    from corefbias.benchmarks import BENCHMARKS

    section = page_text(site, "running/index").split("Quick runs", 1)[1].split("Every baseline runs")[0]
    for name, benchmark in BENCHMARKS.items():
        assert name in section and " ".join(benchmark.limit_meaning.split()[-4:]) in section, name


def test_the_report_plots_are_every_run_plot_of_the_images_folder_under_its_title(site):
    """``<!-- report plots -->``: each PNG ``scripts/docs_screenshots.py`` took from a run's plots/, under the title
    the PNG carries; the comparison's forest plot is not among them (docs/comparing.md shows it)."""
    from PIL import Image

    html = (site / "running" / "index.html").read_text(encoding="utf-8")
    shown = re.findall(r'<img alt="([^"]*)" src="[^"]*images/report/([^"]+)"', html)
    plots = sorted(path for path in (REPO / "docs" / "images" / "report").glob("*.png") if path.name != "forest.png")
    titles = [Image.open(path).text["Title"] for path in plots]
    assert [(unescape(alt), name) for alt, name in shown] == [(title, p.name) for title, p in zip(titles, plots)]
    assert "abc_fpr_by_language.png" in [name for _, name in shown] and "forest.png" not in html
