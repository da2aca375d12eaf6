"""MkDocs hook: the site serves MathJax itself, so its formulas render offline and no page asks another host.

MathJax 3 (Apache-2.0) comes from the ``django-static-mathjax`` package of the ``docs`` extra, a PyPI package that
ships MathJax's release files unchanged (``mathjax/static/mathjax``); the files a page needs are added to the site
under ``javascripts/mathjax/`` at build time, with MathJax's LICENSE, so nothing downloaded is committed.
``tex-mml-chtml.js`` loads what it lacks (TeX extensions, fonts, the menu's accessibility parts) from beside itself.
"""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path

from mkdocs.structure.files import File

SITE_FOLDER = "javascripts/mathjax"
# The combined TeX-input, CommonHTML-output component and what it loads on demand; not the other combinations.
NEEDED = ("tex-mml-chtml.js", "input", "output/chtml", "output/chtml.js", "ui", "a11y", "sre")

log = logging.getLogger("mkdocs.hooks.offline_assets")


def mathjax_release() -> Path | None:
    """The folder of MathJax's release files the installed ``django-static-mathjax`` package holds."""
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax"
    return root if (root / "es5" / "tex-mml-chtml.js").is_file() else None


def on_files(files, config):
    release = mathjax_release()
    if release is None:
        log.warning("MathJax is not installed (pip install -e '.[docs]' brings django-static-mathjax): no formulas")
        return files
    es5 = release / "es5"
    for needed in NEEDED:
        path = es5 / needed
        for source in sorted(path.rglob("*") if path.is_dir() else [path]):
            if source.is_file():
                target = f"{SITE_FOLDER}/{source.relative_to(es5).as_posix()}"
                files.append(File.generated(config, target, abs_src_path=str(source)))
    files.append(File.generated(config, f"{SITE_FOLDER}/LICENSE", abs_src_path=str(release / "LICENSE")))
    return files
