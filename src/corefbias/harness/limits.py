"""``--limit N``: a small, deterministic subset of a benchmark that keeps its design balanced.

A unit (a quadruple, a minimal pair, a triplet, ...) is kept whole, in every part of the benchmark.
Its *design cell* is the set of (config, split, *balance columns*) values of its rows: on Counter-GAP the
original gender of the quadruple, on WinoBias the type and which pronoun gender is pro, on ABC the
occupation's stereotype, and so on (``Benchmark.balance_columns``). The limit keeps N units of every
cell, so each score sees every group it compares. Within a cell the units are ordered by a hash of
their id, which is a fixed spread over the set: the same N keeps the same units, and a smaller N
keeps a subset of what a larger one keeps (so a quick run's predictions are reused by a longer one).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict

from ..benchmarks import Benchmark


def _hash_order(unit) -> str:
    return hashlib.sha256(str(unit).encode()).hexdigest()


def design_cells(parts: dict, benchmark: Benchmark) -> dict[tuple, list]:
    """Design cell → its units in hash order, for ``parts`` ((config, split) → ``datasets.Dataset``)."""
    signatures: dict = defaultdict(set)
    columns = [benchmark.unit, *benchmark.balance_columns]
    for (config, split), data in parts.items():
        table = data.select_columns(columns).to_dict()
        for index, unit in enumerate(table[benchmark.unit]):
            signatures[unit].add((config, split, *(table[column][index] for column in benchmark.balance_columns)))
    cells: dict[tuple, list] = defaultdict(list)
    for unit, signature in signatures.items():
        cells[tuple(sorted(signature, key=repr))].append(unit)
    return {cell: sorted(units, key=_hash_order) for cell, units in cells.items()}


def limit_units(parts: dict, benchmark: Benchmark, limit: int | None) -> dict:
    """``parts`` restricted to ``limit`` units of every design cell (all of a cell that has fewer)."""
    if limit is None:
        return parts
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a whole number of at least 1 (units per design cell), got {limit!r}")
    kept = {unit for units in design_cells(parts, benchmark).values() for unit in units[:limit]}
    return {
        part: data.filter(
            lambda values: [value in kept for value in values], input_columns=benchmark.unit, batched=True
        )
        for part, data in parts.items()
    }
