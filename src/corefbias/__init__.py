"""corefbias: gender-bias measures for coreference resolution, reproducing the papers that
defined them (Counter-GAP, GAP on GAP, Winogender, WinoBias/SoWinoBias, GenDa Lens).

The six scoring functions the ``evaluate`` modules call are importable from here::

    from corefbias import delta_i
    delta_i(predictions, references, quadruple_ids, roles, genders)

They load on first use, so that importing a light part of the package (the HTTP protocol, which the
Python 3.7 NeuralCoref service imports) pulls in neither numpy nor scipy.
"""

from importlib import import_module

__version__ = "0.1.0"

# Public name → the measures module defining it.
_PUBLIC_SCORES = {
    "delta_i": "counter_gap",  # Counter-GAP ΔI (Xie et al. 2023)
    "acc_bias": "gap",  # GAP acc-Bias and F1-Bias (Kocijan et al. 2021, Webster et al. 2018)
    "w_bias": "gap",  # GAP W-Bias under the LP weights (Kocijan et al. 2021)
    "winogender_bias": "winogender",  # Winogender (Rudinger et al. 2018)
    "pro_anti_diff": "pro_anti",  # WinoBias, SoWinoBias, DaWinoBias
    "fpr_ratio": "abc_fpr",  # ABC false-positive-rate ratio (GenDa Lens)
}

__all__ = ["__version__", *_PUBLIC_SCORES]


def __getattr__(name):
    if name in _PUBLIC_SCORES:
        return getattr(import_module(f".measures.{_PUBLIC_SCORES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC_SCORES))
