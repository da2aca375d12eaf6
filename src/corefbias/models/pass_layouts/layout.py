"""What every layout of a ``TransformersBackend``'s passes is: a name, and its backend, read when it plans or scores
(so that a change of the backend's budget or rows between calls is seen)."""

from __future__ import annotations


class Layout:
    """A layout of ``backend``'s forward passes. A subclass gives its ``name``, ``plan(encoded, indices)`` (indices
    of ``encoded`` in batches, each index with the prefix tokens it shares), ``footprint(items)`` (the tokens a batch
    of ``items`` holds against ``backend.max_batch_tokens``) and ``score(batch)`` (one float32 log-likelihood per
    option, in order, on the model's device)."""

    name: str

    def __init__(self, backend):
        self.backend = backend
