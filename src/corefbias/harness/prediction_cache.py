"""Model outputs per (model identity, set, config, split, instance), in an SQLite file that survives interruption.

Each batch is committed as soon as the model has answered it, so a run that is stopped loses at
most the batch in flight, and a re-run finds every committed answer and asks the model only for
the rest. Stored outputs are JSON: clusters for a cluster model, a choice for a choice model.
Shards run on other processes or machines write their own files; ``merge`` combines them, and a
run over the merged file then scores the whole set exactly as a single run would.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

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


class PredictionCache:
    """Key = (model key, dataset, config, split), the model key from its identity (``runner.cache_key``);
    values per instance id."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else default_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._connection = sqlite3.connect(self.path, timeout=60)
        # WAL with synchronous=NORMAL: a commit survives the process being killed (not a power cut),
        # which is what resuming needs, without an fsync per batch.
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=NORMAL")
        self._connection.execute(_SCHEMA)
        self._connection.commit()

    def get(self, key: tuple[str, str, str, str], instances: Iterable[str]) -> dict[str, object]:
        """The stored outputs of those instances that have one."""
        instances = list(instances)
        found = {}
        for start in range(0, len(instances), 500):
            chunk = instances[start : start + 500]
            rows = self._connection.execute(
                "SELECT instance, output FROM predictions WHERE model=? AND dataset=? AND config=? AND split=? "
                f"AND instance IN ({','.join('?' * len(chunk))})",
                (*key, *chunk),
            )
            found.update((instance, json.loads(output)) for instance, output in rows)
        return found

    def put(self, key: tuple[str, str, str, str], outputs: dict[str, object]) -> None:
        """Store and commit the outputs of one batch."""
        with self._connection:
            self._connection.executemany(
                "INSERT OR REPLACE INTO predictions VALUES (?, ?, ?, ?, ?, ?)",
                [(*key, instance, json.dumps(output)) for instance, output in outputs.items()],
            )

    def count(self) -> int:
        return self._connection.execute("SELECT COUNT(*) FROM predictions").fetchone()[0]

    def check(self) -> list[str]:
        """What is wrong with the file: SQLite's ``PRAGMA integrity_check``, then every stored output read as JSON.

        A run killed at any moment, or several runs writing at once, must leave a file that passes: a
        resumed run trusts every answer it finds.

        Returns
        -------
        list of str
            One line per problem found; empty when the file is sound.

        Examples
        --------
        >>> import os, tempfile
        >>> with tempfile.TemporaryDirectory() as folder, PredictionCache(os.path.join(folder, "p.sqlite")) as cache:
        ...     cache.put(("model", "gap", "default", "test"), {"1": {"choice": 0}})
        ...     cache.check()
        []
        """
        problems = []
        try:
            problems += [line for (line,) in self._connection.execute("PRAGMA integrity_check") if line != "ok"]
            rows = self._connection.execute("SELECT model, dataset, config, split, instance, output FROM predictions")
            for *key, output in rows:
                try:
                    json.loads(output)
                except ValueError as error:
                    problems.append(f"{tuple(key)}: the stored output is not JSON ({error})")
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
    with disagreeing answers.
    """
    with PredictionCache(target) as cache:
        connection = cache._connection
        for source in sources:
            connection.execute("ATTACH DATABASE ? AS source", (str(source),))
            try:
                clash = connection.execute(
                    "SELECT s.model, s.dataset, s.config, s.split, s.instance FROM source.predictions s "
                    "JOIN predictions t USING (model, dataset, config, split, instance) WHERE s.output != t.output "
                    "LIMIT 1"
                ).fetchone()
                if clash:
                    raise ValueError(f"{source} and {target} hold different outputs for {clash}; shards must agree")
                with connection:
                    connection.execute("INSERT OR IGNORE INTO predictions SELECT * FROM source.predictions")
            finally:
                connection.execute("DETACH DATABASE source")
        return cache.count()
