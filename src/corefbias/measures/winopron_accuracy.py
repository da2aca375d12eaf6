"""WinoPron (Gautam et al., CRAC 2024): precision, recall, F1 and accuracy per pronoun set and grammatical case,
exactly as upstream's ``scripts/compute_performance.py`` (its ``Scorer``) computes them.

Each instance's answer is the mention the system resolved the pronoun to: ``occupation``, ``participant`` or
``neither``. Upstream reads it from a text, FLAN-T5's generation or one mention of a coreference system's clusters:
the one entity noun among the text's words, else none. Its converters of clusters (``scripts/convert_caw_output.py``,
``scripts/evaluate_lingmess.py``) take the mention from the last cluster holding the pronoun: the first mention the
system listed in it after the pronoun is taken out, so a cluster holding both entities answers the one listed first
(``corefbias.harness.cluster_links``, mode ``first_mention``, reads clusters so for WinoPron by default). With the
*distractor* the entity that is not the answer, upstream counts per instance

  * TP: the answer was named; FP: the distractor was named; FN = not TP; TN = not FP;

and reports, over the instances a *filter* keeps (all; the nominative, accusative or possessive case; the pronoun
set he, she, they or xe):

  * precision = TP / (TP + FP), and 1.0 where TP + FP = 0 (upstream's rule);
  * recall = TP / (TP + FN), which equals accuracy = TP / instances, because TP + FN is every instance;
  * F1 = 2PR / (P + R), and 0 where 2PR = 0.

With a *pairing*, an instance counts as TP (TN) only if every instance of its group is, and as FP (FN) if any
instance of its group is, before the filter is applied: ``template`` groups the four pronoun sets of one template
(occupation, participant, case, answer), ``coref_dir`` the two answers of one pronoun (occupation, participant,
pronoun set, case). The bootstrap resamples (occupation, participant, case) groups, which hold whole groups of
both pairings, so its intervals are those of the paired scores too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import structured_inputs, validation
from .blocks import unit_blocks
from .resampling import UnitRows, bootstrap_test, safe_div
from .result import Cell, MeasureResult, measure_result

PREDICTIONS = ("occupation", "participant", "neither")
ANSWERS = ("occupation", "participant")
PRONOUN_SETS = ("he", "she", "they", "xe")
CASES = ("nom", "acc", "poss")
# compute_performance.py's filters, in its order (None: every instance), and its pairings.
FILTERS = (None, *CASES, *PRONOUN_SETS)
PAIRINGS = (None, "template", "coref_dir")
SCORES = ("precision", "recall", "f1", "accuracy")
_COUNTS = ("tp", "fp", "n")


def _score_name(score: str, pairing: str | None = None, kept: str | None = None) -> str:
    """The flat key of one score: ``accuracy``, ``accuracy/they``, ``paired_template/f1/nom``, ...

    In the structure, the filter is the score's group and the pairing its condition (``paired_template``).

    Examples
    --------
    >>> _score_name("accuracy"), _score_name("f1", "coref_dir", "xe")
    ('accuracy', 'paired_coref_dir/f1/xe')
    """
    name = score if kept is None else f"{score}/{kept}"
    return name if pairing is None else f"paired_{pairing}/{name}"


_CELLS = [(pairing, kept) for pairing in PAIRINGS for kept in FILTERS]
_COLUMN = {
    (pairing, kept, count): index
    for index, (pairing, kept, count) in enumerate(
        (pairing, kept, count) for pairing, kept in _CELLS for count in _COUNTS
    )
}
TESTED = tuple(_score_name("accuracy", None, kept) for kept in FILTERS)


def _statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
    """Every score of every pairing and filter, from the column sums of TP, FP and instances."""
    scores = {}
    for pairing, kept in _CELLS:
        tp, fp, n = (sums[..., _COLUMN[pairing, kept, count]] for count in _COUNTS)
        # Upstream's scorer calls a cell without predicted links fully precise; a cell without instances has no
        # precision at all.
        precision = np.where(n == 0, np.nan, np.where(tp + fp == 0, 1.0, safe_div(tp, tp + fp)))
        recall = safe_div(tp, n)
        product = 2 * precision * recall
        with np.errstate(invalid="ignore"):
            f1 = np.where(product != 0, safe_div(product, precision + recall), 0.0)
        values = {"precision": precision, "recall": recall, "f1": f1, "accuracy": safe_div(tp, n)}
        scores.update({_score_name(score, pairing, kept): values[score] for score in SCORES})
    return scores


def _groups(*keys: Sequence) -> np.ndarray:
    """The group index of each instance for the given key columns, numbered in first-seen order."""
    seen: dict = {}
    return np.asarray([seen.setdefault(key, len(seen)) for key in zip(*keys)], dtype=int)


def _all_in_group(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Per instance, whether ``values`` holds for every instance of its group (upstream's group ``min``)."""
    failing = np.zeros(groups.max() + 1, dtype=int)
    np.add.at(failing, groups, ~values)
    return failing[groups] == 0


def _any_in_group(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Per instance, whether ``values`` holds for some instance of its group (upstream's group ``max``)."""
    holding = np.zeros(groups.max() + 1, dtype=int)
    np.add.at(holding, groups, values)
    return holding[groups] > 0


def _count_rows(
    predictions: np.ndarray,
    references: np.ndarray,
    occupations: list,
    participants: list,
    pronoun_sets: np.ndarray,
    cases: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Per (occupation, participant, case) unit, the TP, FP and instance counts of every pairing and filter; and
    each instance's unit."""
    named_answer = predictions == references
    distractors = np.where(references == "occupation", "participant", "occupation")
    named_distractor = predictions == distractors
    found = {None: (named_answer, named_distractor)}
    pairing_keys = {
        "template": (occupations, participants, cases, references),
        "coref_dir": (occupations, participants, pronoun_sets, cases),
    }
    for pairing, keys in pairing_keys.items():
        groups = _groups(*keys)
        found[pairing] = (_all_in_group(named_answer, groups), _any_in_group(named_distractor, groups))
    masks = {None: np.ones(len(predictions), dtype=bool)}
    masks.update({case: cases == case for case in CASES})
    masks.update({name: pronoun_sets == name for name in PRONOUN_SETS})
    units = _groups(occupations, participants, cases)
    features = np.zeros((len(predictions), len(_COLUMN)))
    for pairing, kept in _CELLS:
        tp, fp = found[pairing]
        mask = masks[kept]
        features[:, _COLUMN[pairing, kept, "tp"]] = tp & mask
        features[:, _COLUMN[pairing, kept, "fp"]] = fp & mask
        features[:, _COLUMN[pairing, kept, "n"]] = mask
    rows = np.zeros((units.max() + 1, len(_COLUMN)))
    np.add.at(rows, units, features)
    return rows, units


def winopron_accuracy(
    predictions: Sequence[str],
    references: Sequence[str],
    occupations: Sequence[str],
    participants: Sequence[str],
    pronoun_sets: Sequence[str],
    cases: Sequence[str],
    *,
    block_ids: Sequence | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """WinoPron's precision, recall, F1 and accuracy per pronoun set and case, unpaired and paired, as upstream.

    The bootstrap resamples (occupation, participant, case) groups, or blocks of them.

    Parameters
    ----------
    predictions : list of str
        what the system resolved the pronoun to: `occupation`, `participant`
        or `neither` (no link, or both).
    references : list of str
        the correct answer, `occupation` or `participant`.
    occupations : list of str
        the sentence's occupation noun, e.g. `technician`.
    participants : list of str
        the sentence's participant noun, e.g. `customer`.
    pronoun_sets : list of str
        the pronoun set, `he`, `she`, `they` or `xe` (whatever the case).
    cases : list of str
        the pronoun's grammatical case, `nom`, `acc` or `poss`.
    block_ids : list of str or int, or list of tuple, optional
        the block of each instance: what several (occupation, participant, case) groups share and a model
        answers alike, WinoPron's occupation (its three cases' schemas); every instance of a group shares it. The
        bootstrap draws whole blocks, its intervals expanded for how few they are. Left out: every group is a
        block of its own.
    n_bootstrap : int, default 1000
        bootstrap resamples (at most 10,000,000); 0 switches significance off.
    seed : int, default 0
        non-negative seed of the resampling, so results are reproducible.

    Returns
    -------
    MeasureResult
        The scores (a filter is a score's group, a pairing its condition), with the unit rows its significance
        resampled. Its flat keys (fractions, not percentages):

        * ``precision``, ``recall``, ``f1``, ``accuracy`` over every instance, and the same with
          ``/<filter>`` for the filters `nom`, `acc`, `poss`, `he`, `she`, `they`, `xe` (e.g.
          ``accuracy/xe``), as ``compute_performance.py`` prints them without pairing;
        * the same with the prefix ``paired_template/`` and ``paired_coref_dir/`` (its pairings);
        * ``num_instances``;
        * for ``accuracy`` and ``accuracy/<filter>``: ``_ci_low`` and ``_ci_high`` (95% percentile
          interval), and ``_p_value`` always None (an accuracy has no null value);
        * ``undefined``: every key whose value is None, mapped to the reason.

    Raises
    ------
    ValueError
        If the inputs differ in length or are empty; a prediction, reference, pronoun set or case
        is not one of the labels above; an occupation or participant is not a non-empty string, or
        an instance's occupation and participant are the same noun; a block id is no id, or a group's
        instances lie in two blocks; or ``n_bootstrap`` or ``seed`` is invalid.

    Notes
    -----
    TP: the answer named; FP: the distractor named. precision = TP / (TP + FP) (1.0 when both are
    0), recall = TP / (TP + FN) = accuracy = TP / instances, F1 = 2PR / (P + R) (0 when 2PR = 0).
    Paired: an instance is TP only if its whole group is, FP if any of its group is; groups are
    the four pronoun sets of a template (``template``) or the two answers of a pronoun
    (``coref_dir``), formed over all instances before filtering.

    Undefined cases (None, with the reason under ``undefined``): precision, recall, F1 and accuracy of a
    filter that keeps no instance; the ``_p_value`` keys always; the intervals with
    ``n_bootstrap=0``.

    References
    ----------
    Gautam, V., Steuer, J., Bingert, E., Johns, R., Lauscher, A. and Klakow, D. (2024). Revisiting
    English Winogender Schemas for Consistency, Coverage, and Grammatical Case. CRAC 2024.

    Examples
    --------
    One template in four pronoun sets; the system names the distractor for "xe":

    >>> from corefbias.measures.winopron_accuracy import winopron_accuracy
    >>> result = winopron_accuracy(
    ...     ["participant", "participant", "participant", "occupation"],
    ...     ["participant"] * 4,
    ...     ["technician"] * 4,
    ...     ["customer"] * 4,
    ...     ["he", "she", "they", "xe"],
    ...     ["nom"] * 4,
    ...     n_bootstrap=0,
    ... )
    >>> result["accuracy"], result["precision"], result["accuracy/xe"], result["accuracy/he"]
    (0.75, 0.75, 0.0, 1.0)
    >>> result["paired_template/accuracy"], result["paired_template/precision"]
    (0.0, 0.0)
    """
    validation.check_lengths(
        predictions=predictions,
        references=references,
        occupations=occupations,
        participants=participants,
        pronoun_sets=pronoun_sets,
        cases=cases,
        optional={"block_ids": block_ids},
    )
    structured_inputs.check_significance(n_bootstrap, seed)
    structured_inputs.check_labels("predictions", predictions, PREDICTIONS)
    structured_inputs.check_labels("references", references, ANSWERS)
    structured_inputs.check_labels("pronoun_sets", pronoun_sets, PRONOUN_SETS)
    structured_inputs.check_labels("cases", cases, CASES)
    occupations = validation.check_ids("occupations", occupations, integers=False)
    participants = validation.check_ids("participants", participants, integers=False)
    for index, (occupation, participant) in enumerate(zip(occupations, participants)):
        if occupation == participant:
            raise ValueError(
                f"instance {index} has the occupation and the participant {occupation!r}; the two entities must "
                f"differ, or a named noun could not tell the answer from the distractor"
            )
    rows, units = _count_rows(
        np.asarray(predictions),
        np.asarray(references),
        occupations,
        participants,
        np.asarray(pronoun_sets),
        np.asarray(cases),
    )
    names = [
        f"({occupation}, {participant}, {case})"
        for occupation, participant, case in zip(occupations, participants, cases)
    ]
    unit_names = dict(zip(units.tolist(), names))
    blocks = unit_blocks(block_ids, units, [unit_names[index] for index in range(len(rows))], unit="group")
    scores = _statistic(rows.sum(axis=0))
    scores["num_instances"] = len(predictions)
    reasons = {}
    cells = {}
    for pairing, kept in _CELLS:
        for score in SCORES:
            key = _score_name(score, pairing, kept)
            reasons[key] = f"no instance with {kept} was given"
            if pairing is not None or kept is not None:
                cells[key] = (Cell(None if pairing is None else f"paired_{pairing}", kept), score)
    inferences = bootstrap_test(
        rows,
        _statistic,
        dict.fromkeys(TESTED),
        n_bootstrap=n_bootstrap,
        seed=seed,
        unit="(occupation, participant, case) group",
        blocks=blocks,
    )
    return measure_result(
        "winopron_accuracy",
        scores,
        reasons,
        inferences,
        n_bootstrap=n_bootstrap,
        cells=cells,
        significance_reasons=dict.fromkeys(
            TESTED, "an accuracy has no null value to test; it is reported with its CI only"
        ),
        unit_rows=UnitRows(np.asarray(rows, dtype=float), _statistic, TESTED, blocks=blocks),
    )
