"""Every benchmark corefbias knows: its own, those of installed packages, and those a user registers.

The package's own are found by walking this package, as lm-evaluation-harness walks its tasks folder: every
sub-folder with a ``benchmark.py`` is one set, and that module's ``BENCHMARK`` (or ``BENCHMARKS``, a sequence,
for a set scored as several benchmarks) is registered, in folder-name order. Adding a set is adding a folder;
there is no list to edit. An installed package adds benchmarks through the entry point group
``corefbias.benchmarks`` (each entry point names a ``Benchmark`` or a sequence of them); a folder of declarations
is added by ``corefbias --include DIR`` (``corefbias.harness.extensions``), which calls :func:`register`.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Iterator, Sequence
from importlib import import_module
from pathlib import Path

from ..plugins.registry import Registry
from .declaration import Benchmark

ENTRY_POINT_GROUP = "corefbias.benchmarks"
# Names ``resolve`` expands; no benchmark may take them.
GROUPS = ("all", "english")
FOLDER = Path(__file__).resolve().parent


def set_folders() -> list[str]:
    """The package's set folders (the sub-packages holding a ``benchmark.py``), in name order.

    Examples
    --------
    >>> set_folders()[0], "gap" in set_folders()
    ('abc', True)
    """
    return sorted(
        module.name
        for module in pkgutil.iter_modules([str(FOLDER)])
        if module.ispkg and (FOLDER / module.name / "benchmark.py").is_file()
    )


def _built_in() -> Iterator[Benchmark]:
    for folder in set_folders():
        module = import_module(f"{__package__}.{folder}.benchmark")
        yield from _accept(getattr(module, "BENCHMARKS", None) or module.BENCHMARK, f"{module.__name__}", None)


def _accept(declared, origin: str, name: str | None) -> list[Benchmark]:
    found = list(declared) if isinstance(declared, (list, tuple)) else [declared]
    for benchmark in found:
        if not isinstance(benchmark, Benchmark):
            raise ValueError(f"{origin} declares {benchmark!r}, which is not a corefbias Benchmark")
    return found


def new_registry() -> Registry[Benchmark]:
    """A registry of the package's benchmarks and the entry points', read on first use (``BENCHMARKS`` is one).

    Examples
    --------
    >>> list(new_registry()) == list(BENCHMARKS)
    True
    """
    return Registry(
        "benchmark", ENTRY_POINT_GROUP, _built_in, _accept, reserved=dict.fromkeys(GROUPS, "which names a group")
    )


BENCHMARKS = new_registry()


def register(benchmark: Benchmark, origin: str = "registered") -> None:
    """Add a benchmark declared outside corefbias; ``origin`` says where it came from (``corefbias list``).

    Registering the same declaration again does nothing; another benchmark of a taken name is refused.

    Examples
    --------
    >>> from corefbias.benchmarks import BENCHMARKS, register
    >>> register(BENCHMARKS["gap"])  # the same declaration: nothing changes
    >>> import dataclasses
    >>> register(dataclasses.replace(BENCHMARKS["gap"]))
    Traceback (most recent call last):
    ...
    ValueError: registered declares the benchmark 'gap', already declared by built-in
    """
    BENCHMARKS.register(benchmark, origin)


def resolve(names: Sequence[str]) -> list[Benchmark]:
    """The benchmarks named, in order and once each (``all``: every one, ``english``: the English ones).

    Examples
    --------
    >>> [benchmark.name for benchmark in resolve(["gap", "abc", "gap"])]
    ['gap', 'abc']
    """
    chosen: list[str] = []
    for name in names:
        if name == "all":
            expanded = list(BENCHMARKS)
        elif name == "english":
            expanded = [item for item, benchmark in BENCHMARKS.items() if benchmark.language == "en"]
        else:
            expanded = [name]
        for item in expanded:
            if item not in BENCHMARKS:
                raise ValueError(f"unknown benchmark {item!r}; choose from {', '.join([*GROUPS, *BENCHMARKS])}")
            if item not in chosen:
                chosen.append(item)
    return [BENCHMARKS[name] for name in chosen]
