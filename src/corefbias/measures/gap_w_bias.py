"""GAP W-Bias (Kocijan et al., 2021): acc-Bias of accuracies weighted to balance the GAP properties.

W-Bias = the ratio Acc_F / Acc_M of *weighted* accuracies on the positive candidate: Σ w over the positive
candidates marked coreferent / Σ w over all positive candidates, each gender on its own; acc-Bias
(``gap_acc_bias``) is the case ``w = 1``. The weights (``corefbias.measures.gap_properties``,
``corefbias.measures.weighting``) balance the number of names and the position of the referent between the genders.

The resampling unit is the example, with whole blocks of them (a Wikipedia page's examples) with ``block_ids``;
each example contributes one weighted row of sums (``gap_rows``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import gap_properties, structured_inputs
from .blocks import unit_blocks
from .gap_rows import check_inputs, check_weights, example_rows, ratio_reason, weighted_statistic
from .resampling import UnitRows, bootstrap_test
from .result import MeasureResult, measure_result

W_BIAS_NULLS = {"w_bias": 1.0}

_W_REASONS = {
    "weighted_accuracy_male": "the male examples with a positive candidate carry no weight",
    "weighted_accuracy_female": "the female examples with a positive candidate carry no weight",
    "weighted_accuracy": "no example with a positive candidate carries weight",
}


def gap_w_bias(
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
        :func:`~corefbias.measures.gap_acc_bias.gap_acc_bias`, or a ``return_weights`` that is not True or False.

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

    >>> from corefbias import gap_w_bias
    >>> result = gap_w_bias(
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
        "gap_w_bias",
        scores,
        {**_W_REASONS, "w_bias": ratio_reason(rows.sum(axis=0), "w_bias", weighted=True)},
        inferences,
        n_bootstrap=n_bootstrap,
        primary="w_bias",
        extras=extras,
        unit_rows=UnitRows(np.asarray(rows, dtype=float), weighted_statistic, tuple(W_BIAS_NULLS), blocks=blocks),
    )


def undefined_w_bias(reason: str) -> MeasureResult:
    """The result of :func:`gap_w_bias` where no weights can be solved: W-Bias undefined for ``reason``.

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
    return measure_result("gap_w_bias", {"w_bias": None}, {"w_bias": reason}, primary="w_bias")
