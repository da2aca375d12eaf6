"""The bias measures and their statistics: each paper's formula once (Counter-GAP, GAP acc/F1/W-Bias and
its LP weighting, Winogender, pro/anti, ABC, and the fill-in accuracies of MISGENDERED and RUFF), the bootstrap
and randomization tests, input validation and the flat result format every metric module returns.

Measures take data and return numbers: they import nothing from the rest of corefbias and do no I/O.
"""

from importlib import import_module

# The six scoring functions the ``evaluate`` modules call, importable from ``corefbias`` itself: public name →
# the module defining it. Loaded on first use, so that importing a light part of the package pulls in neither
# numpy nor scipy.
PUBLIC_SCORES = {
    "delta_i": "counter_gap",  # Counter-GAP ΔI (Xie et al. 2023)
    "acc_bias": "gap",  # GAP acc-Bias and F1-Bias (Kocijan et al. 2021, Webster et al. 2018)
    "w_bias": "gap",  # GAP W-Bias under the LP weights (Kocijan et al. 2021)
    "winogender_bias": "winogender",  # Winogender (Rudinger et al. 2018)
    "pro_anti_diff": "pro_anti",  # WinoBias, SoWinoBias, DaWinoBias
    "fpr_ratio": "abc_fpr",  # ABC false-positive-rate ratio (GenDa Lens)
}


def __getattr__(name):
    if name in PUBLIC_SCORES:
        return getattr(import_module(f".{PUBLIC_SCORES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
