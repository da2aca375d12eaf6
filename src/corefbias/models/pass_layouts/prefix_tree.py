"""``prefix-tree``: one pass per batch and nothing computed twice in a row.

Each context, and each option's tokens but its last after it, is laid in rows of ``row_tokens`` (``ROW_TOKENS``)
after the sequence before it, sharing what the two have in common (``token_trees.pack``): the rows hold trees of the
requests' tokens, a token attends to its ancestors under a 4-D mask (``sdpa`` or ``eager`` attention; a window's
worth for layers of sliding attention) at its depth as its position, and the output layer is fed the scored
positions alone (at most ``PASS_LOGITS`` logits a pass). Over the seven original benchmarks at CUDA's budget it
computes 1.05 tokens per distinct token in 64 passes (``right-padded``: 1.53 in 379), at the cost of attention over
whole rows. A model whose attention cannot take such a mask is refused (``tree_refusal``).
"""

from __future__ import annotations

from .. import token_trees
from ..base import ModelError
from ..token_batches import Item
from .device_copies import indices_on, on_device
from .layout import Layout
from .vocabulary_rows import chosen_logprobs

# The rows: wider rows leave less room unused at a batch's end, but each token attends over its whole row. Over the
# seven original benchmarks at CUDA's budget, 1.11 tokens computed per distinct token at 256, 1.05 at 512, 1.03 at
# 1 024; on a CPU, where attention weighs more against a small model's products, 256 was the fastest.
ROW_TOKENS = {"cpu": 256, "mps": 512, "cuda": 512}
# At most this many logits (scored positions × vocabulary) in a pass: 512 MiB in float32, 1 GiB in bfloat16.
PASS_LOGITS = {"cpu": 1 << 27, "mps": 1 << 27, "cuda": 1 << 29}
TREE_MASKS = {"sdpa", "eager"}  # attention implementations that take a 4-D mask of any shape


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
        attention takes no such mask is refused (``tree_refusal``) before any pass."""
        backend = self.backend
        refused = tree_refusal(backend.model)
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
                mask = tree_mask(backend.model, ancestors, positions, deepest)
                logits, _ = backend.forward(ids, mask, positions, None, keep=0, use_cache=False)
            finally:
                hook.remove()
            logprobs = chosen_logprobs(logits[0], number, targets)
            del logits
            totals = torch.zeros(sum(len(options) for _, options in items), dtype=torch.float32, device=device)
            return totals.index_add(0, on_device(option_numbers, device), logprobs)


def tree_mask(model, ancestors, positions, deepest: int):
    """The attention mask ``model`` takes for ``ancestors`` (rows × queries × keys, True where a query may
    attend; ``positions``: each token's, ``deepest`` the largest, known on the host): a 4-D mask in the form of
    the model's attention implementation, windowed for layers of sliding attention, by kind of layer where the
    model has both kinds."""
    implementation = model.config._attn_implementation
    config = model.config.get_text_config()
    window = getattr(config, "sliding_window", None)
    kinds = layer_kinds(config)
    mask = ancestors
    if "sliding_attention" in kinds and deepest >= window:  # some query sees beyond the window
        windowed = ancestors & (positions[:, :, None] - positions[:, None, :] < window)
        both = {"full_attention": ancestors, "sliding_attention": windowed}
        mask = windowed if kinds == {"sliding_attention"} else both
    if isinstance(mask, dict):
        return {kind: mask_form(model, allowed, implementation) for kind, allowed in mask.items()}
    return mask_form(model, mask, implementation)


def mask_form(model, allowed, implementation: str):
    """``allowed`` (rows × queries × keys) as ``implementation``'s 4-D mask: True where a query may attend for
    ``sdpa``, added to the scores for ``eager``.

    Examples
    --------
    >>> import torch
    >>> from types import SimpleNamespace
    >>> model = SimpleNamespace(dtype=torch.float32, device=torch.device("cpu"))
    >>> allowed = torch.tensor([[[True, False], [True, True]]])
    >>> mask_form(model, allowed, "sdpa").shape, mask_form(model, allowed, "eager")[0, 0, 0, 1].item() < -1e38
    (torch.Size([1, 1, 2, 2]), True)
    """
    import torch

    allowed = allowed[:, None]
    if implementation == "sdpa":
        return allowed
    zero = torch.zeros((), dtype=model.dtype, device=allowed.device)
    return zero.masked_fill(~allowed, torch.finfo(model.dtype).min)


def layer_kinds(config) -> set[str]:
    """The kinds of attention layer of a (text) model's config, as transformers names them (``layer_types``).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> sorted(layer_kinds(SimpleNamespace(sliding_window=512, layer_types=["sliding_attention", "full_attention"])))
    ['full_attention', 'sliding_attention']
    >>> layer_kinds(SimpleNamespace(sliding_window=None))
    {'full_attention'}
    """
    window = getattr(config, "sliding_window", None)
    return set(getattr(config, "layer_types", None) or ["sliding_attention" if window else "full_attention"])


def tree_refusal(model) -> str | None:
    """Why ``model`` cannot take the prefix-tree layout's masks (what it needs), or None if it can."""
    implementation = getattr(model.config, "_attn_implementation", None)
    if implementation not in TREE_MASKS:
        return f"needs attention that takes a 4-D mask ({' or '.join(sorted(TREE_MASKS))}), not {implementation!r}"
    config = model.config.get_text_config()
    if getattr(config, "num_attention_heads", None) is None:  # a recurrent layer would read a row as one text
        return "needs a model made of attention layers"
    kinds = layer_kinds(config)
    if not kinds <= {"full_attention", "sliding_attention"}:
        return f"knows full and sliding attention layers, not {', '.join(sorted(kinds))}"
    return None
