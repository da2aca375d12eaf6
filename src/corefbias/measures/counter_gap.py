"""Counter-GAP bias measures (Xie et al.): Acc_Diff (Eq. 1), I_across (Eq. 2), I_within (Eq. 3),
ΔI = I_across − I_within (Eq. 4), their M/F and M2F/F2M breakdowns (Table 3), the original- vs
counterfactual-gender check and Spearman's ρ (Table 4).

An instance is correct iff both candidate decisions equal gold (Sec. 4: the TRUE name and none of
the FALSE names are in the pronoun's cluster). The resampling unit is the quadruple.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

from . import validation
from .resampling import Scored, UnitRows, bootstrap_test, safe_div
from .result_format import finalize

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
}

_REASONS = {
    "i_across_m2f": "no quadruple has a male original instance, so there is no M2F direction",
    "i_across_f2m": "no quadruple has a female original instance, so there is no F2M direction",
    "i_across_diff": "one swapping direction (M2F or F2M) has no quadruples",
    "spearman_rho": "the per-quadruple I_across score or the original gender is constant, so ρ is undefined",
    "spearman_p_value": "the per-quadruple I_across score or the original gender is constant, so ρ is undefined",
}


def statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
    """Every Counter-GAP score as a function of the column sums over quadruples."""
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
    order, table = validation.unit_table(
        quadruple_ids, roles, ROLES, unit="quadruple", member="instance", ids_name="quadruple_ids"
    )
    gender = np.asarray(genders)[table]
    same_side = (gender[:, 0] == gender[:, 1]) & (gender[:, 2] == gender[:, 3]) & (gender[:, 0] != gender[:, 2])
    if not same_side.all():
        first_bad = int(np.flatnonzero(~same_side)[0])
        raise ValueError(
            f"quadruple {order[first_bad]!r} has genders {dict(zip(ROLES, gender[first_bad]))}; the original and "
            f"gender-controlled instances must share one gender and both gender-swapped instances the other"
        )
    return order, table, gender[:, 0] == "male"


def quadruple_rows(correct: np.ndarray, table: np.ndarray, original_male: np.ndarray) -> np.ndarray:
    """The per-quadruple columns of ``_COLUMNS`` from instance correctness."""
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
    """Table 4's ρ between a quadruple's I_across score and its original gender (male 1, female −1)."""
    across = rows[:, _COLUMN["across"]]
    gender = np.where(rows[:, _COLUMN["original_male"]] == 1, 1.0, -1.0)
    if np.ptp(across) == 0 or np.ptp(gender) == 0:
        return float("nan"), float("nan")
    result = stats.spearmanr(gender, across)
    return float(result.statistic), float(result.pvalue)


def delta_i(
    predictions: Sequence,
    references: Sequence,
    quadruple_ids: Sequence,
    roles: Sequence[str],
    genders: Sequence[str],
    *,
    n_bootstrap: int = 1000,
    seed: int = 0,
    return_unit_rows: bool = False,
) -> dict | Scored:
    """All Counter-GAP scores for per-instance ``[A_coref, B_coref]`` predictions and gold labels.

    The bootstrap resamples quadruples.

    Parameters
    ----------
    return_unit_rows : bool, default False
        Also hand over the unit rows the significance resamples, for a paired comparison of two models.

    Returns
    -------
    dict or Scored
        The flat result; with ``return_unit_rows=True``, it and its unit rows (``resampling.Scored``).
    """
    validation.check_lengths(
        predictions=predictions, references=references, quadruple_ids=quadruple_ids, roles=roles, genders=genders
    )
    validation.check_n_bootstrap(n_bootstrap, seed)
    predicted = validation.check_binary_pairs("predictions", predictions)
    gold = validation.check_binary_pairs("references", references)
    validation.check_labels("roles", roles, ROLES)
    validation.check_labels("genders", genders, GENDERS)
    _, table, original_male = _quadruple_table(quadruple_ids, roles, genders)
    correct = (predicted == gold).all(axis=1)
    rows = quadruple_rows(correct, table, original_male)

    scores = statistic(rows.sum(axis=0))
    rho, rho_p = spearman_across_vs_original_gender(rows)
    scores.update(spearman_rho=rho, spearman_p_value=rho_p, num_quadruples=len(rows))
    inferences = bootstrap_test(rows, statistic, SIGNIFICANCE_NULLS, n_bootstrap=n_bootstrap, seed=seed)
    result = finalize(scores, _REASONS, inferences, n_bootstrap=n_bootstrap)
    if return_unit_rows:
        return Scored(result, UnitRows(np.asarray(rows, dtype=float), statistic, tuple(SIGNIFICANCE_NULLS)))
    return result
