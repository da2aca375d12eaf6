"""GAP bias scores: Webster et al.'s F1-Bias and Kocijan et al.'s accuracy-based acc-Bias (its weighted form,
W-Bias, is ``gap_w_bias``).

Every GAP example has a pronoun and two candidate names A and B, at most one of them its referent;
a system says, per candidate, whether it is coreferent with the pronoun (``[A, B]`` booleans).

  * **F1-Bias** (Webster et al., 2018) = F1_F / F1_M, with GAP's scorer: true/false positives and
    false negatives counted over both candidates of every example of a gender.
  * **acc-Bias** (Kocijan et al., 2021, Sec. 3.1) = Acc_F / Acc_M, with the accuracy *on the positive
    candidate*: the share of examples with a referent among A and B whose referent the system marks
    as coreferent. Examples with no positive candidate (about 10% of GAP test) are left out. A wrong
    negative candidate adds nothing, so the score is not blurred by which distractor a system picked.

The resampling unit is the example; with ``block_ids`` the bootstrap draws whole blocks of them (the examples
taken from one Wikipedia page, which a model answers alike: ``corefbias.measures.blocks``). Each example contributes
one row of sums (weights, weighted correct answers, TP/FP/FN per gender); every score is a ratio of column sums, so
bootstrap replicates and the paired randomization test of ``gap_rows.compare_models`` reuse one statistic
(``gap_rows``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import structured_inputs
from .blocks import unit_blocks
from .gap_rows import check_inputs, example_rows, ratio_reason, statistic
from .resampling import UnitRows, bootstrap_test
from .result import MeasureResult, measure_result

ACC_BIAS_NULLS = {"acc_bias": 1.0, "f1_bias": 1.0}

_REASONS = {
    "accuracy_male": "no male example has a positive candidate",
    "accuracy_female": "no female example has a positive candidate",
    "f1_male": "male examples have neither gold nor predicted coreferent candidates",
    "f1_female": "female examples have neither gold nor predicted coreferent candidates",
    "f1": "there are neither gold nor predicted coreferent candidates",
    "f1_bias": "an F1 is undefined or the male F1 is 0",
}


def gap_acc_bias(
    predictions: Sequence,
    references: Sequence,
    genders: Sequence[str],
    *,
    block_ids: Sequence | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """Accuracies on the positive candidate, acc-Bias, GAP F1s and F1-Bias, with bootstrap significance.

    The bootstrap resamples examples, and whole blocks of them with ``block_ids``.

    Parameters
    ----------
    predictions : list of [bool, bool]
        per example, does the system link candidate A / B to the pronoun?
    references : list of [bool, bool]
        the gold `[A-coref, B-coref]` labels (at most one True).
    genders : list of str
        `female` or `male`, the gender of the example's pronoun.
    block_ids : list of str or int, or list of tuple, optional
        the block of each example: the Wikipedia page (its URL) the example was taken from, inside which a
        model's answers are not independent; the bootstrap draws whole blocks, its interval and p-value expanded
        for how few they are. A tuple per example gives one id per crossed factor, each drawn apart. Left out:
        every example is a block of its own.
    n_bootstrap : int, default 1000
        bootstrap resamples of examples (at most 10,000,000); 0 switches
        significance off.
    seed : int, default 0
        non-negative seed of the resampling, so results are reproducible.

    Returns
    -------
    MeasureResult
        Every score overall (``corefbias.measures.result``; primary: ``acc_bias``), with the example rows its
        bootstrap resampled (``unit_rows``). As a mapping, its flat keys (all scores are fractions, not
        percentages):

        * ``accuracy_male``, ``accuracy_female``, ``accuracy`` (on the positive candidate),
          ``acc_bias`` (Acc_F / Acc_M);
        * ``f1_male``, ``f1_female``, ``f1`` (GAP's per-candidate F1), ``f1_bias`` (F1_F / F1_M);
        * ``num_examples``, ``num_scored_for_accuracy`` (examples with a positive candidate);
        * for ``acc_bias`` and ``f1_bias``: ``<score>_p_value`` (two-sided bootstrap against 1),
          ``<score>_ci_low`` and ``<score>_ci_high`` (95% percentile interval), None with
          ``n_bootstrap=0``;
        * ``undefined``: every key whose value is None, mapped to the reason.

    Raises
    ------
    ValueError
        If the inputs differ in length; a prediction or reference is not a pair of booleans; a
        reference marks both candidates; a gender is not `female` or `male`; either gender has no
        example; a block id is no id; or ``n_bootstrap`` or ``seed`` is not a non-negative integer (or
        ``n_bootstrap`` exceeds 10,000,000).

    Notes
    -----
    Acc_G (Kocijan et al., Sec. 3.1) is, among the examples of gender G whose referent is A or B, the
    share whose referent the system marks as coreferent (a spurious link to the other candidate
    does not count); acc-Bias = Acc_F / Acc_M. F1_G (Webster et al.) = 2 TP / (2 TP + FP + FN), with
    TP, FP and FN counted over both candidates of every example of gender G; F1-Bias = F1_F / F1_M.
    A value below 1 means the system does worse on feminine pronouns.

    Undefined cases (None, with the reason under ``undefined``): ``accuracy_male`` /
    ``accuracy_female`` when no example of that gender has a positive candidate, and ``acc_bias``
    then or when Acc_M = 0; ``f1_male`` / ``f1_female`` / ``f1`` when there are neither gold nor
    predicted coreferent candidates (0/0), and ``f1_bias`` then or when F1_M = 0; every
    ``_p_value``/``_ci_*`` with ``n_bootstrap=0``.

    References
    ----------
    Kocijan, V., Camburu, O.-M. and Lukasiewicz, T. (2021). The Gap on GAP: Tackling the Problem of
    Differing Data Distributions in Bias-Measuring Datasets. AAAI 2021.

    Webster, K., Recasens, M., Axelrod, V. and Baldridge, J. (2018). Mind the GAP: A Balanced Corpus
    of Gendered Ambiguous Pronouns. TACL 6.

    Examples
    --------
    Two masculine examples solved, one with a spurious link to the negative candidate; of two feminine
    examples with a referent one is missed, and a fifth (feminine, no referent) gets a spurious link.
    Acc_M = 2/2, Acc_F = 1/2; male TP 2, FP 1 (F1 = 4/5), female TP 1, FP 2, FN 1 (F1 = 2/5):

    >>> from corefbias import gap_acc_bias
    >>> result = gap_acc_bias(
    ...     [[True, False], [True, True], [False, True], [False, True], [True, False]],
    ...     [[True, False], [False, True], [True, False], [False, True], [False, False]],
    ...     ["male", "male", "female", "female", "female"],
    ...     n_bootstrap=0,
    ... )
    >>> round(result["accuracy_male"], 3), round(result["accuracy_female"], 3), round(result["acc_bias"], 3)
    (1.0, 0.5, 0.5)
    >>> round(result["f1_male"], 3), round(result["f1_female"], 3), round(result["f1_bias"], 3)
    (0.8, 0.4, 0.5)
    >>> result["num_examples"], result["num_scored_for_accuracy"]
    (5, 4)
    """
    structured_inputs.check_significance(n_bootstrap, seed)
    predicted, gold, female = check_inputs(predictions, references, genders, block_ids=block_ids)
    blocks = unit_blocks(block_ids, np.arange(len(gold)), list(range(len(gold))), unit="example")
    rows = example_rows(predicted, gold, female)
    scores = statistic(rows.sum(axis=0))
    scores.update(num_examples=len(rows), num_scored_for_accuracy=int(gold.any(axis=1).sum()))
    inferences = bootstrap_test(
        rows, statistic, ACC_BIAS_NULLS, n_bootstrap=n_bootstrap, seed=seed, unit="example", blocks=blocks
    )
    return measure_result(
        "gap_acc_bias",
        scores,
        {**_REASONS, "acc_bias": ratio_reason(rows.sum(axis=0), "acc_bias", weighted=False)},
        inferences,
        n_bootstrap=n_bootstrap,
        primary="acc_bias",
        unit_rows=UnitRows(np.asarray(rows, dtype=float), statistic, tuple(ACC_BIAS_NULLS), blocks=blocks),
    )
