"""Copies from the host to the model's device that do not hold the host until the device is done.

On CUDA a copy from pageable host memory (``tensor.to("cuda")``, ``torch.tensor(values, device="cuda")``) first waits
for every kernel already queued on the stream: a copy made for a batch's log-probabilities once its forward pass is
queued would keep the host waiting for the whole pass, instead of laying out the next batch meanwhile. Staged in pinned
memory and copied with ``non_blocking``, a copy is queued like a kernel (torch's caching host allocator keeps the
pinned block until the copy is done). On other devices a copy is a plain one.
"""

from __future__ import annotations


def on_device(tensor, device):
    """``tensor`` on ``device``, without waiting for the work queued on it where that is a CUDA device.

    Examples
    --------
    >>> import torch
    >>> on_device(torch.tensor([1, 2]), torch.device("cpu")).tolist()
    [1, 2]
    """
    if device.type != "cuda" or tensor.device.type != "cpu":
        return tensor.to(device)
    return tensor.pin_memory().to(device, non_blocking=True)


def indices_on(values, device):
    """Integers as a ``long`` tensor on ``device`` (``on_device``).

    Examples
    --------
    >>> import torch
    >>> indices_on([3, 1], torch.device("cpu")).dtype
    torch.int64
    """
    import torch

    return on_device(torch.tensor(values, dtype=torch.long), device)
