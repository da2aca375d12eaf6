"""The bias measures and their statistics: each paper's formula once (Counter-GAP, GAP acc/F1/W-Bias and
its LP weighting, Winogender, pro/anti, ABC, and the fill-in accuracies of MISGENDERED and RUFF), the bootstrap
and randomization tests, input validation and the flat result format every metric module returns.

Measures take data and return numbers: they import nothing from the rest of corefbias and do no I/O.
"""

# The scoring function of every metric, importable from ``corefbias`` itself: each is named as its ``evaluate``
# module (``metrics/<name>/``) and defined in the measure module of that name (``corefbias.measures.<name>.<name>``;
# ``corefbias.measures.<name>`` is the module). ``corefbias`` loads them on first use, so that importing a light part
# of the package pulls in neither numpy nor scipy.
PUBLIC_SCORES = (
    "abc_fpr_ratio",  # ABC false-positive-rate ratio (GenDa Lens)
    "bug_bias",  # BUG (Levy et al. 2021)
    "condition_accuracy_diff",  # accuracy of each condition against a reference condition (GICoref, MAP)
    "conll_f1_by_mention_type",  # CoNLL F1 split by mention type (GICoref)
    "counter_gap_delta_i",  # Counter-GAP ΔI (Xie et al. 2023)
    "gap_acc_bias",  # GAP acc-Bias and F1-Bias (Kocijan et al. 2021, Webster et al. 2018)
    "gap_w_bias",  # GAP W-Bias under the LP weights (Kocijan et al. 2021)
    "misgendered_accuracy",  # MISGENDERED (Hossain et al. 2023)
    "nli_gender_parity",  # SweWinogender's NLI form: Krippendorff's alpha and gender parity (Hansson et al. 2021)
    "pro_anti_conll_f1",  # WinoBias's CoNLL F1 pro − anti (Zhao et al. 2018)
    "pro_anti_diff",  # WinoBias, SoWinoBias, DaWinoBias
    "pronoun_set_diff",  # each pronoun set's accuracy against he/she
    "ruff_accuracy",  # RUFF (Gautam et al. 2024)
    "winogender_bias",  # Winogender (Rudinger et al. 2018)
    "winogenerated_bias",  # Winogenerated (Perez et al. 2023)
    "winonb_accuracy",  # WinoNB (Baumler and Rudinger 2022)
    "winopron_accuracy",  # WinoPron (Gautam et al. 2024)
)
