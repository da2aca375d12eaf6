"""Log-probabilities read from a pass's logits on the model's device, a bounded number of rows at a time."""

from __future__ import annotations

from .device_copies import on_device

LOGITS_CHUNK = 1 << 27  # logits turned into float32 log-probabilities at once (512 MiB)


def chosen_logprobs(logits, rows, tokens):
    """``log_softmax(logits[rows])[tokens]`` per pair, in float32 on ``logits``' device, ``LOGITS_CHUNK`` at a time;
    ``rows`` ascending.

    Examples
    --------
    >>> import torch
    >>> logits = torch.tensor([[0.0, 0.0], [0.0, 1.0]])
    >>> [round(p, 3) for p in chosen_logprobs(logits, torch.tensor([0, 1, 1]), torch.tensor([1, 0, 1])).exp().tolist()]
    [0.5, 0.269, 0.731]
    """
    import torch

    step = max(1, LOGITS_CHUNK // logits.shape[-1])
    found = []
    for start in range(0, logits.shape[0], step):
        chosen = (rows >= start) & (rows < start + step)
        if chosen.any():
            chunk = torch.log_softmax(logits[start : start + step].float(), dim=-1)
            found.append(chunk[on_device(rows[chosen] - start, chunk.device), on_device(tokens[chosen], chunk.device)])
    return torch.cat(found)
