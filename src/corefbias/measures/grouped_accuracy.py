"""Accuracy of chosen words, overall and per group, with bootstrap intervals over units (or blocks of them): the core
of the fill-in measures (MISGENDERED, RUFF), which differ only in their groups and contrasts.

An instance is right when the word a model chose equals the reference word, compared as text — as MISGENDERED's
scripts compare ``top_1 == label`` and RUFF's outputs hold ``verbalized_token`` beside the declared pronoun; a
missing choice (None: the model's answer could not be read, or it chose nothing) is wrong. Per unit (a sentence
with every pronoun set: MISGENDERED's name and template under one declaration, RUFF's task sentence and context)
each *cell* (everything, one value of a grouping, one pair of values of two crossed groupings) contributes its
right and its scored instances; every accuracy is a ratio of column sums, so the bootstrap resamples units
(``corefbias.measures.resampling``). A *contrast* is the accuracy of one value of a grouping minus that of
another (e.g. binary − non-binary pronoun sets), tested against 0; where each unit holds both values, as every
unit holds every pronoun set, the test is paired.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from . import validation
from .blocks import unit_blocks
from .resampling import UnitRows, bootstrap_test, no_null_reason, safe_div
from .result import Cell, MeasureResult, measure_result

ACCURACY = "accuracy"
# The paper's kinds of pronoun set (MISGENDERED, Sec. 3; RUFF's he, she, they and xe fall in them alike).
PRONOUN_GROUPS = ("binary", "gender-neutral", "neo-pronoun")


@dataclass(frozen=True)
class Contrast:
    """``accuracy/<grouping>/<first>`` − ``accuracy/<grouping>/<second>``, tested against 0, reported as ``name``
    (undefined where either has no instances).

    Attributes
    ----------
    name : str
        The score's name in the result.
    grouping : str
        The grouping whose two values are compared.
    first, second : str or int
        The values: the accuracy of ``first`` minus that of ``second``.

    Examples
    --------
    >>> GROUP_CONTRASTS[1]
    Contrast(name='binary_minus_neo_pronoun', grouping='pronoun_group', first='binary', second='neo-pronoun')
    """

    name: str
    grouping: str
    first: str | int
    second: str | int


# Binary pronoun sets against the others: the paper's headline comparison in both sets.
GROUP_CONTRASTS = (
    Contrast("binary_minus_gender_neutral", "pronoun_group", "binary", "gender-neutral"),
    Contrast("binary_minus_neo_pronoun", "pronoun_group", "binary", "neo-pronoun"),
)


def _cell_name(*keys: tuple[str, str]) -> str:
    """The score name of a cell: ``accuracy`` for everything, else ``accuracy/<grouping>/<value>/...``."""
    return "/".join([ACCURACY, *(f"{grouping}/{value}" for grouping, value in keys)])


def check_words(predictions: Sequence, references: Sequence) -> np.ndarray:
    """Whether each chosen word is its reference word, the inputs checked.

    Parameters
    ----------
    predictions : list of str or None
        The word chosen per instance; None where none was (wrong).
    references : list of str
        The right word per instance, a non-empty string.

    Returns
    -------
    numpy.ndarray
        One boolean per instance: the words are the same text.

    Raises
    ------
    ValueError
        If a prediction is neither a non-empty string nor None, or a reference is not a non-empty string.

    Examples
    --------
    >>> check_words(["xe", None, "He"], ["xe", "xe", "he"]).tolist()
    [True, False, False]
    """
    validation.check_ids("predictions", predictions, integers=False, allow_none=True)
    validation.check_ids("references", references, integers=False, missing="is empty; give every instance its word")
    return np.fromiter((p == r for p, r in zip(predictions, references)), dtype=bool, count=len(references))


def _cells_of(groupings: Mapping[str, list], crossed: Sequence[tuple[str, str]]) -> dict[str, np.ndarray]:
    """Cell name → mask of its instances: everything, each grouping's values, each crossed pair's value pairs."""
    size = len(next(iter(groupings.values()))) if groupings else 0
    cells = {ACCURACY: np.ones(size, dtype=bool)}
    values = {name: np.asarray(labels, dtype=object) for name, labels in groupings.items()}
    for name, labels in groupings.items():
        for value in dict.fromkeys(labels):
            cells[_cell_name((name, value))] = values[name] == value
    for first, second in crossed:
        for pair in dict.fromkeys(zip(groupings[first], groupings[second])):
            cells[_cell_name((first, pair[0]), (second, pair[1]))] = (values[first] == pair[0]) & (
                values[second] == pair[1]
            )
    return cells


def _count_rows(correct: np.ndarray, units: np.ndarray, num_units: int, cells: Mapping[str, np.ndarray]) -> np.ndarray:
    """Per unit and cell, its right and its scored instances: columns ``(right, scored)`` per cell, in cell order."""
    rows = np.zeros((num_units, 2 * len(cells)))
    for column, mask in enumerate(cells.values()):
        np.add.at(rows[:, 2 * column], units[mask], correct[mask])
        np.add.at(rows[:, 2 * column + 1], units[mask], 1.0)
    return rows


def _statistic(sums: np.ndarray, *, cells: Sequence[str], contrasts: Sequence[Contrast]) -> dict[str, np.ndarray]:
    """Every cell's accuracy and every contrast, from column sums (see :func:`_count_rows`)."""
    scores = {name: safe_div(sums[..., 2 * index], sums[..., 2 * index + 1]) for index, name in enumerate(cells)}
    missing = np.full(sums.shape[:-1], np.nan)
    for contrast in contrasts:
        first = scores.get(_cell_name((contrast.grouping, contrast.first)), missing)
        second = scores.get(_cell_name((contrast.grouping, contrast.second)), missing)
        scores[contrast.name] = first - second
    return scores


def grouped_accuracy(
    measure: str,
    correct: np.ndarray,
    unit_ids: list,
    groupings: Mapping[str, list],
    *,
    crossed: Sequence[tuple[str, str]] = (),
    contrasts: Sequence[Contrast] = (),
    with_interval: Sequence[str] = (),
    primary: str | None = None,
    block_ids: Sequence | None = None,
    n_bootstrap: int,
    seed: int,
) -> MeasureResult:
    """The accuracy overall, per group and per crossed groups, and the contrasts (see the module docstring).

    Parameters
    ----------
    measure : str
        The measure's name, for the result.
    correct : numpy.ndarray
        One boolean per instance (``check_words``).
    unit_ids : list
        The unit of each instance, already checked: the bootstrap resamples units.
    groupings : mapping of str to list
        Grouping name → one label per instance, already checked.
    crossed : sequence of (str, str), default ()
        Pairs of groupings whose combinations get an accuracy too.
    contrasts : sequence of Contrast, default ()
        Differences of two groups' accuracies, tested against 0.
    with_interval : sequence of str, default ()
        The groupings whose accuracies get a bootstrap CI (the overall accuracy always does); the other cells are
        point estimates.
    primary : str, optional
        The contrast that is the measure's bias score.
    block_ids : list, optional
        The block of each instance (``corefbias.measures.blocks``), shared by every instance of a unit; the
        bootstrap draws whole blocks. None: every unit is a block of its own.
    n_bootstrap : int
        Bootstrap resamples (0: no significance).
    seed : int
        The resampling's seed.

    Returns
    -------
    MeasureResult
        ``accuracy`` and each cell's accuracy (the score ``accuracy`` of the group ``<grouping>/<value>`` or
        ``<grouping>/<value>/<grouping>/<value>``), each contrast, ``num_instances`` and ``num_units``, with the
        unit rows.

    Examples
    --------
    Two sentences, he right in both, xe in one:

    >>> result = grouped_accuracy(
    ...     "toy", np.array([True, True, True, False]), ["s1", "s1", "s2", "s2"],
    ...     {"pronoun_set": ["he", "xe", "he", "xe"], "pronoun_group": ["binary", "neo-pronoun"] * 2},
    ...     contrasts=GROUP_CONTRASTS[1:], primary="binary_minus_neo_pronoun", n_bootstrap=0, seed=0,
    ... )
    >>> result["accuracy/pronoun_set/xe"], result.value, result.by_group["pronoun_set/he"]["accuracy"].value
    (0.5, 0.5, 1.0)
    """
    order = {unit: index for index, unit in enumerate(dict.fromkeys(unit_ids))}
    units = np.fromiter((order[unit] for unit in unit_ids), dtype=int, count=len(unit_ids))
    cells = _cells_of(groupings, crossed)
    rows = _count_rows(correct, units, len(order), cells)
    blocks = unit_blocks(block_ids, units, list(order))
    compute = partial(_statistic, cells=tuple(cells), contrasts=tuple(contrasts))
    scores = dict(compute(rows.sum(axis=0)))
    scores.update(num_instances=len(correct), num_units=len(order))
    nulls: dict[str, float | None] = {ACCURACY: None}
    nulls.update(
        {_cell_name((name, value)): None for name in with_interval for value in dict.fromkeys(groupings[name])}
    )
    nulls.update({contrast.name: 0.0 for contrast in contrasts})
    reasons = {name: f"no instance is in {name}" for name in cells}
    for contrast in contrasts:
        reasons[contrast.name] = (
            f"no instance has {contrast.grouping} {contrast.first!r}, or none has {contrast.second!r}"
        )
    inferences = bootstrap_test(rows, compute, nulls, n_bootstrap=n_bootstrap, seed=seed, unit="unit", blocks=blocks)
    return measure_result(
        measure,
        scores,
        reasons,
        inferences,
        n_bootstrap=n_bootstrap,
        cells={name: (Cell(group=name.removeprefix(ACCURACY + "/")), ACCURACY) for name in cells if name != ACCURACY},
        primary=primary if primary in scores else None,
        significance_reasons={name: no_null_reason(name) for name, null in nulls.items() if null is None},
        unit_rows=UnitRows(rows, compute, tuple(nulls), blocks=blocks),
    )
