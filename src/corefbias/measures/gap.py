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

The resampling unit is the example. Each example contributes one row of sums (weights, weighted
correct answers, TP/FP/FN per gender); every score is a ratio of column sums, so bootstrap
replicates and the paired randomization test of :func:`compare_models` reuse one statistic.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import gap_properties, validation
from .resampling import Scored, UnitRows, bootstrap_test, paired_randomization_test, safe_div
from .result_format import finalize

GENDERS = ("female", "male")

_COLUMNS = tuple(
    f"{kind}_{gender}" for gender in ("male", "female") for kind in ("weight", "correct", "tp", "fp", "fn")
)
_COLUMN = {name: index for index, name in enumerate(_COLUMNS)}

ACC_BIAS_NULLS = {"acc_bias": 1.0, "f1_bias": 1.0}
W_BIAS_NULLS = {"w_bias": 1.0}

_REASONS = {
    "accuracy_male": "no male example has a positive candidate",
    "accuracy_female": "no female example has a positive candidate",
    "acc_bias": "a gender has no example with a positive candidate, or the male accuracy is 0",
    "f1_male": "male examples have neither gold nor predicted coreferent candidates",
    "f1_female": "female examples have neither gold nor predicted coreferent candidates",
    "f1": "there are neither gold nor predicted coreferent candidates",
    "f1_bias": "an F1 is undefined or the male F1 is 0",
}
_W_REASONS = {
    "weighted_accuracy_male": "the male examples with a positive candidate carry no weight",
    "weighted_accuracy_female": "the female examples with a positive candidate carry no weight",
    "weighted_accuracy": "no example with a positive candidate carries weight",
    "w_bias": "a gender carries no weight, or the male weighted accuracy is 0",
}
# The weighted scores are the accuracy scores of weighted rows, under their W-Bias names.
_WEIGHTED_NAMES = {
    "accuracy_male": "weighted_accuracy_male",
    "accuracy_female": "weighted_accuracy_female",
    "accuracy": "weighted_accuracy",
    "acc_bias": "w_bias",
}


def statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
    """Accuracies on the positive candidate, GAP F1s and both bias ratios, from column sums."""
    s = {name: sums[..., index] for name, index in _COLUMN.items()}
    scores = {
        "accuracy_male": safe_div(s["correct_male"], s["weight_male"]),
        "accuracy_female": safe_div(s["correct_female"], s["weight_female"]),
        "accuracy": safe_div(s["correct_male"] + s["correct_female"], s["weight_male"] + s["weight_female"]),
    }
    for gender in ("male", "female"):
        tp, fp, fn = s[f"tp_{gender}"], s[f"fp_{gender}"], s[f"fn_{gender}"]
        scores[f"f1_{gender}"] = safe_div(2 * tp, 2 * tp + fp + fn)
    tp = s["tp_male"] + s["tp_female"]
    scores["f1"] = safe_div(2 * tp, 2 * tp + s["fp_male"] + s["fp_female"] + s["fn_male"] + s["fn_female"])
    scores["acc_bias"] = safe_div(scores["accuracy_female"], scores["accuracy_male"])
    scores["f1_bias"] = safe_div(scores["f1_female"], scores["f1_male"])
    return scores


def weighted_statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
    """The accuracy scores of weighted rows, named as W-Bias scores."""
    scores = statistic(sums)
    return {weighted: scores[name] for name, weighted in _WEIGHTED_NAMES.items()}


def example_rows(
    predicted: np.ndarray, gold: np.ndarray, female: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """One row of ``_COLUMNS`` per example.

    ``predicted`` may hold probabilities instead of booleans: every column is linear in it, so the
    rows of expected predictions are the expected rows (used for the Random baseline).
    ``weights`` (default 1) sit on the positive candidate; examples without one weigh nothing.
    """
    predicted = np.asarray(predicted, dtype=float)
    gold = np.asarray(gold, dtype=bool)
    positive = gold.any(axis=1)
    weight = np.where(positive, 1.0 if weights is None else np.asarray(weights, dtype=float), 0.0)
    on_positive = np.where(gold[:, 0], predicted[:, 0], predicted[:, 1])
    counts = {
        "weight": weight,
        "correct": weight * on_positive,
        "tp": (predicted * gold).sum(axis=1),
        "fp": (predicted * ~gold).sum(axis=1),
        "fn": ((1.0 - predicted) * gold).sum(axis=1),
    }
    female = np.asarray(female, dtype=bool)
    columns = {}
    for gender, in_gender in (("male", ~female), ("female", female)):
        for kind, values in counts.items():
            columns[f"{kind}_{gender}"] = values * in_gender
    return np.column_stack([columns[name] for name in _COLUMNS])


def check_inputs(
    predictions: Sequence, references: Sequence, genders: Sequence[str], **optional
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validated ``(n, 2)`` predicted and gold arrays and the female mask; ``optional`` are length-checked."""
    validation.check_lengths(predictions=predictions, references=references, genders=genders, **optional)
    predicted = validation.check_binary_pairs("predictions", predictions)
    gold = validation.check_binary_pairs("references", references)
    both = np.flatnonzero(gold.all(axis=1))
    if both.size:
        raise ValueError(
            f"references[{both[0]}] marks both candidates as the referent; in GAP at most one of A and B "
            f"is coreferent with the pronoun ({both.size} such example(s))"
        )
    validation.check_labels("genders", genders, GENDERS)
    female = np.asarray(genders) == "female"
    validation.check_nonempty({"female": int(female.sum()), "male": int((~female).sum())}, "a female/male bias ratio")
    return predicted, gold, female


def acc_bias(
    predictions: Sequence,
    references: Sequence,
    genders: Sequence[str],
    *,
    n_bootstrap: int = 1000,
    seed: int = 0,
    return_unit_rows: bool = False,
) -> dict | Scored:
    """Accuracies on the positive candidate, acc-Bias, GAP F1s and F1-Bias, with bootstrap significance.

    Parameters
    ----------
    return_unit_rows : bool, default False
        Also hand over the unit rows the significance resamples, for a paired comparison of two models.

    Returns
    -------
    dict or Scored
        The flat result; with ``return_unit_rows=True``, it and its unit rows (``resampling.Scored``).
    """
    validation.check_n_bootstrap(n_bootstrap, seed)
    predicted, gold, female = check_inputs(predictions, references, genders)
    rows = example_rows(predicted, gold, female)
    scores = statistic(rows.sum(axis=0))
    scores.update(num_examples=len(rows), num_scored_for_accuracy=int(gold.any(axis=1).sum()))
    inferences = bootstrap_test(rows, statistic, ACC_BIAS_NULLS, n_bootstrap=n_bootstrap, seed=seed)
    result = finalize(scores, _REASONS, inferences, n_bootstrap=n_bootstrap)
    if return_unit_rows:
        return Scored(result, UnitRows(np.asarray(rows, dtype=float), statistic, tuple(ACC_BIAS_NULLS)))
    return result


def check_weights(weights: Sequence, gold: np.ndarray) -> np.ndarray:
    """Finite, non-negative weights, zero on examples without a positive candidate."""
    try:
        values = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("weights must be numbers, one per example") from None
    bad = np.flatnonzero(~np.isfinite(values) | (values < 0))
    if bad.size:
        raise ValueError(f"weights[{bad[0]}] is {weights[bad[0]]!r}; weights must be finite and non-negative")
    stray = np.flatnonzero((values > 0) & ~gold.any(axis=1))
    if stray.size:
        raise ValueError(
            f"weights[{stray[0]}] is {values[stray[0]]} but example {stray[0]} has no positive candidate; weights "
            f"sit on the positive candidate, so examples without one must weigh 0"
        )
    return values


def w_bias(
    predictions: Sequence,
    references: Sequence,
    genders: Sequence[str],
    *,
    weights: Sequence[float] | None = None,
    num_names: Sequence[int] | None = None,
    correct_ranks: Sequence[int | None] | None = None,
    variant: str = "wt",
    return_weights: bool = False,
    n_bootstrap: int = 1000,
    seed: int = 0,
    return_unit_rows: bool = False,
) -> dict | Scored:
    """W-Bias with given ``weights``, or with the weights of ``variant`` solved from the GAP properties.

    Significance resamples examples with their weights held fixed: it reflects which items were
    drawn, not how the weights would change on another draw.

    Parameters
    ----------
    return_weights : bool, default False
        Add the weights used, one per example, to the result under ``weights``.
    return_unit_rows : bool, default False
        Also hand over the unit rows the significance resamples, for a paired comparison of two models.

    Returns
    -------
    dict or Scored
        The flat result; with ``return_unit_rows=True``, it and its unit rows (``resampling.Scored``).
        The rows hold the weights; with ``return_weights=True`` too, the ``Scored`` result has ``weights``.
    """
    validation.check_n_bootstrap(n_bootstrap, seed)
    with_properties = num_names is not None and correct_ranks is not None
    one_property = (num_names is None) != (correct_ranks is None)
    if (weights is not None) == with_properties or one_property:
        raise ValueError(
            "give either weights, or both num_names and correct_ranks (with a variant) to compute the weights from"
        )
    predicted, gold, female = check_inputs(
        predictions, references, genders, weights=weights, num_names=num_names, correct_ranks=correct_ranks
    )
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
    inferences = bootstrap_test(rows, weighted_statistic, W_BIAS_NULLS, n_bootstrap=n_bootstrap, seed=seed)
    result = finalize(scores, _W_REASONS, inferences, n_bootstrap=n_bootstrap)
    result["variant"] = variant if weights is None else "given"
    if return_weights:
        result["weights"] = values.tolist()
    if return_unit_rows:
        return Scored(result, UnitRows(np.asarray(rows, dtype=float), weighted_statistic, tuple(W_BIAS_NULLS)))
    return result


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

    ``score`` is any score of :func:`statistic` (``acc_bias``, ``f1_bias``, ``accuracy``, ...); with
    ``weights`` the accuracies are weighted, so ``score="acc_bias"`` compares W-Bias (the paper's
    Wt-Bias comparisons pass the Wt weights). Returns ``difference`` (A − B) and a two-sided ``p_value``.
    """
    names = sorted(statistic(np.zeros(len(_COLUMNS))))
    if score not in names:
        raise ValueError(f"unknown score {score!r}; choose one of {names}")
    predicted_a, gold, female = check_inputs(
        predictions_a, references, genders, predictions_b=predictions_b, weights=weights
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
