"""Model outputs per (model identity, set, config, split, instance), in an SQLite file that survives interruption.

Each batch is committed as soon as the model has answered it, so a run that is stopped loses at
most the batch in flight, and a re-run finds every committed answer and asks the model only for
the rest. Stored outputs are JSON: clusters for a cluster model, a choice for a choice model.
Shards run on other processes or machines write their own files; ``merge`` combines them, and a
run over the merged file then scores the whole set exactly as a single run would.

A file that is not a prediction cache, or is damaged (truncated, overwritten), is a ``CacheError`` naming it,
whether it is opened, read, written or merged.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from .output_checks import output_problem

# How a run uses the cache (runner.RunSettings.cache_mode): take sound parsed answers and store new ones (unparsed
# ones are asked again), take unparsed ones too, ask everything again and overwrite, or neither read nor write.
CACHE_MODES = ("use", "use-unparsed", "refresh", "off")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS predictions (
    model TEXT NOT NULL, dataset TEXT NOT NULL, config TEXT NOT NULL, split TEXT NOT NULL,
    instance TEXT NOT NULL, output TEXT NOT NULL,
    PRIMARY KEY (model, dataset, config, split, instance)
)
"""


def default_path() -> Path:
    root = os.environ.get("COREFBIAS_CACHE") or Path.home() / ".cache" / "corefbias"
    return Path(root) / "predictions.sqlite"


class CacheError(RuntimeError):
    """A prediction cache that cannot be used: not a cache, damaged, or missing where it must exist."""


@contextlib.contextmanager
def _reading(path: Path) -> Iterator[None]:
    """SQLite's complaints about a file (not a database, malformed, no predictions table) as a ``CacheError``."""
    try:
        yield
    except sqlite3.DatabaseError as error:  # OperationalError included: no such table, unable to open
        raise CacheError(
            f"{path} is not a usable prediction cache ({error}): name another --cache, or move this file away "
            "(its answers are then asked again)"
        ) from None


class PredictionCache:
    """Key = (model key, dataset, config, split), the model key from its identity (``runner.cache_key``);
    values per instance id."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else default_path()
        if self.path.is_dir():
            raise CacheError(f"{self.path} is a folder; the prediction cache is a file (e.g. predictions.sqlite)")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise CacheError(f"cannot make the folder of the prediction cache {self.path}: {error}") from None
        with _reading(self.path):
            # A URI, so that merge can attach its sources read-only.
            self._connection = sqlite3.connect(self.path.absolute().as_uri(), timeout=60, uri=True)
            # WAL with synchronous=NORMAL: a commit survives the process being killed (not a power cut),
            # which is what resuming needs, without an fsync per batch.
            self._connection.execute("PRAGMA journal_mode=WAL")
            self._connection.execute("PRAGMA synchronous=NORMAL")
            self._connection.execute(_SCHEMA)
            self._connection.commit()

    def get(self, key: tuple[str, str, str, str], instances: Iterable[str]) -> dict[str, object]:
        """The stored outputs of those instances that have one (one that is not JSON counts as none)."""
        instances = list(instances)
        found = {}
        with _reading(self.path):
            for start in range(0, len(instances), 500):
                chunk = instances[start : start + 500]
                rows = self._connection.execute(
                    "SELECT instance, output FROM predictions WHERE model=? AND dataset=? AND config=? AND split=? "
                    f"AND instance IN ({','.join('?' * len(chunk))})",
                    (*key, *chunk),
                )
                for instance, output in rows:
                    with contextlib.suppress(ValueError, TypeError):  # asked again, and overwritten
                        found[instance] = json.loads(output)
        return found

    def put(self, key: tuple[str, str, str, str], outputs: dict[str, object]) -> None:
        """Store and commit the outputs of one batch."""
        with _reading(self.path), self._connection:
            self._connection.executemany(
                "INSERT OR REPLACE INTO predictions VALUES (?, ?, ?, ?, ?, ?)",
                [(*key, instance, json.dumps(output)) for instance, output in outputs.items()],
            )

    def count(self) -> int:
        with _reading(self.path):
            return self._connection.execute("SELECT COUNT(*) FROM predictions").fetchone()[0]

    def check(self, instances: Callable[[str, str, str], Mapping[str, dict] | None] | None = None) -> list[str]:
        """What is wrong with the file: SQLite's ``PRAGMA integrity_check``, then every stored output read as JSON
        and checked as an answer (``output_checks.output_problem``), against its instance where ``instances``
        gives it.

        A run killed at any moment, or several runs writing at once, must leave a file that passes: a
        resumed run trusts every answer it finds (and checks each against its instance as it reads it).

        Parameters
        ----------
        instances : callable, optional
            ``instances(dataset, config, split)``: that part's instance rows by id (None where unknown), e.g.
            from the exported sets; without it, outputs are checked by their own shape and types only.

        Returns
        -------
        list of str
            One line per problem found; empty when the file is sound.

        Examples
        --------
        >>> import os, tempfile
        >>> key = ("model", "winogender", "default", "test")
        >>> with tempfile.TemporaryDirectory() as folder, PredictionCache(os.path.join(folder, "p.sqlite")) as cache:
        ...     cache.put(key, {"1": {"choice": 0, "parsed": True}, "2": {"choice": 3, "parsed": True}})
        ...     print(cache.check())
        ...     cache.put(key, {"3": {"choice": None, "parsed": "no"}})
        ...     print(*cache.check(lambda *part: {"2": {"text": "Ann met Bo.", "candidates": [{}, {}]}}), sep="\\n")
        []
        ('model', 'winogender', 'default', 'test', '2'): choice 3, but the instance has 2 candidates (0 to 1, ...)
        ('model', 'winogender', 'default', 'test', '3'): parsed must be true or false, got 'no'
        """
        problems = []
        parts: dict[tuple[str, str, str], Mapping[str, dict] | None] = {}
        try:
            problems += [line for (line,) in self._connection.execute("PRAGMA integrity_check") if line != "ok"]
            rows = self._connection.execute("SELECT model, dataset, config, split, instance, output FROM predictions")
            for *key, output in rows:
                part = tuple(key[1:4])
                if instances is not None and part not in parts:
                    parts[part] = instances(*part)
                row = (parts.get(part) or {}).get(key[4])
                try:
                    problem = output_problem(json.loads(output), row)
                except (ValueError, TypeError) as error:
                    problem = f"the stored output is not JSON ({error})"
                if problem:
                    problems.append(f"{tuple(key)}: {problem}")
        except sqlite3.DatabaseError as error:  # a file too damaged to read through
            problems.append(f"{self.path}: {error}")
        return problems

    def close(self) -> None:
        self._connection.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def merge(sources: Iterable[str | os.PathLike], target: str | os.PathLike) -> int:
    """Copy every prediction of ``sources`` into ``target``; returns the rows in ``target``.

    Two files holding different outputs for the same key is an error: shards must not overlap
    with disagreeing answers. A source that does not exist is an error too (and is not created), as is one
    that is not a prediction cache (``CacheError``).
    """
    sources = [Path(source) for source in sources]
    for source in sources:
        if not source.is_file():
            raise CacheError(f"{source}: no such prediction cache to merge (a shard run writes one with --cache)")
    with PredictionCache(target) as cache:
        connection = cache._connection
        for source in sources:
            # Read-only, by URI: ATTACH would create a missing file.
            with _reading(source):
                connection.execute("ATTACH DATABASE ? AS source", (f"{source.resolve().as_uri()}?mode=ro",))
            try:
                with _reading(source):
                    clash = connection.execute(
                        "SELECT s.model, s.dataset, s.config, s.split, s.instance FROM source.predictions s "
                        "JOIN predictions t USING (model, dataset, config, split, instance) "
                        "WHERE s.output != t.output LIMIT 1"
                    ).fetchone()
                    if clash:
                        raise ValueError(f"{source} and {target} hold different outputs for {clash}; shards must agree")
                    with connection:
                        connection.execute("INSERT OR IGNORE INTO predictions SELECT * FROM source.predictions")
            finally:
                connection.execute("DETACH DATABASE source")
        return cache.count()
