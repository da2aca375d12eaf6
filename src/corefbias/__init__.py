"""corefbias: gender-bias measures for coreference resolution, reproducing the papers that
defined them (Counter-GAP, GAP on GAP, Winogender, WinoBias/SoWinoBias, GenDa Lens).

The six scoring functions the ``evaluate`` modules call are importable from here::

    from corefbias import delta_i
    delta_i(predictions, references, quadruple_ids, roles, genders)

They load on first use, so that importing a light part of the package (the HTTP protocol, which the
Python 3.7 NeuralCoref service imports) pulls in neither numpy nor scipy.
"""

__version__ = "0.1.0"

# The names are listed here as well as in ``measures`` (``__all__`` must be a literal for tools that read it);
# tests/test_layering.py checks the two lists agree.
__all__ = ["__version__", "delta_i", "acc_bias", "w_bias", "winogender_bias", "pro_anti_diff", "fpr_ratio"]


def __getattr__(name):
    if name in __all__:
        from . import measures

        return getattr(measures, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
