"""Up-front checks of metric inputs; each failure is a ``ValueError`` saying what to fix."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import numpy as np


def check_lengths(**columns: Sequence | None) -> int:
    """All given (non-None) inputs have one entry per instance; returns that count."""
    given = {name: len(values) for name, values in columns.items() if values is not None}
    if len(set(given.values())) > 1:
        listing = ", ".join(f"{name} has {count}" for name, count in given.items())
        raise ValueError(f"inputs must have one entry per instance, but {listing}; pass aligned lists of equal length")
    count = next(iter(given.values()), 0)
    if count == 0:
        raise ValueError(f"no instances given: {', '.join(given)} are empty")
    return count


def check_labels(name: str, values: Sequence, allowed: Collection) -> list:
    """Every value is one of ``allowed``; the error lists the unknown labels and where they are."""
    allowed_set = set(allowed)
    bad = [(index, value) for index, value in enumerate(values) if value not in allowed_set]
    if bad:
        shown = ", ".join(f"{value!r} at index {index}" for index, value in bad[:5])
        more = f" (and {len(bad) - 5} more)" if len(bad) > 5 else ""
        raise ValueError(f"unknown {name}: {shown}{more}; each must be one of {sorted(map(str, allowed_set))}")
    return list(values)


def check_binary_pairs(name: str, values: Sequence) -> np.ndarray:
    """A list of ``[A, B]`` booleans per instance, as an ``(n, 2)`` bool array."""
    for index, value in enumerate(values):
        if value is None or len(value) != 2 or any(item not in (True, False, 0, 1) for item in value):
            raise ValueError(
                f"{name}[{index}] is {value!r}; each entry must be a pair [A, B] of booleans "
                f"(is candidate A / B coreferent with the pronoun)"
            )
    return np.asarray(values, dtype=bool).reshape(len(values), 2)


def check_booleans(name: str, values: Sequence) -> np.ndarray:
    for index, value in enumerate(values):
        if value not in (True, False, 0, 1):
            raise ValueError(f"{name}[{index}] is {value!r}; each entry must be a boolean")
    return np.asarray(values, dtype=bool)


def check_nonempty(groups: Mapping[str, int], what: str) -> None:
    """Each named group has at least one instance."""
    empty = [name for name, count in groups.items() if count == 0]
    if empty:
        raise ValueError(
            f"no instances in group(s) {', '.join(empty)}: {what} needs instances of every group; "
            f"check the labels you passed"
        )


def check_n_bootstrap(n_bootstrap: int, seed: int) -> None:
    if not isinstance(n_bootstrap, (int, np.integer)) or n_bootstrap < 0:
        raise ValueError(
            f"n_bootstrap must be a non-negative integer (0 switches significance off), got {n_bootstrap!r}"
        )
    if not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")


def unit_table(
    unit_ids: Sequence,
    labels: Sequence,
    slots: Sequence,
    *,
    unit: str,
    member: str,
    ids_name: str,
    required: Collection | None = None,
) -> tuple[list, np.ndarray]:
    """Group rows into resampling units (quadruples, triplets, minimal pairs).

    Returns the unit ids in first-seen order and a ``units × len(slots)`` table holding the row of
    each unit's member per slot label, −1 where an optional slot is empty. Raises when a unit id is
    None, a unit has a label twice, or lacks one of the ``required`` labels (default: every slot).
    """
    required = set(slots) if required is None else set(required)
    order: dict = {}
    table: list[list[int]] = []
    for row, (unit_id, label) in enumerate(zip(unit_ids, labels)):
        if unit_id is None:
            raise ValueError(f"{ids_name}[{row}] is None; give every {member} a {unit} id or leave {ids_name} out")
        if unit_id not in order:
            order[unit_id] = len(table)
            table.append([-1] * len(slots))
        slot = table[order[unit_id]]
        position = list(slots).index(label)
        if slot[position] != -1:
            raise ValueError(f"{unit} {unit_id!r} has two {label!r} {member}s (rows {slot[position]} and {row})")
        slot[position] = row
    for unit_id, index in order.items():
        missing = [label for label, row in zip(slots, table[index]) if row == -1 and label in required]
        if missing:
            raise ValueError(
                f"{unit} {unit_id!r} has no {' and no '.join(map(str, missing))} {member}; every {unit} needs one "
                f"{member} of each of {sorted(map(str, required))}"
            )
    return list(order), np.asarray(table, dtype=int)
