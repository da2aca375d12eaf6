"""Recomputing published tables from the published system outputs (``corefbias reproduce``).

Each module of this package with a ``report(mirror, n_bootstrap, seed)`` function is one reproduction, named
after its module (``counter_gap`` → ``corefbias reproduce counter-gap``) and described by its docstring's first
sentence.

May import ``corefbias.measures``, ``corefbias.data``, ``corefbias.benchmarks`` and ``corefbias.harness``; never
``hub``, ``space`` or ``cli``.
"""

from __future__ import annotations

import pkgutil
from importlib import import_module


def reproductions() -> dict[str, str]:
    """Each reproduction's command name → its module under ``corefbias.reproduce``.

    Examples
    --------
    >>> reproductions()["gap-on-gap"]
    'corefbias.reproduce.gap_on_gap'
    """
    return {
        info.name.replace("_", "-"): f"{__name__}.{info.name}"
        for info in pkgutil.iter_modules(__path__)
        if hasattr(import_module(f"{__name__}.{info.name}"), "report")
    }
