"""The 4-D attention masks the layouts build on the model's device, in the form its attention takes.

Given a 2-D padding mask, transformers reads its values on the host to choose between a mask and ``is_causal``
(``masking_utils._ignore_causal_mask_sdpa``); on CUDA that read waits for every kernel already queued, so the host
could not lay out the next pass while the device computes this one. A 4-D mask goes through as it is. So every pass
that needs a mask gets one of these where the model can take it (``own_mask_refusal``): the prefix trees' masks
(``prefix_tree``) and the padding masks of the layouts that continue a key/value cache (``padding_attention``). A token
attends to what ``allowed`` says and, in layers of sliding attention, only to keys less than a window before it in
position (the window of an unbatched pass, whatever the padding between them).
"""

from __future__ import annotations

from .device_copies import on_device

OWN_MASKS = {"sdpa", "eager"}  # attention implementations that take a 4-D mask of any shape


def own_mask_refusal(model) -> str | None:
    """Why ``model`` cannot take the layouts' own 4-D masks (what it needs), or None if it can."""
    implementation = getattr(model.config, "_attn_implementation", None)
    if implementation not in OWN_MASKS:
        return f"needs attention that takes a 4-D mask ({' or '.join(sorted(OWN_MASKS))}), not {implementation!r}"
    config = model.config.get_text_config()
    if getattr(config, "num_attention_heads", None) is None:  # a recurrent layer would read a row as one text
        return "needs a model made of attention layers"
    kinds = layer_kinds(config)
    if not kinds <= {"full_attention", "sliding_attention"}:
        return f"knows full and sliding attention layers, not {', '.join(sorted(kinds))}"
    return None


def attention_mask(model, allowed, query_positions, key_positions, deepest: int):
    """The attention mask ``model`` takes for ``allowed`` (rows × queries × keys, True where a query may attend;
    ``query_positions`` and ``key_positions`` each token's position, ``deepest`` the largest, known on the host): a
    4-D mask in the form of the model's attention implementation, windowed for layers of sliding attention, by kind
    of layer where the model has both kinds."""
    implementation = model.config._attn_implementation
    config = model.config.get_text_config()
    window = getattr(config, "sliding_window", None)
    kinds = layer_kinds(config)
    mask = allowed
    if "sliding_attention" in kinds and deepest >= window:  # some query sees beyond the window
        windowed = allowed & (query_positions[:, :, None] - key_positions[:, None, :] < window)
        both = {"full_attention": allowed, "sliding_attention": windowed}
        mask = windowed if kinds == {"sliding_attention"} else both
    if isinstance(mask, dict):
        return {kind: mask_form(model, each, implementation) for kind, each in mask.items()}
    return mask_form(model, mask, implementation)


def padding_attention(model, padding, query_length: int, device):
    """What a pass over the last ``query_length`` of ``padding``'s keys (a host rows × keys mask of 1 for a token, 0
    for padding, earlier keys in the key/value cache) passes as its attention mask: the model's own 4-D mask on
    ``device`` where it takes one (each token attends to the tokens at or before it, padding to itself alone, so that
    no query attends to nothing), else ``padding`` on ``device`` for transformers to build it: where the model cannot
    take a mask of ours, and where layers of sliding attention continue a cache that has dropped keys
    (``keeps_a_window``).

    Examples
    --------
    >>> import torch
    >>> from types import SimpleNamespace
    >>> text = SimpleNamespace(num_attention_heads=2, sliding_window=None)
    >>> config = SimpleNamespace(_attn_implementation="sdpa", get_text_config=lambda: text)
    >>> model = SimpleNamespace(config=config, dtype=torch.float32)
    >>> padding_attention(model, torch.tensor([[0, 1, 1]]), 2, torch.device("cpu"))[0, 0].int().tolist()
    [[0, 1, 0], [0, 1, 1]]
    """
    import torch

    on = on_device(padding, device)
    keys = on.shape[1]
    if own_mask_refusal(model) or keeps_a_window(model.config.get_text_config(), keys - query_length):
        return on
    on = on.bool()
    columns = torch.arange(keys, device=device)
    queries = columns[keys - query_length :]
    at_or_before = columns[None, None, :] <= queries[None, :, None]
    itself = columns[None, None, :] == queries[None, :, None]
    allowed = (on[:, None, :] & at_or_before) | itself
    key_positions = on.long().cumsum(dim=1) - 1
    deepest = int(padding.sum(dim=1).max()) - 1
    return attention_mask(model, allowed, key_positions[:, keys - query_length :], key_positions, deepest)


def keeps_a_window(config, cached: int) -> bool:
    """Whether a model of (text) ``config`` with ``cached`` keys in its key/value cache has kept only the last window
    of them for its layers of sliding attention (transformers' ``DynamicSlidingWindowLayer``): which ones, and the
    shape of the mask those layers take, only transformers knows.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> config = SimpleNamespace(sliding_window=6, layer_types=["sliding_attention", "full_attention"])
    >>> keeps_a_window(config, 5), keeps_a_window(config, 6), keeps_a_window(SimpleNamespace(sliding_window=None), 9)
    (False, True, False)
    """
    return "sliding_attention" in layer_kinds(config) and cached >= config.sliding_window


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
