"""Accuracy under each condition and its difference to a reference, over resampling units, Holm-adjusted: the one
formula behind MAP's and GICoref's ``condition_accuracy_diff`` and the pronoun sets' ``pronoun_set_diff``.

MAP (Cao & Daumé, 2020) shows every snippet in its original form and with gender cues removed, one kind or several
at a time: how much accuracy does each ablation cost, against the same snippets unablated? GICoref asks every
third-person pronoun of its documents: how much worse are neopronouns, or *they*, resolved than *he* and *she* in
the same documents? WinoPron fills every template with he, she, they and xe: how much worse is *they* or *xe*
resolved than *he* and *she*, on the same templates (``pronoun_set_diff``)?

  * ``accuracy/<C>`` is the share of condition ``C``'s instances answered correctly (prediction equal to
    reference);
  * the reference accuracy is the reference condition's, or with several reference conditions (he and she) the
    mean of theirs, each weighing equally (``accuracy/reference``);
  * ``diff/<C>`` = ``accuracy/<C>`` − the reference accuracy: below 0 the system does worse under ``C``.

A *unit* (a snippet with all its ablations, a document with all its pronouns, a template with all its pronoun sets) is
what the bootstrap resamples, in blocks where units share one (``block_ids``: WinoPron's occupation holds its three
schemas, which a model answers alike): each unit contributes a row ``[n_C, correct_C for C in conditions]``, and each
score is a function of column sums, so a replicate is a matrix product (``resampling``). Where every unit holds every
condition (MAP, the pronoun sets) the comparison is paired and unit difficulty cancels out of the difference; where it
does not (GICoref's documents) the units still keep their instances together. Each difference has a two-sided bootstrap
p-value against 0 and a 95% percentile interval; the differences of one call are one family, Holm-adjusted
(``comparison.holm_adjusted``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import comparison, structured_inputs, validation
from .blocks import Blocks, unit_blocks
from .resampling import Inference, Statistic, UnitRows, bootstrap_test, no_null_reason, safe_div
from .result import Cell, MeasureResult, measure_result

# The reference accuracy's key where several reference conditions are averaged.
REFERENCE_ACCURACY = "accuracy/reference"


def ordered_conditions(conditions: Sequence, reference: Sequence) -> tuple:
    """The reference conditions first, in their order, then the others in the order they first occur: the columns
    of the unit rows.

    Parameters
    ----------
    conditions : sequence
        Each instance's condition.
    reference : sequence
        The reference conditions.

    Returns
    -------
    tuple

    Examples
    --------
    >>> ordered_conditions(["pro", "original", "ent", "pro"], ["original"])
    ('original', 'pro', 'ent')
    >>> ordered_conditions(["xe", "he", "they", "she"], ["he", "she"])
    ('he', 'she', 'xe', 'they')
    """
    return (*reference, *(condition for condition in dict.fromkeys(conditions) if condition not in reference))


def diff_statistic(conditions: Sequence, reference: Sequence) -> Statistic:
    """The statistic of the unit rows ``[n_C, correct_C for C in conditions]``: every accuracy, the reference accuracy
    (the mean of the reference conditions', each weighing equally) and every other condition's difference to it.

    Parameters
    ----------
    conditions : sequence
        The conditions in the rows' column order (:func:`ordered_conditions`).
    reference : sequence
        The reference conditions.

    Returns
    -------
    Statistic
        Column sums → ``accuracy/<C>``, ``accuracy/reference`` and ``diff/<C>`` for every ``C`` not a reference.

    Examples
    --------
    >>> statistic = diff_statistic(("original", "pro"), ["original"])
    >>> scores = statistic(np.array([10.0, 9.0, 10.0, 6.0]))
    >>> float(scores["accuracy/pro"]), round(float(scores["diff/pro"]), 10)
    (0.6, -0.3)
    >>> statistic = diff_statistic(("he", "she", "they"), ["he", "she"])
    >>> scores = statistic(np.array([4.0, 4.0, 4.0, 3.0, 4.0, 1.0]))
    >>> float(scores["accuracy/reference"]), float(scores["diff/they"])
    (0.875, -0.625)
    """
    position = {condition: index for index, condition in enumerate(conditions)}
    others = [condition for condition in conditions if condition not in reference]

    def statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
        accuracy = {c: safe_div(sums[..., 2 * position[c] + 1], sums[..., 2 * position[c]]) for c in conditions}
        baseline = sum(accuracy[c] for c in reference) / len(reference)
        scores = {f"accuracy/{c}": value for c, value in accuracy.items()}
        scores[REFERENCE_ACCURACY] = baseline
        scores.update({f"diff/{c}": accuracy[c] - baseline for c in others})
        return scores

    return statistic


def count_rows(correct: Sequence, conditions: Sequence, units: Sequence, order: Sequence) -> tuple[list, np.ndarray]:
    """Units in first-seen order and their rows ``[n_C, correct_C for C in order]``.

    Parameters
    ----------
    correct : sequence of bool
        Whether each instance was answered correctly.
    conditions : sequence
        Each instance's condition, one of ``order``.
    units : sequence
        Each instance's unit.
    order : sequence
        The conditions in column order (:func:`ordered_conditions`).

    Returns
    -------
    list
        The units, in the order they first occur: the rows' order.
    numpy.ndarray
        ``units × 2·len(order)``: per condition, its instances in the unit and those answered correctly.

    Examples
    --------
    >>> found, rows = count_rows([True, False, True], ["original", "ent", "ent"], ["s1", "s1", "s2"],
    ...                          ("original", "ent"))
    >>> found, rows.tolist()
    (['s1', 's2'], [[1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0]])
    """
    first_seen = {unit: index for index, unit in enumerate(dict.fromkeys(units))}
    rows = np.zeros((len(first_seen), 2 * len(order)))
    column = {condition: index for index, condition in enumerate(order)}
    for is_correct, condition, unit in zip(correct, conditions, units):
        rows[first_seen[unit], 2 * column[condition]] += 1
        rows[first_seen[unit], 2 * column[condition] + 1] += bool(is_correct)
    return list(first_seen), rows


@dataclass(frozen=True)
class ConditionDiffs:
    """Every accuracy and difference of one call, with the rows and statistic its bootstrap resampled.

    Attributes
    ----------
    conditions : tuple
        The reference conditions, then the others as they first occur: the rows' column pairs.
    compared : tuple
        The conditions with a difference (all but the reference ones).
    units : list
        The units in first-seen order: the rows' order.
    rows : numpy.ndarray
        Per unit ``[n_C, correct_C for C in conditions]``.
    statistic : Statistic
        Column sums → the scores (:func:`diff_statistic`).
    scores : dict of str to float
        ``accuracy/<C>``, ``accuracy/reference`` and ``diff/<C>`` on all units.
    inferences : dict of str to Inference
        Per score its 95% interval; per difference its Holm-adjusted p-value too.
    unadjusted : dict of str to float or None
        Per compared condition its difference's bootstrap p-value before Holm's adjustment.
    blocks : Blocks or None
        The units' blocks (None: each unit one).

    Examples
    --------
    >>> diffs = condition_diffs([True, True, True, False], ["he", "she", "they", "they"], ["t1", "t1", "t1", "t2"],
    ...                       ["he", "she"], n_bootstrap=0, seed=0)
    >>> diffs.compared, diffs.scores["diff/they"], diffs.unit_rows().tested
    (('they',), -0.5, ('diff/they',))
    """

    conditions: tuple
    compared: tuple
    units: list
    rows: np.ndarray
    statistic: Statistic
    scores: dict[str, float]
    inferences: dict[str, Inference]
    unadjusted: dict[str, float | None]
    blocks: Blocks | None = None

    def unit_rows(self) -> UnitRows:
        """The rows, statistic and tested differences, for a result's ``unit_rows`` (a paired comparison resamples
        them).

        Returns
        -------
        UnitRows
        """
        return UnitRows(self.rows, self.statistic, tuple(f"diff/{c}" for c in self.compared), blocks=self.blocks)


def condition_diffs(
    correct: Sequence,
    conditions: Sequence,
    units: Sequence,
    reference: Sequence,
    *,
    block_ids: Sequence | None = None,
    unit: str = "unit",
    n_bootstrap: int,
    seed: int,
) -> ConditionDiffs:
    """Every condition's accuracy and every other condition's difference to the reference accuracy, resampling units,
    the differences' p-values Holm-adjusted as one family. The inputs are checked by the caller.

    Parameters
    ----------
    correct : sequence of bool
        Whether each instance was answered correctly.
    conditions : sequence
        Each instance's condition.
    units : sequence
        Each instance's unit, which the bootstrap resamples whole.
    reference : sequence
        The reference conditions (present in ``conditions``, and not all of them); several are averaged.
    block_ids : sequence, optional
        Each instance's block (``corefbias.measures.blocks``), shared by every instance of a unit; the bootstrap
        draws whole blocks. None: each unit is a block of its own.
    unit : str, default "unit"
        What a unit is (a template), for messages.
    n_bootstrap : int
        Bootstrap resamples of the units; 0 switches significance off.
    seed : int
        Seed of the resampling.

    Returns
    -------
    ConditionDiffs

    Examples
    --------
    Two snippets, each original and with names removed: right on both originals, on one of the two ablated:

    >>> diffs = condition_diffs([True, True, True, False], ["original", "original", "ent", "ent"],
    ...                       ["s1", "s2", "s1", "s2"], ["original"], n_bootstrap=0, seed=0)
    >>> diffs.scores["accuracy/ent"], diffs.scores["diff/ent"], diffs.units
    (0.5, -0.5, ['s1', 's2'])
    """
    order = ordered_conditions(conditions, reference)
    found_units, rows = count_rows(correct, conditions, units, order)
    index = {unit: position for position, unit in enumerate(found_units)}
    blocks = unit_blocks(block_ids, [index[name] for name in units], found_units, unit=unit)
    statistic = diff_statistic(order, reference)
    scores = {name: float(value) for name, value in statistic(rows.sum(axis=0)).items()}
    compared = order[len(reference) :]
    nulls = {**dict.fromkeys(scores), **{f"diff/{c}": 0.0 for c in compared}}
    inferences = bootstrap_test(rows, statistic, nulls, n_bootstrap=n_bootstrap, seed=seed, unit="unit", blocks=blocks)
    inferences, unadjusted = comparison.holm_adjusted(inferences, [f"diff/{c}" for c in compared])
    return ConditionDiffs(
        order,
        compared,
        found_units,
        rows,
        statistic,
        scores,
        inferences,
        {c: unadjusted[f"diff/{c}"] for c in compared},
        blocks,
    )


def condition_accuracy_diff(
    predictions: Sequence,
    references: Sequence,
    conditions: Sequence,
    units: Sequence,
    *,
    reference: str,
    block_ids: Sequence | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """Accuracy per condition and each condition's difference to the reference condition, resampling units.

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
    block_ids : list of str or int, or list of tuple, optional
        the block of each instance: the template or source inside which a system's answers are not independent
        (every instance of a unit shares it); the bootstrap draws whole blocks, its intervals and p-values
        expanded for how few they are. A tuple per instance gives one id per crossed factor. Left out: every unit
        is a block of its own.
    n_bootstrap : int, default 1000
        bootstrap resamples of the units (at most 10,000,000); 0 switches significance off.
    seed : int, default 0
        non-negative seed of the resampling, so results are reproducible.

    Returns
    -------
    MeasureResult
        Overall (what headlines read): each condition's ``accuracy/<C>`` with a 95% interval, each other
        condition's ``diff/<C>`` with a Holm-adjusted p-value and a 95% interval (primary: none, as a call holds
        several), ``num_instances`` and ``num_units``; per condition (``by_condition``) its ``count``. Flat keys:
        ``accuracy/<C>`` (with ``_ci_low``, ``_ci_high``), ``diff/<C>`` (with ``_p_value``, ``_ci_low``,
        ``_ci_high``), ``count/<C>``, ``num_instances``, ``num_units``; the extras ``reference`` and
        ``diff_unadjusted_p_value`` (condition → the difference's bootstrap p-value before Holm's adjustment).

    Raises
    ------
    ValueError
        If the inputs differ in length or are empty, an entry is None or not a label, the reference condition has
        no instance or is the only condition, a block id is no id or a unit's instances lie in two blocks, or
        ``n_bootstrap`` or ``seed`` is not a non-negative integer.

    References
    ----------
    Cao, Y. T. and Daumé III, H. (2020). Toward Gender-Inclusive Coreference Resolution. ACL 2020.

    Holm, S. (1979). A Simple Sequentially Rejective Multiple Test Procedure. Scandinavian Journal of Statistics 6.

    Examples
    --------
    Two snippets, each original and with names removed: right on both originals, on one of the two ablated:

    >>> result = condition_accuracy_diff(
    ...     ["A", "B", "A", "A"], ["A", "B", "A", "B"], ["original", "original", "ent", "ent"],
    ...     ["s1", "s2", "s1", "s2"], reference="original", n_bootstrap=0,
    ... )
    >>> result["accuracy/original"], result["accuracy/ent"], result["diff/ent"]
    (1.0, 0.5, -0.5)
    >>> result.overall["diff/ent"].value, result.by_condition["ent"]["count"].value, result["num_units"]
    (-0.5, 2, 2)
    """
    validation.check_lengths(
        predictions=predictions,
        references=references,
        conditions=conditions,
        units=units,
        optional={"block_ids": block_ids},
    )
    structured_inputs.check_significance(n_bootstrap, seed)
    predictions = structured_inputs.check_label_values("predictions", predictions)
    references = structured_inputs.check_label_values("references", references)
    conditions = validation.check_ids("conditions", conditions, integers=False)
    units = validation.check_ids("units", units, missing="is None; give every instance the id of its unit")
    if reference not in conditions:
        raise ValueError(
            f"the reference condition {reference!r} has no instance; conditions holds {sorted(set(conditions))}. "
            f"Pass reference= naming the condition to compare against"
        )
    if set(conditions) == {reference}:
        raise ValueError(
            f"every instance is of the reference condition {reference!r}, so there is no difference to measure; give "
            f"instances of other conditions too"
        )
    correct = [prediction == truth for prediction, truth in zip(predictions, references)]
    diffs = condition_diffs(
        correct, conditions, units, [reference], block_ids=block_ids, n_bootstrap=n_bootstrap, seed=seed
    )
    scores = {key: value for key, value in diffs.scores.items() if key != REFERENCE_ACCURACY}
    counts = {f"count/{c}": int(diffs.rows[:, 2 * index].sum()) for index, c in enumerate(diffs.conditions)}
    scores.update(counts, num_instances=len(predictions), num_units=len(diffs.units))
    reasons = {f"diff/{c}": f"the {c!r} or the {reference!r} accuracy is undefined" for c in diffs.compared}
    return measure_result(
        "condition_accuracy_diff",
        scores,
        reasons,
        diffs.inferences,
        n_bootstrap=n_bootstrap,
        cells={f"count/{c}": (Cell(condition=c), "count") for c in diffs.conditions},
        significance_reasons={f"accuracy/{c}": no_null_reason(f"accuracy/{c}") for c in diffs.conditions},
        extras={"reference": reference, "diff_unadjusted_p_value": diffs.unadjusted},
        unit_rows=diffs.unit_rows(),
    )
