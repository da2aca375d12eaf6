"""The ``datasets`` features every exported set shares: ``text``, the ``pronoun`` span and its ``candidates``."""

from __future__ import annotations

import datasets

SPAN = {"text": datasets.Value("string"), "start": datasets.Value("int32"), "end": datasets.Value("int32")}
CANDIDATE = {**SPAN, "is_referent": datasets.Value("bool")}


def common_features(**extra) -> datasets.Features:
    """``text``, ``pronoun`` and ``candidates``, followed by a set's own columns.

    Examples
    --------
    >>> list(common_features(pair_id=datasets.Value("string")))
    ['text', 'pronoun', 'candidates', 'pair_id']
    """
    return datasets.Features(
        {
            "text": datasets.Value("string"),
            "pronoun": dict(SPAN),
            "candidates": datasets.List(dict(CANDIDATE)),
            **extra,
        }
    )
