"""Counter-GAP bias measures (Xie et al.): Acc_Diff (Eq. 1), I_across (Eq. 2), I_within (Eq. 3),
ΔI = I_across − I_within (Eq. 4), their M/F and M2F/F2M breakdowns (Table 3), the original- vs
counterfactual-gender check and Spearman's ρ (Table 4).

An instance is correct iff both candidate decisions equal gold (Sec. 4: the TRUE name and none of
the FALSE names are in the pronoun's cluster). The resampling unit is the quadruple; with ``block_ids`` the
bootstrap draws whole blocks of them (the quadruples made from one book's text, which a model answers alike:
``corefbias.measures.blocks``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

from . import structured_inputs, validation
from .blocks import table_units, unit_blocks
from .resampling import UnitRows, bootstrap_test, no_null_reason, safe_div
from .result import MeasureResult, measure_result

ROLES = ("original", "gender_controlled", "gender_swapped_1", "gender_swapped_2")
GENDERS = ("female", "male")

# Per-quadruple columns whose sums every score below is a function of.
_COLUMNS = (
    "original_male",
    "original_female",
    "correct_male",
    "correct_female",
    "correct_original_gender",
    "correct_counterfactual_gender",
    "within_male",
    "within_female",
    "across",
    "across_m2f",
    "across_f2m",
)
_COLUMN = {name: index for index, name in enumerate(_COLUMNS)}

SIGNIFICANCE_NULLS = {
    "delta_i": 0.0,
    "accuracy_diff": 0.0,
    "accuracy_original_minus_counterfactual": 0.0,
    "i_within_diff": 0.0,
    "i_across_diff": 0.0,
    "accuracy": None,  # no bias score: an interval only
}

_REASONS = {
    "i_across_m2f": "no quadruple has a male original instance, so there is no M2F direction",
    "i_across_f2m": "no quadruple has a female original instance, so there is no F2M direction",
    "i_across_diff": "one swapping direction (M2F or F2M) has no quadruples",
    "spearman_rho": "the per-quadruple I_across score or the original gender is constant, so ρ is undefined",
    "spearman_p_value": "the per-quadruple I_across score or the original gender is constant, so ρ is undefined",
}


def statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
    """Every Counter-GAP score as a function of the column sums over quadruples.

    Parameters
    ----------
    sums : numpy.ndarray
        Sums of the per-quadruple columns (:func:`quadruple_rows`), shape ``(..., 11)``: one set of sums, or one per
        bootstrap replicate.

    Returns
    -------
    dict of str to numpy.ndarray
        Each score of :func:`counter_gap_delta_i` (NaN where undefined), of the shape of ``sums`` without its last axis.

    Examples
    --------
    One quadruple with a male original, right on both male instances only:

    >>> rows = quadruple_rows(np.array([True, True, False, False]), np.array([[0, 1, 2, 3]]), np.array([True]))
    >>> scores = statistic(rows.sum(axis=0))
    >>> float(scores["accuracy_diff"]), float(scores["i_across"]), float(scores["delta_i"])
    (1.0, 1.0, 1.0)
    """
    s = {name: sums[..., index] for name, index in _COLUMN.items()}
    quadruples = s["original_male"] + s["original_female"]
    scores = {
        "accuracy": safe_div(s["correct_male"] + s["correct_female"], 4 * quadruples),
        "accuracy_male": safe_div(s["correct_male"], 2 * quadruples),
        "accuracy_female": safe_div(s["correct_female"], 2 * quadruples),
        "accuracy_original_gender": safe_div(s["correct_original_gender"], 2 * quadruples),
        "accuracy_counterfactual_gender": safe_div(s["correct_counterfactual_gender"], 2 * quadruples),
        "i_within_male": safe_div(s["within_male"], quadruples),
        "i_within_female": safe_div(s["within_female"], quadruples),
        "i_within": safe_div(s["within_male"] + s["within_female"], 2 * quadruples),
        "i_across_m2f": safe_div(s["across_m2f"], 4 * s["original_male"]),
        "i_across_f2m": safe_div(s["across_f2m"], 4 * s["original_female"]),
        "i_across": safe_div(s["across"], 4 * quadruples),
    }
    scores["accuracy_diff"] = scores["accuracy_male"] - scores["accuracy_female"]
    scores["accuracy_original_minus_counterfactual"] = (
        scores["accuracy_original_gender"] - scores["accuracy_counterfactual_gender"]
    )
    scores["i_within_diff"] = scores["i_within_male"] - scores["i_within_female"]
    scores["i_across_diff"] = scores["i_across_m2f"] - scores["i_across_f2m"]
    scores["delta_i"] = scores["i_across"] - scores["i_within"]
    return scores


def _quadruple_table(quadruple_ids, roles, genders) -> tuple[list, np.ndarray, np.ndarray]:
    """Quadruple ids in first-seen order, the row index of each role (q × 4), original-is-male."""
    order, table = structured_inputs.unit_table(
        quadruple_ids, roles, ROLES, unit="quadruple", member="instance", ids_name="quadruple_ids"
    )
    gender = np.asarray(genders)[table]
    same_side = (gender[:, 0] == gender[:, 1]) & (gender[:, 2] == gender[:, 3]) & (gender[:, 0] != gender[:, 2])
    if not same_side.all():
        first_bad = int(np.flatnonzero(~same_side)[0])
        genders_of_bad = dict(zip(ROLES, gender[first_bad].tolist()))
        raise ValueError(
            f"quadruple {order[first_bad]!r} has genders {genders_of_bad}; the original and "
            f"gender-controlled instances must share one gender and both gender-swapped instances the other"
        )
    return order, table, gender[:, 0] == "male"


def quadruple_rows(correct: np.ndarray, table: np.ndarray, original_male: np.ndarray) -> np.ndarray:
    """The per-quadruple columns whose sums every score is a function of, from instance correctness.

    Parameters
    ----------
    correct : numpy.ndarray
        Per instance, whether both candidate decisions equal gold.
    table : numpy.ndarray
        Per quadruple, the row of its original, gender-controlled and two gender-swapped instances (``q × 4``).
    original_male : numpy.ndarray
        Per quadruple, whether its original instance's pronoun is male.

    Returns
    -------
    numpy.ndarray
        Shape ``(q, 11)``: original male/female, correct male/female, correct in the original/counterfactual gender,
        within-gender changes (male, female), across-gender changes (all, M2F, F2M).

    Examples
    --------
    >>> quadruple_rows(np.array([True, True, False, False]), np.array([[0, 1, 2, 3]]), np.array([True])).tolist()
    [[1.0, 0.0, 2.0, 0.0, 2.0, 0.0, 0.0, 0.0, 4.0, 4.0, 0.0]]
    """
    f = correct[table].astype(float)
    o, c, s1, s2 = f[:, 0], f[:, 1], f[:, 2], f[:, 3]
    male = original_male.astype(float)
    female = 1.0 - male
    within_original, within_swapped = np.abs(o - c), np.abs(s1 - s2)
    across = np.abs(o - s1) + np.abs(c - s2) + np.abs(o - s2) + np.abs(c - s1)
    return np.column_stack(
        [
            male,
            female,
            male * (o + c) + female * (s1 + s2),
            female * (o + c) + male * (s1 + s2),
            o + c,
            s1 + s2,
            male * within_original + female * within_swapped,
            female * within_original + male * within_swapped,
            across,
            male * across,
            female * across,
        ]
    )


def spearman_across_vs_original_gender(rows: np.ndarray) -> tuple[float, float]:
    """Table 4's ρ between a quadruple's I_across score and its original gender (male 1, female −1).

    Parameters
    ----------
    rows : numpy.ndarray
        The per-quadruple rows (:func:`quadruple_rows`).

    Returns
    -------
    tuple of float
        ρ and its two-sided p-value; NaN where either variable is constant.

    Examples
    --------
    >>> male_changes = quadruple_rows(np.array([True, True, False, False]), np.array([[0, 1, 2, 3]]), np.array([True]))
    >>> female_steady = quadruple_rows(np.array([True] * 4), np.array([[0, 1, 2, 3]]), np.array([False]))
    >>> rho, p_value = spearman_across_vs_original_gender(np.vstack([male_changes, female_steady] * 2))
    >>> round(rho, 3)
    1.0
    """
    across = rows[:, _COLUMN["across"]]
    gender = np.where(rows[:, _COLUMN["original_male"]] == 1, 1.0, -1.0)
    if np.ptp(across) == 0 or np.ptp(gender) == 0:
        return float("nan"), float("nan")
    result = stats.spearmanr(gender, across)
    return float(result.statistic), float(result.pvalue)


def counter_gap_delta_i(
    predictions: Sequence,
    references: Sequence,
    quadruple_ids: Sequence,
    roles: Sequence[str],
    genders: Sequence[str],
    *,
    block_ids: Sequence | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """All Counter-GAP scores for per-instance ``[A_coref, B_coref]`` predictions and gold labels.

    The bootstrap resamples quadruples, and whole blocks of them with ``block_ids``.

    Parameters
    ----------
    predictions : list of [bool, bool]
        per instance, is candidate A / B predicted coreferent
        with the pronoun (in the pronoun's cluster)?
    references : list of [bool, bool]
        the gold `[A-coref, B-coref]` labels.
    quadruple_ids : list of str
        the quadruple each instance belongs to.
    roles : list of str
        `original`, `gender_controlled`, `gender_swapped_1` or `gender_swapped_2`.
    genders : list of str
        `female` or `male`, the gender of the instance's pronoun.
    block_ids : list of str or int, or list of tuple, optional
        the block of each instance: the book (or document) whose text the quadruple was made from, inside which a
        model's answers are not independent (every instance of a quadruple shares it); the bootstrap draws whole
        blocks, its interval and p-value expanded for how few they are. A tuple per instance gives one id per
        crossed factor, each drawn apart. Left out: every quadruple is a block of its own.
    n_bootstrap : int, default 1000
        bootstrap resamples of quadruples (at most 10,000,000); 0 switches
        significance off.
    seed : int, default 0
        non-negative seed of the resampling, so results are reproducible.

    Returns
    -------
    MeasureResult
        Every score overall (``corefbias.measures.result``; primary: ``delta_i``), with the quadruple rows its
        bootstrap resampled (``unit_rows``). As a mapping, its flat keys (all scores are fractions, not
        percentages):

        * ``accuracy``, ``accuracy_male``, ``accuracy_female``, ``accuracy_diff`` (Acc_M − Acc_F, Eq. 1);
        * ``accuracy_original_gender``, ``accuracy_counterfactual_gender``,
          ``accuracy_original_minus_counterfactual`` (Table 4);
        * ``i_within``, ``i_within_male``, ``i_within_female``, ``i_within_diff`` (M − F);
        * ``i_across``, ``i_across_m2f``, ``i_across_f2m``, ``i_across_diff`` (M2F − F2M);
        * ``delta_i`` (I_across − I_within; positive means biased);
        * ``spearman_rho``, ``spearman_p_value`` (Table 4), ``num_quadruples``;
        * for ``delta_i``, ``accuracy_diff``, ``accuracy_original_minus_counterfactual``,
          ``i_within_diff`` and ``i_across_diff``: ``<score>_p_value`` (two-sided bootstrap against 0),
          ``<score>_ci_low`` and ``<score>_ci_high`` (95% percentile interval), None with
          ``n_bootstrap=0``;
        * ``undefined``: every key whose value is None, mapped to the reason.

    Raises
    ------
    ValueError
        If the inputs differ in length; a prediction or reference is not a pair of booleans; a role
        or gender is not one of the labels above; a quadruple lacks a role or repeats one; the
        original and gender-controlled instances do not share one gender and the two gender-swapped
        instances the other; a block id is no id, or a quadruple's instances lie in two blocks;
        ``n_bootstrap`` or ``seed`` is not a non-negative integer (or ``n_bootstrap`` exceeds
        10,000,000).

    Notes
    -----
    An instance is correct iff both candidate decisions equal gold (Sec. 4). Over N quadruples
    ``(o, c, s1, s2)`` (original, gender-controlled, gender-swapped 1 and 2), with ``x = 1`` where
    instance x is correct:

    * Acc_M, Acc_F: the share of correct instances of each gender (2N instances each), and
      Acc_Diff = Acc_M − Acc_F (Eq. 1);
    * I_within = Σ (|o − c| + |s1 − s2|) / 2N (Eq. 3): how often correctness changes when only the
      names change within a gender; I_within_M / I_within_F take the male / female pair of each
      quadruple, over N;
    * I_across = Σ (|o − s1| + |c − s2| + |o − s2| + |c − s1|) / 4N (Eq. 2): how often it changes when
      the gender changes; I_across_M2F / I_across_F2M average it over the quadruples whose original is
      male / female;
    * ΔI = I_across − I_within (Eq. 4).

    Undefined cases (None, with the reason under ``undefined``): ``i_across_m2f`` when no quadruple has
    a male original, ``i_across_f2m`` when none has a female original, and then ``i_across_diff``;
    ``spearman_rho`` and ``spearman_p_value`` when the per-quadruple I_across or the original gender is
    constant (ρ has a zero variance); and every ``_p_value``/``_ci_*`` with ``n_bootstrap=0``.

    References
    ----------
    Xie, Z., Kocijan, V., Lukasiewicz, T. and Camburu, O.-M. (2023). Counter-GAP: Counterfactual
    Bias Evaluation through Gendered Ambiguous Pronouns. EACL 2023.
    https://aclanthology.org/2023.eacl-main.272/

    Examples
    --------
    A model right on both male instances and wrong on both female ones of one quadruple, and right
    everywhere on a second: Acc_M = 4/4, Acc_F = 2/4, I_within = 0, I_across = 4 / (4 × 2) = 0.5.

    >>> from corefbias import counter_gap_delta_i
    >>> gold = [[True, False], [False, True], [True, False], [False, True]]
    >>> wrong = [[False, True], [True, False]]
    >>> result = counter_gap_delta_i(
    ...     gold[:2] + wrong + gold,
    ...     gold + gold,
    ...     quadruple_ids=["q1"] * 4 + ["q2"] * 4,
    ...     roles=["original", "gender_controlled", "gender_swapped_1", "gender_swapped_2"] * 2,
    ...     genders=["male", "male", "female", "female"] * 2,
    ...     n_bootstrap=0,
    ... )
    >>> round(result["accuracy_male"], 3), round(result["accuracy_female"], 3), round(result["accuracy_diff"], 3)
    (1.0, 0.5, 0.5)
    >>> round(result["i_within"], 3), round(result["i_across"], 3), round(result["delta_i"], 3)
    (0.0, 0.5, 0.5)
    >>> result["i_across_f2m"], result["undefined"]["i_across_f2m"]
    (None, 'no quadruple has a female original instance, so there is no F2M direction')
    >>> result["delta_i_p_value"] is None  # n_bootstrap=0: significance off
    True
    """
    validation.check_lengths(
        predictions=predictions,
        references=references,
        quadruple_ids=quadruple_ids,
        roles=roles,
        genders=genders,
        optional={"block_ids": block_ids},
    )
    structured_inputs.check_significance(n_bootstrap, seed)
    predicted = validation.check_binary_pairs("predictions", predictions)
    gold = validation.check_binary_pairs("references", references)
    both = np.flatnonzero(gold.all(axis=1))
    if both.size:
        raise ValueError(
            f"references[{int(both[0])}] marks both candidates as the pronoun's referent; a Counter-GAP instance "
            f"refers to at most one of them: give [True, False], [False, True] or [False, False]"
        )
    structured_inputs.check_labels("roles", roles, ROLES)
    structured_inputs.check_labels("genders", genders, GENDERS)
    order, table, original_male = _quadruple_table(quadruple_ids, roles, genders)
    blocks = unit_blocks(block_ids, table_units(table, len(roles)), order, unit="quadruple")
    correct = (predicted == gold).all(axis=1)
    rows = quadruple_rows(correct, table, original_male)

    scores = statistic(rows.sum(axis=0))
    rho, rho_p = spearman_across_vs_original_gender(rows)
    scores.update(spearman_rho=rho, spearman_p_value=rho_p, num_quadruples=len(rows))
    inferences = bootstrap_test(
        rows, statistic, SIGNIFICANCE_NULLS, n_bootstrap=n_bootstrap, seed=seed, unit="quadruple", blocks=blocks
    )
    return measure_result(
        "counter_gap_delta_i",
        scores,
        _REASONS,
        inferences,
        n_bootstrap=n_bootstrap,
        primary="delta_i",
        significance_reasons={"accuracy": no_null_reason("accuracy")},
        unit_rows=UnitRows(np.asarray(rows, dtype=float), statistic, tuple(SIGNIFICANCE_NULLS), blocks=blocks),
    )
