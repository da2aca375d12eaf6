"""corefbias: gender-bias measures for coreference resolution, reproducing the papers that
defined them (Counter-GAP, GAP on GAP, Winogender, WinoBias/SoWinoBias, GenDa Lens).

The scoring function of every ``evaluate`` module (``metrics/<name>/``) is importable from here under the module's
name, and is defined in the measure module of that name, ``corefbias.measures.<name>``::

    from corefbias import counter_gap_delta_i
    counter_gap_delta_i(predictions, references, quadruple_ids, roles, genders)

They load on first use, so that importing a light part of the package (the HTTP protocol, which the
Python 3.7 NeuralCoref service imports) pulls in neither numpy nor scipy.
"""

__version__ = "0.1.0"

# The names are listed here as well as in ``measures`` (``__all__`` must be a literal for tools that read it);
# tests/test_layering.py checks the two lists agree.
__all__ = [
    "__version__",
    "abc_fpr_ratio",
    "bug_bias",
    "condition_accuracy_diff",
    "conll_f1_by_mention_type",
    "counter_gap_delta_i",
    "gap_acc_bias",
    "gap_w_bias",
    "misgendered_accuracy",
    "nli_gender_parity",
    "pro_anti_conll_f1",
    "pro_anti_diff",
    "pronoun_set_diff",
    "ruff_accuracy",
    "winogender_bias",
    "winogenerated_bias",
    "winonb_accuracy",
    "winopron_accuracy",
]


def __getattr__(name):
    if name in __all__:
        from importlib import import_module

        # The function, not ``measures.<name>``: that attribute is the measure module of the same name once imported.
        return getattr(import_module(f".measures.{name}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
