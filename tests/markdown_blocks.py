"""The runnable blocks of a Markdown page: a fenced block marked ``pycon`` is a doctest, and a page's blocks run in
order in one namespace. A block marked ``python`` is not run."""

from __future__ import annotations

import contextlib
import doctest
import io
import re
from pathlib import Path

RUNNABLE_BLOCK = re.compile(r"^```pycon\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def run_blocks(page: Path, cwd: Path, name: str | None = None) -> tuple[doctest.TestResults, str]:
    """Run the page's ``pycon`` blocks from ``cwd``; the results and the failures' report.

    Only the blocks' lines are kept, the rest blanked, so that a failure names the line of the Markdown file.
    """
    text = page.read_text(encoding="utf-8")
    kept = [" " * len(line) for line in text.split("\n")]
    for block in RUNNABLE_BLOCK.finditer(text):
        first = text.count("\n", 0, block.start(1))
        for offset, line in enumerate(block[1].rstrip("\n").split("\n")):
            kept[first + offset] = line
    test = doctest.DocTestParser().get_doctest("\n".join(kept), {}, name or page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    with contextlib.chdir(cwd):
        runner.run(test, out=report.write)
    return doctest.TestResults(runner.failures, runner.tries), report.getvalue()
