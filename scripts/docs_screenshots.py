"""Take the documentation's images again: the Space's screenshots and a run's report plots, into docs/images/.

    python scripts/docs_screenshots.py --mirror ../shared/data [--only screenshots | --only plots]

Screenshots: each ``tests/test_browser_<name>.py`` runs with ``COREFBIAS_ARTIFACTS`` pointing at a temporary
folder, where ``tests/browser.py`` saves every screenshot a test takes as ``screenshots/<test>-<label>.png``;
each becomes ``docs/images/<name>/<label>.png``. The tests need Debian's Chromium and playwright
(``pip install -e '.[test]'``); without them they skip, and this script stops with their reason.

Plots: ``corefbias run --model baseline:stereotype --limit 5`` writes ``plots/*.png``, which become
``docs/images/report/``; a run of ``baseline:random`` compared with it (``corefbias compare``) gives
``forest.png`` there too.

Every image is written palette-quantized (256 colours), which keeps screenshots of text legible at a fraction of
their size in the repository; a plot keeps its ``Title``, the caption the docs show it under.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image
from PIL.PngImagePlugin import PngInfo

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
BROWSER_TESTS = sorted((ROOT / "tests").glob("test_browser_*.py"))
# The run whose plots the docs show: small, and biased enough that its plots show something.
PLOTTED_MODEL, COMPARED_MODEL, LIMIT = "baseline:stereotype", "baseline:random", "5"


def save(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with Image.open(source) as image:
        info = PngInfo()
        for key, value in getattr(image, "text", {}).items():
            info.add_text(key, value)
        image.convert("RGB").quantize(colors=256).save(target, optimize=True, pnginfo=info)
    print(f"{target.relative_to(ROOT)} ({target.stat().st_size // 1024} KiB)")


def take_screenshots(work: Path, mirror: str | None) -> None:
    for test_file in BROWSER_TESTS:
        artifacts = work / test_file.stem
        environment = {**os.environ, "COREFBIAS_ARTIFACTS": str(artifacts)}
        if mirror:  # the tests' mirror fixture reads it (tests/conftest.py)
            environment["COREFBIAS_MIRROR"] = mirror
        command = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(test_file)]
        finished = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True)
        shots = sorted((artifacts / "screenshots").glob("*.png"))
        if finished.returncode != 0 or not shots:
            sys.exit(f"{test_file.name} took no screenshots (pytest exit {finished.returncode}):\n{finished.stdout}")
        name = test_file.stem.removeprefix("test_browser_")
        for shot in shots:
            # tests/browser.py names a screenshot <test name>-<label>.png; test names hold no "-".
            save(shot, IMAGES / name / f"{shot.stem.split('-', 1)[1]}.png")


def corefbias(*arguments: str, mirror: str | None, cache: Path) -> None:
    command = [sys.executable, "-m", "corefbias", *(["--mirror", mirror] if mirror else []), *arguments]
    environment = {**os.environ, "COREFBIAS_CACHE": str(cache)}
    finished = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True)
    if finished.returncode != 0:
        sys.exit(f"corefbias {' '.join(arguments)} failed (exit {finished.returncode}):\n{finished.stderr}")


def make_plots(work: Path, mirror: str | None) -> None:
    runs = {model: work / model.replace(":", "-") for model in (PLOTTED_MODEL, COMPARED_MODEL)}
    for model, out in runs.items():
        corefbias("run", "--model", model, "--limit", LIMIT, "--out", str(out), mirror=mirror, cache=work / "cache")
    comparison = work / "comparison"
    corefbias("compare", *map(str, runs.values()), "--out", str(comparison), mirror=mirror, cache=work / "cache")
    for plot in sorted((runs[PLOTTED_MODEL] / "plots").glob("*.png")):
        save(plot, IMAGES / "report" / plot.name)
    save(comparison / "forest.png", IMAGES / "report" / "forest.png")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", help="the upstream mirror (default: $COREFBIAS_MIRROR, else download)")
    parser.add_argument("--only", choices=("screenshots", "plots"), help="take one kind of image only")
    args = parser.parse_args(argv)
    mirror = str(Path(args.mirror).resolve()) if args.mirror else None  # the commands run from the repository root
    with tempfile.TemporaryDirectory(prefix="corefbias-docs-images-") as work:
        if args.only in (None, "screenshots"):
            take_screenshots(Path(work), mirror)
        if args.only in (None, "plots"):
            make_plots(Path(work), mirror)
    return 0


if __name__ == "__main__":
    sys.exit(main())
