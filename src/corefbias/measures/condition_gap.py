"""Accuracy under each condition and its gap to a reference condition, over resampling units, Holm-adjusted.

Two sets ask this question. MAP (Cao & Daumé, 2020) shows every snippet in its original form and with gender cues
removed, one kind or several at a time: how much accuracy does each ablation cost, against the same snippets
unablated? GICoref asks every third-person pronoun of its documents: how much worse are neopronouns, or *they*,
resolved than *he* and *she* in the same documents?

  * ``accuracy/<C>`` is the share of condition ``C``'s instances answered correctly (prediction equal to
    reference);
  * ``gap/<C>`` = ``accuracy/<C>`` − ``accuracy/<reference>``: below 0 the system does worse under ``C``.

A *unit* (a snippet with all its ablations, a document with all its pronouns) is what the bootstrap resamples:
each unit contributes a row ``[n_C, correct_C for C in conditions]``, and each score is a ratio of column sums, so a
replicate is a matrix product (``resampling``). Where every unit holds every condition (MAP) the comparison is
paired and unit difficulty cancels out of the gap; where it does not (GICoref's documents) the units still keep
their instances together. Each gap has a two-sided bootstrap p-value against 0 and a 95% percentile interval; the
gaps of one call are one family, Holm-adjusted (``comparison.holm``): ``gap/<C>_p_value`` is the adjusted p-value,
the bootstrap's own is in the extras (``gap_unadjusted_p_value``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import comparison, validation
from .resampling import Inference, UnitRows, bootstrap_test, safe_div
from .result import Cell, MeasureResult, measure_result


def ordered_conditions(conditions: Sequence, reference) -> tuple:
    """The reference condition first, then the others in the order they first occur: the unit rows' columns.

    Examples
    --------
    >>> ordered_conditions(["pro", "original", "ent", "pro"], "original")
    ('original', 'pro', 'ent')
    """
    return (reference, *(condition for condition in dict.fromkeys(conditions) if condition != reference))


def gap_statistic(conditions: Sequence, reference):
    """The statistic of the unit rows ``[n_C, correct_C for C in conditions]``: every accuracy and gap.

    Examples
    --------
    >>> statistic = gap_statistic(("original", "pro"), "original")
    >>> scores = statistic(np.array([10.0, 9.0, 10.0, 6.0]))
    >>> float(scores["accuracy/pro"]), round(float(scores["gap/pro"]), 10)
    (0.6, -0.3)
    """
    position = {condition: index for index, condition in enumerate(conditions)}

    def statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
        accuracy = {c: safe_div(sums[..., 2 * position[c] + 1], sums[..., 2 * position[c]]) for c in conditions}
        scores = {f"accuracy/{c}": value for c, value in accuracy.items()}
        scores.update({f"gap/{c}": accuracy[c] - accuracy[reference] for c in conditions if c != reference})
        return scores

    return statistic


def unit_rows(correct: np.ndarray, conditions: Sequence, units: Sequence, order: Sequence) -> tuple[list, np.ndarray]:
    """Units in first-seen order and their rows ``[n_C, correct_C for C in order]``."""
    first_seen = {unit: index for index, unit in enumerate(dict.fromkeys(units))}
    rows = np.zeros((len(first_seen), 2 * len(order)))
    column = {condition: index for index, condition in enumerate(order)}
    for is_correct, condition, unit in zip(correct, conditions, units):
        rows[first_seen[unit], 2 * column[condition]] += 1
        rows[first_seen[unit], 2 * column[condition] + 1] += bool(is_correct)
    return list(first_seen), rows


def condition_accuracy_gap(
    predictions: Sequence,
    references: Sequence,
    conditions: Sequence,
    units: Sequence,
    *,
    reference: str,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """Accuracy per condition and each condition's gap to the reference condition, resampling units.

    Parameters
    ----------
    predictions : list of str
        the system's answer per instance (a label such as `A`, `B`, `neither`, or a candidate's index as
        text); an instance is correct when its prediction equals its reference.
    references : list of str
        the correct answer per instance.
    conditions : list of str
        the condition of the instance (an ablation such as `original` or `ent+addr`, a pronoun type such as
        `neopronoun`).
    units : list of str
        the unit the instance belongs to (a snippet, a document), which the bootstrap resamples whole.
    reference : str
        the condition every other one is compared with (e.g. `original`).
    n_bootstrap : int, default 1000
        bootstrap resamples of the units (at most 10,000,000); 0 switches significance off.
    seed : int, default 0
        non-negative seed of the resampling, so results are reproducible.

    Returns
    -------
    MeasureResult
        Overall (what headlines read): each condition's ``accuracy/<C>`` with a 95% interval, each other
        condition's ``gap/<C>`` with a Holm-adjusted p-value and a 95% interval (primary: none, as a call holds
        several), ``num_instances`` and ``num_units``; per condition (``by_condition``) its ``count``. Flat keys:
        ``accuracy/<C>`` (with ``_ci_low``, ``_ci_high``), ``gap/<C>`` (with ``_p_value``, ``_ci_low``,
        ``_ci_high``), ``count/<C>``, ``num_instances``, ``num_units``; the extras ``reference`` and
        ``gap_unadjusted_p_value`` (condition → the gap's bootstrap p-value before Holm's adjustment).

    Raises
    ------
    ValueError
        If the inputs differ in length or are empty, an entry is None or not a label, the reference condition has
        no instance or is the only condition, or ``n_bootstrap`` or ``seed`` is not a non-negative integer.

    References
    ----------
    Cao, Y. T. and Daumé III, H. (2020). Toward Gender-Inclusive Coreference Resolution. ACL 2020.

    Holm, S. (1979). A Simple Sequentially Rejective Multiple Test Procedure. Scandinavian Journal of Statistics 6.

    Examples
    --------
    Two snippets, each original and with names removed: right on both originals, on one of the two ablated:

    >>> result = condition_accuracy_gap(
    ...     ["A", "B", "A", "A"], ["A", "B", "A", "B"], ["original", "original", "ent", "ent"],
    ...     ["s1", "s2", "s1", "s2"], reference="original", n_bootstrap=0,
    ... )
    >>> result["accuracy/original"], result["accuracy/ent"], result["gap/ent"]
    (1.0, 0.5, -0.5)
    >>> result.overall["gap/ent"].value, result.by_condition["ent"]["count"].value, result["num_units"]
    (-0.5, 2, 2)
    """
    validation.check_lengths(predictions=predictions, references=references, conditions=conditions, units=units)
    validation.check_significance(n_bootstrap, seed)
    predictions = validation.check_label_values("predictions", predictions)
    references = validation.check_label_values("references", references)
    conditions = validation.check_ids("conditions", conditions, integers=False)
    units = validation.check_ids("units", units, missing="is None; give every instance the id of its unit")
    if reference not in conditions:
        raise ValueError(
            f"the reference condition {reference!r} has no instance; conditions holds {sorted(set(conditions))}. "
            f"Pass reference= naming the condition to compare against"
        )
    order = ordered_conditions(conditions, reference)
    if len(order) == 1:
        raise ValueError(
            f"every instance is of the reference condition {reference!r}, so there is no gap to measure; give "
            f"instances of other conditions too"
        )
    correct = np.asarray([prediction == truth for prediction, truth in zip(predictions, references)])
    found_units, rows = unit_rows(correct, conditions, units, order)
    statistic = gap_statistic(order, reference)
    scores = {name: float(value) for name, value in statistic(rows.sum(axis=0)).items()}
    others = [condition for condition in order if condition != reference]
    nulls = {**{f"accuracy/{c}": None for c in order}, **{f"gap/{c}": 0.0 for c in others}}
    inferences = bootstrap_test(rows, statistic, nulls, n_bootstrap=n_bootstrap, seed=seed)
    unadjusted = {c: inferences[f"gap/{c}"].p_value for c in others}
    adjusted = comparison.holm(list(unadjusted.values()))
    for condition, p_value in zip(others, adjusted):
        inferences[f"gap/{condition}"] = Inference(
            p_value, inferences[f"gap/{condition}"].ci_low, inferences[f"gap/{condition}"].ci_high, 0
        )
    counts = {f"count/{c}": int(rows[:, 2 * index].sum()) for index, c in enumerate(order)}
    scores.update(counts, num_instances=len(predictions), num_units=len(found_units))
    reasons = {f"gap/{c}": f"the {c!r} or the {reference!r} accuracy is undefined" for c in others}
    cells = {f"count/{c}": (Cell(condition=c), "count") for c in order}
    return measure_result(
        "condition_accuracy_gap",
        scores,
        reasons,
        inferences,
        n_bootstrap=n_bootstrap,
        cells=cells,
        significance_reasons={f"accuracy/{c}": "an accuracy has no null value to test" for c in order},
        extras={"reference": reference, "gap_unadjusted_p_value": unadjusted},
        unit_rows=UnitRows(rows, statistic, tuple(f"gap/{c}" for c in others)),
    )
