"""Which block each resampling unit lies in: the part of a benchmark's design inside which instances are not
independent, so that a bootstrap must draw it whole.

A real model answers the sentences made from one template alike: the same task sentence with other distractors,
the same template with another name, an occupation's schemas in each case, the questions of one document. Resampling
the units inside such a block as if they were independent understates the error (Miller 2024, "Adding Error Bars to
Evals", arXiv 2411.00640, on clustered standard errors). A benchmark therefore declares its blocks
(``corefbias.benchmarks.declaration.Blocks``) and every measure takes them as ``block_ids``, one per instance:

* one id per instance: the blocks are *nested*: each unit (a pair, a template with its pronoun sets) lies in one block
  (an occupation), and the bootstrap draws blocks with replacement, each with all its units;
* a tuple of ids per instance, one per *crossed* factor (SoWinoBias fills one frame with every female- and
  male-stereotyped occupation and every adjective): each factor's levels are drawn with replacement independently,
  and a unit weighs the product of its levels' draws (the pigeonhole bootstrap, Owen 2007, "The pigeonhole bootstrap",
  Annals of Applied Statistics 1(2)), which covers what each factor's levels share.

Without ``block_ids`` every unit is a block of its own, as before blocks existed. Ids are compared as text, as every
id is (``validation.as_id``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import validation


@dataclass(frozen=True)
class Blocks:
    """Each resampling unit's level of each blocking factor.

    Parameters
    ----------
    levels : numpy.ndarray
        Shape ``(units, factors)``: per unit and factor, its level, numbered from 0 within the factor.

    Examples
    --------
    Four pairs in two occupations; and two crossed factors:

    >>> Blocks(np.array([[0], [0], [1], [1]])).sizes
    (2,)
    >>> crossed = Blocks(np.array([[0, 0], [0, 1], [1, 0], [2, 1]]))
    >>> crossed.sizes, crossed.n_blocks, crossed.describe()
    ((3, 2), 2, '3 × 2')
    """

    levels: np.ndarray

    @classmethod
    def per_unit(cls, n_units: int) -> Blocks:
        """Every unit a block of its own: what a measure resamples without ``block_ids``.

        Parameters
        ----------
        n_units : int
            The units.

        Returns
        -------
        Blocks

        Examples
        --------
        >>> Blocks.per_unit(3).sizes
        (3,)
        """
        return cls(np.arange(n_units)[:, None])

    @property
    def sizes(self) -> tuple[int, ...]:
        """The levels of each factor that hold a unit."""
        return tuple(int(np.unique(column).size) for column in self.levels.T)

    @property
    def n_blocks(self) -> int:
        """The fewest levels of any factor: how many blocks an interval rests on (0 without units)."""
        return min(self.sizes) if len(self.levels) else 0

    def describe(self) -> str:
        """The levels per factor in words (``60``, ``16 × 16 × 32``).

        Returns
        -------
        str
        """
        return " × ".join(str(size) for size in self.sizes)

    def kept(self, positions: np.ndarray) -> Blocks:
        """The blocks of the units at ``positions`` (a measure that leaves units out), their levels numbered as
        among all units, so that two scorings of the same data (two models, two prompts) line up by them.

        Parameters
        ----------
        positions : numpy.ndarray
            The positions of the units kept, in their order.

        Returns
        -------
        Blocks

        Examples
        --------
        >>> kept = Blocks(np.array([[0], [1], [2]])).kept(np.array([0, 2]))
        >>> kept.levels.tolist(), kept.sizes
        ([[0], [2]], (2,))
        """
        return Blocks(self.levels[np.asarray(positions, dtype=int)])

    def cells(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The units' rows summed per cell (one combination of levels), and each cell's levels, numbered from 0 within
        each factor among the levels present.

        Parameters
        ----------
        rows : numpy.ndarray
            One row of counts per unit.

        Returns
        -------
        numpy.ndarray
            Shape ``(cells, factors)``: the levels of each cell.
        numpy.ndarray
            Shape ``(cells, columns)``: the rows of its units summed.

        Examples
        --------
        >>> levels, summed = Blocks(np.array([[4], [0], [4]])).cells(np.array([[1.0], [2.0], [4.0]]))
        >>> levels.tolist(), summed.tolist()
        ([[0], [1]], [[2.0], [5.0]])
        """
        numbered = (
            np.column_stack([np.unique(column, return_inverse=True)[1].ravel() for column in self.levels.T])
            if len(self.levels)
            else self.levels
        )
        levels, cell_of_unit = np.unique(numbered, axis=0, return_inverse=True)
        return levels, sum_by(np.asarray(cell_of_unit).ravel(), rows, len(levels))

    @staticmethod
    def joined(parts: Sequence[Blocks | None], positions: Sequence[np.ndarray]) -> Blocks | None:
        """The blocks of the union of several scorings' units (the scorings of two models, or of several prompts,
        each keeping the units at its ``positions``), in the order of the sorted union of the positions.

        Parameters
        ----------
        parts : sequence of Blocks or None
            Each scoring's blocks (None: each unit one, for all of them).
        positions : sequence of numpy.ndarray
            Each scoring's unit positions.

        Returns
        -------
        Blocks or None

        Examples
        --------
        >>> a, b = Blocks(np.array([[0], [1]])), Blocks(np.array([[1], [2]]))
        >>> Blocks.joined([a, b], [np.array([0, 1]), np.array([1, 2])]).levels.tolist()
        [[0], [1], [2]]
        """
        if all(part is None for part in parts):
            return None
        union = np.unique(np.concatenate([np.asarray(where, dtype=int) for where in positions]))
        width = next(part for part in parts if part is not None).levels.shape[1]
        levels = np.zeros((len(union), width), dtype=int)
        for part, where in zip(parts, positions):
            levels[np.searchsorted(union, where)] = part.levels
        return Blocks(levels)


def sum_by(index: np.ndarray, rows: np.ndarray, size: int) -> np.ndarray:
    """The rows summed by their index: what ``np.add.at(np.zeros((size, columns)), index, rows)`` gives, by sorting
    (on 25 000 rows, tens of times faster).

    Parameters
    ----------
    index : numpy.ndarray
        Per row, where it is summed (0 to ``size`` − 1).
    rows : numpy.ndarray
        The rows, shape ``(len(index), columns)``.
    size : int
        How many sums.

    Returns
    -------
    numpy.ndarray
        Shape ``(size, columns)``.

    Examples
    --------
    >>> sum_by(np.array([2, 0, 2]), np.array([[1.0], [2.0], [4.0]]), 3).tolist()
    [[2.0], [0.0], [5.0]]
    """
    rows = np.asarray(rows, dtype=float)
    summed = np.zeros((size, rows.shape[1]))
    if len(index):
        order = np.argsort(index, kind="stable")
        ordered = np.asarray(index)[order]
        starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
        summed[ordered[starts]] = np.add.reduceat(rows[order], starts, axis=0)
    return summed


def check_block_ids(block_ids: Sequence | None) -> list[tuple[str, ...]] | None:
    """Block ids as the measures read them: per instance a tuple of one id per factor, ids as text.

    Parameters
    ----------
    block_ids : list or None
        One id (a non-empty string or an integer) per instance, or one tuple (or list) of such ids per instance,
        of the same length for all, one id per crossed factor; None: no blocks.

    Returns
    -------
    list of tuple of str or None

    Raises
    ------
    ValueError
        If an entry is None or no id, or the entries mix single ids with tuples or give tuples of different lengths.

    Examples
    --------
    >>> check_block_ids(["nurse", 7])
    [('nurse',), ('7',)]
    >>> check_block_ids([("writer", "guard"), ("nurse", "chef")])
    [('writer', 'guard'), ('nurse', 'chef')]
    >>> check_block_ids(["nurse", 3.5])
    Traceback (most recent call last):
    ...
    ValueError: block_ids[1] is 3.5 (float); each entry must be a block id (a non-empty string or an integer), or a \
tuple of them, one per crossed factor
    """
    if block_ids is None:
        return None
    validation.check_column("block_ids", block_ids)
    if all(type(entry) is str and entry for entry in block_ids):  # the common case, one text id each, at once
        return [(entry,) for entry in block_ids]
    expected = (
        "each entry must be a block id (a non-empty string or an integer), or a tuple of them, one per crossed factor"
    )
    checked: list[tuple[str, ...]] = []
    for index, entry in enumerate(block_ids):
        if entry is None:
            raise ValueError(f"block_ids[{index}] is None; give every instance its block, or leave block_ids out")
        parts = tuple(entry) if isinstance(entry, (tuple, list)) else (entry,)
        if not parts or not all(validation.is_id(part) for part in parts):
            raise ValueError(f"block_ids[{index}] is {validation._kind(entry)}; {expected}")
        checked.append(tuple(validation.as_id(part) for part in parts))
    widths = {len(entry) for entry in checked}
    if len(widths) > 1:
        shapes = sorted(widths)
        raise ValueError(
            f"block_ids gives {shapes[0]} id(s) for some instances and {shapes[-1]} for others; give each instance "
            f"one id, or one id per crossed factor for all"
        )
    return checked


def unit_blocks(
    block_ids: Sequence | None, unit_of_instance: Sequence[int], unit_names: Sequence, *, unit: str = "unit"
) -> Blocks | None:
    """Each unit's blocks, from its instances' block ids; every instance of a unit must share them.

    Parameters
    ----------
    block_ids : list or None
        Per instance, its block id or tuple of ids (:func:`check_block_ids` checks them); None: no blocks.
    unit_of_instance : sequence of int
        Per instance, the index of its unit.
    unit_names : sequence
        The units' ids, by index, for messages.
    unit : str, default "unit"
        What a unit is (a pair, a template), for messages.

    Returns
    -------
    Blocks or None
        None where ``block_ids`` is None.

    Raises
    ------
    ValueError
        If the block ids are no ids (:func:`check_block_ids`), or two instances of one unit lie in different blocks.

    Examples
    --------
    >>> unit_blocks(["a", "a", "b", "b"], [0, 0, 1, 2], ["p1", "p2", "p3"], unit="pair").levels.tolist()
    [[0], [1], [1]]
    >>> unit_blocks(["a", "b"], [0, 0], ["p1"], unit="pair")
    Traceback (most recent call last):
    ...
    ValueError: pair 'p1' lies in block 'a' and in block 'b'; the bootstrap draws each pair whole within its block, \
so give every instance of a pair the same block id
    """
    checked = check_block_ids(block_ids)
    if checked is None:
        return None
    units = np.asarray(unit_of_instance, dtype=int)
    seen: dict[int, tuple[str, ...]] = {}
    for unit_index, ids in zip(units.tolist(), checked):
        known = seen.setdefault(unit_index, ids)
        if known != ids:
            shown = [" / ".join(map(repr, value)) for value in (known, ids)]
            raise ValueError(
                f"{unit} {unit_names[unit_index]!r} lies in block {shown[0]} and in block {shown[1]}; the bootstrap "
                f"draws each {unit} whole within its block, so give every instance of a {unit} the same block id"
            )
    ordered = [seen[index] for index in range(len(unit_names))]
    # Levels numbered as first seen, so that ids making every unit a block of its own draw the units as without ids.
    columns = [_first_seen_levels(column) for column in zip(*ordered)]
    return Blocks(np.column_stack(columns) if columns else np.zeros((0, 1), dtype=int))


def _first_seen_levels(ids: Sequence) -> np.ndarray:
    numbering: dict = {}
    return np.fromiter((numbering.setdefault(value, len(numbering)) for value in ids), dtype=int, count=len(ids))


def table_units(table: np.ndarray, n_instances: int) -> np.ndarray:
    """Per instance, the index of its unit in a unit table (``structured_inputs.unit_table``: per unit, the row of
    its member in each slot, −1 where the slot is empty), for :func:`unit_blocks`.

    Parameters
    ----------
    table : numpy.ndarray
        Units × slots, instance rows or −1.
    n_instances : int
        The instances.

    Returns
    -------
    numpy.ndarray
        The unit of every instance.

    Examples
    --------
    >>> table_units(np.array([[0, 1], [3, 2]]), 4).tolist()
    [0, 0, 1, 1]
    """
    units = np.full(n_instances, -1, dtype=int)
    filled = table >= 0
    units[table[filled]] = np.nonzero(filled)[0]
    return units
