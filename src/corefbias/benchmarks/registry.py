"""Every benchmark corefbias knows: its own, those of installed packages, and those a user registers.

Built-in declarations live in this package, one module per benchmark (``BUILT_IN``). An installed package
adds benchmarks through the entry point group ``corefbias.benchmarks`` (each entry point names a
``Benchmark`` or a sequence of them); a folder of declarations is added by ``corefbias --include DIR``
(``corefbias.harness.extensions``), which calls :func:`register`. Entry points are read on first use.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from importlib import import_module, metadata

from .declaration import Benchmark

BUILT_IN = ("counter_gap", "gap", "winogender", "winobias", "sowinobias", "dawinobias", "abc")
ENTRY_POINT_GROUP = "corefbias.benchmarks"
# Names ``resolve`` expands; no benchmark may take them.
GROUPS = ("all", "english")


class _Registry(Mapping):
    """Name → ``Benchmark``, in declaration order: built-ins, entry points, then registered ones."""

    def __init__(self):
        self._benchmarks: dict[str, Benchmark] = {}
        self._origins: dict[str, str] = {}
        self._loaded = False

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        for module in BUILT_IN:
            self._add(import_module(f".{module}", __package__).BENCHMARK, "built-in")
        for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
            origin = f"entry point {entry_point.name} of {_distribution(entry_point)}"
            try:
                declared = entry_point.load()
            except Exception as error:
                raise ValueError(f"cannot load the benchmark {origin} ({entry_point.value}): {error}") from error
            for benchmark in declared if isinstance(declared, Sequence) else (declared,):
                self._add(benchmark, origin)

    def _add(self, benchmark: Benchmark, origin: str) -> None:
        if not isinstance(benchmark, Benchmark):
            raise ValueError(f"{origin} declares {benchmark!r}, which is not a corefbias Benchmark")
        if benchmark.name in GROUPS:
            raise ValueError(f"{origin}: a benchmark may not be called {benchmark.name!r}, which names a group")
        if benchmark.name in self._benchmarks:
            raise ValueError(
                f"{origin} declares the benchmark {benchmark.name!r}, "
                f"already declared by {self._origins[benchmark.name]}"
            )
        self._benchmarks[benchmark.name] = benchmark
        self._origins[benchmark.name] = origin

    def register(self, benchmark: Benchmark, origin: str) -> None:
        self._load()
        if isinstance(benchmark, Benchmark) and self._benchmarks.get(benchmark.name) is benchmark:
            return
        self._add(benchmark, origin)

    def origin(self, name: str) -> str:
        self._load()
        return self._origins[name]

    def __getitem__(self, name: str) -> Benchmark:
        self._load()
        return self._benchmarks[name]

    def __iter__(self) -> Iterator[str]:
        self._load()
        return iter(list(self._benchmarks))

    def __len__(self) -> int:
        self._load()
        return len(self._benchmarks)


def _distribution(entry_point: metadata.EntryPoint) -> str:
    distribution = getattr(entry_point, "dist", None)
    return distribution.name if distribution is not None else "an unknown distribution"


BENCHMARKS = _Registry()


def register(benchmark: Benchmark, origin: str = "registered") -> None:
    """Add a benchmark declared outside corefbias; ``origin`` says where it came from (``corefbias list``).

    Registering the same declaration again does nothing; another benchmark of a taken name is refused.

    Examples
    --------
    >>> from corefbias.harness.benchmarks import BENCHMARKS, register
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
    >>> [benchmark.name for benchmark in resolve(["winogender", "gap", "winogender"])]
    ['winogender', 'gap']
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
