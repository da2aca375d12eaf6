"""Is model A's score different from model B's? Paired differences over the same units, and Holm's adjustment.

Both models are scored on the same resampling units (quadruples, pairs, triplets, examples), each a
row of counts as in :mod:`corefbias.measures.resampling`, so the comparison reuses the count-matrix
machinery and item difficulty cancels out:

  * the **difference** is ``score(A) − score(B)`` on the column totals;
  * its **confidence interval** and two-sided **p-value** (against a difference of 0) come from a paired
    bootstrap by the same blocks as a run's own significance (``resampling.bootstrap_replicates``): each
    replicate draws one multiset of blocks and applies it to *both* models' rows (``weights @ rows_a`` and
    ``weights @ rows_b`` with the same ``weights``), expanded for the number of blocks (``resampling.infer``).
    Drawing whole blocks matters: two models that each answer a template alike differ alike on its units, and
    a test swapping or drawing units one by one would call that difference significant far too often. (The
    approximate randomization test of GAP's paper, which swaps units, stays where it reproduces that paper:
    ``gap_rows.compare_models``.)

A family of comparisons (one comparison's headline scores) is corrected with Holm's step-down
method, which controls the family-wise error rate without assuming independence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from .blocks import Blocks
from .resampling import Inference, Statistic, blocks_behind, bootstrap_replicates, infer


@dataclass(frozen=True)
class Difference:
    """``score(A) − score(B)`` with its paired-bootstrap CI and two-sided p-value.

    ``None`` fields are undefined for these data; ``undefined`` then says why.

    Attributes
    ----------
    value_a, value_b : float or None
        Each model's score on the units.
    difference : float or None
        ``value_a − value_b``.
    ci_low, ci_high : float or None
        The paired bootstrap's percentile interval of the difference.
    p_value : float or None
        The two-sided paired bootstrap p-value against a difference of 0.
    n_valid : int
        The bootstrap resamples in which the difference is defined.
    undefined : str or None, default None
        Why a field is None.
    n_blocks : int or None, default None
        The blocks the interval and p-value rest on.

    Examples
    --------
    >>> difference = Difference(0.9, 0.1, 0.8, 0.5, 1.0, 0.02, 1000)
    >>> difference.difference, difference.undefined is None
    (0.8, True)
    """

    value_a: float | None
    value_b: float | None
    difference: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    n_valid: int
    undefined: str | None = None
    n_blocks: int | None = None


def _finite_or_none(value) -> float | None:
    value = float(value)
    return value if np.isfinite(value) else None


def _check_rows(rows_a, rows_b) -> tuple[np.ndarray, np.ndarray]:
    rows_a = np.asarray(rows_a, dtype=float)
    rows_b = np.asarray(rows_b, dtype=float)
    if rows_a.ndim != 2 or rows_a.shape != rows_b.shape:
        raise ValueError(
            f"the two models must be scored on the same units: got row arrays of shapes {rows_a.shape} and "
            f"{rows_b.shape}; pass one row of counts per unit, units in the same order for both models"
        )
    if len(rows_a) == 0:
        raise ValueError("no units to compare: the row arrays are empty")
    return rows_a, rows_b


def paired_difference(
    rows_a: np.ndarray,
    rows_b: np.ndarray,
    statistic: Statistic,
    names: Sequence[str],
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    labels: Mapping[str, str] | None = None,
    blocks: Blocks | None = None,
) -> dict[str, Difference]:
    """The difference of every score in ``names`` between two models scored on the same units.

    ``rows_a[i]`` and ``rows_b[i]`` are the two models' count rows of unit ``i``; ``n_resamples`` paired bootstrap
    replicates, drawn by ``blocks``, give the CI and the p-value. Comparing a model with itself gives difference 0 and
    p = 1; swapping A and B flips the difference and its CI.

    Parameters
    ----------
    rows_a, rows_b : numpy.ndarray
        The two models' unit rows, the same units in the same order.
    statistic : Statistic
        Column sums → named scores.
    names : sequence of str
        The scores to compare.
    n_resamples : int, default 10000
        Bootstrap replicates.
    seed : int, default 0
        Seeds them.
    confidence : float, default 0.95
        The interval's coverage.
    labels : mapping of str to str, optional
        A score's name as the reasons should say it (``{"w_bias": "Wt-Bias"}``), where the key is not.
    blocks : Blocks or None, default None
        The units' blocks (``corefbias.measures.blocks``), drawn whole; None: each unit one.

    Returns
    -------
    dict of str to Difference

    Raises
    ------
    ValueError
        If the row arrays differ in shape or are empty, or ``n_resamples`` is below 1.

    Examples
    --------
    A right on 9 of 10 units, B on the tenth; and a model against itself:

    >>> a = np.array([[1.0, 1.0]] * 9 + [[0.0, 1.0]])
    >>> b = np.array([[0.0, 1.0]] * 9 + [[1.0, 1.0]])
    >>> accuracy = lambda sums: {"accuracy": sums[..., 0] / sums[..., 1]}
    >>> result = paired_difference(a, b, accuracy, ["accuracy"], n_resamples=2000)["accuracy"]
    >>> round(result.difference, 3), result.ci_low > 0, result.p_value < 0.05
    (0.8, True, True)
    >>> same = paired_difference(a, a, accuracy, ["accuracy"], n_resamples=200)["accuracy"]
    >>> same.difference, same.p_value
    (0.0, 1.0)
    """
    rows_a, rows_b = _check_rows(rows_a, rows_b)
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples}")
    observed_a, observed_b = statistic(rows_a.sum(axis=0)), statistic(rows_b.sum(axis=0))
    observed = {name: float(observed_a[name] - observed_b[name]) for name in names}
    # Both models' rows side by side, drawn by the same weights: the replicates are paired.
    side_by_side, difference = np.hstack([rows_a, rows_b]), paired_statistic(statistic, rows_a.shape[1])
    behind = blocks_behind(side_by_side, difference, names, blocks)
    replicates = bootstrap_replicates(side_by_side, difference, n_resamples, seed, blocks)
    said = {name: (labels or {}).get(name, name) for name in names}
    results = {}
    for name in names:
        value_a, value_b = _finite_or_none(observed_a[name]), _finite_or_none(observed_b[name])
        if value_a is None or value_b is None:
            which = " and ".join(label for label, value in (("A", value_a), ("B", value_b)) if value is None)
            reason = f"{said[name]} is undefined for model {which} on these units"
            results[name] = Difference(value_a, value_b, None, None, None, None, 0, reason)
            continue
        tested = infer(observed[name], replicates[name], 0.0, confidence, behind[name])
        reason = tested.reason
        if tested.n_valid == 0:
            reason = f"{said[name]} is undefined on every resample of these units"
        results[name] = Difference(
            value_a,
            value_b,
            observed[name],
            tested.ci_low,
            tested.ci_high,
            tested.p_value,
            tested.n_valid,
            reason,
            behind[name],
        )
    return results


def paired_statistic(statistic: Statistic, columns: int) -> Statistic:
    """The statistic of two models' rows side by side (A's ``columns`` columns, then B's): each score of A minus
    that of B.

    Parameters
    ----------
    statistic : Statistic
        One model's column sums → named scores.
    columns : int
        One model's columns.

    Returns
    -------
    Statistic

    Examples
    --------
    >>> accuracy = lambda sums: {"accuracy": sums[..., 0] / sums[..., 1]}
    >>> float(paired_statistic(accuracy, 2)(np.array([3.0, 4.0, 1.0, 4.0]))["accuracy"])
    0.5
    """

    def difference(sums: np.ndarray) -> dict[str, np.ndarray]:
        first, second = statistic(sums[..., :columns]), statistic(sums[..., columns:])
        return {name: np.asarray(first[name], dtype=float) - np.asarray(second[name], dtype=float) for name in first}

    return difference


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values, in the given order; ``None`` entries stay ``None``.

    The family is the defined p-values: with ``m`` of them sorted ascending, the ``i``-th (from 1)
    is adjusted to ``max over j ≤ i of min(1, (m − j + 1) · p_(j))``.

    Parameters
    ----------
    p_values : sequence of float or None
        One family's p-values.

    Returns
    -------
    list of float or None

    Raises
    ------
    ValueError
        If a p-value lies outside [0, 1].

    Examples
    --------
    >>> [round(p, 3) for p in holm([0.01, 0.04, 0.03])]
    [0.03, 0.06, 0.06]
    >>> holm([0.2, None])
    [0.2, None]
    """
    for index, value in enumerate(p_values):
        if value is not None and not (0.0 <= value <= 1.0):
            raise ValueError(f"p_values[{index}] is {value!r}; a p-value lies between 0 and 1 (or is None)")
    defined = [index for index, value in enumerate(p_values) if value is not None]
    order = sorted(defined, key=lambda index: p_values[index])
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(order) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def holm_adjusted(
    inferences: Mapping[str, Inference], family: Sequence[str]
) -> tuple[dict[str, Inference], dict[str, float | None]]:
    """The bootstrap inferences with the p-values of ``family`` Holm-adjusted as one family, and those p-values as
    they were.

    Parameters
    ----------
    inferences : mapping of str to Inference
        Score key → its bootstrap p-value and interval (``resampling.bootstrap_test``).
    family : sequence of str
        The keys whose p-values are one family (the gaps of one call).

    Returns
    -------
    dict of str to Inference
        ``inferences`` with each family member's p-value replaced by its adjusted one (interval and reason kept).
    dict of str to float or None
        Family key → its p-value before the adjustment.

    Examples
    --------
    >>> tested = {"diff/a": Inference(0.01, -0.3, -0.1, 1000), "diff/b": Inference(0.04, -0.2, 0.0, 1000)}
    >>> adjusted, unadjusted = holm_adjusted(tested, ["diff/a", "diff/b"])
    >>> round(adjusted["diff/a"].p_value, 3), round(adjusted["diff/b"].p_value, 3), unadjusted["diff/a"]
    (0.02, 0.04, 0.01)
    """
    unadjusted = {key: inferences[key].p_value for key in family}
    adjusted = dict(inferences)
    for key, p_value in zip(family, holm(list(unadjusted.values()))):
        adjusted[key] = replace(inferences[key], p_value=p_value)
    return adjusted, unadjusted
