"""``right-padded``: contexts sorted by length (``token_batches.length_sorted_batches``), each batch one pass of whole
contexts padded on the right, then the tails of the options of more than one token (``cached``).

A causal model's attention never reaches forward, so the padding cannot change a context's tokens and the pass needs
no attention mask: on a GPU that lets ``scaled_dot_product_attention`` take its fused causal kernels, which a padding
mask rules out. Each row's last real position is picked before the model's output layer (a hook on it), so the
logits are one row per context whatever the padding.
"""

from __future__ import annotations

from ..token_batches import Item, length_sorted_batches
from .cached import CachedLayout, add_tails, option_tokens, padded
from .device_copies import on_device
from .vocabulary_rows import chosen_logprobs


class RightPadded(CachedLayout):
    """The ``right-padded`` layout of ``backend``'s passes (see the module docstring)."""

    name = "right-padded"

    def plan(self, encoded: list[Item], indices) -> list[list[tuple[int, int]]]:
        """``indices`` of ``encoded`` in batches of contexts of about one length."""
        return length_sorted_batches(encoded, indices, self.backend.max_batch_tokens)

    def score(self, batch: list[tuple[Item, int]]):
        """Every option's log-likelihood, in order, as one float32 tensor on the model's device."""
        import torch

        backend = self.backend
        items = [item for item, _ in batch]
        contexts = [context for context, _ in items]
        first_rows, first_tokens, longer = option_tokens(items)
        lengths = torch.tensor([len(context) for context in contexts])
        ids, context_mask = padded(contexts, backend.pad_id, left=False)
        rows, last = torch.arange(len(contexts), device=backend.device), on_device(lengths - 1, backend.device)

        def last_real_position(module, inputs):  # the output layer sees one position per context
            return (inputs[0][rows, last][:, None, :], *inputs[1:])

        with torch.inference_mode():
            hook = backend.model.get_output_embeddings().register_forward_pre_hook(last_real_position)
            try:
                logits, cache = backend.forward(ids, None, None, None, keep=0, use_cache=bool(longer))
            finally:
                hook.remove()
            totals = chosen_logprobs(logits[:, -1, :], torch.tensor(first_rows), torch.tensor(first_tokens))
            del logits
            return add_tails(backend, totals, longer, cache, context_mask, lengths)
