"""Where the test sets keep their facts: one folder per set.

Each set's folder (``corefbias/benchmarks/<set>/``, or ``<folder>/<set>/`` of a builders folder that
``--include`` adds) holds its upstream pins (``upstream.json``: repository, commit, license, and each file's
sha256 and size) and the BibTeX of its papers (``citation.bib``). The data layer reads them as files, found by
walking the folders, so adding a set edits no table here, and the data layer imports nothing above itself.
"""

from __future__ import annotations

import os
from pathlib import Path

# The package's own sets: the folders of ``corefbias.benchmarks``.
BUILT_IN = Path(__file__).resolve().parents[1] / "benchmarks"
_added: list[Path] = []


def add_folder(folder: str | os.PathLike) -> None:
    """Also read the sets' facts from ``folder`` (which holds one sub-folder per set).

    Examples
    --------
    >>> add_folder(BUILT_IN)  # already read: nothing changes
    >>> folders()[0] == BUILT_IN
    True
    """
    path = Path(folder).resolve()
    if path != BUILT_IN and path not in _added:
        _added.append(path)


def folders() -> tuple[Path, ...]:
    """The folders whose sets' facts are read: the package's own first, then those added, in order."""
    return (BUILT_IN, *_added)


def files(name: str) -> list[Path]:
    """Every ``<set>/<name>`` file of the folders, the package's sets first, each folder's in name order.

    Examples
    --------
    >>> {"abc", "gap"} <= {path.parent.name for path in files("upstream.json")}
    True
    """
    return [path for folder in folders() for path in sorted(folder.glob(f"*/{name}"))]
