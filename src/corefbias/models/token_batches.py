"""How a causal language model's cloze requests are packed into forward passes (``hf_causal_lm``).

Two layouts. *Prefix sharing*: contexts that share their first tokens in groups that compute them once
(``shared_prefix_groups``), whole groups in batches of at most a budget of tokens (``token_batches``,
``footprint``), and where each context's shared prefix pass ends (``split_points``). *Right-padded*: contexts
sorted by length in batches of at most the budget (``length_sorted_batches``), so that padding only follows a
context's tokens, where a causal model's attention cannot reach back to it, and the pass needs no mask. Both
feed the options' tails in passes of similar length (``tail_passes``). (The third layout, prefix trees packed in
rows, is ``token_trees``'s.) Plain token ids in, plain indices out: no model and no torch here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MAX_GROUP = 256  # contexts computing one shared prefix

Item = tuple[list[int], list[list[int]]]  # a context's tokens and each option's
MIN_SHARED = 4  # tokens a group's contexts must share to compute them once


@dataclass(frozen=True)
class Footprint:
    """What a batch's footprint (``footprint``) is made of, grown one item at a time (``plus``)."""

    rows: int = 0
    width: int = 0
    tails: int = 0
    longest_tail: int = 0

    def plus(self, item: Item) -> Footprint:
        context, options = item
        tails = [len(tokens) - 1 for tokens in options if len(tokens) > 1]
        return Footprint(
            self.rows + 1, max(self.width, len(context)), self.tails + len(tails), max([self.longest_tail, *tails])
        )

    def plus_all(self, items: Sequence[Item]) -> Footprint:
        size = self
        for item in items:
            size = size.plus(item)
        return size

    @property
    def tokens(self) -> int:
        return self.rows * self.width + self.tails * (self.width + self.longest_tail)


def footprint(items: Sequence[Item]) -> int:
    """The tokens a batch of ``items`` holds: its rows times its widest context, plus per option of more than
    one token a copy of that width and its tail (pass C), padded to the longest tail.

    Examples
    --------
    >>> footprint([([1, 2, 3], [[7], [8, 9]]), ([4, 5], [[7], [8]])])  # 2 rows × 3, one tail row of 3 + 1
    10
    """
    return Footprint().plus_all(items).tokens


def token_batches(encoded: Sequence[Item], indices: Sequence[int], budget: int) -> list[list[tuple[int, int]]]:
    """``indices`` of ``encoded`` in batches of ``(request index, tokens its context shares with its group's)``.

    Whole groups of a shared prefix (``shared_prefix_groups``; a group too large for ``budget`` is cut, and a
    piece of one shares nothing), the widest unshared rest first, each batch as many consecutive groups as fit
    in ``budget`` tokens (``footprint``); a single request larger than the budget is a batch of its own.

    Examples
    --------
    >>> shared = [1, 2, 3, 4, 5]
    >>> encoded = [(shared + [6], [[7]]), (shared + [8], [[7]]), ([9, 9], [[7]])]
    >>> token_batches(encoded, range(3), budget=12)  # unshared rests of 2 tokens, then of 1
    [[(2, 0)], [(0, 5), (1, 5)]]
    >>> token_batches(encoded, range(3), budget=6)  # too small for the group: it is cut
    [[(0, 0)], [(1, 0)], [(2, 0)]]
    """
    indices = list(indices)
    groups: list[tuple[list[int], int]] = []
    for members, shared in shared_prefix_groups([encoded[index][0] for index in indices], MAX_GROUP):
        members = [indices[member] for member in members]
        if footprint([encoded[member] for member in members]) <= budget:
            groups.append((members, shared))
            continue
        piece: list[int] = []
        for member in members + [None]:
            if member is None or (piece and footprint([encoded[i] for i in piece + [member]]) > budget):
                groups.append((piece, shared if len(piece) > 1 else 0))
                piece = []
            if member is not None:
                piece.append(member)
    groups.sort(key=lambda group: (-max(len(encoded[i][0]) for i in group[0]) + group[1], -group[1]))
    batches: list[list[tuple[int, int]]] = []
    batch: list[tuple[int, int]] = []
    size = Footprint()
    for members, shared in groups:
        grown = size.plus_all([encoded[index] for index in members])
        if batch and grown.tokens > budget:
            batches.append(batch)
            batch, grown = [], Footprint().plus_all([encoded[index] for index in members])
        batch += [(index, shared) for index in members]
        size = grown
    if batch:
        batches.append(batch)
    return batches


def length_sorted_batches(encoded: Sequence[Item], indices: Sequence[int], budget: int) -> list[list[tuple[int, int]]]:
    """``indices`` of ``encoded``, longest context first, in batches of at most ``budget`` tokens (``footprint``)
    as ``(request index, 0)``: nothing shared, so that the batches have ``token_batches``'s shape. A single
    request larger than the budget is a batch of its own.

    Examples
    --------
    >>> encoded = [([1, 2], [[7]]), ([1, 2, 3, 4], [[7]]), ([5, 6, 7], [[7]]), ([8], [[7, 9]])]
    >>> length_sorted_batches(encoded, range(4), budget=8)  # 2 rows × 4 tokens, then 3 rows × 2 and a tail of 2
    [[(1, 0), (2, 0)], [(0, 0), (3, 0)]]
    """
    batches: list[list[tuple[int, int]]] = []
    batch: list[int] = []
    size = Footprint()
    for index in sorted(indices, key=lambda index: -len(encoded[index][0])):
        grown = size.plus(encoded[index])
        if batch and grown.tokens > budget:
            batches.append([(i, 0) for i in batch])
            batch, grown = [], Footprint().plus(encoded[index])
        batch.append(index)
        size = grown
    if batch:
        batches.append([(i, 0) for i in batch])
    return batches


def tail_passes(tail_lengths: Sequence[int], most_tokens: int) -> list[list[int]]:
    """Options (by position in ``tail_lengths``) in passes that feed their tails: tails of one range of
    lengths together (1, 2–3, 4–7, 8–15, … tokens), each pass padded to its longest tail and holding at most
    ``most_tokens`` tail tokens (at least one option). Padding a pass to the batch's longest tail instead would
    more than double the tail tokens computed over the seven original benchmarks.

    Examples
    --------
    >>> tail_passes([1, 9, 2, 1, 3], most_tokens=100)
    [[0, 3], [2, 4], [1]]
    >>> tail_passes([1, 1, 1], most_tokens=2)
    [[0, 1], [2]]
    """
    by_length: dict[int, list[int]] = {}
    for option, length in enumerate(tail_lengths):
        by_length.setdefault(length.bit_length(), []).append(option)
    passes: list[list[int]] = []
    for _, options in sorted(by_length.items()):
        longest = max(tail_lengths[option] for option in options)
        step = max(1, most_tokens // longest)
        passes.extend(options[start : start + step] for start in range(0, len(options), step))
    return passes


def common_prefix(first: list[int], second: list[int]) -> int:
    length = 0
    for a, b in zip(first, second):
        if a != b:
            break
        length += 1
    return length


def shared_prefix_groups(contexts: list[list[int]], largest: int) -> list[tuple[list[int], int]]:
    """Contexts (by index) in groups of at most ``largest`` that share a prefix, and its length in tokens.

    In lexicographic order, a context joins the group before it while the tokens the group saves (the
    shared length times the members after the first) do not drop and at least ``MIN_SHARED`` are shared;
    every member keeps at least its last token out of the prefix, and a group of one shares nothing.
    """
    groups: list[tuple[list[int], int]] = []
    members: list[int] = []
    shared = 0
    for index in sorted(range(len(contexts)), key=lambda i: contexts[i]):
        if members:
            joined = min(shared, common_prefix(contexts[members[0]], contexts[index]), len(contexts[index]) - 1)
            if len(members) < largest and joined >= MIN_SHARED and joined * len(members) >= shared * (len(members) - 1):
                members.append(index)
                shared = joined
                continue
            groups.append((members, shared if len(members) > 1 else 0))
        members, shared = [index], len(contexts[index]) - 1
    if members:
        groups.append((members, shared if len(members) > 1 else 0))
    return groups


def split_points(contexts: list[list[int]], shared: list[int], pass_cost: int) -> list[int]:
    """Per context of a batch, how many of its first tokens pass A computes (0: none, all in pass B).

    At least what it shares with its group; more where that narrows pass B (its width is the longest rest
    over the batch, padding included) by more than the rows it adds to pass A cost. The least estimated
    cost wins, a pass counting as ``pass_cost`` tokens; sharing nothing and no pass A is one candidate.
    """
    longest = max(map(len, contexts))
    best_cost, best = len(contexts) * longest, [0] * len(contexts)
    groups = [tuple(context[:start]) for context, start in zip(contexts, shared)]
    for width in range(1, max(len(context) - start for context, start in zip(contexts, shared)) + 1):
        splits = [max(start, len(context) - width) for context, start in zip(contexts, shared)]
        # Rows of pass A: a group's prefix once; a context split after it, its own row (an estimate: equal
        # contexts would share it).
        rows = {groups[i] if split == shared[i] else i for i, split in enumerate(splits) if split}
        cost = (pass_cost + len(rows) * max(splits) if rows else 0) + len(contexts) * width
        if cost < best_cost:
            best_cost, best = cost, splits
    return best


def distinct_tokens(encoded: list[Item]) -> int:
    """The least any method computes: each distinct context prefix once, and each option's tokens but its last."""
    contexts = sorted(context for context, _ in encoded)  # in order, a context adds what it does not share
    prefixes = sum(len(context) - common_prefix(before, context) for before, context in zip([[]] + contexts, contexts))
    return prefixes + sum(len(tokens) - 1 for _, options in encoded for tokens in options)
