"""GAP bias scores: Webster et al.'s F1-Bias and Kocijan et al.'s accuracy-based acc-Bias and W-Bias.

Every GAP example has a pronoun and two candidate names A and B, at most one of them its referent;
a system says, per candidate, whether it is coreferent with the pronoun (``[A, B]`` booleans).

  * **F1-Bias** (Webster et al., 2018) = F1_F / F1_M, with GAP's scorer: true/false positives and
    false negatives counted over both candidates of every example of a gender.
  * **acc-Bias** (Kocijan et al., 2021, Sec. 3.1) = Acc_F / Acc_M, with the accuracy *on the positive
    candidate*: the share of examples with a referent among A and B whose referent the system marks
    as coreferent. Examples with no positive candidate (about 10% of GAP test) are left out. A wrong
    negative candidate adds nothing, so the score is not blurred by which distractor a system picked.
  * **W-Bias** = the same ratio of *weighted* accuracies, Σ w over the positive candidates marked
    coreferent / Σ w over all positive candidates, each gender on its own; acc-Bias is the case
    ``w = 1``. The weights (``corefbias.measures.gap_properties``, ``corefbias.measures.weighting``) balance the number
    of names and the position of the referent between the genders.

The resampling unit is the example; with ``block_ids`` the bootstrap draws whole blocks of them (the examples
taken from one Wikipedia page, which a model answers alike: ``corefbias.measures.blocks``). Each example contributes
one row of sums (weights, weighted correct answers, TP/FP/FN per gender); every score is a ratio of column sums, so
bootstrap replicates and the paired randomization test of :func:`compare_models` reuse one statistic (``gap_rows``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import gap_properties, structured_inputs, validation
from .blocks import unit_blocks
from .gap_rows import COLUMNS, check_inputs, check_weights, example_rows, ratio_reason, statistic, weighted_statistic
from .resampling import UnitRows, bootstrap_test, paired_randomization_test
from .result import MeasureResult
from .result_building import measure_result

ACC_BIAS_NULLS = {"acc_bias": 1.0, "f1_bias": 1.0}
W_BIAS_NULLS = {"w_bias": 1.0}

_REASONS = {
    "accuracy_male": "no male example has a positive candidate",
    "accuracy_female": "no female example has a positive candidate",
    "f1_male": "male examples have neither gold nor predicted coreferent candidates",
    "f1_female": "female examples have neither gold nor predicted coreferent candidates",
    "f1": "there are neither gold nor predicted coreferent candidates",
    "f1_bias": "an F1 is undefined or the male F1 is 0",
}
_W_REASONS = {
    "weighted_accuracy_male": "the male examples with a positive candidate carry no weight",
    "weighted_accuracy_female": "the female examples with a positive candidate carry no weight",
    "weighted_accuracy": "no example with a positive candidate carries weight",
}


def acc_bias(
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

    >>> from corefbias import acc_bias
    >>> result = acc_bias(
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
        "acc_bias",
        scores,
        {**_REASONS, "acc_bias": ratio_reason(rows.sum(axis=0), "acc_bias", weighted=False)},
        inferences,
        n_bootstrap=n_bootstrap,
        primary="acc_bias",
        unit_rows=UnitRows(np.asarray(rows, dtype=float), statistic, tuple(ACC_BIAS_NULLS), blocks=blocks),
    )


def w_bias(
    predictions: Sequence,
    references: Sequence,
    genders: Sequence[str],
    *,
    weights: Sequence[float] | None = None,
    num_names: Sequence[int] | None = None,
    correct_ranks: Sequence[int | None] | None = None,
    block_ids: Sequence | None = None,
    variant: str = "wt",
    return_weights: bool = False,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """W-Bias with given ``weights``, or with the weights of ``variant`` solved from the GAP properties.

    Significance resamples examples (whole blocks of them with ``block_ids``) with their weights held fixed: it
    reflects which items were drawn, not how the weights would change on another draw.

    Parameters
    ----------
    predictions : list of [bool, bool]
        per example, does the system link candidate A / B to the pronoun?
    references : list of [bool, bool]
        the gold `[A-coref, B-coref]` labels (at most one True).
    genders : list of str
        `female` or `male`, the gender of the example's pronoun.
    weights : list of float, optional
        one weight per example, on its positive candidate (0 for
        examples without one). Give either weights or both of the next two.
    num_names : list of int, optional
        number of personal-name spans in the example's text.
    correct_ranks : list of int or None, optional
        position of the positive candidate among the
        names ordered by token distance to the pronoun (1 = closest); None where the example has no
        positive candidate or it matches no name.
    block_ids : list of str or int, or list of tuple, optional
        the block of each example: the Wikipedia page (its URL) the example was taken from, inside which a
        model's answers are not independent; the bootstrap draws whole blocks, its interval and p-value expanded
        for how few they are. A tuple per example gives one id per crossed factor, each drawn apart. Left out:
        every example is a block of its own.
    variant : str, default "wt"
        `w`, `wnum`, `wdist` or `wt`; used with num_names/correct_ranks.
    return_weights : bool, default False
        Add the weights used, one per example, to the result under ``weights``.
    n_bootstrap : int, default 1000
        bootstrap resamples of examples (at most 10,000,000); 0 switches
        significance off.
    seed : int, default 0
        non-negative seed of the resampling, so results are reproducible.

    Returns
    -------
    MeasureResult
        Every score overall (``corefbias.measures.result``; primary: ``w_bias``), the ``variant`` (and the
        ``weights`` if asked for) among its extras, and the weighted example rows its bootstrap resampled
        (``unit_rows``). As a mapping, its flat keys:

        * ``w_bias`` (weighted Acc_F / weighted Acc_M), ``weighted_accuracy_male``,
          ``weighted_accuracy_female``, ``weighted_accuracy`` (fractions);
        * ``max_weight``, ``num_zero_weights`` (examples with a positive candidate but weight 0),
          ``num_weighted_examples`` (weight > 0);
        * ``w_bias_p_value`` (two-sided bootstrap against 1), ``w_bias_ci_low``, ``w_bias_ci_high``
          (95% percentile interval), None with ``n_bootstrap=0``;
        * ``undefined``: every key whose value is None, mapped to the reason;
        * ``variant`` (``"given"`` when ``weights`` were passed), and ``weights`` if asked for.

    Raises
    ------
    ValueError
        If neither ``weights`` nor both ``num_names`` and ``correct_ranks`` are given, or both ways
        are; ``variant`` is not one of `w`, `wnum`, `wdist`, `wt`; a weight is negative, not finite,
        or positive on an example without a positive candidate; ``num_names`` / ``correct_ranks``
        are not valid counts and ranks (or the weight program has no solution); and for the same bad
        ``predictions``, ``references``, ``genders``, ``block_ids``, ``n_bootstrap`` or ``seed`` as
        :func:`acc_bias`, or a ``return_weights`` that is not True or False.

    Notes
    -----
    Weighted Acc_G = Σ w over the positive candidates of gender G marked coreferent / Σ w over all
    positive candidates of gender G; W-Bias = weighted Acc_F / weighted Acc_M, and acc-Bias is the
    case w = 1. The variant weights (Kocijan et al., Sec. 2, 3.4-3.5) are solved by a linear program
    so that the number of names (`wnum`), the rank of the referent by distance (`wdist`), or both
    (`w`) have the same weighted distribution for both genders; `wt` trims the largest weights.

    Undefined cases (None, with the reason under ``undefined``): ``weighted_accuracy_male`` /
    ``weighted_accuracy_female`` when that gender's examples with a positive candidate carry no
    weight, ``weighted_accuracy`` when none does, ``w_bias`` then or when the male weighted accuracy
    is 0; the significance keys with ``n_bootstrap=0``.

    References
    ----------
    Kocijan, V., Camburu, O.-M. and Lukasiewicz, T. (2021). The Gap on GAP: Tackling the Problem of
    Differing Data Distributions in Bias-Measuring Datasets. AAAI 2021.

    Examples
    --------
    Given weights: the system is right on the masculine example of weight 3 but not on the one of
    weight 1 (3/4), and on one of two feminine examples of weight 2 (2/4), so W-Bias = 0.5 / 0.75:

    >>> from corefbias import w_bias
    >>> result = w_bias(
    ...     [[True, False], [False, False], [True, False], [False, False]],
    ...     [[True, False]] * 4,
    ...     ["male", "male", "female", "female"],
    ...     weights=[3.0, 1.0, 2.0, 2.0],
    ...     n_bootstrap=0,
    ... )
    >>> round(result["weighted_accuracy_male"], 3), round(result["weighted_accuracy_female"], 3)
    (0.75, 0.5)
    >>> round(result["w_bias"], 3), result["max_weight"], result["variant"]
    (0.667, 3.0, 'given')
    """
    structured_inputs.check_significance(n_bootstrap, seed)
    structured_inputs.check_flag("return_weights", return_weights)
    # Checked with given weights too, where it is not used: a misspelt variant is a mistake either way.
    structured_inputs.check_choice("variant", variant, gap_properties.VARIANTS)
    with_properties = num_names is not None and correct_ranks is not None
    one_property = (num_names is None) != (correct_ranks is None)
    if (weights is not None) == with_properties or one_property:
        raise ValueError(
            "give either weights, or both num_names and correct_ranks (with a variant) to compute the weights from"
        )
    predicted, gold, female = check_inputs(
        predictions,
        references,
        genders,
        weights=weights,
        num_names=num_names,
        correct_ranks=correct_ranks,
        block_ids=block_ids,
    )
    blocks = unit_blocks(block_ids, np.arange(len(gold)), list(range(len(gold))), unit="example")
    if weights is None:
        genders_array = np.where(female, "female", "male")
        values = gap_properties.variant_weights(genders_array, gold.any(axis=1), num_names, correct_ranks, variant)
    else:
        values = check_weights(weights, gold)
    rows = example_rows(predicted, gold, female, values)
    scores = weighted_statistic(rows.sum(axis=0))
    positive = gold.any(axis=1)
    scores.update(
        max_weight=float(values.max()),
        num_zero_weights=int(np.count_nonzero(values[positive] == 0)),
        num_weighted_examples=int(np.count_nonzero(values > 0)),
    )
    inferences = bootstrap_test(
        rows, weighted_statistic, W_BIAS_NULLS, n_bootstrap=n_bootstrap, seed=seed, unit="example", blocks=blocks
    )
    extras = {"variant": variant if weights is None else "given"}
    if return_weights:
        extras["weights"] = values.tolist()
    return measure_result(
        "w_bias",
        scores,
        {**_W_REASONS, "w_bias": ratio_reason(rows.sum(axis=0), "w_bias", weighted=True)},
        inferences,
        n_bootstrap=n_bootstrap,
        primary="w_bias",
        extras=extras,
        unit_rows=UnitRows(np.asarray(rows, dtype=float), weighted_statistic, tuple(W_BIAS_NULLS), blocks=blocks),
    )


def undefined_w_bias(reason: str) -> MeasureResult:
    """The result of :func:`w_bias` where no weights can be solved: W-Bias undefined for ``reason``.

    Parameters
    ----------
    reason : str
        Why there are no weights.

    Returns
    -------
    MeasureResult

    Examples
    --------
    >>> dict(undefined_w_bias("no balancing weights"))
    {'w_bias': None, 'undefined': {'w_bias': 'no balancing weights'}}
    """
    return measure_result("w_bias", {"w_bias": None}, {"w_bias": reason}, primary="w_bias")


def compare_models(
    predictions_a: Sequence,
    predictions_b: Sequence,
    references: Sequence,
    genders: Sequence[str],
    *,
    score: str = "acc_bias",
    weights: Sequence[float] | None = None,
    n_permutations: int = 10_000,
    seed: int = 0,
) -> dict[str, float | None]:
    """Is model A's ``score`` different from model B's on the same examples? (Yeh 2000, as in Sec. 3.6.)

    ``score`` is any score of ``gap_rows.statistic`` (``acc_bias``, ``f1_bias``, ``accuracy``, ...); with
    ``weights`` the accuracies are weighted, so ``score="acc_bias"`` compares W-Bias (the paper's
    Wt-Bias comparisons pass the Wt weights).

    Parameters
    ----------
    predictions_a, predictions_b : sequence
        The two models' ``[A, B]`` decisions per example.
    references : sequence
        The gold ``[A, B]`` labels.
    genders : sequence of str
        ``female`` or ``male`` per example.
    score : str, default "acc_bias"
        The score compared.
    weights : sequence of float, optional
        The examples' weights (W-Bias).
    n_permutations : int, default 10000
        The random swaps.
    seed : int, default 0
        Seeds them.

    Returns
    -------
    dict
        ``difference`` (A − B) and its two-sided ``p_value`` (approximate randomization).

    Raises
    ------
    ValueError
        For an unknown ``score`` or any bad input, as :func:`acc_bias` lists.

    Examples
    --------
    A right on every example, B only on the masculine ones:

    >>> gold = [[True, False]] * 8
    >>> genders = ["male", "female"] * 4
    >>> b = [[True, False], [False, False]] * 4
    >>> result = compare_models(gold, b, gold, genders, score="accuracy", n_permutations=2000)
    >>> result["difference"], result["p_value"] < 0.2
    (0.5, True)
    """
    structured_inputs.check_choice("score", score, sorted(statistic(np.zeros(len(COLUMNS)))))
    predicted_a, gold, female = check_inputs(
        predictions_a, references, genders, {"predictions_b": predictions_b}, weights=weights
    )
    predicted_b = validation.check_binary_pairs("predictions_b", predictions_b)
    values = None if weights is None else check_weights(weights, gold)
    return paired_randomization_test(
        example_rows(predicted_a, gold, female, values),
        example_rows(predicted_b, gold, female, values),
        statistic,
        score,
        n_permutations=n_permutations,
        seed=seed,
    )
