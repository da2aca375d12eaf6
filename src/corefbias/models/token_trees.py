"""The prefix-tree layout (``hf_causal_lm``): every token a batch of cloze requests needs, computed once, packed in
rows of a fixed width with no padding between them.

A request needs its context and, per option, the option's tokens but its last (the last is only ever a target).
Each such *sequence* (context + option[:-1]) goes into a row after the one before it, sharing the tokens it has in
common with that one: consecutive sequences form a tree in the row, laid out depth-first, so that a token's
descendants follow it in one block (``TreeRows.ends``). A token attends to its ancestors and itself; its position
is its depth. Requests sorted by context put the options of a context, and the contexts that begin alike, next to
each other, so that a prefix several of them share is computed once per row. A sequence that shares nothing with
the one before it, or does not fit after it, goes whole into the first row with room for it (``Rows``). An option's
log-likelihood is read from the positions of its context's last token and its own tokens but the last
(``TreeRows.positions`` and ``targets``). Plain token ids in, plain indices out: no model and no torch here.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field

from .token_batches import Item, common_prefix


def sequences(item: Item) -> list[tuple[list[int], int]]:
    """The sequences ``item`` needs, each with the option it serves, the options in token order.

    Examples
    --------
    >>> sequences(([1, 2], [[9, 8], [3]]))
    [([1, 2], 1), ([1, 2, 9], 0)]
    """
    context, options = item
    return sorted(((context + tokens[:-1], option) for option, tokens in enumerate(options)), key=lambda s: s[0])


def longest_sequence(item: Item) -> int:
    """The longest sequence ``item`` needs (its context and its longest option but one token)."""
    context, options = item
    return len(context) + max(len(tokens) for tokens in options) - 1


def row_width(items: Sequence[Item], row_tokens: int) -> int:
    """The rows' width for a batch of ``items``: ``row_tokens``, or the longest sequence if it is longer."""
    return max(row_tokens, max(map(longest_sequence, items)))


@dataclass
class TreeRows:
    """A batch packed in rows: per row its tokens, their depths (positions) and where each token's descendants end
    (``ends``: token ``j`` is an ancestor of ``i`` if ``j <= i < ends[j]``); per scored position ``(row, column)``,
    and per option's token a ``(position number, target token, option number)`` triple (options numbered across
    the batch's items, in order)."""

    width: int
    tokens: list[list[int]] = field(default_factory=list)
    depths: list[list[int]] = field(default_factory=list)
    ends: list[list[int]] = field(default_factory=list)
    positions: list[tuple[int, int]] = field(default_factory=list)
    targets: list[tuple[int, int, int]] = field(default_factory=list)


class Rows:
    """Where each next sequence goes: in the row of the one before it, after the tokens the two share, while that row
    has room; else (or if they share nothing) whole, in the first row with room for it, a new one if none has."""

    def __init__(self, width: int):
        self.width, self.fills, self.row, self.previous = width, [], None, None

    @property
    def tokens(self) -> int:
        """The tokens the rows hold, padding included: what a batch's budget bounds."""
        return len(self.fills) * self.width

    def __copy__(self) -> Rows:
        copied = Rows(self.width)
        copied.fills, copied.row, copied.previous = list(self.fills), self.row, self.previous
        return copied

    def place(self, sequence: list[int]) -> tuple[int, int]:
        """The row ``sequence`` goes in, and the tokens of it found already computed there."""
        shared = 0 if self.row is None else common_prefix(self.previous, sequence)
        if not shared or self.fills[self.row] + len(sequence) - shared > self.width:
            shared = 0
            rooms = (row for row, fill in enumerate(self.fills) if fill + len(sequence) <= self.width)
            self.row = next(rooms, len(self.fills))
            if self.row == len(self.fills):
                self.fills.append(0)
        self.fills[self.row] += len(sequence) - shared
        self.previous = sequence
        return self.row, shared


def pack(items: Sequence[Item], row_tokens: int) -> TreeRows:
    """``items`` (in order) in rows of ``row_width(items, row_tokens)`` tokens (``Rows``).

    Examples
    --------
    >>> rows = pack([([1, 2, 3], [[4], [5, 6]]), ([1, 2, 7], [[4]]), ([8], [[9]])], row_tokens=6)
    >>> rows.tokens, rows.depths, rows.ends  # 1 2 3 computed once for both options, 1 2 once for both contexts
    ([[1, 2, 3, 5, 7, 8]], [[0, 1, 2, 3, 2, 0]], [[5, 5, 4, 4, 5, 6]])
    >>> rows.positions, rows.targets  # option 1's tokens 5 and 6 read after 3 and after 5
    ([(0, 2), (0, 3), (0, 4), (0, 5)], [(0, 4, 0), (0, 5, 1), (1, 6, 1), (2, 4, 2), (3, 9, 3)])
    """
    width = row_width(items, row_tokens)
    rows, placing = TreeRows(width), Rows(width)
    path: list[int] = []  # the columns of the sequence before, in its row
    at: dict[tuple[int, int], int] = {}
    first_option = 0
    for context, options in items:
        for sequence, option in sequences((context, options)):
            row, shared = placing.place(sequence)
            if row == len(rows.tokens):
                rows.tokens.append([]), rows.depths.append([])
            tokens, depths = rows.tokens[row], rows.depths[row]
            path = path[:shared] + list(range(len(tokens), len(tokens) + len(sequence) - shared))
            tokens.extend(sequence[shared:])
            depths.extend(range(shared, len(sequence)))
            for step, target in enumerate(options[option]):
                position = (row, path[len(context) - 1 + step])
                rows.targets.append((at.setdefault(position, len(at)), target, first_option + option))
        first_option += len(options)
    rows.positions = list(at)
    rows.ends = [subtree_ends(depths) for depths in rows.depths]
    return rows


def subtree_ends(depths: list[int]) -> list[int]:
    """Per token of a row laid out depth-first, the column after its last descendant.

    Examples
    --------
    >>> subtree_ends([0, 1, 2, 1, 0])
    [4, 3, 3, 4, 5]
    """
    ends, open_ = [len(depths)] * len(depths), []
    for column, depth in enumerate(depths):
        while open_ and depths[open_[-1]] >= depth:
            ends[open_.pop()] = column
        open_.append(column)
    return ends


def scored_count(item: Item) -> int:
    """At most how many positions ``item``'s options are read from: per option its context's last (options that
    land in one row share it) and its own tokens but the last."""
    return sum(len(tokens) for tokens in item[1])


def tree_batches(
    encoded: Sequence[Item], indices: Sequence[int], budget: int, row_tokens: int, most_scored: int
) -> list[list[tuple[int, int]]]:
    """``indices`` of ``encoded`` in batches as ``(request index, 0)`` (``token_batches``'s shape), each at most
    ``budget`` tokens packed (``pack``: rows times their width) and ``most_scored`` scored positions.

    Requests whose sequences all fit in ``row_tokens`` come first, sorted by context; then the longer ones, longest
    first, in rows as wide as a batch's first. A single request larger than the budget is a batch of its own.

    Examples
    --------
    >>> encoded = [([1, 2, 3], [[4]]), ([1, 2, 4], [[4]]), ([8], [[4, 5, 6, 7, 8, 9]])]
    >>> tree_batches(encoded, range(3), budget=4, row_tokens=4, most_scored=10)  # 1 2 3 4: one row of four
    [[(0, 0), (1, 0)], [(2, 0)]]
    """
    short = sorted((i for i in indices if longest_sequence(encoded[i]) <= row_tokens), key=lambda i: encoded[i][0])
    long = sorted(set(indices) - set(short), key=lambda i: -longest_sequence(encoded[i]))
    batches: list[list[tuple[int, int]]] = []
    batch: list[tuple[int, int]] = []
    rows, scored = None, 0
    for index in short + long:
        item = encoded[index]
        grown = placed(rows, item, row_tokens)
        if batch and (
            longest_sequence(item) > rows.width or grown.tokens > budget or scored + scored_count(item) > most_scored
        ):
            batches.append(batch)
            batch, scored, grown = [], 0, placed(None, item, row_tokens)
        batch.append((index, 0))
        rows, scored = grown, scored + scored_count(item)
    if batch:
        batches.append(batch)
    return batches


def footprint(items: Sequence[Item], row_tokens: int) -> int:
    """The tokens a batch of ``items`` holds packed (``pack``): its rows times their width.

    Examples
    --------
    >>> footprint([([1, 2, 3], [[4], [5, 6]]), ([8], [[9]])], row_tokens=4)  # 1 2 3 5, then 8
    8
    """
    width, grown = row_width(items, row_tokens), None
    for item in items:
        grown = placed(grown, item, width)
    return grown.tokens


def placed(rows: Rows | None, item: Item, row_tokens: int) -> Rows:
    """A copy of ``rows`` (None: a new batch's) after ``item``'s sequences."""
    grown = copy.copy(rows) if rows is not None else Rows(row_width([item], row_tokens))
    for sequence, _ in sequences(item):
        grown.place(sequence)
    return grown
