"""MkDocs hooks: the parts of the site whose facts live in other files are generated from those files.

- ``test_sets/<name>.md``, one page per test set, from its folder (``src/corefbias/benchmarks/<name>/``: the
  prose of its ``card.md``, the builder's description, configs and citation, its upstream pins), added to the nav's
  "Test sets" section;
- ``measures/<name>.md``, one page per metric, from its folder (``metrics/<name>/``: the formula, meaning,
  undefined cases and worked example of its ``measure.md``, then the reference sections of its card ``README.md``),
  added to the nav's "Measures" section; ``<!-- measures -->`` becomes the table of the metric folders (the
  ``measures`` and ``paper`` of each ``measure.md``'s front matter);
- ``contributing.md`` from the repository's ``CONTRIBUTING.md``;
- on a page, ``<!-- metric card: NAME -->`` becomes the reference sections of ``metrics/NAME/README.md``,
  ``<!-- speed script: FILE -->`` the docstring of the speed script ``perf/FILE``, ``<!-- other speed scripts -->``
  the docstrings of the speed scripts no marker names (so a new script is never missing), and
  ``<!-- public scoring functions -->`` the API of the functions ``corefbias/__init__.py`` exports, and
  ``<!-- test sets -->`` the table of the set folders (configs, the benchmarks declared on each, sources), and
  ``<!-- blocks -->`` the table of what every benchmark's significance resamples (its unit and blocks, from its
  declaration, and the card that says why), and ``<!-- quick runs -->`` the table of what ``--limit N`` keeps of
  every benchmark (its declaration's ``limit_meaning``), and ``<!-- report plots -->`` every image of
  ``docs/images/report/`` that ``scripts/docs_screenshots.py`` took from a run's ``plots/`` (all but the
  comparison's ``forest.png``), each under its title (the PNG's ``Title``, which ``corefbias.harness.plots`` writes);
- a link to a metric folder's ``measure.md`` is aimed at the page made of it; a relative link that leaves ``docs/``
  (``../services/llamacpp/README.md``) is aimed at the file on the forge,
  whose address is setup.cfg's ``url``, as setup.py does for the README on PyPI; a link to a file that does not
  exist is a warning, which ``mkdocs build --strict`` turns into an error.
"""

from __future__ import annotations

import ast
import configparser
import logging
import os
import re
from pathlib import Path

import yaml
from mkdocs.structure.files import File

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
REPORT_IMAGES = DOCS / "images" / "report"
COMPARISON_IMAGES = ("forest.png",)  # in docs/images/report, but a comparison's (docs/comparing.md), not a run's
SPEED_SCRIPTS = REPO / "perf"  # the speed scripts, which time corefbias (not benchmarks: test sets)
METRICS = REPO / "metrics"
BUILDERS = REPO / "src" / "corefbias" / "benchmarks"
TEST_SETS_SECTION = "Test sets"
TEST_SETS_FOLDER = "test_sets"
MEASURES_SECTION = "Measures"
MEASURES_FOLDER = "measures"
METRIC_PAGE = "measure.md"  # in each metric folder: the source of its page
# The reference parts of a metric card; its description and usage are what the measure page itself explains.
CARD_SECTIONS = ("Inputs", "Output Values", "Values from Popular Papers", "Limitations and Bias", "Citation")

log = logging.getLogger("mkdocs.hooks.generated_pages")
MARKERS = (
    "metric card",
    "speed script",
    "other speed scripts",
    "public scoring functions",
    "test sets",
    "measures",
    "blocks",
    "quick runs",
    "report plots",
)
_MARKER = re.compile(rf"^<!-- ({'|'.join(MARKERS)})(?:: (\S+))? -->$", re.MULTILINE)
# A Markdown link or image target that names no scheme and is no in-page anchor or absolute path.
_RELATIVE_LINK = re.compile(r"(!?\[[^\]]*\]\()(?![a-z][a-z0-9+.-]*:|#|/)([^)\s]+)\)", re.IGNORECASE)
_FENCE = re.compile(r"^(```|~~~)", re.MULTILINE)


def forge_home() -> str:
    config = configparser.ConfigParser()
    config.read(REPO / "setup.cfg", encoding="utf-8")
    return config["metadata"]["url"].rstrip("/")


def front_matter(text: str) -> tuple[dict, str]:
    """The YAML front matter of a Markdown file and the rest of it."""
    if text.startswith("---\n"):
        header, _, body = text[4:].partition("\n---\n")
        return yaml.safe_load(header) or {}, body.strip()
    return {}, text.strip()


def aim_links(markdown: str, source_dir: Path, page_dir: Path, where: str, metrics_dir: Path = METRICS) -> str:
    """``markdown`` (written in ``source_dir``) with its relative links made right for a page in ``page_dir``:
    a target inside docs/ becomes relative to the page, a metric folder's ``measure.md`` (in ``metrics_dir``) the
    page made of it, any other file of the repository its address on the forge. Fenced code blocks are left alone."""

    def aim(match: re.Match) -> str:
        path, hash_, anchor = match[2].partition("#")
        target = Path(os.path.normpath(source_dir / path))
        if target.name == METRIC_PAGE and target.parent.parent == metrics_dir:
            page = DOCS / MEASURES_FOLDER / f"{target.parent.name}.md"
            return f"{match[1]}{os.path.relpath(page, page_dir)}{hash_}{anchor})"
        if target.is_relative_to(DOCS):  # mkdocs itself checks links between pages, generated ones included
            if source_dir == page_dir:
                return match[0]
            return f"{match[1]}{os.path.relpath(target, page_dir)}{hash_}{anchor})"
        if not target.exists():
            log.warning(f"{where}: the link {match[2]!r} names {target}, which does not exist")
            return match[0]
        if not target.is_relative_to(REPO):
            log.warning(f"{where}: the link {match[2]!r} leaves the repository")
            return match[0]
        kind = "raw" if match[1].startswith("!") else "tree" if target.is_dir() else "blob"
        return f"{match[1]}{forge_home()}/{kind}/main/{target.relative_to(REPO).as_posix()}{hash_}{anchor})"

    parts = _FENCE.split(markdown)
    # split() keeps the fence markers: text, marker, code, marker, text, ...; links are aimed in the text only.
    inside = False
    for index, part in enumerate(parts):
        if _FENCE.fullmatch(part):
            inside = not inside
        elif not inside:
            parts[index] = _RELATIVE_LINK.sub(aim, part)
    return "".join(parts)


# ----- test sets ---------------------------------------------------------------------------------------------


def set_names() -> list[str]:
    from corefbias.data import hub_export

    return hub_export.available(BUILDERS)


def set_title(name: str) -> str:
    metadata, _ = front_matter((BUILDERS / name / "card.md").read_text(encoding="utf-8"))
    return metadata.get("pretty_name", name)


def _source_sentence(entry: str) -> str:
    from corefbias.data import upstream

    source = upstream.dataset_source(entry)
    home = f"https://github.com/{source['repository']}"
    where = f"[{source['repository']}]({home})"
    if source["commit"]:
        origin = f"built from the files of {where} at commit `{source['commit']}`, each checked against its sha256"
    else:
        origin = f"generated by corefbias (no upstream file is read); the original set's home is {where}"
    return f"{origin}. License: {source['license']}."


def set_page(name: str) -> str:
    """The page of one test set, from the files its exported card is made of (the export adds row counts)."""
    from corefbias.benchmarks import BENCHMARKS
    from corefbias.data import hub_export

    card = BUILDERS / name / "card.md"
    metadata, body = front_matter(card.read_text(encoding="utf-8"))
    builder = hub_export.builder_class(name, BUILDERS)
    configs_of = hub_export.config_sources(name, builder)
    page_dir = DOCS / TEST_SETS_FOLDER
    lines = [f"# {metadata.get('pretty_name', name)}", "", builder.DESCRIPTION.strip(), ""]
    benchmarks = [benchmark for benchmark in BENCHMARKS.values() if benchmark.dataset == name]
    for benchmark in benchmarks:
        measures = ", ".join(f"[`{module}`](../measures/{module}.md)" for module in benchmark.metric_modules)
        lines += [f"The benchmark `{benchmark.name}` ({benchmark.language}) scores it with {measures}.", ""]
    lines += [
        f"`corefbias export-datasets {name}` writes it as Parquet with its card, whose prose is "
        f"[`{card.relative_to(REPO).as_posix()}`]({forge_home()}/blob/main/{card.relative_to(REPO).as_posix()}).",
        "",
        "## Configurations",
        "",
        "| config | content |",
        "|---|---|",
        *(
            f"| `{config}` | {' '.join((builder.builder_configs[config].description or '').split())} |"
            for config in builder.builder_configs
        ),
        "",
        aim_links(body, card.parent, page_dir, str(card)),
        "",
        "## Source",
        "",
        *(
            f"- {', '.join(f'`{config}`' for config in configs)}: {_source_sentence(entry)}"
            for entry, configs in configs_of.items()
        ),
        "",
        "## Citation",
        "",
        "```bibtex",
        builder.CITATION.strip(),
        "```",
        "",
    ]
    return "\n".join(lines)


# ----- measures ----------------------------------------------------------------------------------------------


def measure_names(metrics_dir: Path = METRICS) -> list[str]:
    """The metric folders (``corefbias.hub.publish.metric_names``) that hold a ``measure.md``."""
    from corefbias.hub.publish import metric_names

    names = metric_names(metrics_dir)
    for name in names:
        if not (metrics_dir / name / METRIC_PAGE).is_file():
            log.warning(f"metrics/{name} has no {METRIC_PAGE}, so the site has no page for it")
    return [name for name in names if (metrics_dir / name / METRIC_PAGE).is_file()]


def measure_facts(name: str, metrics_dir: Path = METRICS) -> dict:
    """The front matter of a metric's ``measure.md``: its ``title`` (the nav's), ``measures`` and ``paper``."""
    metadata, _ = front_matter((metrics_dir / name / METRIC_PAGE).read_text(encoding="utf-8"))
    return {"title": metadata.get("title", name), "measures": metadata.get("measures", ""), "paper": ""} | metadata


def measure_page(name: str, metrics_dir: Path = METRICS) -> str:
    """The page of one metric: its ``measure.md`` (links aimed from its folder), then its card's reference part."""
    source = metrics_dir / name / METRIC_PAGE
    _, body = front_matter(source.read_text(encoding="utf-8"))
    page_dir = DOCS / MEASURES_FOLDER
    text = aim_links(body, source.parent, page_dir, str(source), metrics_dir)
    return text + "\n\n" + metric_card(name, page_dir, metrics_dir) + "\n"


def measures_table(metrics_dir: Path = METRICS) -> str:
    """One row per metric folder: its module, what it measures, the paper."""
    lines = ["| module | measures | paper |", "|---|---|---|"]
    for name in measure_names(metrics_dir):
        facts = measure_facts(name, metrics_dir)
        lines.append(f"| [`{name}`]({name}.md) | {facts['measures']} | {facts['paper']} |")
    return "\n".join(lines)


def measures_nav(metrics_dir: Path = METRICS) -> list[dict]:
    """The nav entries of the measure pages, in the order of the metric folders."""
    return [
        {measure_facts(name, metrics_dir)["title"]: f"{MEASURES_FOLDER}/{name}.md"}
        for name in measure_names(metrics_dir)
    ]


# ----- markers -----------------------------------------------------------------------------------------------


def _sections(markdown: str) -> dict[str, str]:
    """Heading title → the text under it, up to the next heading of any level."""
    found: dict[str, str] = {}
    title = None
    inside_code = False
    for line in markdown.splitlines():
        if _FENCE.match(line):
            inside_code = not inside_code
        heading = None if inside_code else re.match(r"^#{1,6} (.+)$", line)
        if heading:
            title = heading[1].strip()
            found[title] = ""
        elif title is not None:
            found[title] += line + "\n"
    return found


def metric_card(name: str, page_dir: Path, metrics_dir: Path = METRICS) -> str:
    card = metrics_dir / name / "README.md"
    if not card.is_file():
        log.warning(f"<!-- metric card: {name} -->: there is no {card}")
        return ""
    _, body = front_matter(card.read_text(encoding="utf-8"))
    sections = _sections(aim_links(body, card.parent, page_dir, str(card)))
    lines = [
        "## The metric card",
        "",
        f"The reference part of the `{name}` module's card ([`metrics/{name}/README.md`]"
        f"({forge_home()}/blob/main/metrics/{name}/README.md)), which the Hub and the Space's Learn tab show.",
        "",
    ]
    for title in CARD_SECTIONS:
        if title in sections:
            lines += [f"### {title}", "", sections[title].strip(), ""]
    return "\n".join(lines)


def speed_script(file_name: str) -> str:
    script = SPEED_SCRIPTS / file_name
    if not script.is_file():
        log.warning(f"<!-- speed script: {file_name} -->: there is no {script}")
        return ""
    docstring = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or ""
    summary, _, rest = docstring.partition("\n\n")
    # Only blank lines are stripped from the rest: usage lines, indented, stay a code block.
    return "\n".join([f"`perf/{file_name}`: {' '.join(summary.split())}", "", rest.strip("\n"), ""])


def other_speed_scripts(markdown: str) -> str:
    named = {match[2] for match in _MARKER.finditer(markdown) if match[1] == "speed script"}
    others = sorted(path.name for path in SPEED_SCRIPTS.glob("*.py") if path.name not in named)
    if not others:
        return ""
    return "\n".join(["## Other speed scripts", "", *(f"### `{name}`\n\n{speed_script(name)}" for name in others)])


def public_scoring_functions() -> str:
    from corefbias import measures

    # Under the page's own section heading, each named as it is imported: corefbias.<name>.
    options = "    options:\n      heading_level: 3\n      show_root_full_path: false"
    return "\n\n".join(f"::: corefbias.measures.{name}.{name}\n{options}" for name in measures.PUBLIC_SCORES)


def built_in_benchmarks() -> dict:
    """Name → declaration of every benchmark on a set of ``BUILDERS`` (not a plugin's builders or export folder)."""
    from corefbias.benchmarks import BENCHMARKS

    return {
        name: benchmark
        for name, benchmark in BENCHMARKS.items()
        if benchmark.builders is None and benchmark.export is None
    }


def test_set_table() -> str:
    """One row per set folder: its configs, the benchmarks declared on it (with their language) and its source."""
    from corefbias.data import hub_export, upstream

    lines = ["| set | configs | benchmarks | source |", "|---|---|---|---|"]
    for name in set_names():
        builder = hub_export.builder_class(name, BUILDERS)
        benchmarks = ", ".join(
            f"`{benchmark.name}` ({benchmark.language})"
            for benchmark in built_in_benchmarks().values()
            if benchmark.dataset == name
        )
        sources = ", ".join(
            f"[{source['repository']}](https://github.com/{source['repository']})"
            for source in map(upstream.dataset_source, hub_export.config_sources(name, builder))
        )
        configs = ", ".join(f"`{config}`" for config in builder.builder_configs)
        lines.append(f"| [`{name}`]({name}.md) | {configs} | {benchmarks or '—'} | {sources} |")
    return "\n".join(lines)


def blocks_table() -> str:
    """One row per benchmark: the unit its bootstrap keeps whole and the blocks it draws (their columns, and whether
    crossed or linked), with a link to the card's section saying why."""
    lines = ["| benchmark | unit | blocks drawn whole | columns | why |", "|---|---|---|---|---|"]
    for name, benchmark in built_in_benchmarks().items():
        design = benchmark.blocks
        if design is None:
            blocks, columns = "each unit", f"`{benchmark.unit}`"
        else:
            if design.linked:
                kind = " (linked by " + ", ".join(design.columns[1:]) + ")"
            else:
                kind = " (crossed)" if len(design.columns) > 1 else ""
            blocks = design.describe() + kind
            columns = ", ".join(f"`{column}`" for column in design.columns)
        why = f"[{benchmark.dataset} card](test_sets/{benchmark.dataset}.md#significance-what-is-resampled)"
        lines.append(f"| `{name}` | `{benchmark.unit}` | {blocks} | {columns} | {why} |")
    return "\n".join(lines)


def quick_runs_table() -> str:
    """One row per benchmark: what ``--limit N`` keeps of it, in its declaration's words (``limit_meaning``);
    benchmarks that keep alike share a row."""
    rows: dict[str, list[str]] = {}
    for name, benchmark in built_in_benchmarks().items():
        rows.setdefault(benchmark.limit_meaning, []).append(f"`{name}`")
    lines = ["| benchmark | `--limit N` keeps |", "|---|---|"]
    lines += [f"| {', '.join(names)} | {meaning} |" for meaning, names in rows.items()]
    return "\n".join(lines)


def report_plots(page_dir: Path) -> str:
    """Every run plot of ``docs/images/report/``, by name, each under its title."""
    from PIL import Image

    blocks = []
    for path in sorted(REPORT_IMAGES.glob("*.png")):
        if path.name in COMPARISON_IMAGES:
            continue
        with Image.open(path) as image:
            title = image.text.get("Title") or path.stem
        blocks.append(f"{title}:\n\n![{title}]({os.path.relpath(path, page_dir)})")
    return "\n\n".join(blocks)


def expand_markers(markdown: str, page_dir: Path) -> str:
    def expand(match: re.Match) -> str:
        kind, argument = match[1], match[2]
        if kind == "metric card":
            return metric_card(argument, page_dir)
        if kind == "speed script":
            return speed_script(argument)
        if kind == "other speed scripts":
            return other_speed_scripts(markdown)
        if kind == "test sets":
            return test_set_table()
        if kind == "measures":
            return measures_table()
        if kind == "blocks":
            return blocks_table()
        if kind == "quick runs":
            return quick_runs_table()
        if kind == "report plots":
            return report_plots(page_dir)
        return public_scoring_functions()

    return _MARKER.sub(expand, markdown)


# ----- the hooks ---------------------------------------------------------------------------------------------


def _extend_nav_section(config, title: str, entries: list[dict]) -> None:
    section = next((item for item in config["nav"] if isinstance(item, dict) and title in item), None)
    if section is None:
        log.warning(f"the nav has no section {title!r} for its generated pages")
        return
    section[title] += entries


def on_config(config):
    # Set after mkdocs derived its defaults from the config file, so the name is derived here too.
    config["repo_url"] = forge_home()
    config["repo_name"] = forge_home().split("://", 1)[-1].split("/", 1)[-1]
    _extend_nav_section(config, MEASURES_SECTION, measures_nav())
    _extend_nav_section(
        config, TEST_SETS_SECTION, [{set_title(name): f"{TEST_SETS_FOLDER}/{name}.md"} for name in set_names()]
    )
    return config


def on_files(files, config):
    for name in set_names():
        files.append(File.generated(config, f"{TEST_SETS_FOLDER}/{name}.md", content=set_page(name)))
    for name in measure_names():
        files.append(File.generated(config, f"{MEASURES_FOLDER}/{name}.md", content=measure_page(name)))
    contributing = REPO / "CONTRIBUTING.md"
    content = aim_links(contributing.read_text(encoding="utf-8"), REPO, DOCS, str(contributing))
    files.append(File.generated(config, "contributing.md", content=content))
    return files


def on_page_markdown(markdown, page, config, files):
    if page.file.abs_src_path is None:  # generated above, its links already aimed
        return expand_markers(markdown, DOCS / Path(page.file.src_uri).parent)
    source_dir = Path(page.file.abs_src_path).parent
    return aim_links(expand_markers(markdown, source_dir), source_dir, source_dir, page.file.src_uri)
