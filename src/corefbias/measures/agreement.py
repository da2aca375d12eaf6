"""How far annotators agree with each other: Krippendorff's alpha (nominal), per condition, over resampling units.

MAP (Cao & Daumé, 2020) carries up to three crowd annotations of every snippet and ablation; some were removed
(the annotator failed a test question), so an instance has one, two or three. Krippendorff's alpha is the agreement
coefficient made for that: any number of annotators per instance, missing values allowed, chance agreement
corrected. From the *coincidence matrix* ``o`` (each instance with ``m ≥ 2`` values adds, for every ordered pair of
its values ``(c, k)``, ``1 / (m − 1)`` to ``o[c, k]``), with ``n_c = Σ_k o[c, k]`` and ``n = Σ_c n_c``:

    alpha = 1 − (n − 1) · Σ_{c≠k} o[c, k] / Σ_{c≠k} n_c · n_k          (nominal: every disagreement weighs 1)

and the observed agreement ``Σ_c o[c, c] / n`` is the share of pairable values matched by another annotator's.
Both are functions of the summed coincidence matrices, so each unit (a snippet with its ablations) contributes its
matrices as a row and the bootstrap resamples units (``resampling``), or with ``block_ids`` whole blocks of them
(``corefbias.measures.blocks``). Instances with fewer than two values do not count (Krippendorff's "unpairable"
values).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import structured_inputs, validation
from .blocks import unit_blocks
from .resampling import UnitRows, bootstrap_test, safe_div
from .result import Cell, MeasureResult, measure_result


def coincidences(values: Sequence, categories: Sequence) -> np.ndarray:
    """One instance's coincidence matrix: every ordered pair of its values adds ``1 / (m − 1)``.

    Parameters
    ----------
    values : sequence
        The labels the instance's ``m`` annotators gave.
    categories : sequence
        Every label, in the matrix's order.

    Returns
    -------
    numpy.ndarray
        ``len(categories) × len(categories)``; all zero where ``m < 2`` (the values are unpairable).

    Examples
    --------
    >>> coincidences(["A", "A", "B"], ["A", "B"]).tolist()
    [[1.0, 1.0], [1.0, 0.0]]
    >>> coincidences(["A"], ["A", "B"]).tolist()  # one value: unpairable
    [[0.0, 0.0], [0.0, 0.0]]
    """
    index = {category: position for position, category in enumerate(categories)}
    matrix = np.zeros((len(categories), len(categories)))
    if len(values) < 2:
        return matrix
    for first in range(len(values)):
        for second in range(len(values)):
            if first != second:
                matrix[index[values[first]], index[values[second]]] += 1.0 / (len(values) - 1)
    return matrix


def alpha_statistic(conditions: Sequence, categories: Sequence):
    """The statistic of unit rows holding one flattened coincidence matrix per condition.

    Parameters
    ----------
    conditions : sequence
        The conditions, in the rows' order.
    categories : sequence
        Every label, in the matrices' order.

    Returns
    -------
    Statistic
        Column sums → ``alpha/<condition>`` (Krippendorff's nominal alpha) and ``observed_agreement/<condition>``.

    Examples
    --------
    >>> statistic = alpha_statistic(["all"], ["A", "B"])
    >>> scores = statistic(np.array([4.0, 1.0, 1.0, 4.0]))  # n = 10, 2 disagreeing: 1 − 9 · 2 / (100 − 50)
    >>> round(float(scores["alpha/all"]), 4), float(scores["observed_agreement/all"])
    (0.64, 0.8)
    """
    size = len(categories) ** 2

    def statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
        scores = {}
        for position, condition in enumerate(conditions):
            matrix = sums[..., position * size : (position + 1) * size].reshape(
                sums.shape[:-1] + (len(categories), len(categories))
            )
            marginals = matrix.sum(axis=-1)
            total = marginals.sum(axis=-1)
            agreeing = np.trace(matrix, axis1=-2, axis2=-1)
            observed = total - agreeing
            expected = total**2 - (marginals**2).sum(axis=-1)
            scores[f"alpha/{condition}"] = 1.0 - safe_div((total - 1) * observed, expected)
            scores[f"observed_agreement/{condition}"] = safe_div(agreeing, total)
        return scores

    return statistic


def annotator_agreement(
    annotations: Sequence[Sequence],
    conditions: Sequence,
    units: Sequence,
    *,
    block_ids: Sequence | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """Krippendorff's alpha (nominal) and the observed agreement of the annotators, per condition.

    Parameters
    ----------
    annotations : list of lists of str
        per instance, the labels its annotators gave (any number; a missing annotation is left out or None).
    conditions : list of str
        the condition of the instance (an ablation such as `original` or `ent+addr`).
    units : list of str
        the unit the instance belongs to (a snippet), which the bootstrap resamples whole.
    block_ids : list of str or int, or list of tuple, optional
        the block of each instance: the source or template inside which the annotators' labels are not independent
        (the instances of one unit share it); the bootstrap draws whole blocks, its intervals expanded for how few
        they are. A tuple per instance gives one id per crossed factor, each drawn apart. Left out: every unit is a
        block of its own (MAP's snippets are independent).
    n_bootstrap : int, default 1000
        bootstrap resamples of the units (at most 10,000,000); 0 switches significance off.
    seed : int, default 0
        non-negative seed of the resampling, so results are reproducible.

    Returns
    -------
    MeasureResult
        Per condition (``by_condition``) ``alpha`` and ``observed_agreement`` with 95% percentile intervals (no
        p-value: agreement has no null worth testing here) and ``pairable``, the number of values in instances with
        at least two; flat keys ``alpha/<C>``, ``observed_agreement/<C>`` (with ``_ci_low``, ``_ci_high``),
        ``pairable/<C>``, and ``num_instances``, ``num_units``. Where a condition has fewer than two pairable
        values, or all of them are one label (no disagreement is expected), alpha is None with the reason.

    Raises
    ------
    ValueError
        If the inputs differ in length or are empty, an instance's annotations are not a list of labels, a
        condition or unit is None, a block id is no id or a unit's instances lie in two blocks, or ``n_bootstrap``
        or ``seed`` is not a non-negative integer.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. University of Pennsylvania.

    Examples
    --------
    Krippendorff's (2011) worked example: four annotators, twelve units, values missing; nominal alpha is 0.743.

    >>> coders = ["1 2 3 3 2 1 4 1 2 . . .", "1 2 3 3 2 2 4 1 2 5 . 3", ". 3 3 3 2 3 4 2 2 5 1 .",
    ...           "1 2 3 3 2 4 4 1 2 5 1 ."]
    >>> values = [[v for v in column if v != "."] for column in zip(*(row.split() for row in coders))]
    >>> result = annotator_agreement(values, ["all"] * 12, range(12), n_bootstrap=0)
    >>> round(result["alpha/all"], 3), result["pairable/all"]
    (0.743, 40)
    """
    validation.check_lengths(
        annotations=annotations, conditions=conditions, units=units, optional={"block_ids": block_ids}
    )
    structured_inputs.check_significance(n_bootstrap, seed)
    for index, values in enumerate(annotations):
        validation.check_column(f"annotations[{index}]", values)
        structured_inputs.check_label_values(f"annotations[{index}]", values, allow_none=True)
    conditions = validation.check_ids("conditions", conditions, integers=False)
    units = validation.check_ids("units", list(units), missing="is None; give every instance the id of its unit")
    given = [[value for value in values if value is not None] for values in annotations]
    categories = sorted({value for values in given for value in values}, key=str)
    order = tuple(dict.fromkeys(conditions))
    size = len(categories) ** 2
    first_seen = {unit: index for index, unit in enumerate(dict.fromkeys(units))}
    blocks = unit_blocks(block_ids, [first_seen[unit] for unit in units], list(first_seen), unit="unit")
    rows = np.zeros((len(first_seen), len(order) * size))
    position = {condition: index for index, condition in enumerate(order)}
    pairable = dict.fromkeys(order, 0)
    for values, condition, unit in zip(given, conditions, units):
        start = position[condition] * size
        rows[first_seen[unit], start : start + size] += coincidences(values, categories).ravel()
        pairable[condition] += len(values) if len(values) >= 2 else 0
    statistic = alpha_statistic(order, categories)
    scores = {name: float(value) for name, value in statistic(rows.sum(axis=0)).items()}
    scores.update({f"pairable/{c}": count for c, count in pairable.items()})
    scores.update(num_instances=len(given), num_units=len(first_seen))
    reasons = {}
    for condition in order:
        reasons[f"alpha/{condition}"] = (
            f"condition {condition!r} has fewer than two pairable annotations, or every one is the same label (no "
            f"disagreement is expected, so alpha is 0/0)"
        )
        reasons[f"observed_agreement/{condition}"] = f"condition {condition!r} has no instance with two annotations"
    tested = [f"{name}/{c}" for c in order for name in ("alpha", "observed_agreement")]
    inferences = bootstrap_test(
        rows, statistic, dict.fromkeys(tested), n_bootstrap=n_bootstrap, seed=seed, unit="unit", blocks=blocks
    )
    cells = {
        f"{name}/{c}": (Cell(condition=c), name) for c in order for name in ("alpha", "observed_agreement", "pairable")
    }
    return measure_result(
        "annotator_agreement",
        scores,
        reasons,
        inferences,
        n_bootstrap=n_bootstrap,
        cells=cells,
        significance_reasons=dict.fromkeys(tested, "agreement is reported with its interval, not tested"),
        extras={"categories": [str(category) for category in categories]},
        unit_rows=UnitRows(rows, statistic, tuple(tested), blocks=blocks),
    )
