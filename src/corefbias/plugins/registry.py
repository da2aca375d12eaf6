"""One registry pattern for every kind of extension: benchmarks, model kinds, prediction file formats.

A registry maps names to entries, in order: the package's own (``built_in``, read on first use), those of the
installed distributions' entry points (group ``group``), then those registered at run time. It is loaded once;
while loading fails (an entry point that cannot be imported, a name taken twice), every use fails with the same
error, naming the entry point, rather than the first use failing and later ones returning a partial list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from importlib import metadata
from typing import Generic, TypeVar

Entry = TypeVar("Entry")


class Registry(Mapping[str, Entry], Generic[Entry]):
    """Name → entry: built-in entries, then entry points' entries, then registered ones.

    Parameters
    ----------
    what : str
        What an entry is, in messages (``"benchmark"``, ``"model kind"``).
    group : str
        The entry point group installed distributions declare their entries in.
    built_in : callable
        Returns the package's own entries, read on first use.
    accept : callable
        ``accept(declared, origin, name)`` turns what an entry point (named ``name``) or a program declared into
        entries, raising ``ValueError`` naming ``origin`` for anything else; ``name`` is None outside entry points.
    name_of : callable, default ``lambda entry: entry.name``
        An entry's name.
    reserved : iterable of str, default ()
        Names no entry may take.

    Examples
    --------
    >>> from types import SimpleNamespace as Named
    >>> def accept(declared, origin, name):
    ...     if not isinstance(declared, Named):
    ...         raise ValueError(f"{origin} declares {declared!r}, which is no Named")
    ...     return [declared]
    >>> colours = Registry("colour", "corefbias.colours", lambda: [Named(name="red")], accept, reserved=["all"])
    >>> colours.register(Named(name="blue"), origin="a test")
    >>> list(colours), colours.origin("blue")
    (['red', 'blue'], 'a test')
    >>> colours.register(Named(name="red"), origin="a test")
    Traceback (most recent call last):
    ...
    ValueError: a test declares the colour 'red', already declared by built-in
    """

    def __init__(
        self,
        what: str,
        group: str,
        built_in: Callable[[], Iterable[Entry]],
        accept: Callable[[object, str, str | None], list[Entry]],
        *,
        name_of: Callable[[Entry], str] = lambda entry: entry.name,
        reserved: Iterable[str] = (),
    ):
        self.what = what
        self.group = group
        self._built_in = built_in
        self._accept = accept
        self._name_of = name_of
        self._reserved = tuple(reserved)
        self._registered: list[tuple[Entry, str]] = []
        self._loaded: tuple[dict[str, Entry], dict[str, str], dict[str, str | None]] | None = None

    def _load(self) -> tuple[dict[str, Entry], dict[str, str], dict[str, str | None]]:
        if self._loaded is None:
            entries: dict[str, Entry] = {}
            origins: dict[str, str] = {}
            distributions: dict[str, str | None] = {}
            for entry in self._built_in():
                self._add(entries, origins, distributions, entry, "built-in", "corefbias")
            for entry_point in metadata.entry_points(group=self.group):
                distribution = _distribution(entry_point)
                origin = f"entry point {entry_point.name} of {distribution or 'an unknown distribution'}"
                try:
                    declared = entry_point.load()
                except Exception as error:
                    raise ValueError(f"cannot load the {self.what} {origin} ({entry_point.value}): {error}") from error
                for entry in self._accept(declared, origin, entry_point.name):
                    self._add(entries, origins, distributions, entry, origin, distribution)
            for entry, origin in self._registered:
                self._add(entries, origins, distributions, entry, origin, None)
            # Only a whole load is kept: after a failure the next use loads again, and fails alike.
            self._loaded = entries, origins, distributions
        return self._loaded

    def _add(self, entries, origins, distributions, entry, origin: str, distribution: str | None) -> None:
        name = self._name_of(entry)
        if name in self._reserved:
            raise ValueError(f"{origin}: a {self.what} may not be called {name!r}, which names a group")
        if name in entries:
            raise ValueError(f"{origin} declares the {self.what} {name!r}, already declared by {origins[name]}")
        entries[name], origins[name], distributions[name] = entry, origin, distribution

    def register(self, declared, origin: str = "registered") -> None:
        """Add what a program declares (refused like an entry point's; the same entry again is a no-op)."""
        entries, origins, distributions = self._load()
        for entry in self._accept(declared, origin, None):
            if entries.get(self._name_of(entry)) is entry:
                continue
            self._add(entries, origins, distributions, entry, origin, None)
            self._registered.append((entry, origin))

    def origin(self, name: str) -> str:
        """Where ``name`` comes from: ``built-in``, ``entry point <name> of <distribution>``, or what registered it."""
        return self._load()[1][self._known(name)]

    def distribution(self, name: str) -> str | None:
        """The distribution that provides ``name`` (None for one registered at run time)."""
        return self._load()[2][self._known(name)]

    def _known(self, name: str) -> str:
        if name not in self._load()[0]:
            raise KeyError(name)
        return name

    def __getitem__(self, name: str) -> Entry:
        return self._load()[0][name]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._load()[0]))

    def __len__(self) -> int:
        return len(self._load()[0])


def _distribution(entry_point: metadata.EntryPoint) -> str | None:
    distribution = getattr(entry_point, "dist", None)
    return distribution.name if distribution is not None else None
