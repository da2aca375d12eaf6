"""Metric functions hand over the unit rows their significance resamples (``MeasureResult.unit_rows``).

For each metric that bootstraps, the statistic of its unit rows' column sums must reproduce every tested
score: a paired comparison of two models resamples exactly these rows.
"""

import math

import numpy as np
import pytest

from corefbias.measures import (
    abc_fpr_ratio,
    counter_gap_delta_i,
    gap_acc_bias,
    gap_w_bias,
    pro_anti_conll_f1,
    pro_anti_diff,
    winogender_bias,
)
from corefbias.measures.resampling import UnitRows
from corefbias.measures.result import MeasureResult

A, B, NONE = [True, False], [False, True], [False, False]
N_BOOTSTRAP = 50


def pro_anti_inputs():
    """Pro: 3 resolved, 1 linked to the other occupation; anti: 1 resolved, 1 to the other, 2 unlinked."""
    return {
        "predictions": [True, True, True, False, True, False, None, None],
        "references": [True] * 8,
        "conditions": ["pro"] * 4 + ["anti"] * 4,
        "pair_ids": [1, 2, 3, 4] * 2,
        "groups": ["a", "b", "a", "b"] * 2,
    }


def abc_inputs():
    """Four triplets, two per occupation stereotype."""
    linked = {
        ("female", 0): (True, True, False),
        ("female", 1): (True, False, True),
        ("male", 0): (True, True, True),
        ("male", 1): (False, True, False),
    }
    inputs = {key: [] for key in ("predictions", "references", "pronoun_genders", "occupation_genders", "triplet_ids")}
    for (stereotype, index), flags in linked.items():
        for pronoun, flag in zip(abc_fpr_ratio.PRONOUN_GENDERS, flags):
            inputs["predictions"].append(flag)
            inputs["references"].append(pronoun == "neutral")
            inputs["pronoun_genders"].append(pronoun)
            inputs["occupation_genders"].append(stereotype)
            inputs["triplet_ids"].append(f"{stereotype}{index}")
    return inputs


def gap_inputs():
    return {
        "predictions": [A, [True, True], B, B, A, NONE, A, B, NONE, A],
        "references": [A, B, A, B, NONE, A, A, B, B, NONE],
        "genders": ["male", "male", "female", "female", "female", "male", "female", "male", "female", "male"],
    }


def counter_gap_inputs():
    roles = ["original", "gender_controlled", "gender_swapped_1", "gender_swapped_2"]
    patterns = [(1, 1, 0, 0), (1, 0, 1, 1), (0, 0, 0, 1), (1, 1, 1, 1), (0, 1, 1, 0), (1, 1, 0, 1)]
    originals = ["male", "female", "male", "female", "female", "male"]
    inputs = {"predictions": [], "references": [], "quadruple_ids": [], "roles": [], "genders": []}
    for index, (pattern, original) in enumerate(zip(patterns, originals)):
        other = "female" if original == "male" else "male"
        for role, correct, gender in zip(roles, pattern, [original, original, other, other]):
            inputs["references"].append(A)
            inputs["predictions"].append(A if correct else B)
            inputs["quadruple_ids"].append(f"q{index}")
            inputs["roles"].append(role)
            inputs["genders"].append(gender)
    return inputs


GOLD = [[(0, 3), (10, 12)], [(5, 8)]]
WRONG = [[(0, 3)], [(5, 8), (10, 12)]]


def conll_inputs():
    return {
        "keys": [GOLD] * 8,
        "responses": [GOLD, GOLD, GOLD, WRONG, GOLD, [], WRONG, GOLD],
        "conditions": ["pro"] * 4 + ["anti"] * 4,
        "pair_ids": ["p1", "p2", "p3", "p4"] * 2,
    }


def winogender_inputs():
    rows = [
        # pair, occupation, gender, reference, prediction
        ("a.1", "a", "female", "occupation", "occupation"),
        ("a.1", "a", "male", "occupation", "participant"),
        ("a.1", "a", "neutral", "occupation", "neither"),
        ("b.1", "b", "female", "participant", "participant"),
        ("b.1", "b", "male", "participant", "participant"),
        ("c.1", "c", "male", "occupation", "occupation"),
        ("c.1", "c", "female", "occupation", "participant"),
        ("c.2", "c", "female", "participant", "participant"),
        ("c.2", "c", "male", "participant", "occupation"),
    ]
    bls = {"a": 90.0, "b": 40.0, "c": 20.0}
    bergsma = {"a": 70.0, "b": 10.0, "c": 10.0}
    return {
        "predictions": [row[4] for row in rows],
        "references": [row[3] for row in rows],
        "occupations": [row[1] for row in rows],
        "genders": [row[2] for row in rows],
        "pair_ids": [row[0] for row in rows],
        "bls_pct_female": [bls[row[1]] for row in rows],
        "bergsma_pct_female": [bergsma[row[1]] for row in rows],
    }


CASES = {
    "pro_anti_diff": (pro_anti_diff.pro_anti_diff, pro_anti_inputs, {}),
    "pro_anti_diff/f1": (pro_anti_diff.pro_anti_diff, pro_anti_inputs, {"score": "f1"}),
    "pro_anti_diff/drop": (pro_anti_diff.pro_anti_diff, pro_anti_inputs, {"unlinked": "drop"}),
    "fpr_ratio": (abc_fpr_ratio.abc_fpr_ratio, abc_inputs, {}),
    "fpr_ratio/items": (abc_fpr_ratio.abc_fpr_ratio, lambda: {**abc_inputs(), "triplet_ids": None}, {}),
    "acc_bias": (gap_acc_bias.gap_acc_bias, gap_inputs, {}),
    "w_bias": (gap_w_bias.gap_w_bias, gap_inputs, {"weights": [1.0, 3.0, 0.5, 1.5, 0.0, 2.0, 1.0, 1.0, 0.5, 0.0]}),
    "delta_i": (counter_gap_delta_i.counter_gap_delta_i, counter_gap_inputs, {}),
    "pro_anti_conll_f1": (pro_anti_conll_f1.pro_anti_conll_f1, conll_inputs, {}),
    "winogender_bias": (winogender_bias.winogender_bias, winogender_inputs, {}),
}


def assert_rows_reproduce_the_tested_scores(unit_rows: UnitRows, result: dict) -> None:
    assert isinstance(unit_rows, UnitRows) and unit_rows.tested
    observed = unit_rows.statistic(unit_rows.rows.sum(axis=0))
    for name in unit_rows.tested:
        assert f"{name}_p_value" in result  # a tested score carries significance keys
        value = float(observed[name])
        if result[name] is None:
            assert not math.isfinite(value), name
        else:
            assert value == pytest.approx(result[name], rel=1e-12, abs=1e-15), name


@pytest.mark.parametrize("n_bootstrap", [0, N_BOOTSTRAP])
@pytest.mark.parametrize("case", list(CASES))
def test_every_result_carries_rows_that_reproduce_the_tested_scores(case, n_bootstrap):
    function, inputs, options = CASES[case]
    result = function(**inputs(), **options, n_bootstrap=n_bootstrap, seed=3)
    assert isinstance(result, MeasureResult)
    assert result.unit_rows.rows.dtype == float and result.unit_rows.rows.ndim == 2
    assert_rows_reproduce_the_tested_scores(result.unit_rows, result)
    # The tested scores are the ones the result reports with a bootstrap interval (a correlation's is Fisher's).
    tested = {
        estimate.key
        for _, _, estimate in result.estimates()
        if "ci_low" in estimate.reported and not estimate.key.startswith("pearson_r")
    }
    assert tested == set(result.unit_rows.tested)


def test_the_rows_are_the_units_each_metric_resamples():
    rows = {
        case: function(**inputs(), **options, n_bootstrap=0).unit_rows
        for case, (function, inputs, options) in CASES.items()
    }
    assert len(rows["pro_anti_diff"].rows) == 4  # pairs
    assert len(rows["fpr_ratio"].rows) == 4  # triplets
    assert len(rows["fpr_ratio/items"].rows) == 12  # items
    assert len(rows["acc_bias"].rows) == len(rows["w_bias"].rows) == 10  # examples
    assert len(rows["delta_i"].rows) == 6  # quadruples
    assert len(rows["pro_anti_conll_f1"].rows) == 4  # pairs of documents
    assert len(rows["winogender_bias"].rows) == 4  # pairs
    assert rows["pro_anti_diff"].tested == ("diff", "log2_ratio", "diff/a", "log2_ratio/a", "diff/b", "log2_ratio/b")
    assert rows["acc_bias"].tested == tuple(gap_acc_bias.ACC_BIAS_NULLS)
    assert rows["w_bias"].tested == tuple(gap_w_bias.W_BIAS_NULLS)
    assert rows["delta_i"].tested == tuple(counter_gap_delta_i.SIGNIFICANCE_NULLS)
    assert rows["winogender_bias"].tested == tuple(winogender_bias.SIGNIFICANCE_NULLS)
    assert rows["pro_anti_conll_f1"].tested == ("diff",)
    suffixes = ("", "/female_occupations", "/male_occupations")
    assert rows["fpr_ratio"].tested == (
        *(name + suffix for suffix in suffixes for name in ("fpr_ratio", "log2_fpr_ratio")),
        "genda_lens_gender_effect_size",  # GenDa Lens's own, the stereotype groups averaged
        *("tpr_reflexive" + suffix for suffix in suffixes),  # an interval only: a rate has no null
    )


def test_unit_positions_only_where_units_depend_on_the_answers():
    for case, (function, inputs, options) in CASES.items():
        unit_rows = function(**inputs(), **options, n_bootstrap=0).unit_rows
        if case != "pro_anti_diff/drop":
            assert unit_rows.unit_positions is None, case
    dropped = pro_anti_diff.pro_anti_diff(**pro_anti_inputs(), unlinked="drop", n_bootstrap=0)
    np.testing.assert_array_equal(dropped.unit_rows.unit_positions, [0, 1, 2, 3])  # every pair keeps a pro example
    unpaired = {**pro_anti_inputs(), "pair_ids": None}
    kept = pro_anti_diff.pro_anti_diff(**unpaired, unlinked="drop", n_bootstrap=0)
    np.testing.assert_array_equal(kept.unit_rows.unit_positions, [0, 1, 2, 3, 4, 5])  # the two unlinked are left out
    assert len(kept.unit_rows.rows) == 6


def test_every_pronoun_unlinked_and_dropped_hands_over_empty_rows():
    # No example is left: the rows are empty (as is every score), and so are their positions.
    inputs = {
        "predictions": [None] * 4,
        "references": [True] * 4,
        "conditions": ["pro", "anti"] * 2,
        "pair_ids": ["a", "a", "b", "b"],
        "groups": ["female", "female", "male", "male"],
        "unlinked": "drop",
        "n_bootstrap": N_BOOTSTRAP,
    }
    scored = pro_anti_diff.pro_anti_diff(**inputs)
    assert scored["pro"] is None and scored["diff"] is None
    assert scored.unit_rows.rows.shape == (0, 3 * 8)  # all examples and two groups, (pro, anti) x 4 outcomes
    assert scored.unit_rows.unit_positions.size == 0
    assert_rows_reproduce_the_tested_scores(scored.unit_rows, scored)


def test_every_pro_pronoun_unlinked_and_dropped_leaves_the_pairs_and_undefined_scores():
    scored = pro_anti_diff.pro_anti_diff(
        predictions=[None, True, None, False],
        references=[True] * 4,
        conditions=["pro", "anti"] * 2,
        pair_ids=["a", "a", "b", "b"],
        unlinked="drop",
        n_bootstrap=N_BOOTSTRAP,
    )
    assert scored["pro"] is None and scored["anti"] == 0.5 and scored["diff"] is None
    np.testing.assert_array_equal(scored.unit_rows.unit_positions, [0, 1])
    assert_rows_reproduce_the_tested_scores(scored.unit_rows, scored)


def test_w_bias_return_weights_puts_them_among_the_extras():
    options = CASES["w_bias"][2]
    scored = gap_w_bias.gap_w_bias(**gap_inputs(), **options, return_weights=True, n_bootstrap=0)
    assert scored.extras == {"variant": "given", "weights": options["weights"]}
    assert scored["weights"] == options["weights"]
    assert "weights" not in gap_w_bias.gap_w_bias(**gap_inputs(), **options, n_bootstrap=0)
    assert_rows_reproduce_the_tested_scores(scored.unit_rows, scored)


def test_w_bias_from_properties_hands_over_its_weighted_rows():
    inputs = {
        "predictions": [A, B, NONE, A, B, A],
        "references": [A, B, A, A, B, B],
        "genders": ["male", "female", "male", "female", "male", "female"],
        "num_names": [2, 3, 2, 4, 3, 2],
        "correct_ranks": [1, 2, 1, 1, 2, 1],
    }
    for variant in ("w", "wt"):
        scored = gap_w_bias.gap_w_bias(**inputs, variant=variant, n_bootstrap=N_BOOTSTRAP)
        assert scored.extras == {"variant": variant}
        assert_rows_reproduce_the_tested_scores(scored.unit_rows, scored)


def test_undefined_scores_come_from_undefined_statistics():
    # No male example has a positive candidate: acc-Bias and W-Bias are undefined.
    inputs = {"predictions": [A, A, B], "references": [NONE, A, B], "genders": ["male", "female", "female"]}
    for scored in (
        gap_acc_bias.gap_acc_bias(**inputs, n_bootstrap=N_BOOTSTRAP),
        gap_w_bias.gap_w_bias(**inputs, weights=[0.0, 1.0, 2.0], n_bootstrap=N_BOOTSTRAP),
    ):
        assert scored["acc_bias" if "acc_bias" in scored else "w_bias"] is None
        assert_rows_reproduce_the_tested_scores(scored.unit_rows, scored)


def test_the_unit_rows_are_read_only():
    scored = gap_acc_bias.gap_acc_bias(**gap_inputs(), n_bootstrap=0)
    with pytest.raises(AttributeError):
        scored.unit_rows = None
