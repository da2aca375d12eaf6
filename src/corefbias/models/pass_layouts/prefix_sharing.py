"""``prefix-sharing``: the first tokens that several contexts share computed once for them all (Winogender's sentences
differ from their minimal pair only from the pronoun on: a quarter fewer tokens).

Contexts are grouped by shared prefix (in token order; ``token_batches.shared_prefix_groups``), whole groups, the
widest first, in a batch (``token_batches.token_batches``), and a batch takes passes that each continue the key/value
cache of the one before: (A) the prefixes, each once; (B) the rest of each context, left-padded under an attention
mask, positions counted on from its prefix, giving every option's first token; (C) the tails of the options of more
than one token (``cached``). Where pass A starts each context's pass B (``token_batches.split_points``) weighs pass
B's padding against pass A's rows and the fixed cost of a pass (``PASS_COST``: it reads every weight).
"""

from __future__ import annotations

from ..token_batches import Item, split_points, token_batches
from .cached import CachedLayout, add_tails, option_tokens, padded
from .device_copies import indices_on
from .vocabulary_rows import chosen_logprobs

# A forward pass reads every weight: on CPU about the cost of computing 32 more tokens (SmolLM2-135M, one thread); on a
# GPU, kernel launches and the Python of a pass cost more tokens' worth.
PASS_COST = {"cpu": 32, "mps": 64, "cuda": 256}


class PrefixSharing(CachedLayout):
    """The ``prefix-sharing`` layout of ``backend``'s passes (see the module docstring)."""

    name = "prefix-sharing"

    def plan(self, encoded: list[Item], indices) -> list[list[tuple[int, int]]]:
        """``indices`` of ``encoded`` in batches of whole groups sharing a prefix, with the tokens each shares."""
        return token_batches(encoded, indices, self.backend.max_batch_tokens)

    def score(self, batch: list[tuple[Item, int]]):
        """Every option's log-likelihood, in order, as one float32 tensor on the model's device (``batch``: each item
        and the tokens its group shares)."""
        import torch

        backend, device = self.backend, self.backend.device
        contexts = [context for (context, _), _ in batch]
        splits = split_points(contexts, [shared for _, shared in batch], PASS_COST.get(device.type, PASS_COST["cuda"]))
        prefixes: dict[tuple[int, ...], int] = {}  # a prefix → its row in pass A
        for context, split in zip(contexts, splits):
            if split:
                prefixes.setdefault(tuple(context[:split]), len(prefixes))
        first_rows, first_tokens, longer = option_tokens([item for item, _ in batch])
        cache, prefix_mask = None, torch.zeros((len(batch), 0), dtype=torch.long)
        split_lengths = torch.tensor(splits)
        with torch.inference_mode():
            if prefixes:
                ids, mask = padded(list(prefixes), backend.pad_id, left=True)
                no_logits = torch.zeros(0, dtype=torch.long, device=device)  # the cache only
                _, cache = backend.forward(ids, mask, (mask.cumsum(dim=1) - 1).clamp(min=0), None, keep=no_logits)
                rows = [prefixes[tuple(context[:split])] if split else 0 for context, split in zip(contexts, splits)]
                cache.reorder_cache(indices_on(rows, device))
                prefix_mask = mask[rows] * (split_lengths > 0)[:, None]  # a context split at 0 sees none of it
            ids, mask = padded([context[split:] for context, split in zip(contexts, splits)], backend.pad_id, left=True)
            context_mask = torch.cat([prefix_mask, mask], dim=1)
            positions = split_lengths[:, None] + (mask.cumsum(dim=1) - 1).clamp(min=0)
            logits, cache = backend.forward(ids, context_mask, positions, cache, keep=1, use_cache=bool(longer))
            totals = chosen_logprobs(logits[:, -1, :], torch.tensor(first_rows), torch.tensor(first_tokens))
            del logits
            lengths = torch.tensor([len(context) for context in contexts])
            return add_tails(backend, totals, longer, cache, context_mask, lengths)
