"""``prefix-tree``: one pass per batch and nothing computed twice in a row.

Each context, and each option's tokens but its last after it, is laid in rows of ``row_tokens`` (``ROW_TOKENS``)
after the sequence before it, sharing what the two have in common (``token_trees.pack``): the rows hold trees of the
requests' tokens, a token attends to its ancestors under a 4-D mask (``sdpa`` or ``eager`` attention; a window's
worth for layers of sliding attention) at its depth as its position, and the output layer is fed the scored
positions alone (at most ``PASS_LOGITS`` logits a pass). Over the seven original benchmarks at CUDA's budget it
computes 1.05 tokens per distinct token in 64 passes (``right-padded``: 1.53 in 379), at the cost of attention over
whole rows. A model whose attention cannot take such a mask is refused (``attention_masks.own_mask_refusal``).
"""

from __future__ import annotations

from .. import token_trees
from ..base import ModelError
from ..token_batches import Item
from .attention_masks import attention_mask, own_mask_refusal
from .device_copies import indices_on, on_device
from .layout import Layout
from .vocabulary_rows import chosen_logprobs

# The rows: wider rows leave less room unused at a batch's end, but each token attends over its whole row. Over the
# seven original benchmarks at CUDA's budget, 1.11 tokens computed per distinct token at 256, 1.05 at 512, 1.03 at
# 1 024; on a CPU, where attention weighs more against a small model's products, 256 was the fastest.
ROW_TOKENS = {"cpu": 256, "mps": 512, "cuda": 512}
# At most this many logits (scored positions × vocabulary) in a pass: 512 MiB in float32, 1 GiB in bfloat16.
PASS_LOGITS = {"cpu": 1 << 27, "mps": 1 << 27, "cuda": 1 << 29}


class PrefixTree(Layout):
    """The ``prefix-tree`` layout of ``backend``'s passes (see the module docstring), in rows of
    ``min(backend.row_tokens, backend.max_batch_tokens)``."""

    name = "prefix-tree"

    @property
    def row_width(self) -> int:
        """``row_tokens``, narrower if the budget of a batch is."""
        return min(self.backend.row_tokens, self.backend.max_batch_tokens)

    def plan(self, encoded: list[Item], indices) -> list[list[tuple[int, int]]]:
        """``indices`` of ``encoded`` in batches of rows of trees, at most ``pass_logits`` logits each; a model whose
        attention takes no such mask is refused (``own_mask_refusal``) before any pass."""
        backend = self.backend
        refused = own_mask_refusal(backend.model)
        if refused:
            raise ModelError(f"the prefix-tree layout {refused}; choose another layout")
        most_scored = max(1, backend.pass_logits // backend.vocab_size)
        return token_trees.tree_batches(encoded, indices, backend.max_batch_tokens, self.row_width, most_scored)

    def footprint(self, items: list[Item]) -> int:
        return token_trees.footprint(items, self.row_width)

    def score(self, batch: list[tuple[Item, int]]):
        """Every option's log-likelihood, in order, as one float32 tensor on the model's device: one pass over the
        batch packed in rows, each token attending to its ancestors in its row's tree, the output layer fed only the
        scored positions."""
        import torch

        backend, device = self.backend, self.backend.device
        items = [item for item, _ in batch]
        rows = token_trees.pack(items, self.row_width)
        width = rows.width
        ids = torch.full((len(rows.tokens), width), backend.pad_id, dtype=torch.long)
        positions = torch.zeros((len(rows.tokens), width), dtype=torch.long)
        ends = torch.arange(1, width + 1).repeat(len(rows.tokens), 1)  # padding attends to itself alone
        for row, (tokens, depths, row_ends) in enumerate(zip(rows.tokens, rows.depths, rows.ends)):
            ids[row, : len(tokens)] = torch.tensor(tokens)
            positions[row, : len(tokens)] = torch.tensor(depths)
            ends[row, : len(tokens)] = torch.tensor(row_ends)
        deepest = int(positions.max())
        positions, ends, columns = (
            on_device(positions, device),
            on_device(ends, device),
            torch.arange(width, device=device),
        )
        ancestors = (columns[None, None, :] <= columns[None, :, None]) & (columns[None, :, None] < ends[:, None, :])
        scored_rows, scored_columns = (indices_on(c, device) for c in zip(*rows.positions))

        def scored_positions(module, inputs):  # the output layer sees the scored positions alone
            return (inputs[0][scored_rows, scored_columns][None], *inputs[1:])

        number, targets, option_numbers = (torch.tensor(column) for column in zip(*sorted(rows.targets)))
        with torch.inference_mode():
            hook = backend.model.get_output_embeddings().register_forward_pre_hook(scored_positions)
            try:
                mask = attention_mask(backend.model, ancestors, positions, positions, deepest)
                logits, _ = backend.forward(ids, mask, positions, None, keep=0, use_cache=False)
            finally:
                hook.remove()
            logprobs = chosen_logprobs(logits[0], number, targets)
            del logits
            totals = torch.zeros(sum(len(options) for _, options in items), dtype=torch.float32, device=device)
            return totals.index_add(0, on_device(option_numbers, device), logprobs)
