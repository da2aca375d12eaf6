"""What the two layouts that continue a key/value cache share (``prefix-sharing`` and ``right-padded``): padded rows,
each option's first token read after its context, and pass C over the tails of the options of more than one token,
each continuing a copy of its context's cache."""

from __future__ import annotations

import copy

from ..token_batches import Item, footprint, tail_passes
from . import vocabulary_rows
from .device_copies import indices_on, on_device
from .layout import Layout


class CachedLayout(Layout):
    """A layout whose batches hold their contexts padded to the widest, and copies of it for pass C's tails
    (``token_batches.footprint``)."""

    def footprint(self, items: list[Item]) -> int:
        return footprint(items)


def option_tokens(items: list[Item]) -> tuple[list[int], list[int], list[tuple[int, int, list[int]]]]:
    """Per option of the batch's ``items``, in order: its item and its first token; and per option of more than one
    token, its position among the options, its item and its tokens.

    Examples
    --------
    >>> option_tokens([([1], [[7], [8, 9]]), ([2], [[5]])])
    ([0, 0, 1], [7, 8, 5], [(1, 0, [8, 9])])
    """
    first_rows, first_tokens, longer = [], [], []
    for item, (_, options) in enumerate(items):
        for tokens in options:
            if len(tokens) > 1:
                longer.append((len(first_rows), item, tokens))
            first_rows.append(item)
            first_tokens.append(tokens[0])
    return first_rows, first_tokens, longer


def padded(sequences: list, pad_id: int, *, left: bool):
    """Token ids padded to the longest, on the left or the right, and their attention mask.

    Examples
    --------
    >>> padded([[5, 6], [7]], 0, left=True)[0].tolist(), padded([[5, 6], [7]], 0, left=False)[1].tolist()
    ([[5, 6], [0, 7]], [[1, 1], [1, 0]])
    """
    import torch

    widest = max(len(tokens) for tokens in sequences)
    ids = torch.full((len(sequences), widest), pad_id, dtype=torch.long)
    mask = torch.zeros((len(sequences), widest), dtype=torch.long)
    for row, tokens in enumerate(sequences):
        if tokens:
            columns = slice(widest - len(tokens), widest) if left else slice(0, len(tokens))
            ids[row, columns] = torch.tensor(tokens, dtype=torch.long)
            mask[row, columns] = 1
    return ids, mask


def add_tails(backend, totals, longer, cache, context_mask, lengths):
    """``totals`` (per option, its first token's log-probability) plus pass C's for the options of more than one
    token (``longer``: their position among the options, their item and tokens), on ``backend``'s model."""

    if not longer:
        return totals
    tails = tail_logprobs(backend, cache, context_mask, lengths, [(item, tokens) for _, item, tokens in longer])
    return totals.index_add(0, indices_on([option for option, _, _ in longer], backend.device), tails)


def tail_logprobs(backend, cache, context_mask, lengths, longer: list[tuple[int, list[int]]]):
    """Pass C: per option of more than one token (its item, its tokens), the summed log-probabilities of its tokens
    after the first, from a copy of its item's cache, in passes of tails of about one length (``tail_passes``) of at
    most ``LOGITS_CHUNK`` logits each."""
    import torch

    device = backend.device
    passes = tail_passes([len(tokens) - 1 for _, tokens in longer], vocabulary_rows.LOGITS_CHUNK // backend.vocab_size)
    sums, order = [], []
    for number, options in enumerate(passes):
        chunk = [longer[option] for option in options]
        order.extend(options)
        items = torch.tensor([item for item, _ in chunk])
        # the last pass reorders the batch's cache itself; earlier ones a copy
        selected = cache if number == len(passes) - 1 else copy.deepcopy(cache)
        selected.reorder_cache(on_device(items, device))
        tail, tail_mask = padded([tokens[:-1] for _, tokens in chunk], backend.pad_id, left=False)
        targets, _ = padded([tokens[1:] for _, tokens in chunk], backend.pad_id, left=False)
        logits, _ = backend.forward(
            tail,
            torch.cat([context_mask[items], tail_mask], dim=1),
            lengths[items][:, None] + torch.arange(tail.shape[1])[None, :],
            selected,
            keep=0,
            use_cache=False,
        )
        logprobs = torch.log_softmax(logits.float(), dim=-1).gather(2, on_device(targets, device)[..., None])[..., 0]
        sums.append(torch.where(on_device(tail_mask, device).bool(), logprobs, 0.0).sum(dim=1))
        del logits, logprobs
    in_order = torch.empty(len(longer), dtype=torch.long)
    in_order[torch.tensor(order)] = torch.arange(len(longer))
    return torch.cat(sums)[on_device(in_order, device)]
