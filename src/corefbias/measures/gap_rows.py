"""GAP's per-example rows and the scores of their sums, shared by ``gap_acc_bias``, ``gap_w_bias`` and
:func:`compare_models`, the paired comparison of two models on either score.

Each example contributes one row of sums (``COLUMNS``: its positive candidate's weight and whether it was found,
and GAP's TP/FP/FN, per gender); every score is a ratio of column sums, so bootstrap replicates and the paired
randomization test reuse one statistic. A weighted row is the same row with the weight on its positive candidate:
W-Bias is acc-Bias of weighted rows (``weighted_statistic``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from . import structured_inputs, validation
from .resampling import paired_randomization_test, safe_div

GENDERS = ("female", "male")

COLUMNS = tuple(f"{kind}_{gender}" for gender in ("male", "female") for kind in ("weight", "correct", "tp", "fp", "fn"))
_COLUMN = {name: index for index, name in enumerate(COLUMNS)}

# The weighted scores are the accuracy scores of weighted rows, under their W-Bias names.
_WEIGHTED_NAMES = {
    "accuracy_male": "weighted_accuracy_male",
    "accuracy_female": "weighted_accuracy_female",
    "accuracy": "weighted_accuracy",
    "acc_bias": "w_bias",
}


def statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
    """Accuracies on the positive candidate, GAP F1s and both bias ratios, from column sums.

    Parameters
    ----------
    sums : numpy.ndarray
        Sums of the per-example columns (:func:`example_rows`), shape ``(..., 10)``.

    Returns
    -------
    dict of str to numpy.ndarray
        The scores of ``gap_acc_bias.gap_acc_bias`` (NaN where undefined).

    Examples
    --------
    >>> rows = example_rows([[True, False], [False, False]], [[True, False], [True, False]], [False, True])
    >>> {name: float(value) for name, value in statistic(rows.sum(axis=0)).items() if name.startswith("acc")}
    {'accuracy_male': 1.0, 'accuracy_female': 0.0, 'accuracy': 0.5, 'acc_bias': 0.0}
    """
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


def ratio_reason(sums: np.ndarray, ratio: str, weighted: bool) -> str:
    """Why the female/male accuracy ratio (``acc_bias`` or ``w_bias``) of these column sums is undefined: which
    gender's examples with a positive candidate weigh nothing, or that the male (weighted) accuracy is 0.

    Parameters
    ----------
    sums : numpy.ndarray
        Sums of the per-example columns (:func:`example_rows`) over the examples scored.
    ratio : str
        The ratio's name, ``"acc_bias"`` or ``"w_bias"``, as the reason names it.
    weighted : bool
        Whether the rows are weighted (W-Bias), which the reason's wording says.

    Returns
    -------
    str
        The condition that holds, and the ratio's formula.

    Examples
    --------
    >>> sums = np.zeros(len(COLUMNS))
    >>> sums[_COLUMN["weight_male"]] = 2.0
    >>> ratio_reason(sums, "w_bias", weighted=True)
    'the female examples with a positive candidate carry no weight, and w_bias = weighted Acc_F / weighted Acc_M'
    >>> sums[_COLUMN["weight_female"]] = 1.0
    >>> ratio_reason(sums, "w_bias", weighted=True)
    'the male weighted accuracy is 0, and w_bias = weighted Acc_F / weighted Acc_M'
    """
    empty = [gender for gender in ("female", "male") if sums[_COLUMN[f"weight_{gender}"]] <= 0]
    formula = "weighted Acc_F / weighted Acc_M" if weighted else "Acc_F / Acc_M"
    if empty and weighted:
        held = f"the {' and '.join(empty)} examples with a positive candidate carry no weight"
    elif empty:
        held = f"no {' or '.join(empty)} example has a positive candidate"
    else:
        held = f"the male {'weighted ' if weighted else ''}accuracy is 0"
    return f"{held}, and {ratio} = {formula}"


def weighted_statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
    """The accuracy scores of weighted rows, named as W-Bias scores.

    Parameters
    ----------
    sums : numpy.ndarray
        Sums of weighted per-example columns (:func:`example_rows` with ``weights``).

    Returns
    -------
    dict of str to numpy.ndarray
        ``weighted_accuracy_male``, ``weighted_accuracy_female``, ``weighted_accuracy``, ``w_bias``.

    Examples
    --------
    >>> rows = example_rows([[True, False], [True, False]], [[True, False]] * 2, [False, True], weights=[3.0, 1.0])
    >>> float(weighted_statistic(rows.sum(axis=0))["weighted_accuracy"])
    1.0
    """
    scores = statistic(sums)
    return {weighted: scores[name] for name, weighted in _WEIGHTED_NAMES.items()}


def example_rows(
    predicted: np.ndarray, gold: np.ndarray, female: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """One row of ``COLUMNS`` per example.

    ``predicted`` may hold probabilities instead of booleans: every column is linear in it, so the
    rows of expected predictions are the expected rows (used for the Random baseline).
    ``weights`` (default 1) sit on the positive candidate; examples without one weigh nothing.

    Parameters
    ----------
    predicted : array_like
        ``(n, 2)`` decisions (or probabilities) for candidates A and B.
    gold : array_like
        ``(n, 2)`` gold labels.
    female : array_like
        Per example, whether its pronoun is feminine.
    weights : array_like, optional
        Per example, the weight of its positive candidate.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, 10)``: weight, correct, TP, FP, FN for male then female examples.

    Examples
    --------
    A masculine example solved with a spurious link to B:

    >>> example_rows([[True, True]], [[True, False]], [False]).tolist()
    [[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]
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
    return np.column_stack([columns[name] for name in COLUMNS])


def check_inputs(
    predictions: Sequence,
    references: Sequence,
    genders: Sequence[str],
    required: Mapping[str, Sequence] | None = None,
    **optional,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validated ``(n, 2)`` predicted and gold arrays and the female mask; the columns of ``required`` and the
    ``optional`` ones (None: left out) are checked to be columns of the same length.

    Parameters
    ----------
    predictions, references : sequence
        ``[A, B]`` booleans per example.
    genders : sequence of str
        ``female`` or ``male`` per example.
    required : mapping of str to sequence, optional
        Further columns that must be given.
    **optional
        Further columns that may be None.

    Returns
    -------
    tuple of numpy.ndarray
        The predictions, the references, and whether each example is feminine.

    Raises
    ------
    ValueError
        For any bad input, as ``gap_acc_bias.gap_acc_bias`` lists; a reference marking both candidates.

    Examples
    --------
    >>> predicted, gold, female = check_inputs([[1, 0], [0, 0]], [[True, False], [False, True]], ["male", "female"])
    >>> female.tolist()
    [False, True]
    >>> check_inputs([[1, 0]], [[True, True]], ["male"])
    Traceback (most recent call last):
    ...
    ValueError: references[0] marks both candidates as the referent; in GAP at most one of A and B is coreferent with
    the pronoun (1 such example(s))
    """
    validation.check_lengths(
        predictions=predictions, references=references, genders=genders, **(required or {}), optional=optional
    )
    predicted = validation.check_binary_pairs("predictions", predictions)
    gold = validation.check_binary_pairs("references", references)
    both = np.flatnonzero(gold.all(axis=1))
    if both.size:
        raise ValueError(
            f"references[{both[0]}] marks both candidates as the referent; in GAP at most one of A and B "
            f"is coreferent with the pronoun ({both.size} such example(s))"
        )
    structured_inputs.check_labels("genders", genders, GENDERS)
    female = np.asarray(genders) == "female"
    structured_inputs.check_nonempty(
        {"female": int(female.sum()), "male": int((~female).sum())}, "a female/male bias ratio"
    )
    return predicted, gold, female


def check_weights(weights: Sequence, gold: np.ndarray) -> np.ndarray:
    """Finite, non-negative weights, zero on examples without a positive candidate.

    Parameters
    ----------
    weights : sequence of float
        One weight per example.
    gold : numpy.ndarray
        ``(n, 2)`` gold labels.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    ValueError
        If a weight is negative or not finite, or positive on an example without a positive candidate.

    Examples
    --------
    >>> check_weights([2, 0], np.array([[True, False], [False, False]])).tolist()
    [2.0, 0.0]
    >>> check_weights([2, 1], np.array([[True, False], [False, False]]))
    Traceback (most recent call last):
    ...
    ValueError: weights[1] is 1.0 but example 1 has no positive candidate; weights sit on the positive candidate, so
    examples without one must weigh 0
    """
    values = np.asarray(validation.check_numbers("weights", weights, low=0.0), dtype=float)
    stray = np.flatnonzero((values > 0) & ~gold.any(axis=1))
    if stray.size:
        raise ValueError(
            f"weights[{stray[0]}] is {values[stray[0]]} but example {stray[0]} has no positive candidate; weights "
            f"sit on the positive candidate, so examples without one must weigh 0"
        )
    return values


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
        For an unknown ``score`` or any bad input, as :func:`~corefbias.measures.gap_acc_bias.gap_acc_bias` lists.

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
