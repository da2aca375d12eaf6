"""Turning computed scores into the flat, JSON-ready dictionaries every metric returns.

A score the data leave undefined (a ratio over zero, a log of zero) is returned as ``None`` and
its reason is listed under the ``undefined`` key — never a NaN or an infinity.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from .resampling import Inference

SIGNIFICANCE_SUFFIXES = ("p_value", "ci_low", "ci_high")


def finalize(
    scores: Mapping[str, float | None],
    reasons: Mapping[str, str],
    inferences: Mapping[str, Inference] | None = None,
    *,
    n_bootstrap: int = 0,
) -> dict:
    """Flat result: each score, its ``<name>_p_value``/``_ci_low``/``_ci_high``, and ``undefined``.

    ``reasons`` explains, per score name, why that score can be undefined; it is consulted only
    for scores that came out non-finite, and for significance keys (``<name>_p_value``) left ``None``.
    """
    result: dict = {}
    undefined: dict[str, str] = {}
    for name, value in scores.items():
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            result[name] = int(value)
            continue
        number = None if value is None else float(value)
        if number is None or not math.isfinite(number):
            result[name] = None
            undefined[name] = reasons.get(name, f"{name} has a zero denominator for these inputs")
        else:
            result[name] = number
    for name, inference in (inferences or {}).items():
        for suffix in SIGNIFICANCE_SUFFIXES:
            key = f"{name}_{suffix}"
            value = getattr(inference, suffix)
            result[key] = value
            if value is not None:
                continue
            if n_bootstrap == 0:
                undefined[key] = "significance was not computed (n_bootstrap=0)"
            elif suffix != "p_value" and inference.reason is not None:
                undefined[key] = inference.reason
            elif key in reasons:
                undefined[key] = reasons[key]
            elif result.get(name) is None:
                undefined[key] = f"{name} itself is undefined"
            else:
                undefined[key] = f"{name} is undefined on every bootstrap resample"
    result["undefined"] = undefined
    return result
